package suppress

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// budgetTable is a 2-D table whose lp method spends more than a few
// units of work (LPOptions.Work): 16 x 14 interior cells with margins
// (255 cells), about 12% of the interior primary; under the race
// detector 12 x 10 (143 cells), for time.
func budgetTable() *audit.Table {
	if tabletest.RaceEnabled {
		return scaleTable(11, []int{12, 10}, 0.12)
	}
	return scaleTable(11, []int{16, 14}, 0.12)
}

// lpOnly is the lp method's own pattern (no comparison with the
// hypercube and joint patterns) with a work budget of work units.
func lpOnly(work float64) Options {
	tune := DefaultTuning()
	tune.CompareLarge = false
	return Options{LP: LPOptions{Work: work}, Tuning: &tune}
}

// TestLPBudgetProtectsEveryPrimary: when the lp method's work budget is
// spent, every primary not yet protected gets the hypercube method's
// move, so none is left unprotected (before, the stop left them to
// review), and the run and a table warning say so with the counts.
// Protection is checked by the independent gonum attack on every primary
// (oracleProtected) and by the interval audit.
func TestLPBudgetProtectsEveryPrimary(t *testing.T) {
	ctx := context.Background()
	tb := budgetTable()
	nprim := 0
	for _, c := range tb.Cells {
		if c.Status == audit.StatusPrimary {
			nprim++
		}
	}
	if nprim < 10 {
		t.Fatalf("%d primaries: the table should have more", nprim)
	}
	opt := lpOnly(1)
	res, err := Protect(ctx, tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Run.Stopped, "the lp method's work budget (1 units") || !strings.Contains(res.Run.Stopped, "were given the hypercube method's move") {
		t.Errorf("stopped = %q, want the lp method's budget", res.Run.Stopped)
	}
	warned := false
	for _, w := range tb.Warnings {
		if strings.Contains(w, "work budget (1 units) was spent after") {
			warned = true
			// the counts add up: protected + rest = primaries
			var a, b, c int
			i := strings.Index(w, "spent after ")
			if _, err := fmt.Sscanf(w[i:], "spent after %d of %d primary cells: the other %d", &a, &b, &c); err != nil || b != nprim || a+c != b || c == 0 {
				t.Errorf("warning %q: counts %d+%d of %d (%v), want %d primaries", w, a, c, b, err, nprim)
			}
		}
	}
	if !warned {
		t.Errorf("no budget warning among %q", tb.Warnings)
	}
	if len(res.Unprotected) > 0 {
		t.Errorf("%d primaries left unprotected: %+v", len(res.Unprotected), res.Unprotected)
	}
	sup := make([]bool, len(tb.Cells))
	for i, c := range tb.Cells {
		sup[i] = c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary
	}
	if ok, why := oracleProtected(newOrTable(tb, nil, 0.10), sup); !ok {
		t.Errorf("gonum's attack: %s", why)
	}
	iv, err := Audit(ctx, tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	if iv.UnderProtected+iv.Undetermined+iv.ExactlyDisclosed > 0 {
		t.Errorf("audit: %d under-protected, %d undetermined, %d exact", iv.UnderProtected, iv.Undetermined, iv.ExactlyDisclosed)
	}

	// The default budget is not reached on this table: its own pattern,
	// cheaper, and no word of a budget (its redundancy pass audits the
	// table many times: not under the race detector).
	if tabletest.RaceEnabled {
		return
	}
	tb0 := budgetTable()
	res0, err := Protect(ctx, tb0, lpOnly(0))
	if err != nil {
		t.Fatal(err)
	}
	if res0.Run.Stopped != "" {
		t.Errorf("default budget: stopped = %q", res0.Run.Stopped)
	}
	if c0, c1 := secondaryValue(tb0), secondaryValue(tb); !(c0 < c1) {
		t.Errorf("the budget's pattern costs %v, the lp method's own %v: want the own cheaper", c1, c0)
	}
}

// secondaryCost is the value of the secondary cells of tb.
func secondaryValue(tb *audit.Table) float64 {
	c := 0.0
	for _, cell := range tb.Cells {
		if cell.Status == audit.StatusSecondary {
			c += cell.Total.Float64()
		}
	}
	return c
}

// TestLPBudgetDeterministic: a spent budget stops the lp method at the
// same point whatever the GOMAXPROCS and worker count (the work is
// counted, not timed): the default method (every pattern compared) gives
// the same statuses, run and audit at GOMAXPROCS 1 with 1 worker and at
// GOMAXPROCS 2 with 4 workers, for budgets that stop it at different
// primaries, and every primary is protected.
func TestLPBudgetDeterministic(t *testing.T) {
	ctx := context.Background()
	type outcome struct {
		status []audit.Status
		run    audit.SuppressionRun
		iv     audit.Intervals
		warn   []string
	}
	do := func(work float64, procs, workers int) outcome {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		tb := budgetTable()
		opt := Options{LP: LPOptions{Work: work}, Workers: workers, Joint: JointOptions{Off: true}}
		res, err := Protect(ctx, tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		o := outcome{run: res.Run, warn: tb.Warnings}
		for _, c := range tb.Cells {
			o.status = append(o.status, c.Status)
		}
		if res.Audit == nil {
			t.Fatal("no audit of the kept pattern")
		}
		o.iv = *res.Audit
		return o
	}
	works := []float64{1, 300}
	if tabletest.RaceEnabled {
		works = []float64{1, 60} // the smaller table
	}
	for _, work := range works {
		a, b := do(work, 1, 1), do(work, 2, 4)
		t.Logf("work %v: %s; %s", work, a.run.Stopped, a.run.ChosenReason)
		// the run's stopped when the lp pattern is kept, else the chosen
		// reason (TestLPStoppedOnlyWhenKept)
		if !strings.Contains(a.run.Stopped+a.run.ChosenReason, "the lp method's work budget") {
			t.Errorf("work %v: stopped = %q, reason %q, want the lp method's budget", work, a.run.Stopped, a.run.ChosenReason)
		}
		if !reflect.DeepEqual(a.status, b.status) || !reflect.DeepEqual(a.run, b.run) || !reflect.DeepEqual(a.warn, b.warn) {
			t.Errorf("work %v: GOMAXPROCS 1/1 worker and 2/4 workers differ:\n%+v\n%+v\n%q\n%q", work, a.run, b.run, a.warn, b.warn)
		}
		if !reflect.DeepEqual(a.iv, b.iv) {
			t.Errorf("work %v: the audits differ", work)
		}
		if n := a.iv.UnderProtected + a.iv.Undetermined + a.iv.ExactlyDisclosed; n > 0 {
			t.Errorf("work %v: %d cells need a person", work, n)
		}
	}
}
