package intervals_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// BenchmarkAuditKept50x40x10 audits, with exact bounds (Audit, the
// default tuning), the pattern the default method keeps on 50 x 40 x 10
// (tabletest.ScaleTable seed 7, as BenchmarkJointLarge3D in
// audit/suppress) at 20% and 50% primaries: the full audit Protect runs
// once on its kept pattern (finalAudit). The pattern is found first with
// the verdicts' budgets (untimed). before is the bulk phase of before
// (Tuning.BulkSplit: each lane half of 300,000 iterations, the low lane
// idle once through, a side per 150 iterations), the baseline in the same
// run; now the defaults. Iterations and
// LPs are deterministic counts; audit-s is wall time (the machine's load
// matters), cpu-s the process's CPU time.
//
//	go test ./audit/intervals -run XXX -bench AuditKept50x40x10 -benchtime 1x
func BenchmarkAuditKept50x40x10(b *testing.B) {
	for _, share := range []float64{0.2, 0.5} {
		b.Run(fmt.Sprintf("share=%v", share), func(b *testing.B) {
			tb := tabletest.ScaleTable(7, []int{50, 40, 10}, share)
			vt := intervals.DefaultTuning().BeforeBulk()
			if _, err := suppress.Protect(context.Background(), tb, suppress.Options{AuditTuning: &vt}); err != nil {
				b.Fatal(err)
			}
			for _, before := range []bool{true, false} {
				name := "now"
				if before {
					name = "before"
				}
				b.Run(name, func(b *testing.B) { auditKept(b, tb, before) })
			}
		})
	}
}

// auditKept is one variant of BenchmarkAuditKept50x40x10.
func auditKept(b *testing.B, tb *audit.Table, before bool) {
	tune := intervals.BenchTuning() // the defaults, SDC_BULK_ITERS, SDC_EXACT_ITERS
	if before {
		tune.BulkSplit, tune.BulkIters = true, 300000 // the bulk phase of before
	}
	for b.Loop() {
		t0 := time.Now()
		c0 := tabletest.CPUSeconds()
		res, st, err := intervals.AuditStats(context.Background(), tb, intervals.Options{Tuning: tune})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(t0).Seconds(), "audit-s")
		b.ReportMetric(tabletest.CPUSeconds()-c0, "cpu-s")
		b.ReportMetric(float64(len(res.Cells)), "cells")
		b.ReportMetric(float64(res.Undetermined), "undetermined")
		b.ReportMetric(float64(res.Approximate), "approximate")
		var keys []string
		for k := range st {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.ReportMetric(float64(st[k]), k)
		}
	}
}
