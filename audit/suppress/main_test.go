package suppress

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
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

// protectRun is Protect's run (Result.Run).
func protectRun(ctx context.Context, t *audit.Table, opt Options) (audit.SuppressionRun, error) {
	res, err := Protect(ctx, t, opt)
	return res.Run, err
}
