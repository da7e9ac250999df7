package suppress

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"pgregory.net/rapid"
)

// moveWorkUncached is moveWork's counted units as they were computed
// before the cache: Count1D walked for every call.
func moveWorkUncached(s *structure, p int) float64 {
	combos, codes := 1, 0
	for d := 0; d < s.NDim; d++ {
		c := s.Count1D(d, s.Keys[p][d])
		combos = min(combos*max(c, 1), maxCombos)
		codes += c
	}
	return float64(combos+codes) * moveWeight / 1e6
}

// TestMoveWorkCachedUnitsUnchanged: moveWork reads the run's cached
// Count1D; the budget counts deterministic work, so the units it adds for
// every cell, asked once and again, must be exactly those of the
// uncached count, on flat and hierarchical tables with absent cells, and
// the counts must come from the cache (before, Count1D was walked at
// every call).
func TestMoveWorkCachedUnitsUnchanged(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		var tb *audit.Table
		var opt Options
		switch rapid.IntRange(0, 2).Draw(rt, "kind") {
		case 0:
			var h map[string]map[string]string
			tb, h = tabletest.HierTable(seed, rapid.IntRange(2, 14).Draw(rt, "leaves"), rapid.IntRange(1, 4).Draw(rt, "groups"), []int{rapid.IntRange(2, 6).Draw(rt, "flat")}, 0.3)
			opt = Options{Hierarchies: h}
		case 1:
			tb = scaleTable(seed, []int{rapid.IntRange(2, 30).Draw(rt, "n0"), rapid.IntRange(1, 8).Draw(rt, "n1")}, 0.3)
		default:
			tb = scaleTable(seed, []int{rapid.IntRange(2, 6).Draw(rt, "n0"), rapid.IntRange(2, 6).Draw(rt, "n1"), rapid.IntRange(1, 4).Draw(rt, "n2")}, 0.3)
		}
		tabletest.DropCells(tb, rand.New(rand.NewPCG(seed, 9)), rapid.IntRange(0, 10).Draw(rt, "drop"))
		s, err := newStructure(tb, opt)
		if err != nil {
			rt.Fatal(err)
		}
		n := len(tb.Cells)
		sp := &suppressor{s: s, opt: opt, sup: make([]bool, n), cost: make([]float64, n), single: make([]bool, n)}
		lm := newLPMethod(s, sp, opt)
		for pass := range 2 { // the second pass reads the cache
			if pass == 1 && n > 0 {
				// moveWork read its counts through the run's cache
				for p := range n {
					for d := range s.NDim {
						if sp.mi == nil || sp.mi.count[d][s.Keys[p][d]] < 0 {
							rt.Fatalf("cell %d dimension %d: moveWork did not use the cached count", p, d)
						}
					}
				}
			}
			for p := range n {
				lm.work = 0
				lm.moveWork(p)
				if got, want := lm.work, moveWorkUncached(s, p); got != want {
					rt.Fatalf("cell %d: moveWork counted %v units, the uncached count %v", p, got, want)
				}
			}
		}
	})
}

// TestCount1DCacheNeverTruncates: a count cached at the int32 limit (a
// dimension with some 93,000 leaves) is not returned truncated: count1D
// gives Count1D's own number.
func TestCount1DCacheNeverTruncates(t *testing.T) {
	tb := scaleTable(3, []int{6, 4}, 0.2)
	s, err := newStructure(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(tb.Cells)
	sp := &suppressor{s: s, sup: make([]bool, n), cost: make([]float64, n), single: make([]bool, n)}
	k := s.Keys[0][0]
	sp.index().count[0][k] = math.MaxInt32 // as a count of 2^31 or more is cached
	if got, want := sp.count1D(0, k), s.Count1D(0, k); got != want {
		t.Errorf("count1D %d, Count1D %d", got, want)
	}
}
