package tabletest

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/racetest"
)

// Main runs a package's tests (TestMain) with the property tests on
// fewer random tables under the race detector (racetest.Main).
func Main(m *testing.M) { racetest.Main(m, RaceEnabled) }
