package suppress

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
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

// The heaviest tests that share no state (no GOMAXPROCS, no package
// variable, no hook) call t.Parallel: they run side by side after the
// others, so that this package, the last of `make test` to finish, uses
// both cores, and the race detector sees them together. Each compares
// only what it computes itself.

// raceJointWork is the joint search's work budget (JointOptions.Work)
// under the race detector in the tests whose subject is not that
// search's quality: a tenth of the default, which the race detector
// makes several times slower to spend (its dense master pivots).
const raceJointWork = 3_000

// raceJoint is the joint search's options under the race detector in the
// tests whose subject is not that search: raceJointWork, and a tenth of
// the bound-only search's budget too (JointOptions.BoundWork); the
// defaults in the plain run.
func raceJoint() JointOptions {
	if !tabletest.RaceEnabled {
		return JointOptions{}
	}
	return JointOptions{Work: raceJointWork, BoundWork: 1_000}
}

// verdictTuning is the interval audit's defaults with the exact bounds'
// budgets of before the bulk phase (intervals.Tuning.BeforeBulk), for
// tests on large tables that need the audit's verdicts, not every
// interval exact. The defaults' bulk phase is checked by
// audit/intervals' own tests.
func verdictTuning() *intervals.Tuning {
	tune := intervals.DefaultTuning().BeforeBulk()
	return &tune
}

// protectRun is Protect's run (Result.Run).
func protectRun(ctx context.Context, t *audit.Table, opt Options) (audit.SuppressionRun, error) {
	res, err := Protect(ctx, t, opt)
	return res.Run, err
}
