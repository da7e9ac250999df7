package suppress

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestPruneAgainstEnumeration: prune (which scores a leaf code's moves
// with the terms of their common part added once, pruneLeaf) keeps the k
// moves of Moves1D with the lowest pruneScore, ties in Moves1D's order,
// on flat and hierarchical tables with absent cells, many suppressed
// cells, costs and values with ties, forbidden cells and levels that
// make many moves score 0 (the early stop) or none.
func TestPruneAgainstEnumeration(t *testing.T) {
	kept := 0
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		var tb *audit.Table
		var opt Options
		switch rapid.IntRange(0, 2).Draw(rt, "kind") {
		case 0:
			var h map[string]map[string]string
			tb, h = tabletest.HierTable(seed, rapid.IntRange(2, 14).Draw(rt, "leaves"), rapid.IntRange(1, 4).Draw(rt, "groups"), []int{rapid.IntRange(2, 6).Draw(rt, "flat")}, 0.5)
			opt = Options{Hierarchies: h}
		case 1:
			tb = scaleTable(seed, []int{rapid.IntRange(2, 30).Draw(rt, "n0"), rapid.IntRange(1, 8).Draw(rt, "n1")}, 0.5)
		default:
			tb = scaleTable(seed, []int{rapid.IntRange(2, 6).Draw(rt, "n0"), rapid.IntRange(2, 6).Draw(rt, "n1"), rapid.IntRange(1, 4).Draw(rt, "n2")}, 0.5)
		}
		rng := rand.New(rand.NewPCG(seed, 8))
		tabletest.DropCells(tb, rng, rapid.IntRange(0, 10).Draw(rt, "drop")) // absent cells
		s, err := newStructure(tb, opt)
		if err != nil {
			rt.Fatal(err)
		}
		n := len(tb.Cells)
		share := rapid.IntRange(0, 100).Draw(rt, "share")
		sp := &suppressor{s: s, sup: make([]bool, n), cost: make([]float64, n), single: make([]bool, n)}
		for i := range tb.Cells {
			sp.sup[i] = rng.IntN(100) < share
			s.Val[i] = float64(rng.IntN(5)) // ties
			sp.cost[i] = float64(rng.IntN(3)) + 0.5
		}
		for trial := 0; trial < 20; trial++ {
			p := rng.IntN(n)
			d := rng.IntN(s.NDim)
			k := 1 + rng.IntN(8)
			up, low := float64(rng.IntN(6)), float64(rng.IntN(6))
			var forbid func(int) bool
			switch trial % 3 {
			case 1:
				forbid = func(i int) bool { return i != p && !sp.sup[i] }
			case 2:
				m := 2 + rng.IntN(5)
				forbid = func(i int) bool { return i%m == 1 }
			}
			want := pruneByEnumeration(sp, s, p, d, up, low, k, forbid)
			got := sp.prune(p, d, up, low, k, forbid)
			if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
				rt.Fatalf("cell %v dimension %d k %d up %v low %v: prune %v, want %v", tb.Cells[p].Key, d, k, up, low, got, want)
			}
			kept += len(got)
		}
	})
	if kept == 0 {
		t.Fatal("no move kept")
	}
	t.Logf("%d moves kept", kept)
}
