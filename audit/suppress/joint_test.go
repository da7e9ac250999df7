package suppress

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/report"
)

// statuses lists the cells' statuses (the pattern).
func statuses(tb *audit.Table) string {
	var b strings.Builder
	for _, c := range tb.Cells {
		b.WriteString(string(c.Status))
		b.WriteByte(',')
	}
	return b.String()
}

// TestJointDiagonal is issue 25's 3x3 case: two primaries on the
// diagonal; the optimum suppresses the two other corners of their
// rectangle (cost 600), which the greedy lp method and the hypercube
// method miss. The joint search finds it, proves it optimal (lower bound
// = cost, gap 0) and each primary keeps [0, 400].
func TestJointDiagonal(t *testing.T) {
	tb := diagonalTable()
	run, err := protectRun(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sec []string
	for _, c := range tb.Cells {
		if c.Status == audit.StatusSecondary {
			sec = append(sec, strings.Join(c.Key, "/"))
		}
	}
	if strings.Join(sec, " ") != "d0_0/d1_1 d0_1/d1_0" {
		t.Errorf("secondary cells %v, want d0_0/d1_1 and d0_1/d1_0", sec)
	}
	if run.PatternCost == nil || *run.PatternCost != 600 || run.LowerBound == nil || *run.LowerBound < 600-1e-6 || run.Gap == nil || *run.Gap > 1e-8 || !run.Optimal {
		t.Errorf("run %+v: want cost 600, lower bound 600, gap 0, optimal", run)
	}
	res, err := Audit(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range res.Cells {
		if iv.Status == audit.StatusPrimary && (iv.Lo != 0 || iv.Hi != 400) {
			t.Errorf("primary %v: [%v, %v], want [0, 400]", iv.Key, iv.Lo, iv.Hi)
		}
	}
}

// TestJointNeverWorseThanHypercube: on small and middle tables (below
// the 1,200 cells where the comparison used to start) the kept pattern
// costs no more than the hypercube method's, both protecting every
// primary.
func TestJointNeverWorseThanHypercube(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	for _, sc := range jointSuite {
		hc, opt := sc.build()
		if len(hc.Cells) > 200 {
			continue
		}
		hopt := opt
		hopt.Method = "hypercube"
		if _, err := Protect(context.Background(), hc, hopt); err != nil {
			t.Fatal(err)
		}
		// The default pattern is TestJointSuite's (computed once).
		tb, _, p := sc.protected()
		if p.err != nil {
			t.Fatal(p.err)
		}
		p.state.restore(tb)
		hAudit, err := Audit(context.Background(), hc, opt)
		if err != nil {
			t.Fatal(err)
		}
		if hAudit.NeedsPerson() {
			continue // the hypercube pattern leaves a primary unprotected: no bar
		}
		hCost, _, _ := patternCost(hc)
		cost, _, _ := patternCost(tb)
		if cost > hCost+1e-9 {
			t.Errorf("%s: cost %v above the hypercube method's %v", sc.name, cost, hCost)
		}
	}
}

// TestProtectHardStop: with a time limit already spent (1 ns) Protect
// returns without error, keeps the best verified pattern it has (here:
// none, every stage stopped at once), says so in the run (stopped), and
// the audit sends the unprotected primaries to a person; the same twice
// (the fallback does not depend on how far a clock let it go: nothing
// ran). A cancelled context is an error.
func TestProtectHardStop(t *testing.T) {
	var first string
	for range 2 {
		tb := scaleTable(3, []int{12, 10, 4}, 0.05)
		opt := Options{TimeLimit: time.Nanosecond}
		run, iv, err := ProtectAudit(context.Background(), tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		if run.Stopped == "" {
			t.Errorf("run %+v: want stopped", run)
		}
		if iv == nil || !iv.NeedsPerson() {
			t.Errorf("the audit of an unfinished pattern needs a person")
		}
		if first == "" {
			first = statuses(tb)
		} else if statuses(tb) != first {
			t.Errorf("the pattern at a spent time limit differs between runs")
		}
	}
	tb := scaleTable(3, []int{12, 10, 4}, 0.05)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ProtectAudit(ctx, tb, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
}

// TestDropRedundantHonoursDeadline (issue 23 item 5): the lp method's
// redundancy pass (dropRedundant -> allProtected -> intervals) stops at
// the user's time limit: with the deadline passed it runs no audit and
// keeps every secondary cell (the pattern stays protected, only
// costlier). Before, it ran up to 4,000 audits whatever the limit.
func TestDropRedundantHonoursDeadline(t *testing.T) {
	tb := scaleTable(5, []int{8, 6, 3}, 0.08)
	opt := Options{}
	s, err := newStructure(tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	sp := &suppressor{s: s, opt: opt, sup: make([]bool, len(tb.Cells)), cost: make([]float64, len(tb.Cells)), single: make([]bool, len(tb.Cells))}
	var prim []int
	for i, c := range tb.Cells {
		sp.sup[i] = s.IsSuppressed(i)
		sp.cost[i] = s.Val[i] + 1
		if c.Status == audit.StatusPrimary {
			prim = append(prim, i)
		}
	}
	lm := newLPMethod(s, sp, opt)
	for _, p := range prim {
		if err := lm.protect(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if len(lm.added) == 0 {
		t.Fatal("no secondary cells to try")
	}
	before := len(lm.added)
	lm.deadline = time.Now().Add(-time.Second)
	if err := lm.dropRedundant(context.Background(), prim); err != nil {
		t.Fatal(err)
	}
	if lm.audits != 0 || len(lm.added) != before {
		t.Errorf("past the deadline: %d audits, %d of %d cells kept; want none and all", lm.audits, len(lm.added), before)
	}
	lm.deadline = time.Time{}
	if err := lm.dropRedundant(context.Background(), prim); err != nil {
		t.Fatal(err)
	}
	if lm.audits == 0 {
		t.Errorf("without a deadline the pass ran no audit")
	}
}

// TestJointDeterministic: the same table gives the same pattern, cost,
// bound and run record with 1 and 3 workers and at GOMAXPROCS 1 and 2
// (the search counts work, not time).
func TestJointDeterministic(t *testing.T) {
	var first string
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct{ workers, procs int }{{1, 1}, {3, 2}, {2, 1}} {
		runtime.GOMAXPROCS(tc.procs)
		sc := jointSuite[13] // 15x10, 20% primaries
		tb, opt := sc.build()
		opt.Workers = tc.workers
		run, err := protectRun(context.Background(), tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := statuses(tb) + run.Chosen + run.ChosenReason + fmtF(run.PatternCost) + fmtF(run.LowerBound) + fmtF(run.Gap)
		if first == "" {
			first = got
		} else if got != first {
			t.Errorf("workers %d, GOMAXPROCS %d: a different pattern or run record", tc.workers, tc.procs)
		}
	}
}

func fmtF(p *float64) string {
	if p == nil {
		return "nil"
	}
	return fmtCost(*p)
}

// TestProtectAuditIdenticalAtAnyWorkers: the audit Protect returns (the
// patterns compared by their verdicts, the kept one audited whole) is
// the same, byte for byte, with 1, 2 and 3 workers and at GOMAXPROCS 1 and
// 2, and equals a separate Audit of the table left, on a table whose
// components all take the large-component path (LargeComponent 20: the
// verdicts-only audit is partial there, so the whole audit runs after).
func TestProtectAuditIdenticalAtAnyWorkers(t *testing.T) {
	var first string
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cases := []struct{ workers, procs int }{{1, 1}, {3, 2}, {2, 1}}
	if tabletest.RaceEnabled {
		cases = cases[:2] // one worker against three, on one and two cores
	}
	for _, tc := range cases {
		runtime.GOMAXPROCS(tc.procs)
		tb := scaleTable(3, []int{12, 10, 4}, 0.1)
		tune := intervals.DefaultTuning()
		tune.LargeComponent = 20
		opt := Options{Workers: tc.workers, AuditTuning: &tune}
		if tabletest.RaceEnabled {
			// The joint search (97% of the CPU, in its master LPs)
			// does not depend on the workers: under the race detector
			// a tenth of its default budget, still spent whole on this
			// table, so that its stopping point is compared too.
			opt.Joint.Work = raceJointWork
		}
		res, err := Protect(context.Background(), tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Audit == nil {
			t.Fatal("no audit returned")
		}
		sep, err := Audit(context.Background(), tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := string(report.IntervalsJSON(*res.Audit))
		if want := string(report.IntervalsJSON(sep)); got != want {
			t.Fatalf("workers %d: the audit returned differs from Audit's of the table left", tc.workers)
		}
		got += statuses(tb)
		if first == "" {
			first = got
			t.Logf("%d cells audited, %d approximate", len(res.Audit.Cells), res.Audit.Approximate)
		} else if got != first {
			t.Errorf("workers %d, GOMAXPROCS %d: a different pattern or audit", tc.workers, tc.procs)
		}
	}
}
