package suppress

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// pruneScore is the score prune's documentation gives a one-dimensional
// move m through p along dimension d: infinite when a cell of the move on
// p's line is absent or forbidden, else the cost of its cells not yet
// suppressed, plus 1e6·(cost+1) for each cell too small for the side it
// is on (below up on the negative side, below low on the positive one).
func pruneScore(sp *suppressor, p, d int, m relations.Move1, up, low float64, forbid func(int) bool) float64 {
	s := sp.s
	tuple := slices.Clone(s.Keys[p])
	score := 0.0
	for b, code := range m.Codes {
		tuple[d] = code
		i := s.Lookup(tuple)
		if i < 0 || forbid != nil && forbid(i) {
			return math.Inf(1)
		}
		if !sp.sup[i] {
			score += sp.cost[i]
		}
		if m.W[b] < 0 && s.Val[i] < up || m.W[b] > 0 && s.Val[i] < low {
			score += 1e6 * (sp.cost[i] + 1)
		}
	}
	return score
}

// TestPruneKeepsTheBest: prune returns the k moves of Moves1D with the
// lowest score (pruneScore), ties in Moves1D's order, in that order: all
// the moves scored and sorted, then cut at k, on flat and hierarchical
// tables of two and three dimensions, with random suppressed cells, costs
// with ties, forbidden cells, levels and k. (It replaces a comparison
// with a copy of the code before the streaming prune.)
func TestPruneKeepsTheBest(t *testing.T) {
	type tc struct {
		tb  *audit.Table
		opt Options
	}
	var cases []tc
	for seed := uint64(1); seed <= 3; seed++ {
		tb, h := tabletest.HierTable(seed, 12+int(seed)*3, 3, []int{7 + int(seed)}, 0.4)
		cases = append(cases, tc{tb, Options{Hierarchies: h}})
		tb, h = tabletest.HierTable(seed, 8, 2, []int{4, 3}, 0.5)
		cases = append(cases, tc{tb, Options{Hierarchies: h}})
		cases = append(cases, tc{scaleTable(seed, []int{25, 20}, 0.6), Options{}})
	}
	kept := 0
	for ci, c := range cases {
		s, err := newStructure(c.tb, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 5))
		n := len(c.tb.Cells)
		sp := &suppressor{s: s, sup: make([]bool, n), cost: make([]float64, n), single: make([]bool, n)}
		for i := range c.tb.Cells {
			sp.sup[i] = rng.IntN(3) == 0
			sp.cost[i] = math.Abs(s.Val[i]) + 1e-3
			if rng.IntN(4) == 0 {
				sp.cost[i] = 1 // ties
			}
		}
		for trial := 0; trial < 200; trial++ {
			p := rng.IntN(n)
			d := rng.IntN(s.NDim)
			k := 1 + rng.IntN(12)
			up, low := float64(rng.IntN(80)), float64(rng.IntN(80))
			if trial%5 == 4 {
				up, low = 0, 0 // moves of score 0: prune's early stop
			}
			var forbid func(int) bool
			switch trial % 3 {
			case 1:
				forbid = func(i int) bool { return i != p && !sp.sup[i] }
			case 2:
				forbid = func(i int) bool { return i%7 == 3 }
			}
			want := pruneByEnumeration(sp, s, p, d, up, low, k, forbid)
			got := sp.prune(p, d, up, low, k, forbid)
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d trial %d: prune %v, want %v", ci, trial, got, want)
			}
			kept += len(got)
		}
	}
	t.Logf("%d moves kept", kept)
}

// pruneByEnumeration is prune's reference: every move of p's code in
// dimension d scored by pruneScore, stably sorted by score, the first k.
func pruneByEnumeration(sp *suppressor, s *structure, p, d int, up, low float64, k int, forbid func(int) bool) []relations.Move1 {
	all := s.Moves1D(d, s.Keys[p][d])
	order := make([]int, len(all))
	score := make([]float64, len(all))
	for a, m := range all {
		order[a], score[a] = a, pruneScore(sp, p, d, m, up, low, forbid)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case score[a] < score[b]:
			return -1
		case score[a] > score[b]:
			return 1
		}
		return 0
	})
	var want []relations.Move1
	for _, a := range order[:min(k, len(order))] {
		want = append(want, all[a])
	}
	return want
}

// TestBalancedAgainstRelations: balanced (a move's terms summed per
// relation through the cells' relation lists) says whether every relation
// of the table, read from its own list of cells (RelCells), adds the
// move's weights up to 0: on tensor products of one-dimensional moves
// (balanced, or not when absent cells break them) and random sets of
// cells with random signs, repeated cells included, on flat and
// hierarchical tables with absent cells.
func TestBalancedAgainstRelations(t *testing.T) {
	yes, no := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		var tb *audit.Table
		var opt Options
		if seed%2 == 0 {
			var h map[string]map[string]string
			tb, h = tabletest.HierTable(seed, 9, 3, []int{4}, 0.5)
			opt = Options{Hierarchies: h}
		} else {
			tb = scaleTable(seed, []int{6, 5, 1 + int(seed)%3}, 0.5)
		}
		rng := rand.New(rand.NewPCG(seed, 11))
		if seed > 2 {
			tabletest.DropCells(tb, rng, 3)
		}
		s, err := newStructure(tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		n := len(tb.Cells)
		want := func(m *move) bool {
			for r := range s.Rels {
				sum := 0
				for _, j := range s.RelCells(r) {
					for a, i := range m.cells {
						if i == j {
							sum += int(m.w[a]) * map[bool]int{true: 1, false: -1}[s.Rels[r].Total == j]
						}
					}
				}
				if sum != 0 {
					return false
				}
			}
			return true
		}
		for trial := 0; trial < 300; trial++ {
			m := &move{}
			if trial%2 == 0 {
				p := rng.IntN(n)
				ms := make([][]relations.Move1, s.NDim)
				idx := make([]int, s.NDim)
				for d := range ms {
					ms[d] = s.Moves1D(d, s.Keys[p][d])
					idx[d] = rng.IntN(len(ms[d]))
				}
				if !s.WalkMove(ms, idx, make([]int, s.NDim), func(j int, w int8) bool {
					m.cells, m.w = append(m.cells, j), append(m.w, w)
					return j >= 0
				}) {
					continue // an absent cell
				}
			} else {
				for range 1 + rng.IntN(8) {
					m.cells, m.w = append(m.cells, rng.IntN(n)), append(m.w, int8(1-2*rng.IntN(2)))
				}
			}
			got, exp := s.balanced(m), want(m)
			if got != exp {
				t.Fatalf("table %d move %v %v: balanced %v, want %v", seed, m.cells, m.w, got, exp)
			}
			if got {
				yes++
			} else {
				no++
			}
		}
	}
	if yes == 0 || no == 0 {
		t.Fatalf("%d balanced moves, %d not: want both", yes, no)
	}
	t.Logf("%d balanced moves, %d not", yes, no)
}
