package suppress

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
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
	tb := tabletest.GridTable(sizes, func(i []int) int64 { return at(i).sum }, func(i []int) int64 { return at(i).n })
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") && c.HasN && c.N > 0 && c.N < 3 {
			tabletest.MarkPrimary(c)
		}
	}
	return tb
}

// BenchmarkPanelProtect protects the panel table (panelTable) with the
// default method (lp, hypercube and the joint search, the best audited
// pattern kept) and, as the baseline in the same run, the hypercube
// method; it reports each pattern's cost and the default's lower bound.
func BenchmarkPanelProtect(b *testing.B) {
	for _, method := range []string{"lp", "hypercube"} {
		b.Run(method, func(b *testing.B) {
			for b.Loop() {
				tb := panelTable(1)
				res, err := Protect(context.Background(), tb, Options{Method: method})
				if err != nil {
					b.Fatal(err)
				}
				r := res.Run
				cost, _, _ := patternCost(tb)
				b.ReportMetric(cost, "cost")
				if r.LowerBound != nil {
					b.ReportMetric(*r.LowerBound, "lower-bound")
				}
			}
		})
	}
}
