package suppress

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// panelTable is a region × sector × size magnitude table of firms like
// pipeline's TestPreviousKeepsPatternStable panel (6 × 6 × 3 with every
// margin, 196 cells; skewed cells, so that many have one or two firms):
// cells with one or two firms are primary.
func panelTable(seed uint64) *audit.Table {
	r := rand.New(rand.NewPCG(seed, 2))
	sizes := []int{6, 6, 3}
	type agg struct{ sum, n int64 }
	cells := make([]agg, 6*6*3)
	for range 4000 {
		reg := min(int(r.ExpFloat64()*1.2), 5)
		sec := r.IntN(6)
		siz := min(int(r.ExpFloat64()*0.8), 2)
		v := int64(math.Exp(r.NormFloat64()*1.3+6)) + 1
		a := &cells[(reg*6+sec)*3+siz]
		a.sum += v
		a.n++
	}
	at := func(i []int) agg { return cells[(i[0]*6+i[1])*3+i[2]] }
	tb := gridTable(sizes, func(i []int) int64 { return at(i).sum }, func(i []int) int64 { return at(i).n })
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") && c.HasN && c.N > 0 && c.N < 3 {
			markPrimary(c)
		}
	}
	return tb
}

// TestJointWarmSamePatterns: the warm-started separation gives the panel
// table the cold path's pattern, cost and bound or better ones (within
// the same work budget), and every primary stays protected (the interval
// audit and gonum's attack).
func TestJointWarmSamePatterns(t *testing.T) {
	work := 1500.0 // a short search: both paths stop at the budget
	if raceEnabled {
		work = 500
	}
	for _, seed := range []uint64{1} {
		run := func(warm bool) (*audit.Table, audit.SuppressionRun) {
			defer func(v bool) { jointWarm = v }(jointWarm)
			jointWarm = warm
			tb := panelTable(seed)
			r, err := ProtectRun(context.Background(), tb, Options{Joint: JointOptions{Work: work}})
			if err != nil {
				t.Fatal(err)
			}
			return tb, r
		}
		_, rc := run(false)
		tw, rw := run(true)
		if *rw.PatternCost > *rc.PatternCost*(1+1e-9) {
			t.Errorf("seed %d: warm pattern costs %v, cold %v", seed, *rw.PatternCost, *rc.PatternCost)
		}
		if rc.LowerBound != nil && (rw.LowerBound == nil || *rw.LowerBound < *rc.LowerBound*(1-1e-6)) {
			t.Errorf("seed %d: warm bound %v below cold %v", seed, fmtF(rw.LowerBound), fmtF(rc.LowerBound))
		}
		res, err := Audit(context.Background(), tw, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.NeedsPerson() {
			t.Errorf("seed %d: audit of the warm pattern: %d exact, %d under-protected, %d undetermined", seed, res.ExactlyDisclosed, res.UnderProtected, res.Undetermined)
		}
		o := newOrTable(tw, nil, 0.10)
		sup := make([]bool, len(tw.Cells))
		for i, c := range tw.Cells {
			sup[i] = c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary
		}
		if ok, why := oracleProtected(o, sup); !ok {
			t.Errorf("seed %d: gonum's attack: %s", seed, why)
		}
		t.Logf("seed %d: cold %s %v lb %s, warm %s %v lb %s", seed, rc.Chosen, *rc.PatternCost, fmtF(rc.LowerBound), rw.Chosen, *rw.PatternCost, fmtF(rw.LowerBound))
	}
}

// BenchmarkPanelProtect protects the panel table (panelTable) with the
// default method: warm, the warm-started separation; cold, the baseline,
// every separation LP built afresh (jointWarm off). It reports the
// pattern's cost and bound.
func BenchmarkPanelProtect(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			defer func(v bool) { jointWarm = v }(jointWarm)
			jointWarm = warm
			for b.Loop() {
				tb := panelTable(1)
				r, err := ProtectRun(context.Background(), tb, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(*r.PatternCost, "cost")
				if r.LowerBound != nil {
					b.ReportMetric(*r.LowerBound, "lower-bound")
				}
			}
		})
	}
}
