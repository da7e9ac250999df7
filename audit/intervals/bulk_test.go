package intervals

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestBulkPooledAgainstOracle: the bulk phase's pooled budget (the low
// lane, once through, maximises too, over other targets than the high
// lane's) gives every cell the interval of the certified optimum
// (certifiedIntervals: the dense simplex's vertex, its optimality proven
// through gonum's LU), both sides, on 3-D tables whose component goes to
// the sparse LP (largeComponent lowered) with the exact bounds of Audit;
// the chunks' budget is cut to zero so that every bound not reached by the
// bulk phase would stay approximate (here, not equal to the oracle's but
// nested in it), and the turned lane must have run (it did not exist
// before).
func TestBulkPooledAgainstOracle(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int
		seed  uint64
		share float64
	}{
		{"3d-14x12x6-30pct", []int{14, 12, 6}, 1, 0.3},
		{"3d-12x10x6-35pct", []int{12, 10, 6}, 4, 0.35},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := middleTable(tc.seed, tc.sizes, tc.share)
			tune := largeAt(40)
			tune.ExactIters, tune.ExactBudget = 0, 0 // the bulk phase alone
			opt := Options{Workers: 2, Tuning: tune, exact: true}
			s, sup, iv := runIntervals(t, tb, opt)
			tol := 1e-7 * s.Scale()
			if iv.bulkPooled == 0 {
				t.Errorf("no LP of the low lane turned high (%d bulk LPs)", iv.bulkLPs)
			}
			key := "sparse-" + tc.name
			var o oracleResult
			if v, ok := oracleCache.Load(key); ok {
				o = v.(oracleResult)
			} else {
				o.lo, o.hi = certifiedIntervals(t, tb, tol)
				oracleCache.Store(key, o)
			}
			compared, open := 0, 0
			for i := range tb.Cells {
				if !sup[i] || s.Unpublished(i) {
					continue
				}
				wlo, whi := o.lo[i], o.hi[i]
				if iv.lo[i] < wlo-tol || iv.hi[i] > whi+tol || iv.olo[i] > wlo+tol || iv.ohi[i] < whi-tol {
					t.Errorf("%v: inner [%v, %v] outer [%v, %v], oracle [%v, %v]: not nested", tabletest.JoinKey(tb.Cells[i].Key), iv.lo[i], iv.hi[i], iv.olo[i], iv.ohi[i], wlo, whi)
					continue
				}
				if !iv.exactBounds(i) {
					open++
					continue
				}
				compared++
			}
			t.Logf("%d bulk LPs (%d of the turned lane), %d iterations; %d cells exact and equal to the oracle, %d not reached", iv.bulkLPs, iv.bulkPooled, iv.bulkIters, compared, open)
			if compared == 0 {
				t.Errorf("no cell made exact by the bulk phase")
			}
		})
	}
}

// TestIdleChunksCloneNothing: a chunk of the sparse LP's exact bounds
// that solves no LP (here every chunk's budget is zero, as on the
// million-cell table, whose scaled ExactBudget leaves each of its ~20,000
// chunks no iteration) makes no clone of the solver and no copy of the
// component's bounds: only the chunks that solve an LP (the verdicts of
// targets left undetermined) start. Before, every chunk cloned the solver
// and copied two bounds as long as the component, and merged them back:
// work in chunks times cells. The intervals are those of the oracle test
// above (TestBulkPooledAgainstOracle), which runs the same tuning.
func TestIdleChunksCloneNothing(t *testing.T) {
	tb := middleTable(2, []int{60, 60}, 0.6)
	tune := largeAt(40)
	tune.ExactIters, tune.ExactBudget, tune.BulkIters = 0, 0, 0
	opt := Options{Workers: 2, Tuning: tune, exact: true}
	_, _, iv := runIntervals(t, tb, opt)
	t.Logf("%d chunks, %d started, %d solved an LP", iv.chunks, iv.chunksStarted, iv.chunksSolving)
	if iv.chunks == iv.chunksSolving {
		t.Fatalf("every one of the %d chunks solved an LP: the case tests nothing", iv.chunks)
	}
	if iv.chunksStarted != iv.chunksSolving {
		t.Errorf("%d chunks cloned the solver, %d solved an LP", iv.chunksStarted, iv.chunksSolving)
	}
}

// TestBulkSkippedBelowOneIterationPerTarget: a bulk phase whose budget
// is below one simplex iteration per target (the million-cell table's
// 55,398 iterations for 630,000 targets) does not run; one of at least
// one iteration per target does. Every interval stays nested in the
// certified optimum's (the same oracle as TestBulkPooledAgainstOracle).
func TestBulkSkippedBelowOneIterationPerTarget(t *testing.T) {
	tb := middleTable(1, []int{14, 12, 6}, 0.3)
	for _, budget := range []int{10, 1_000_000} {
		tune := largeAt(40)
		tune.BulkIters = budget
		opt := Options{Workers: 2, Tuning: tune, exact: true}
		s, sup, iv := runIntervals(t, tb, opt)
		tol := 1e-7 * s.Scale()
		t.Logf("budget %d: %d bulk LPs, %d components skipped, %d cells to the sparse LP", budget, iv.bulkLPs, iv.bulkSkipped, iv.sparse)
		if budget < iv.sparse && (iv.bulkLPs != 0 || iv.bulkSkipped != 1) {
			t.Errorf("budget %d below the %d targets: %d bulk LPs, %d skipped", budget, iv.sparse, iv.bulkLPs, iv.bulkSkipped)
		}
		if budget >= iv.sparse && (iv.bulkLPs == 0 || iv.bulkSkipped != 0) {
			t.Errorf("budget %d for %d targets: %d bulk LPs, %d skipped", budget, iv.sparse, iv.bulkLPs, iv.bulkSkipped)
		}
		var o oracleResult
		if v, ok := oracleCache.Load("sparse-3d-14x12x6-30pct"); ok {
			o = v.(oracleResult)
		} else {
			o.lo, o.hi = certifiedIntervals(t, tb, tol)
			oracleCache.Store("sparse-3d-14x12x6-30pct", o)
		}
		for i := range tb.Cells {
			if !sup[i] || s.Unpublished(i) {
				continue
			}
			if wlo, whi := o.lo[i], o.hi[i]; iv.lo[i] < wlo-tol || iv.hi[i] > whi+tol || iv.olo[i] > wlo+tol || iv.ohi[i] < whi-tol {
				t.Errorf("budget %d, %v: inner [%v, %v] outer [%v, %v], oracle [%v, %v]: not nested", budget, tabletest.JoinKey(tb.Cells[i].Key), iv.lo[i], iv.hi[i], iv.olo[i], iv.ohi[i], wlo, whi)
			}
		}
	}
}

// runIntervals builds tb's structure with opt and computes the intervals
// of its suppressed cells, as the audit does: the structure, the
// suppressed cells and the interval set.
func runIntervals(t *testing.T, tb *audit.Table, opt Options) (*structure, []bool, *intervalSet) {
	t.Helper()
	s, err := newStructure(tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	sup := make([]bool, len(tb.Cells))
	for i := range sup {
		sup[i] = s.IsSuppressed(i)
	}
	iv, err := s.intervals(context.Background(), sup, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s, sup, iv
}
