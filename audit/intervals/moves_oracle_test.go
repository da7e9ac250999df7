package intervals

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

// TestForMovesMatchesSorted checks forMoves (moves popped from a heap as
// the enumeration reaches them) against the version that sorted every
// move first (refForMoves below): the same moves visited in the same
// order with the same caps, with random budgets, floors, shifted points
// and early stops, on flat and hierarchical tables.
func TestForMovesMatchesSorted(t *testing.T) {
	type visitRec struct {
		up, down float64
		cells    []int
		w        []int8
	}
	var tables []*audit.Table
	var opts []Options
	for seed := uint64(1); seed <= 3; seed++ {
		tb, h := tabletest.HierTable(seed, 14, 3, []int{9}, 0.7)
		opt := Options{Hierarchies: h}
		tables, opts = append(tables, tb), append(opts, opt)
		tb, h = tabletest.HierTable(seed, 7, 2, []int{4, 3}, 0.7)
		opt = Options{Hierarchies: h}
		tables, opts = append(tables, tb), append(opts, opt)
		tables, opts = append(tables, tabletest.ScaleTable(seed, []int{30, 25}, 0.8)), append(opts, Options{})
	}
	visits := 0
	for ci, tb := range tables {
		s, err := newStructure(tb, opts[ci])
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 9))
		sup := make([]bool, len(tb.Cells))
		for i := range sup {
			sup[i] = rng.IntN(4) != 0
		}
		got, want := newWitnessScratch(s.NDim), newWitnessScratch(s.NDim)
		for trial := 0; trial < 150; trial++ {
			i := rng.IntN(len(tb.Cells))
			if !sup[i] {
				continue
			}
			budget := 1 + rng.IntN(3000)
			stop := rng.IntN(40)
			floorUp, floorDown := float64(rng.IntN(30)), float64(rng.IntN(30))
			clear(got.delta)
			clear(want.delta)
			if trial%4 == 0 {
				for k := 0; k < 5; k++ {
					j, v := rng.IntN(len(tb.Cells)), float64(rng.IntN(9))
					got.delta[j], want.delta[j] = v, v
				}
			}
			run := func(ws *witnessScratch, f func(*structure, int, []bool, int, *witnessScratch, func(float64, float64) bool)) []visitRec {
				ws.floorUp, ws.floorDown = floorUp, floorDown
				var out []visitRec
				f(s, i, sup, budget, ws, func(u, d float64) bool {
					out = append(out, visitRec{u, d, slices.Clone(ws.cells), slices.Clone(ws.w)})
					if len(out) == 5 {
						ws.limit = min(ws.limit, ws.tried+7) // as witness does
					}
					return len(out) > stop
				})
				return out
			}
			a := run(got, (*structure).forMoves)
			b := run(want, refForMoves)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("table %d cell %d budget %d: visits %v, want %v", ci, i, budget, a, b)
			}
			visits += len(a)
		}
	}
	if visits == 0 {
		t.Fatal("no move visited")
	}
}

// refForMoves is forMoves as it was before the heap (the reference).
func refForMoves(s *structure, i int, sup []bool, budget int, ws *witnessScratch, visit func(upCap, downCap float64) bool) {
	nd := s.NDim
	key := s.Keys[i]
	tuple := ws.tuple
	for d := 0; d < nd; d++ {
		copy(tuple, key)
		var sc []scoredMove
		for _, m := range refMoves1D(s, d, key[d]) {
			score := math.Inf(1)
			ok := true
			for _, c := range m.Codes {
				tuple[d] = c
				j := s.Lookup(tuple)
				if j < 0 || !sup[j] {
					ok = false
					break
				}
				if j != i {
					score = math.Min(score, s.pointValue(j, ws))
				}
			}
			if ok {
				sc = append(sc, scoredMove{m, score, len(sc)})
			}
		}
		if len(sc) == 0 {
			return
		}
		slices.SortFunc(sc, func(a, b scoredMove) int {
			if c := lessFirst(a.score > b.score, b.score > a.score); c != 0 {
				return c
			}
			return a.pos - b.pos
		})
		ws.ms[d] = ws.ms[d][:0]
		for _, x := range sc {
			ws.ms[d] = append(ws.ms[d], x.m)
		}
	}
	idx := ws.idx
	for d := range idx {
		idx[d] = 0
	}
	ws.limit = budget
	for ws.tried = 0; ws.tried < ws.limit; ws.tried++ {
		upCap, downCap := math.Inf(1), math.Inf(1)
		ws.cells, ws.w = ws.cells[:0], ws.w[:0]
		ok := s.WalkMove(ws.ms, idx, tuple, func(j int, w int8) bool {
			if j < 0 || !sup[j] {
				return false
			}
			v := s.pointValue(j, ws)
			if w < 0 {
				upCap = math.Min(upCap, v)
			} else {
				downCap = math.Min(downCap, v)
			}
			if upCap <= ws.floorUp && downCap <= ws.floorDown {
				return false // cannot improve
			}
			ws.cells = append(ws.cells, j)
			ws.w = append(ws.w, w)
			return true
		})
		if ok && s.balancedCells(ws.cells, ws.w, ws.acc) && visit(upCap, downCap) {
			return
		}
		// Next combination (odometer, last dimension fastest).
		d := nd - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < len(ws.ms[d]) {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
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

// lessFirst turns a "less" pair into a comparison for slices.SortStableFunc
// (the generic sort avoids sort.SliceStable's reflection in the move
// searches; the order is the same, ties kept in input order).
func lessFirst(aFirst, bFirst bool) int {
	switch {
	case aFirst:
		return -1
	case bFirst:
		return 1
	}
	return 0
}
