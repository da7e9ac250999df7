// Package racetest runs a test binary (TestMain) with the property tests
// on fewer random inputs under the race detector: rapid.checks 20 instead
// of 100, unless the command line sets rapid.checks. Each package passes
// its own race constant (set by a `race` build tag in its tests), so
// that every package must end within make test's per-package time limit
// on a loaded 2-core machine while the plain run keeps the full set.
package racetest

import (
	"flag"
	"os"
	"testing"
)

// Main parses the flags, lowers rapid.checks to 20 when race is set and
// the command line does not set it, and runs m.
func Main(m *testing.M, race bool) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if race && !set {
		if err := flag.Set("rapid.checks", "20"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
