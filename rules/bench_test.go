package rules_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
	"github.com/sdcaudit/sdcaudit/rules"
)

// benchCells precomputes cells as the microdata builder leaves them: the
// total, the count and the largest contributions the rules need, from 3 to
// 30 exponential contributions with two decimals.
func benchCells(n int) []*audit.Cell {
	r := rand.New(rand.NewPCG(7, 7))
	cells := make([]*audit.Cell, n)
	for i := range cells {
		k := 3 + r.IntN(28)
		vals := make([]decimal.Dec, k)
		c := &audit.Cell{HasN: true, N: int64(k), HasTotal: true}
		for j := range vals {
			vals[j] = decimal.Scaled(int64(math.Round(r.ExpFloat64()*1e5)), 2)
			c.Total = c.Total.Add(vals[j])
		}
		c.Top = sortDesc(vals, false)[:2]
		cells[i] = c
	}
	return cells
}

func magnitudeRules(b testing.TB) []rules.Sensitiver {
	var out []rules.Sensitiver
	for _, x := range []struct{ name, params string }{
		{"dominance", "sets: [{n: 2, k: 90}]"}, {"p_percent", "p: 10"}, {"pq", "p: 10, q: 50"}, {"interval", "s: 25"},
	} {
		out = append(out, mustRule(b, x.name, x.params).(rules.Sensitiver))
	}
	return out
}

// BenchmarkMagnitudeRules measures the exact verdicts of the four magnitude
// rules together (dominance, p%, p-q, interval) on precomputed cells, in
// one goroutine, as cells per second.
func BenchmarkMagnitudeRules(b *testing.B) {
	cells := benchCells(1 << 10)
	rs := magnitudeRules(b)
	flagged := 0
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	done := 0
	for i := 0; b.Loop(); i++ {
		c := cells[i&(len(cells)-1)]
		for _, r := range rs {
			if s, _ := r.Sensitive(magTable, c); s {
				flagged++
			}
		}
		done++
	}
	reportMetrics(b, done, start, cpu)
	_ = flagged
}

// BenchmarkMagnitudeFindings measures the same rules building their full
// findings (outcome and typed figures), as the pipeline's Check calls do.
// Messages and the figures' list are rendered when a finding is written:
// BenchmarkMagnitudeFindingsWritten measures that too.
func BenchmarkMagnitudeFindings(b *testing.B) { benchFindings(b, false) }

// BenchmarkMagnitudeFindingsWritten measures the rules building their
// findings and each finding's JSON (figures and message), as report.json
// writes them.
func BenchmarkMagnitudeFindingsWritten(b *testing.B) { benchFindings(b, true) }

func benchFindings(b *testing.B, write bool) {
	cells := benchCells(1 << 10)
	var rs []rules.CellRule
	for _, r := range magnitudeRules(b) {
		rs = append(rs, r.(rules.CellRule))
	}
	var buf []byte
	var scratch report.Scratch
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	done := 0
	for i := 0; b.Loop(); i++ {
		c := cells[i&(len(cells)-1)]
		for _, r := range rs {
			f := r.Check(magTable, c)
			if write {
				buf = report.AppendFinding(buf[:0], &f, &scratch)
			}
		}
		done++
	}
	reportMetrics(b, done, start, cpu)
}

// reportMetrics gives the rate per wall-clock second and per CPU second (the
// rate of one core whatever else runs on the machine).
func reportMetrics(b *testing.B, done int, start time.Time, cpu time.Duration) {
	b.ReportMetric(float64(done)/time.Since(start).Seconds(), "cells/s")
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(done)/used.Seconds(), "cells/cpu-s")
	}
}
