package suppress

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestMain: see tabletest.Main.
func TestMain(m *testing.M) { tabletest.Main(m) }

// heavySeeds are the seeds of the large-table tests: both under the
// normal run (one table keeps the lp pattern, the other the hypercube
// one), the first alone under the race detector.
func heavySeeds() []uint64 {
	if tabletest.RaceEnabled {
		return []uint64{6}
	}
	return []uint64{6, 3}
}
