package meansd

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/racetest"
)

// TestMain: under the race detector the property tests draw 20 requests
// (rapid.checks) unless the command line says otherwise
// (racetest.Main); see race_on_test.go.
func TestMain(m *testing.M) { racetest.Main(m, raceEnabled) }
