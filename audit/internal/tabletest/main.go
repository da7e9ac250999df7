package tabletest

import (
	"flag"
	"os"
	"testing"
)

// Main runs a package's tests (TestMain) with the property tests on
// fewer random tables under the race detector (rapid.checks 20 instead of
// 100) unless the command line sets rapid.checks: each package must end
// within make test's per-package time limit on a 2-core machine.
func Main(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if RaceEnabled && !set {
		if err := flag.Set("rapid.checks", "20"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
