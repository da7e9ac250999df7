package intervals_test

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/relations"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// TestAuditHypercubeExactAgainstOracle (issue 25 item 4): hypercube
// patterns of 3-D tables whose components go to the sparse LP from the
// true values (LargeComponent lowered to 40, two workers: the chunked
// exact bounds run concurrently) with an exact-bounds budget large enough
// for every cell: no interval approximate or undetermined, and every
// interval equal to the certified optimum (CertifiedIntervals: gonum's LU
// proves each bound by weak duality) within 1e-7 of the table's largest
// value, on at least 200 cells per table. Under the race detector one
// table.
func TestAuditHypercubeExactAgainstOracle(t *testing.T) {
	tune := intervals.DefaultTuning()
	tune.LargeComponent, tune.ExactIters, tune.ExactBudget = 40, 1<<20, 1<<30
	seeds := []uint64{21, 22}
	if tabletest.RaceEnabled {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		tb := tabletest.ScaleTable(seed, []int{14, 12, 6}, 0.1)
		if _, err := suppress.Protect(context.Background(), tb, suppress.Options{Method: "hypercube"}); err != nil {
			t.Fatal(err)
		}
		rel, err := relations.New(tb, relations.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-7 * rel.Scale()
		opt := intervals.Options{Workers: 2, Tuning: &tune}
		old := runtime.GOMAXPROCS(2)
		res, err := intervals.Audit(context.Background(), tb, opt)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if res.Undetermined != 0 || res.Approximate != 0 {
			t.Fatalf("seed %d: %d undetermined, %d approximate of %d; warnings %q", seed, res.Undetermined, res.Approximate, len(res.Cells), res.Warnings)
		}
		lo, hi := intervals.CertifiedIntervals(t, tb, tol)
		index := map[string]int{}
		for i, c := range tb.Cells {
			index[tabletest.JoinKey(c.Key)] = i
		}
		compared, bad := 0, 0
		for _, r := range res.Cells {
			i := index[tabletest.JoinKey(r.Key)]
			compared++
			if math.Abs(r.Lo-lo[i]) > tol || !(math.Abs(r.Hi-hi[i]) <= tol || math.IsInf(r.Hi, 1) && math.IsInf(hi[i], 1)) {
				if bad++; bad <= 10 {
					t.Errorf("seed %d %v: audit [%v, %v], oracle [%v, %v]", seed, r.Key, r.Lo, r.Hi, lo[i], hi[i])
				}
			}
		}
		sparse, err := intervals.SparseCells(tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %d cells compared, %d through the sparse LP, %d exactly disclosed", seed, compared, sparse, res.ExactlyDisclosed)
		if compared < 200 || sparse < 200 {
			t.Fatalf("seed %d: %d cells compared, %d through the sparse LP; want at least 200 each", seed, compared, sparse)
		}
	}
}
