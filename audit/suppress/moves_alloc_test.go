package suppress

import (
	"math"
	"testing"
)

// TestBestMoveCostIndependentOfLevels: a primary whose lines are already
// suppressed costs the hypercube search a bounded number of allocations,
// however many levels its dimensions have (it listed a move per level and
// dimension: thousands of allocations per primary on a 400-level table,
// cubic time when most cells are primary). The move found is a valid one
// through suppressed cells only.
func TestBestMoveCostIndependentOfLevels(t *testing.T) {
	tb := scaleTable(7, []int{400, 30}, 0)
	s, err := newStructure(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(tb.Cells)
	sp := &suppressor{s: s, sup: make([]bool, n), cost: make([]float64, n), single: make([]bool, n)}
	margin := make([]bool, n)
	for _, r := range s.Rels {
		margin[r.Total] = true
	}
	p := -1
	for i := range tb.Cells {
		sp.cost[i] = math.Abs(s.Val[i]) + 1
		sp.sup[i] = !margin[i] // every interior cell suppressed
		if p < 0 && !margin[i] && s.Val[i] > 0 {
			p = i
		}
	}
	forbid := func(i int) bool { return i != p && !sp.sup[i] }
	var m *move
	allocs := testing.AllocsPerRun(5, func() { m = sp.bestMove(p, 0, 0, forbid) })
	if m == nil {
		t.Fatal("no move through the suppressed cells")
	}
	for _, i := range m.cells {
		if !sp.sup[i] {
			t.Fatalf("move %v: cell %d not suppressed", m.cells, i)
		}
	}
	if !s.balanced(m) {
		t.Fatalf("move %v unbalanced", m.cells)
	}
	if allocs > 400 {
		t.Errorf("%v allocations for one primary: want a bound independent of the 400 levels", allocs)
	}
	t.Logf("%v allocations", allocs)
}
