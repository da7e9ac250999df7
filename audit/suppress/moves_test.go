package suppress

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// hierTable is a table of two or three dimensions: the first hierarchical
// (leaves a0.. grouped under g0.., then Total), the others flat, every
// margin present, random values and about share of the interior cells
// primary.
func hierTable(seed uint64, leaves, groups int, flat []int, share float64) (*audit.Table, Options) {
	rng := rand.New(rand.NewPCG(seed, 11))
	h := map[string]string{}
	for l := 0; l < leaves; l++ {
		h[fmt.Sprintf("a%d", l)] = fmt.Sprintf("g%d", rng.IntN(groups))
	}
	dims := []string{"a"}
	codes := [][]string{nil}
	for l := 0; l < leaves; l++ {
		codes[0] = append(codes[0], fmt.Sprintf("a%d", l))
	}
	for d, n := range flat {
		dims = append(dims, fmt.Sprintf("b%d", d))
		var cs []string
		for i := 0; i < n; i++ {
			cs = append(cs, fmt.Sprintf("b%d_%d", d, i))
		}
		codes = append(codes, cs)
	}
	// every key, with each leaf code possibly replaced by its ancestors
	up := func(d int, c string) []string {
		out := []string{c}
		if d == 0 {
			out = append(out, h[c])
		}
		return append(out, "Total")
	}
	sums := map[string]int64{}
	keys := map[string][]string{}
	var order []string
	var rec func(d int, leaf []string)
	rec = func(d int, leaf []string) {
		if d == len(dims) {
			v := int64(math.Exp(rng.NormFloat64()*1.2 + 4))
			var rec2 func(e int, key []string)
			rec2 = func(e int, key []string) {
				if e == len(dims) {
					ks := fmt.Sprint(key)
					if _, ok := keys[ks]; !ok {
						keys[ks] = append([]string(nil), key...)
						order = append(order, ks)
					}
					sums[ks] += v
					return
				}
				for _, c := range up(e, leaf[e]) {
					rec2(e+1, append(key, c))
				}
			}
			rec2(0, nil)
			return
		}
		for _, c := range codes[d] {
			rec(d+1, append(leaf, c))
		}
	}
	rec(0, nil)
	tb := &audit.Table{Name: "h", Dims: dims, TotalLabel: "Total"}
	for _, ks := range order {
		c := &audit.Cell{Key: keys[ks], HasTotal: true, Total: decimal.FromInt(sums[ks]), HasN: true, N: 3}
		tb.Cells = append(tb.Cells, c)
		interior := true
		for d, k := range c.Key {
			if k == "Total" || d == 0 && k[0] == 'g' {
				interior = false
			}
		}
		if interior && rng.Float64() < share {
			markPrimary(c)
		}
	}
	return tb, Options{Hierarchies: map[string]map[string]string{"a": h}}
}

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
		tb, opt := hierTable(seed, 12+int(seed)*3, 3, []int{7 + int(seed)}, 0.4)
		cases = append(cases, tc{tb, opt})
		tb, opt = hierTable(seed, 8, 2, []int{4, 3}, 0.5)
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
		tb, opt := hierTable(seed, 14, 3, []int{9}, 0.7)
		tables, opts = append(tables, tb), append(opts, opt)
		tb, opt = hierTable(seed, 7, 2, []int{4, 3}, 0.7)
		tables, opts = append(tables, tb), append(opts, opt)
		tables, opts = append(tables, scaleTable(seed, []int{30, 25}, 0.8)), append(opts, Options{})
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

// refMoves1D is moves1D as it was before eachMove1D (the reference).
// moves1D lists the one-dimensional moves through code k of dimension d:
// a path from a leaf below k up to the root, or a path from a leaf below k
// up to an ancestor-or-self a paired with the opposite path below a
// sibling of a. A code in no relation moves alone.
func refMoves1D(s *structure, d, k int) []Move1 {
	par, ch := s.Parent[d], s.Children[d]
	if par[k] < 0 && len(ch[k]) == 0 {
		return []Move1{{Codes: []int{k}, W: []int8{1}}}
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
	var out []Move1
	below := leaves(k)
	for _, l := range below {
		m := Move1{}
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
					m := Move1{}
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
func refPrune(sp *suppressor, p, d int, ms []Move1, up, low float64, k int, forbid func(int) bool) []Move1 {
	s := sp.s
	type scored struct {
		m     Move1
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
	out := make([]Move1, 0, len(top))
	for _, a := range top {
		out = append(out, sc[a].m)
	}
	return out
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
