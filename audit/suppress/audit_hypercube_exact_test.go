package suppress

import (
	"context"
	"math"
	"runtime"
	"testing"
)

// TestAuditHypercubeExactAgainstOracle (issue 25 item 4): hypercube
// patterns of 3-D tables whose components go to the sparse LP from the
// true values (largeComponent lowered to 40, two workers: the chunked
// exact bounds run concurrently) with an exact-bounds budget large enough
// for every cell: no interval approximate or undetermined, and every
// interval equal to the certified optimum (certifiedIntervals: gonum's LU
// proves each bound by weak duality) within 1e-7 of the table's largest
// value, on at least 200 cells per table. Under the race detector one
// table.
func TestAuditHypercubeExactAgainstOracle(t *testing.T) {
	oldL, oldI, oldB := largeComponent, exactIters, exactBudget
	defer func() { largeComponent, exactIters, exactBudget = oldL, oldI, oldB }()
	largeComponent, exactIters, exactBudget = 40, 1<<20, 1<<30
	seeds := []uint64{21, 22}
	if raceEnabled {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		tb := scaleTable(seed, []int{14, 12, 6}, 0.1)
		if err := Protect(context.Background(), tb, Options{Method: "hypercube"}); err != nil {
			t.Fatal(err)
		}
		s, err := newStructure(tb, Options{})
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-7 * s.scale()
		old := runtime.GOMAXPROCS(2)
		res, err := Audit(context.Background(), tb, Options{Workers: 2})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if res.Undetermined != 0 || res.Approximate != 0 {
			t.Fatalf("seed %d: %d undetermined, %d approximate of %d; warnings %q", seed, res.Undetermined, res.Approximate, len(res.Cells), res.Warnings)
		}
		lo, hi := certifiedIntervals(t, tb, tol)
		index := map[string]int{}
		for i, c := range tb.Cells {
			index[joinKey(c.Key)] = i
		}
		compared, bad := 0, 0
		for _, r := range res.Cells {
			i := index[joinKey(r.Key)]
			compared++
			if math.Abs(r.Lo-lo[i]) > tol || !(math.Abs(r.Hi-hi[i]) <= tol || math.IsInf(r.Hi, 1) && math.IsInf(hi[i], 1)) {
				if bad++; bad <= 10 {
					t.Errorf("seed %d %v: audit [%v, %v], oracle [%v, %v]", seed, r.Key, r.Lo, r.Hi, lo[i], hi[i])
				}
			}
		}
		sup := make([]bool, len(tb.Cells))
		for i := range tb.Cells {
			sup[i] = s.isSuppressed(i)
		}
		iv, err := s.intervals(context.Background(), sup, Options{Workers: 2, exact: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %d cells compared, %d through the sparse LP, %d exactly disclosed", seed, compared, iv.sparse, res.ExactlyDisclosed)
		if compared < 200 || iv.sparse < 200 {
			t.Fatalf("seed %d: %d cells compared, %d through the sparse LP; want at least 200 each", seed, compared, iv.sparse)
		}
	}
}
