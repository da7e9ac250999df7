package suppress

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
)

// denseTable is a 50 x 40 x 10 magnitude table with every margin, like
// benchTable, but with share of the interior cells primary (the sparse
// microdata case: a few records per cell, most cells below the threshold).
func denseTable(seed uint64, share float64) *audit.Table {
	rng := rand.New(rand.NewPCG(seed, 2))
	sizes := []int{50, 40, 10}
	vals := make(map[[3]int]int64)
	ns := make(map[[3]int]int64)
	for i := 0; i < 50; i++ {
		for j := 0; j < 40; j++ {
			for k := 0; k < 10; k++ {
				n := int64(rng.IntN(8))
				var v int64
				for r := int64(0); r < n; r++ {
					v += int64(math.Exp(rng.NormFloat64()*1.2 + 5))
				}
				vals[[3]int{i, j, k}], ns[[3]int{i, j, k}] = v, n
			}
		}
	}
	tb := gridTable(sizes, func(i []int) int64 { return vals[[3]int{i[0], i[1], i[2]}] },
		func(i []int) int64 { return ns[[3]int{i[0], i[1], i[2]}] })
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") && rng.Float64() < share {
			markPrimary(c)
		}
	}
	return tb
}

// BenchmarkAuditDense3D audits the 50 x 40 x 10 table with 80% of the
// interior cells primary (one giant component), with and without Protect.
func BenchmarkAuditDense3D(b *testing.B) {
	for _, secondary := range []bool{false, true} {
		name := "audit-only"
		if secondary {
			name = "suppress+audit"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				tb := denseTable(11, 0.8)
				b.StartTimer()
				ctx := context.Background()
				t0 := time.Now()
				if secondary {
					if err := Protect(ctx, tb, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				t1 := time.Now()
				res, err := Audit(ctx, tb, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(t1.Sub(t0).Seconds(), "suppress-s")
				b.ReportMetric(time.Since(t1).Seconds(), "audit-s")
				b.ReportMetric(float64(len(res.Cells)), "suppressed")
				b.ReportMetric(float64(res.ExactlyDisclosed+res.UnderProtected), "unsafe")
				b.ReportMetric(float64(res.Undetermined), "undetermined")
			}
		})
	}
}
