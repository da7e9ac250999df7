package suppress

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// BenchmarkAuditScale measures Audit on 50 x 40 x 10 tables with every
// margin (51·41·11 = 23,001 cells): the middle-density audit alone (20%
// primaries, no secondary suppression, denseTable) and the audit of
// hypercube-protected patterns at 1%, 5%, 20% and 50% primaries
// (scaleTable). The baseline metric is a plain pass over the cells (the
// structure and the suppressed set, no bounds), measured in the same run.
//
//	go test ./audit/suppress -run XXX -bench AuditScale -benchtime 1x
func BenchmarkAuditScale(b *testing.B) {
	type tcase struct {
		name    string
		make    func() *audit.Table
		protect bool
	}
	cases := []tcase{{"middle-20pct-audit-only", func() *audit.Table { return tabletest.DenseTable(11, 0.2) }, false}}
	for _, share := range []float64{0.01, 0.05, 0.2, 0.5} {
		cases = append(cases, tcase{fmt.Sprintf("hypercube-%gpct", share*100), func() *audit.Table {
			return scaleTable(1, []int{50, 40, 10}, share)
		}, true})
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				tb := tc.make()
				ctx := context.Background()
				if tc.protect {
					if _, err := Protect(ctx, tb, Options{Method: "hypercube"}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				t0 := time.Now()
				s, err := newStructure(tb, Options{})
				if err != nil {
					b.Fatal(err)
				}
				nsup := 0
				for i := range tb.Cells {
					if s.IsSuppressed(i) {
						nsup++
					}
				}
				base := time.Since(t0)
				t1 := time.Now()
				c1 := tabletest.CPUSeconds()
				res, err := Audit(ctx, tb, Options{TimeLimit: 60 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(tabletest.CPUSeconds()-c1, "cpu-s")
				b.ReportMetric(base.Seconds(), "baseline-s")
				b.ReportMetric(time.Since(t1).Seconds(), "audit-s")
				b.ReportMetric(float64(nsup), "suppressed")
				b.ReportMetric(float64(len(res.Cells)-res.Undetermined), "determined")
				b.ReportMetric(float64(res.Undetermined), "undetermined")
				b.ReportMetric(float64(res.Approximate), "approximate")
				b.ReportMetric(float64(res.ExactlyDisclosed+res.UnderProtected), "unsafe")
			}
		})
	}
}
