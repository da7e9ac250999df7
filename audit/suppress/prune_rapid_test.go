package suppress

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestPruneAgainstEnumeration: prune (pruneZeros's k free moves, or
// pruneScan's scores) keeps the k moves of Moves1D with the lowest
// pruneScore, ties in Moves1D's order, on flat and hierarchical tables
// with absent cells, many suppressed cells, costs (some 0) and values
// with ties, forbidden cells and levels that make many moves score 0 (the
// early stop) or none.
func TestPruneAgainstEnumeration(t *testing.T) {
	kept := 0
	rapid.Check(t, func(rt *rapid.T) {
		sp, rng := pruneCase(rt)
		for trial := 0; trial < 20; trial++ {
			kept += checkPrune(rt, sp, rng.IntN(len(sp.sup)), rng, trial)
		}
	})
	if kept == 0 {
		t.Fatal("no move kept")
	}
	t.Logf("%d moves kept", kept)
}

// TestPruneInterleaved: prune against the enumeration while the pattern
// changes between the calls of one suppressor (cells suppressed, as apply
// does, and released again, as the lp method's redundancy pass does), so
// that nothing prune keeps between calls (moveIndex) may go stale; both
// of prune's ways are taken (pruneZeros finds k free moves, or the line
// has fewer and pruneScan scores them all).
func TestPruneInterleaved(t *testing.T) {
	zeros, scans := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		sp, rng := pruneCase(rt)
		n := len(sp.sup)
		for step := 0; step < 30; step++ {
			if rng.IntN(3) == 0 {
				for range 1 + rng.IntN(4) {
					i := rng.IntN(n)
					sp.sup[i] = !sp.sup[i]
				}
				continue
			}
			p := rng.IntN(n)
			checkPrune(rt, sp, p, rng, step)
			// the same line again right after a change on it
			i := rng.IntN(n)
			sp.sup[i] = !sp.sup[i]
			checkPrune(rt, sp, p, rng, step+1)
			d := rng.IntN(sp.s.NDim)
			if _, ok := sp.pruneZeros(p, d, float64(rng.IntN(3)), float64(rng.IntN(3)), 1+rng.IntN(4), nil); ok {
				zeros++
			} else {
				scans++
			}
		}
	})
	if zeros == 0 || scans == 0 {
		t.Fatalf("pruneZeros answered %d calls and left %d to the scan: both ways must be taken", zeros, scans)
	}
	t.Logf("pruneZeros answered %d calls, the scan %d", zeros, scans)
}

// pruneCase draws a table (flat or hierarchical, two or three
// dimensions, with absent cells) and a suppressor on it with a random
// pattern, values and costs with ties.
func pruneCase(rt *rapid.T) (*suppressor, *rand.Rand) {
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
		if rng.IntN(10) == 0 {
			sp.cost[i] = 0 // free though not suppressed
		}
	}
	return sp, rng
}

// checkPrune compares prune with pruneByEnumeration for primary p along a
// random dimension, with a random k, levels and forbidden cells (none,
// every cell not suppressed, every m-th), and returns the moves kept.
func checkPrune(rt *rapid.T, sp *suppressor, p int, rng *rand.Rand, trial int) int {
	s := sp.s
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
		rt.Fatalf("cell %v dimension %d k %d up %v low %v: prune %v, want %v", s.T.Cells[p].Key, d, k, up, low, got, want)
	}
	return len(got)
}
