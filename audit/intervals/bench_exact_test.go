package intervals_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// BenchmarkAuditExact50x40x10 audits received 50 x 40 x 10 tables (10% and
// 20% of the interior cells marked) and the hypercube method's patterns
// at 1%, 5%, 20% and 50% primaries (tabletest.ScaleTable), each with the
// exact bounds of before (main's tuning: no bulk phase, 32 iterations per
// cell and 20,000 per component; the baseline, in the same run) and with
// the current defaults, and reports the cells left approximate and
// undetermined with the time (60 s hard stop).
//
//	go test ./audit/intervals -run XXX -bench AuditExact50x40x10 -benchtime 1x
func BenchmarkAuditExact50x40x10(b *testing.B) {
	type tcase struct {
		name string
		make func() *audit.Table
		role audit.Role
	}
	var cases []tcase
	for _, share := range []float64{0.1, 0.2} {
		cases = append(cases, tcase{fmt.Sprintf("received-%gpct", share*100), func() *audit.Table {
			return intervals.ReceivedTable(1, []int{50, 40, 10}, share)
		}, audit.RoleTotal})
	}
	for _, share := range []float64{0.01, 0.05, 0.2, 0.5} {
		cases = append(cases, tcase{fmt.Sprintf("hypercube-%gpct", share*100), func() *audit.Table {
			tb := tabletest.ScaleTable(1, []int{50, 40, 10}, share)
			if _, err := suppress.Protect(context.Background(), tb, suppress.Options{Method: "hypercube"}); err != nil {
				b.Fatal(err)
			}
			return tb
		}, ""})
	}
	for _, tc := range cases {
		for _, baseline := range []bool{true, false} {
			name := tc.name + "/now"
			if baseline {
				name = tc.name + "/before"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					tb := tc.make()
					b.StartTimer()
					tune := intervals.BenchTuning()
					if baseline {
						tune.BulkIters, tune.ExactIters, tune.ExactBudget = 0, 32, 20000
					}
					opt := intervals.Options{Role: tc.role, TimeLimit: 60 * time.Second, Tuning: tune}
					t0 := time.Now()
					c0 := tabletest.CPUSeconds()
					res, err := intervals.Audit(context.Background(), tb, opt)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(time.Since(t0).Seconds(), "audit-s")
					b.ReportMetric(tabletest.CPUSeconds()-c0, "cpu-s")
					b.ReportMetric(float64(len(res.Cells)), "cells")
					b.ReportMetric(float64(res.Undetermined), "undetermined")
					b.ReportMetric(float64(res.Approximate), "approximate")
				}
			})
		}
	}
}
