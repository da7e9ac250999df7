package intervals_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/relations"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// BenchmarkAuditExact50x40x10 audits received 50 x 40 x 10 tables (10% and
// 20% of the interior cells marked) and the hypercube method's patterns
// at 1%, 5%, 20% and 50% primaries (tabletest.ScaleTable), each with the
// exact bounds of before (main's tuning: no bulk phase, 32 iterations per
// cell and 20,000 per component; the baseline, in the same run) and with
// the current defaults, and reports the cells left approximate and
// undetermined with the time (60 s hard stop; SDC_EXACT_LIMIT=0 lifts it
// on a loaded machine). With SDC_EXACT_ORACLE set, the current audit's
// intervals of the received tables are compared with the certified
// optimum on at least 200 cells (checkSample; minutes: the oracle is a
// dense simplex).
//
//	go test ./audit/intervals -run XXX -bench AuditExact50x40x10 -benchtime 1x
//	SDC_EXACT_LIMIT=0 SDC_EXACT_ORACLE=1 go test ./audit/intervals -run XXX -bench 'AuditExact50x40x10/received-20pct/now' -benchtime 1x
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
						*tune = tune.BeforeBulk()
					}
					opt := intervals.Options{Role: tc.role, TimeLimit: intervals.BenchLimit(), Tuning: tune}
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
					if tc.role == audit.RoleTotal && !baseline && os.Getenv("SDC_EXACT_ORACLE") != "" {
						b.StopTimer()
						b.ReportMetric(float64(checkSample(b, tb, res)), "oracle-cells")
						b.StartTimer()
					}
				}
			})
		}
	}
}

// checkSample compares the audit res of the received table tb with the
// certified optimum (intervals.CertifiedSample: the dense simplex's
// vertex, checked feasible, and its optimality proven by gonum's LU
// through weak duality) on at least 200 cells spread over the table, and
// returns how many were compared.
func checkSample(b *testing.B, tb *audit.Table, res audit.Intervals) int {
	rel, err := relations.New(tb, relations.Options{Role: audit.RoleTotal})
	if err != nil {
		b.Fatal(err)
	}
	tol := 1e-7 * rel.Scale()
	index := map[string]int{}
	for i, c := range tb.Cells {
		index[tabletest.JoinKey(c.Key)] = i
	}
	want := map[int]bool{}
	every := max(len(res.Cells)/200, 1)
	for k, r := range res.Cells {
		if k%every == 0 {
			want[index[tabletest.JoinKey(r.Key)]] = true
		}
	}
	lo, hi := intervals.CertifiedSample(b, tb, tol, func(i int) bool { return want[i] })
	compared := 0
	for _, r := range res.Cells {
		i := index[tabletest.JoinKey(r.Key)]
		if !want[i] {
			continue
		}
		if _, ok := lo[i]; !ok {
			continue // fixed by a relation alone: not in the oracle's LP
		}
		compared++
		if math.Abs(r.Lo-lo[i]) > tol || math.Abs(r.Hi-hi[i]) > tol {
			b.Errorf("%v: audit [%v, %v], oracle [%v, %v]", r.Key, r.Lo, r.Hi, lo[i], hi[i])
		}
	}
	if compared < 200 {
		b.Errorf("%d cells compared with the oracle, want at least 200", compared)
	}
	return compared
}
