package suppress

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// suppressor is the hypercube method (see Protect) and the state every
// method shares: the pattern (sup), the cells' costs and singletons, and
// the primaries left unprotected.
type suppressor struct {
	s    *structure
	opt  Options
	sup  []bool
	cost []float64
	// single[i]: cell i has one contributor (see singleton), kept beside
	// sup so that move searches need not touch the cells themselves.
	single []bool
	// out records the primaries left unprotected (Result.Unprotected).
	out []Unprotected
	// mi is the move searches' index (index), made on first use.
	mi *moveIndex
}

// move is a candidate complementary pattern: cells with weights ±1.
type move struct {
	cells []int
	w     []int8
	cost  float64
}

func (sp *suppressor) singleton(i int) bool { return sp.single[i] }

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

func (sp *suppressor) protect(p int) {
	s := sp.s
	x := s.Val[p]
	up, low := s.levels(sp.opt, p, x)
	best := sp.bestMove(p, up, low, nil)
	if best == nil {
		sp.out = append(sp.out, Unprotected{Cell: p, Reason: NoPattern, By: -1})
		return
	}
	var singles []int
	for _, i := range best.cells {
		if i != p && sp.singleton(i) && !s.Covers(i, p) {
			singles = append(singles, i)
		}
	}
	if len(singles) == 0 {
		sp.apply(p, best)
		return
	}
	noSingles := func(i int) bool { return i != p && sp.singleton(i) && !s.Covers(i, p) }
	if alt := sp.bestMove(p, up, low, noSingles); alt != nil {
		sp.apply(p, alt)
		return
	}
	sp.apply(p, best)
	for _, sg := range singles {
		avoid := func(i int) bool { return i == sg }
		if alt := sp.bestMove(p, up, low, avoid); alt != nil {
			sp.apply(p, alt)
		} else {
			sp.out = append(sp.out, Unprotected{Cell: p, Reason: Singleton, By: sg})
		}
	}
}

// apply suppresses the cells of m, recording which primary they protect.
func (sp *suppressor) apply(p int, m *move) {
	s := sp.s
	for _, i := range m.cells {
		if sp.sup[i] {
			continue
		}
		sp.sup[i] = true
		c := s.T.Cells[i]
		where := "(a corner of its suppression hypercube)"
		for _, r := range s.CellRels[i] {
			if s.InRel(int(r), p) {
				where = "in " + s.Describe(int(r))
				break
			}
		}
		msg := fmt.Sprintf("protects %s %s", s.T.KeyString(s.T.Cells[p].Key), where)
		c.Findings = append(c.Findings, audit.Said("secondary", audit.Fail, msg, []audit.Figure{audit.TextFig("protects", s.T.KeyString(s.T.Cells[p].Key))}))
		c.Notes = append(c.Notes, msg)
		c.Status = audit.StatusSecondary
	}
}

// maxCombos bounds the moves tried per primary cell.
const maxCombos = 4000

// bestMove returns the cheapest valid move through p, or nil. forbid, when
// set, excludes cells.
func (sp *suppressor) bestMove(p int, up, low float64, forbid func(int) bool) *move {
	s := sp.s
	if keep := sp.opt.Keep; keep != nil {
		// a kept cell may take part only when it is already suppressed
		other := forbid
		forbid = func(i int) bool {
			return (!sp.sup[i] && keep(s.T.Cells[i])) || (other != nil && other(i))
		}
	}
	nd := s.NDim
	ms := sp.movesThrough(p, up, low, forbid)
	var cands []*move
	idx := make([]int, nd)
	tuple := make([]int, nd)
	var cells []int
	var ws []int8
	var cost, upCap, downCap float64
	var free *move // a valid move through suppressed cells only
	visit := func(i int, w int8) bool {
		if i < 0 || (forbid != nil && forbid(i)) {
			return false
		}
		v := s.Val[i]
		if !s.Known[i] {
			v = 0
		}
		if !sp.sup[i] {
			cost += sp.cost[i]
			if len(cands) == 4 && cost >= cands[3].cost {
				return false
			}
		}
		if w < 0 {
			upCap = math.Min(upCap, v)
		} else {
			downCap = math.Min(downCap, v)
		}
		cells = append(cells, i)
		ws = append(ws, w)
		return true
	}
	// Enumerate combinations of one-dimensional moves.
	var combo func(d int)
	combo = func(d int) {
		if d == nd {
			cells, ws = cells[:0], ws[:0]
			cost, upCap, downCap = 0, math.Inf(1), math.Inf(1)
			if !s.WalkMove(ms, idx, tuple, visit) || upCap < up || upCap <= 0 || downCap < low {
				return
			}
			if len(cands) == 4 && cost >= cands[3].cost {
				return
			}
			m := &move{cells: append([]int(nil), cells...), w: append([]int8(nil), ws...), cost: cost}
			if cost == 0 && s.balanced(m) {
				// Only cells already suppressed: nothing is cheaper.
				free = m
				return
			}
			cands = append(cands, m)
			slices.SortStableFunc(cands, func(a, b *move) int { return lessFirst(a.cost < b.cost, b.cost < a.cost) })
			if len(cands) > 4 {
				cands = cands[:4]
			}
			return
		}
		for i := range ms[d] {
			if free != nil {
				return
			}
			idx[d] = i
			combo(d + 1)
		}
	}
	combo(0)
	if free != nil {
		return free
	}
	for _, m := range cands {
		if s.balanced(m) {
			return m
		}
	}
	return nil
}

// movesThrough returns, per dimension, the one-dimensional moves through
// p's code that bestMove combines: all of them, or, when their
// combinations would exceed maxCombos, the k most promising of each
// dimension with more than k (prune).
func (sp *suppressor) movesThrough(p int, up, low float64, forbid func(int) bool) [][]relations.Move1 {
	s := sp.s
	nd := s.NDim
	key := s.Keys[p]
	ms := make([][]relations.Move1, nd)
	counts := make([]int, nd)
	total := 1
	for d := 0; d < nd; d++ {
		counts[d] = sp.count1D(d, key[d])
		total = min(total*counts[d], maxCombos+1) // every count is at least 1
	}
	k := math.MaxInt // no pruning
	if total > maxCombos {
		k = max(2, int(math.Pow(maxCombos, 1/float64(nd))))
	}
	for d := 0; d < nd; d++ {
		if counts[d] > k {
			ms[d] = sp.prune(p, d, up, low, k, forbid)
		} else {
			ms[d] = s.Moves1D(d, key[d])
		}
	}
	return ms
}

// prune keeps the k most promising one-dimensional moves through p's code
// of dimension d, judged on the line through p: the k first by (score,
// position in moves1D's order), in that order. A move's score is, cell by
// cell of the line in the move's order, the cost of a cell not yet
// suppressed plus 1e6·(cost+1) for a cell too small for its side (below
// up on the negative side, below low on the positive one); +Inf when a
// cell is absent or forbidden.
//
// Most calls find k moves of score 0 (every cell free: suppressed or of
// no cost, allowed, wide enough): those are the answer, the first k of
// them in Moves1D's order, and pruneZeros finds them testing each
// partner cell once (no move scored, listed or heaped). Only when the
// line has fewer does pruneScan score every move. The moves returned
// are valid until the next call for dimension d (pruneZeros reuses its
// arrays).
func (sp *suppressor) prune(p, d int, up, low float64, k int, forbid func(int) bool) []relations.Move1 {
	if out, ok := sp.pruneZeros(p, d, up, low, k, forbid); ok {
		return out
	}
	return sp.pruneScan(p, d, up, low, k, forbid)
}

// moveIndex is what the move searches keep between calls of one run: the
// number of one-dimensional moves per code (Count1D, linear in a
// dimension's codes, asked for every primary), whether zero scores are
// the least (no negative or NaN cost), and scratch. The structure and
// the costs do not change during a run; the pattern (suppressor.sup) does
// (apply, and the lp method's steps beside it), and is read as it is at
// each call, so that nothing here can go stale.
type moveIndex struct {
	nonNeg bool
	count  [][]int32 // per dimension and code: Count1D, -1 until asked
	// memo[d][c] caches, within one pruneZeros call (stamp[d][c] == gen),
	// whether code c's cell on the line is free for each side: bit 1
	// known and bit 2 free for the positive side, bits 4 and 8 for the
	// negative one.
	memo  [][]uint8
	stamp [][]uint32
	gen   uint32
	tuple []int
	// out[d] holds pruneZeros's answer for dimension d (valid until its
	// next call for d: movesThrough's moves live while bestMove runs).
	out []pruneOut
}

type pruneOut struct {
	codes []int
	ws    []int8
	ends  []int
	moves []relations.Move1
}

// index returns the run's moveIndex, made on first use (after the costs
// are set).
func (sp *suppressor) index() *moveIndex {
	if sp.mi != nil {
		return sp.mi
	}
	s := sp.s
	mi := &moveIndex{nonNeg: true, tuple: make([]int, s.NDim)}
	for _, c := range sp.cost {
		if !(c >= 0) {
			mi.nonNeg = false
			break
		}
	}
	mi.count = make([][]int32, s.NDim)
	mi.memo = make([][]uint8, s.NDim)
	mi.stamp = make([][]uint32, s.NDim)
	mi.out = make([]pruneOut, s.NDim)
	for d := range s.NDim {
		n := len(s.Codes[d])
		mi.count[d] = make([]int32, n)
		for c := range mi.count[d] {
			mi.count[d][c] = -1
		}
		mi.memo[d] = make([]uint8, n)
		mi.stamp[d] = make([]uint32, n)
	}
	sp.mi = mi
	return mi
}

// count1D is s.Count1D(d, c), computed once per run (a count that does
// not fit the cache's int32 is computed again at each call: the same
// number every time).
func (sp *suppressor) count1D(d, c int) int {
	mi := sp.index()
	if n := mi.count[d][c]; n >= 0 && n < math.MaxInt32 {
		return int(n)
	}
	n := sp.s.Count1D(d, c)
	mi.count[d][c] = int32(min(n, math.MaxInt32))
	return n
}

// pruneZeros returns, when the line through p along d has k moves of
// score 0, the first k of them in Moves1D's order (prune's answer: no
// score is negative, and ties go by position), and true; else false. It
// walks EachMove1D's loops (the paths to the root of the leaves below
// p's code, then per ancestor a, sibling b of a, leaf l below p's code
// and leaf l2 below b: l up to a, l2 up to b), skipping a leaf l whose
// path to a is not free, and tests each code's cell once.
func (sp *suppressor) pruneZeros(p, d int, up, low float64, k int, forbid func(int) bool) ([]relations.Move1, bool) {
	mi := sp.index()
	if !mi.nonNeg || k <= 0 {
		return nil, false
	}
	s := sp.s
	mi.gen++
	if mi.gen == 0 { // wrapped: forget every stamp
		for d := range mi.stamp {
			clear(mi.stamp[d])
		}
		mi.gen = 1
	}
	gen, memo, stamp := mi.gen, mi.memo[d], mi.stamp[d]
	tuple := mi.tuple
	copy(tuple, s.Keys[p])
	// free reports whether code c's cell on the line adds nothing to a
	// move's score on side w (pruneScan's terms all zero).
	free := func(c int, w int8) bool {
		known, yes := uint8(1), uint8(2)
		if w < 0 {
			known, yes = 4, 8
		}
		if stamp[c] != gen {
			stamp[c], memo[c] = gen, 0
		}
		if memo[c]&known != 0 {
			return memo[c]&yes != 0
		}
		tuple[d] = c
		i := s.Lookup(tuple)
		// forbid last: the callers' closures cost most (Covers)
		ok := i >= 0 && (sp.sup[i] || sp.cost[i] == 0) &&
			!(w < 0 && s.Val[i] < up || w > 0 && s.Val[i] < low) && (forbid == nil || !forbid(i))
		memo[c] |= known
		if ok {
			memo[c] |= yes
		}
		return ok
	}
	par, ch := s.Parent[d], s.Children[d]
	// pathFree: every code from l up to a (inclusive) free on side w
	pathFree := func(l, a int, w int8) bool {
		for y := l; ; y = par[y] {
			if y < 0 || !free(y, w) {
				return false
			}
			if y == a {
				return true
			}
		}
	}
	po := &mi.out[d]
	codes, ws, ends := po.codes[:0], po.ws[:0], po.ends[:0]
	path := func(l, a int, w int8) {
		for y := l; ; y = par[y] {
			codes = append(codes, y)
			ws = append(ws, w)
			if y == a {
				return
			}
		}
	}
	c0 := s.Keys[p][d]
	done := func() bool { ends = append(ends, len(codes)); return len(ends) == k }
	found := false
	if par[c0] < 0 && len(ch[c0]) == 0 {
		if free(c0, 1) {
			codes, ws = append(codes, c0), append(ws, 1)
			found = done()
		}
	} else {
		root := c0
		for par[root] >= 0 {
			root = par[root]
		}
		below := s.Leaves(d, c0)
		for _, l := range below {
			if pathFree(l, root, 1) {
				path(l, root, 1)
				if found = done(); found {
					break
				}
			}
		}
		var left []int // the leaves below c0 whose path up to a is free
		var one [1]int // a leaf sibling's leaves
		for a := c0; !found && par[a] >= 0; a = par[a] {
			left = left[:0]
			for _, l := range below {
				if pathFree(l, a, 1) {
					left = append(left, l)
				}
			}
			if len(left) == 0 {
				continue
			}
			for _, b := range ch[par[a]] {
				if b == a {
					continue
				}
				leaves := one[:]
				if one[0] = b; len(ch[b]) > 0 {
					leaves = s.Leaves(d, b)
				}
				for _, l := range left {
					for _, l2 := range leaves {
						if pathFree(l2, b, -1) {
							path(l, a, 1)
							path(l2, b, -1)
							if found = done(); found {
								break
							}
						}
					}
					if found {
						break
					}
				}
				if found {
					break
				}
			}
		}
	}
	po.codes, po.ws, po.ends = codes, ws, ends
	if !found {
		return nil, false
	}
	if cap(po.moves) < k {
		po.moves = make([]relations.Move1, k)
	}
	out := po.moves[:k]
	from := 0
	for a, e := range ends {
		out[a] = relations.Move1{Codes: codes[from:e:e], W: ws[from:e:e]}
		from = e
	}
	return out, true
}

// pruneScan is prune by scoring every move: they are scored as
// EachMove1D builds them, and only those among the k best so far are
// copied (a bounded heap), so that a dimension of many codes costs no
// list of every move; the enumeration stops once k moves of score 0 (all
// their cells on the line already suppressed, wide enough) are kept.
func (sp *suppressor) pruneScan(p, d int, up, low float64, k int, forbid func(int) bool) []relations.Move1 {
	s := sp.s
	type scored struct {
		m     relations.Move1
		score float64
		pos   int
	}
	before := func(a, b *scored) bool {
		if a.score != b.score {
			return a.score < b.score
		}
		return a.pos < b.pos
	}
	h := make([]scored, 0, k) // a max-heap: h[0] is the last of those kept
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && before(&h[m], &h[l]) {
				m = l
			}
			if r := l + 1; r < len(h) && before(&h[m], &h[r]) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	tuple := append([]int(nil), s.Keys[p]...)
	var sc relations.Move1
	pos := 0
	s.EachMove1D(d, s.Keys[p][d], &sc, func(m relations.Move1) bool {
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
		x := scored{score: score, pos: pos}
		pos++
		switch {
		case len(h) < k:
			x.m = relations.Move1{Codes: slices.Clone(m.Codes), W: slices.Clone(m.W)}
			h = append(h, x)
			for i := len(h) - 1; i > 0; {
				q := (i - 1) / 2
				if !before(&h[q], &h[i]) {
					break
				}
				h[i], h[q] = h[q], h[i]
				i = q
			}
		case before(&x, &h[0]):
			// reuse the evicted move's arrays
			x.m = relations.Move1{Codes: append(h[0].m.Codes[:0], m.Codes...), W: append(h[0].m.W[:0], m.W...)}
			h[0] = x
			down(0)
		}
		// Scores are never negative: once the k kept all score 0, no
		// later move (a later position) can displace one of them.
		return len(h) < k || h[0].score > 0
	})
	order := make([]int32, len(h)) // sort positions, not the entries
	for a := range order {
		order[a] = int32(a)
	}
	slices.SortFunc(order, func(a, b int32) int { return lessFirst(before(&h[a], &h[b]), before(&h[b], &h[a])) })
	out := make([]relations.Move1, len(h))
	for a, o := range order {
		out[a] = h[o].m
	}
	return out
}

// balanced checks that m leaves every relation of the table unchanged
// (always true on a complete table; a table with partial margins may
// break the tensor-product construction): the terms coefficient·weight of
// its cells, sorted by relation, add up to 0 in each.
func (s *structure) balanced(m *move) bool {
	type term struct {
		r int32
		v int
	}
	var buf [32]term
	acc := buf[:0]
	for a, i := range m.cells {
		for _, r := range s.CellRels[i] {
			acc = append(acc, term{r, int(s.Coef(int(r), i)) * int(m.w[a])})
		}
	}
	slices.SortFunc(acc, func(x, y term) int { return cmp.Compare(x.r, y.r) })
	for a := 0; a < len(acc); {
		sum, b := 0, a
		for ; b < len(acc) && acc[b].r == acc[a].r; b++ {
			sum += acc[b].v
		}
		if sum != 0 {
			return false
		}
		a = b
	}
	return true
}
