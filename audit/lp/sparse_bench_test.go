package lp

import (
	"context"
	"hash/fnv"
	"math"
	"testing"
)

// BenchmarkSparseGrid runs the sparse simplex on the system of a 50 x 40 x
// 10 table with every margin and 47% of its cells unknown (gridRows; about
// the size of the kept pattern's component at 50% primaries in
// audit/intervals' BenchmarkAuditKept50x40x10): a bulk-like LP (maximise
// the sum of every variable over its true value) and then minima of single
// variables, for a fixed number of iterations. It reports the iterations,
// the pivots and a hash of the point reached (the same pivots give the
// same hash: a change of arithmetic shows there).
//
//	go test ./audit/lp -run XXX -bench SparseGrid -benchtime 1x
func BenchmarkSparseGrid(b *testing.B) {
	ctx := context.Background()
	rows, x0 := gridRows(11, [3]int{50, 40, 10}, 0.47)
	n := len(x0)
	for b.Loop() {
		sp, err := NewSparseAt(ctx, n, rows, x0)
		if err != nil {
			b.Fatal(err)
		}
		sp.IterLimit = 6000
		idx := make([]int, n)
		coef := make([]float64, n)
		for j := range idx {
			idx[j], coef[j] = j, -1/(x0[j]+1)
		}
		if _, err := sp.MinimizeSum(ctx, idx, coef); err != nil {
			b.Fatal(err)
		}
		sp.IterLimit = sp.Iters + 4000
		for j := 0; j < n && err == nil; j += 97 {
			_, err = sp.Optimize(ctx, j, j%2 == 0)
		}
		h := fnv.New64a()
		for j := 0; j < n; j++ {
			v := math.Float64bits(sp.Value(j))
			h.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24), byte(v >> 32), byte(v >> 40), byte(v >> 48), byte(v >> 56)})
		}
		b.ReportMetric(float64(n), "vars")
		b.ReportMetric(float64(sp.Rows()), "rows")
		b.ReportMetric(float64(sp.Iters), "iters")
		b.ReportMetric(float64(sp.Pivots), "pivots")
		b.ReportMetric(float64(h.Sum64()%1e9), "hash")
	}
}
