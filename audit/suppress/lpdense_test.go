package suppress

import (
	"context"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

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
				tb := tabletest.DenseTable(11, 0.8)
				b.StartTimer()
				ctx := context.Background()
				t0 := time.Now()
				if secondary {
					if _, err := Protect(ctx, tb, Options{}); err != nil {
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
