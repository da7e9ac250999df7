package suppress

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the property tests on fewer random tables under the race
// detector (rapid.checks 20 instead of 100) unless the command line sets
// rapid.checks: the suite must end within make test's per-package time
// limit on a 2-core machine.
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

// heavySeeds are the seeds of the large-table tests: both under the
// normal run (one table keeps the lp pattern, the other the hypercube
// one), the first alone under the race detector.
func heavySeeds() []uint64 {
	if raceEnabled {
		return []uint64{6}
	}
	return []uint64{6, 3}
}
