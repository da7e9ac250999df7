package suppress

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// benchTable is the benchmark's 50 x 40 x 10 magnitude table with every
// margin (51*41*11 cells) and 5% of the interior cells primary.
func benchTable(seed uint64) *audit.Table {
	rng := rand.New(rand.NewPCG(seed, 1))
	sizes := []int{50, 40, 10}
	vals := make(map[[3]int]int64)
	for i := 0; i < 50; i++ {
		for j := 0; j < 40; j++ {
			for k := 0; k < 10; k++ {
				// Skewed business-like values, some empty cells.
				v := int64(math.Exp(rng.NormFloat64()*1.2 + 5))
				if rng.IntN(20) == 0 {
					v = 0
				}
				vals[[3]int{i, j, k}] = v
			}
		}
	}
	tb := tabletest.GridTable(sizes, func(i []int) int64 { return vals[[3]int{i[0], i[1], i[2]}] },
		func(i []int) int64 {
			if vals[[3]int{i[0], i[1], i[2]}] == 0 {
				return 0
			}
			return 1 + int64(i[0]+i[1]+i[2])%7
		})
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") && rng.IntN(20) == 0 {
			tabletest.MarkPrimary(c)
		}
	}
	return tb
}

func benchSuppressAudit(tb testing.TB, t *audit.Table, opt Options) (time.Duration, time.Duration, audit.Intervals) {
	ctx := context.Background()
	t0 := time.Now()
	if _, err := Protect(ctx, t, opt); err != nil {
		tb.Fatal(err)
	}
	t1 := time.Now()
	res, err := Audit(ctx, t, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return t1.Sub(t0), time.Since(t1), res
}

// BenchmarkSuppressAudit3D protects and audits the 50 x 40 x 10 table.
func BenchmarkSuppressAudit3D(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		t := benchTable(7)
		b.StartTimer()
		ds, da, res := benchSuppressAudit(b, t, Options{})
		s := t.Summarize()
		b.ReportMetric(ds.Seconds(), "suppress-s")
		b.ReportMetric(da.Seconds(), "audit-s")
		b.ReportMetric(float64(s.Primary), "primary")
		b.ReportMetric(float64(s.Secondary), "secondary")
		b.ReportMetric(float64(res.ExactlyDisclosed+res.UnderProtected), "unsafe")
	}
}

func TestSuppressAudit3DLarge(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	if testing.Short() {
		t.Skip("large table")
	}
	tb := benchTable(7)
	// Under the race detector (ten times slower) the audit runs with the
	// exact bounds' smaller budgets: the same pattern search and verdicts,
	// fewer exact intervals.
	var opt Options
	if tabletest.RaceEnabled {
		opt.AuditTuning = verdictTuning()
	}
	// The audit checked is the one Protect computed of the pattern it
	// leaves (Result.Audit: a large table's candidates are audited to
	// choose between them); that it equals a separate Audit of the table
	// is TestProtectKeepsCheaperPattern's and TestProtectAuditReusesAudit's
	// check, so a second audit of this table (half the test's time) would
	// prove nothing more.
	t0 := time.Now()
	pr, err := Protect(context.Background(), tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Audit == nil {
		t.Fatal("Protect returned no audit of a large table's pattern")
	}
	res := *pr.Audit
	s := tb.Summarize()
	t.Logf("cells %d, primary %d, secondary %d; suppress and audit %v; exact %d, under-protected %d, approximate %d",
		s.Cells, s.Primary, s.Secondary, time.Since(t0), res.ExactlyDisclosed, res.UnderProtected, res.Approximate)
	for _, r := range res.Cells {
		if r.Lo > r.Value+1e-6 || r.Hi < r.Value-1e-6 {
			t.Errorf("%v: [%v, %v] misses %v", r.Key, r.Lo, r.Hi, r.Value)
		}
		if r.Status == audit.StatusPrimary && (r.Exact || !r.Protected) {
			t.Errorf("primary %v: [%v, %v] value %v levels %v/%v", r.Key, r.Lo, r.Hi, r.Value, r.Lower, r.Upper)
		}
	}
}
