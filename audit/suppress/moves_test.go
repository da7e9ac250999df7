package suppress

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// TestMovesStreamMatchesList checks eachMove1D, count1D, moves1D and the
// streaming prune against the listing and sorting they replace (copied
// below as refMoves1D and refPrune): the same moves in the same order, the
// same k kept, on flat and hierarchical tables of two and three
// dimensions, with random suppressed cells, forbidden cells and k.
func TestMovesStreamMatchesList(t *testing.T) {
	type tc struct {
		tb  *audit.Table
		opt Options
	}
	var cases []tc
	for seed := uint64(1); seed <= 4; seed++ {
		tb, h := tabletest.HierTable(seed, 12+int(seed)*3, 3, []int{7 + int(seed)}, 0.4)
		opt := Options{Hierarchies: h}
		cases = append(cases, tc{tb, opt})
		tb, h = tabletest.HierTable(seed, 8, 2, []int{4, 3}, 0.5)
		opt = Options{Hierarchies: h}
		cases = append(cases, tc{tb, opt})
		cases = append(cases, tc{scaleTable(seed, []int{25, 20}, 0.6), Options{}})
	}
	deep := 0
	for ci, c := range cases {
		s, err := newStructure(c.tb, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Parent[0] {
			if p >= 0 && s.Parent[0][p] >= 0 {
				deep++ // a leaf under a group under the total
			}
		}
		for d := 0; d < s.NDim; d++ {
			for k := range s.Parent[d] {
				want := refMoves1D(s, d, k)
				got := s.Moves1D(d, k)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("case %d dim %d code %d: moves %v, want %v", ci, d, k, got, want)
				}
				if n := s.Count1D(d, k); n != len(want) {
					t.Fatalf("case %d dim %d code %d: count %d, want %d", ci, d, k, n, len(want))
				}
			}
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 5))
		sp := &suppressor{s: s, sup: make([]bool, len(c.tb.Cells)), cost: make([]float64, len(c.tb.Cells)), single: make([]bool, len(c.tb.Cells))}
		for i := range c.tb.Cells {
			sp.sup[i] = rng.IntN(3) == 0
			sp.cost[i] = math.Abs(s.Val[i]) + 1e-3
			if rng.IntN(4) == 0 {
				sp.cost[i] = 1 // ties
			}
		}
		for trial := 0; trial < 200; trial++ {
			p := rng.IntN(len(c.tb.Cells))
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
			want := refPrune(sp, p, d, refMoves1D(s, d, s.Keys[p][d]), up, low, k, forbid)
			got := sp.prune(p, d, up, low, k, forbid)
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d trial %d: prune %v, want %v", ci, trial, got, want)
			}
		}
	}
	if deep == 0 {
		t.Error("no hierarchical dimension among the cases")
	}
}

// refMoves1D is moves1D as it was before eachMove1D (the reference).
// moves1D lists the one-dimensional moves through code k of dimension d:
// a path from a leaf below k up to the root, or a path from a leaf below k
// up to an ancestor-or-self a paired with the opposite path below a
// sibling of a. A code in no relation moves alone.
func refMoves1D(s *structure, d, k int) []relations.Move1 {
	par, ch := s.Parent[d], s.Children[d]
	if par[k] < 0 && len(ch[k]) == 0 {
		return []relations.Move1{{Codes: []int{k}, W: []int8{1}}}
	}
	leaves := func(x int) []int {
		var out []int
		var rec func(int)
		rec = func(y int) {
			if len(ch[y]) == 0 {
				out = append(out, y)
				return
			}
			for _, c := range ch[y] {
				rec(c)
			}
		}
		rec(x)
		return out
	}
	path := func(l, a int) []int { // l up to a inclusive
		var out []int
		for y := l; ; y = par[y] {
			out = append(out, y)
			if y == a || y < 0 {
				break
			}
		}
		return out
	}
	root := k
	for par[root] >= 0 {
		root = par[root]
	}
	var out []relations.Move1
	below := leaves(k)
	for _, l := range below {
		m := relations.Move1{}
		for _, c := range path(l, root) {
			m.Codes = append(m.Codes, c)
			m.W = append(m.W, 1)
		}
		out = append(out, m)
	}
	for a := k; par[a] >= 0; a = par[a] {
		for _, b := range ch[par[a]] {
			if b == a {
				continue
			}
			for _, l := range below {
				for _, l2 := range leaves(b) {
					m := relations.Move1{}
					for _, c := range path(l, a) {
						m.Codes = append(m.Codes, c)
						m.W = append(m.W, 1)
					}
					for _, c := range path(l2, b) {
						m.Codes = append(m.Codes, c)
						m.W = append(m.W, -1)
					}
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// refPrune is prune as it was before the streaming heap (the reference).
// prune keeps the k most promising one-dimensional moves of dimension d,
// judged on the line through p.
func refPrune(sp *suppressor, p, d int, ms []relations.Move1, up, low float64, k int, forbid func(int) bool) []relations.Move1 {
	s := sp.s
	type scored struct {
		m     relations.Move1
		score float64
	}
	sc := make([]scored, len(ms))
	tuple := append([]int(nil), s.Keys[p]...)
	for a, m := range ms {
		score := 0.0
		for b, code := range m.Codes {
			tuple[d] = code
			i := s.Lookup(tuple)
			if i < 0 || (forbid != nil && forbid(i)) {
				score = math.Inf(1)
				break
			}
			if !sp.sup[i] {
				score += sp.cost[i]
			}
			if m.W[b] < 0 && s.Val[i] < up || m.W[b] > 0 && s.Val[i] < low {
				score += 1e6 * (sp.cost[i] + 1)
			}
		}
		sc[a] = scored{m, score}
	}
	// The k first of a stable sort by score: a bounded heap over the
	// order (score, position), O(n log k) instead of sorting every move.
	before := func(a, b int) bool {
		if sc[a].score < sc[b].score {
			return true
		}
		if sc[b].score < sc[a].score {
			return false
		}
		return a < b
	}
	top := firstK(len(sc), k, before)
	out := make([]relations.Move1, 0, len(top))
	for _, a := range top {
		out = append(out, sc[a].m)
	}
	return out
}
