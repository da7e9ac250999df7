package meansd

import (
	"flag"
	"os"
	"testing"
)

// TestMain: under the race detector the property tests draw 20 requests
// (rapid.checks) unless the command line says otherwise; see
// race_on_test.go.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if raceEnabled && !set {
		if err := flag.Set("rapid.checks", "20"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
