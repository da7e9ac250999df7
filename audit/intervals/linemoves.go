package intervals

import (
	"math"
	"slices"
	"sync"

	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// Line moves: forMoves' one-dimensional moves of a cell at a leaf code,
// in forMoves' order (score highest first, ties in Moves1D's order),
// generated on demand from lists shared by every cell of a line instead
// of enumerating and scoring every move of the dimension per cell (linear
// in the dimension's codes: on a table of 1,000 levels most cells'
// searches stop after a few moves of a thousand).
//
// The moves through a leaf k of dimension d (Moves1D) are the path from k
// to the root, then, for each ancestor-or-self a of k below the root and
// each sibling b of a (children of P, a's parent, in order), for each
// leaf l2 below b, the path k..a at +1 with the path l2..b at −1. The
// right parts (b, l2) depend on the line (the cells sharing every other
// coordinate with the cell) and on P only: lineList holds, per line and
// P, those whose cells are all present and suppressed, by the smallest
// value of their cells (the right score) highest first, then in
// enumeration order. A move's score is the smaller of its left part's
// (k excluded) and its right part's: in group a, the right parts scoring
// at least the left part's score all tie at it (taken in enumeration
// order), the others follow in the list's order. The groups and the path
// to the root are merged by (score, group, position).
//
// Only at the true point (no shift, witnessScratch.delta empty): the
// augmenting searches keep the enumeration.

// lineItem is one right part (b, l2) of a line list.
type lineItem struct {
	score float64 // smallest value at the true point of path l2..b
	b, l2 int32
	pos   int32 // position in P's children's leaves, in Moves1D's order
}

// lineList is the list of one (dimension, line, P).
type lineList struct {
	once  sync.Once
	items []lineItem // valid right parts, score highest first, then pos
}

// lineCache holds the line lists of one audit (its suppressed cells
// fixed); safe for concurrent use.
type lineCache struct {
	s      *structure
	sup    []bool
	stride []uint64 // mixed-radix key of a code tuple
	mu     sync.Mutex
	lists  []map[uint64]*lineList // per dimension, by key of (line, P)
}

// newLineCache returns the cache of an audit whose suppressed cells are
// sup, or nil when the table's code tuples do not fit a 63-bit key (the
// enumeration is then used).
func newLineCache(s *structure, sup []bool) *lineCache {
	lc := &lineCache{s: s, sup: sup, stride: make([]uint64, s.NDim), lists: make([]map[uint64]*lineList, s.NDim)}
	prod := uint64(1)
	for d := s.NDim - 1; d >= 0; d-- {
		lc.stride[d] = prod
		n := uint64(max(len(s.Codes[d]), 1))
		if prod > (1<<63)/n {
			return nil
		}
		prod *= n
		lc.lists[d] = map[uint64]*lineList{}
	}
	return lc
}

// sameSup reports whether lc is set and holds the lists of sup.
func (lc *lineCache) sameSup(sup []bool) bool {
	return lc != nil && len(sup) == len(lc.sup) && len(sup) > 0 && &sup[0] == &lc.sup[0]
}

// trueValue is cell j at the true point (unknown cells count as zero):
// pointValue with no shift.
func (s *structure) trueValue(j int) float64 {
	if !s.Known[j] {
		return 0
	}
	return s.Val[j]
}

// list returns the list of dimension d, the line of tuple (tuple[d] is
// ignored and left changed) and parent code P.
func (lc *lineCache) list(d int, tuple []int, P int) *lineList {
	tuple[d] = P
	var key uint64
	for e, c := range tuple {
		key += uint64(c) * lc.stride[e]
	}
	lc.mu.Lock()
	l := lc.lists[d][key]
	if l == nil {
		l = &lineList{}
		lc.lists[d][key] = l
	}
	lc.mu.Unlock()
	l.once.Do(func() { l.items = lc.build(d, slices.Clone(tuple), P) })
	return l
}

// build lists the valid right parts of (d, line of tuple, P).
func (lc *lineCache) build(d int, tuple []int, P int) []lineItem {
	s := lc.s
	par := s.Parent[d]
	var items []lineItem
	pos := int32(0)
	for _, b := range s.Children[d][P] {
		for _, l2 := range s.Leaves(d, b) {
			score, ok := math.Inf(1), true
			for y := l2; ; y = par[y] {
				tuple[d] = y
				j := s.Lookup(tuple)
				if j < 0 || !lc.sup[j] {
					ok = false
					break
				}
				score = math.Min(score, s.trueValue(j))
				if y == b || y < 0 {
					break
				}
			}
			if ok {
				items = append(items, lineItem{score: score, b: int32(b), l2: int32(l2), pos: pos})
			}
			pos++
		}
	}
	slices.SortFunc(items, func(a, b lineItem) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return int(a.pos - b.pos)
	})
	return items
}

// lineGroup is the stream of group a of one cell's line moves.
type lineGroup struct {
	a     int
	left  float64 // the left part's score (k excluded)
	items []lineItem
	// first holds the right parts scoring at least left, by position
	// (built when the group is first read); next indexes first while
	// inFirst, then items.
	first   []lineItem
	started bool
	inFirst bool
	next    int
}

// lineSource generates one dimension's moves of one forMoves call.
type lineSource struct {
	d, k int
	// root: the path from k to the root, valid and not yet taken, with
	// its score.
	root      bool
	rootScore float64
	groups    []lineGroup
}

// start prepares dimension d's line moves of cell i (key) into src; it
// reports false when the cell's code is not a leaf below a root (the
// enumeration is used then).
func (lc *lineCache) start(d int, i int, key []int, tuple []int, src *lineSource) bool {
	s := lc.s
	par, ch := s.Parent[d], s.Children[d]
	k := key[d]
	if len(ch[k]) != 0 || par[k] < 0 {
		return false
	}
	copy(tuple, key)
	src.d, src.k = d, k
	src.groups = src.groups[:0]
	// the path to the root
	src.root, src.rootScore = true, math.Inf(1)
	for y := k; y >= 0; y = par[y] {
		tuple[d] = y
		j := s.Lookup(tuple)
		if j < 0 || !lc.sup[j] {
			src.root = false
			break
		}
		if j != i {
			src.rootScore = math.Min(src.rootScore, s.trueValue(j))
		}
	}
	// the groups: left part k..a valid so far
	left := math.Inf(1)
	for a := k; par[a] >= 0; a = par[a] {
		tuple[d] = a
		j := s.Lookup(tuple)
		if j < 0 || !lc.sup[j] {
			break // every higher group's left part holds this cell
		}
		if j != i {
			left = math.Min(left, s.trueValue(j))
		}
		l := lc.list(d, tuple, par[a])
		if len(l.items) == 0 {
			continue
		}
		var first []lineItem // reuse the buffer of an earlier call's group
		if g := len(src.groups); g < cap(src.groups) {
			first = src.groups[:g+1][g].first[:0]
		}
		src.groups = append(src.groups, lineGroup{a: a, left: left, items: l.items, first: first})
	}
	return true
}

// head returns group g's next right part, or false when it has none.
func (g *lineGroup) head() (lineItem, bool) {
	if !g.started {
		g.started = true
		// the right parts scoring at least left: a prefix of items
		n := 0
		for n < len(g.items) && g.items[n].score >= g.left {
			n++
		}
		for _, it := range g.items[:n] {
			if int(it.b) != g.a {
				g.first = append(g.first, it)
			}
		}
		slices.SortFunc(g.first, func(a, b lineItem) int { return int(a.pos - b.pos) })
		g.inFirst, g.next = true, 0
		if len(g.first) == 0 {
			g.inFirst, g.next = false, n
		}
	}
	if g.inFirst {
		return g.first[g.next], true
	}
	for g.next < len(g.items) && int(g.items[g.next].b) == g.a {
		g.next++
	}
	if g.next < len(g.items) {
		return g.items[g.next], true
	}
	return lineItem{}, false
}

// advance moves group g past its head.
func (g *lineGroup) advance() {
	g.next++
	if g.inFirst && g.next == len(g.first) {
		g.inFirst = false
		g.next = 0
		for g.next < len(g.items) && g.items[g.next].score >= g.left {
			g.next++
		}
	}
}

// pop appends the next move to ms (its codes and weights in the arenas
// codes, w1) and reports whether there was one.
func (src *lineSource) pop(s *structure, ws *witnessScratch, d int) bool {
	par := s.Parent[src.d]
	best := -1 // -1: none; 0: the root path; g+1: group g
	var bestScore float64
	if src.root {
		best, bestScore = 0, src.rootScore
	}
	for g := range src.groups {
		it, ok := src.groups[g].head()
		if !ok {
			continue
		}
		sc := math.Min(src.groups[g].left, it.score)
		// groups come after the root path and in order: only a higher
		// score wins
		if best < 0 || sc > bestScore {
			best, bestScore = g+1, sc
		}
	}
	if best < 0 {
		return false
	}
	from := len(ws.codes)
	if best == 0 {
		src.root = false
		for y := src.k; y >= 0; y = par[y] {
			ws.codes = append(ws.codes, y)
			ws.w1 = append(ws.w1, 1)
		}
	} else {
		g := &src.groups[best-1]
		it, _ := g.head()
		g.advance()
		for y := src.k; ; y = par[y] {
			ws.codes = append(ws.codes, y)
			ws.w1 = append(ws.w1, 1)
			if y == g.a {
				break
			}
		}
		for y := int(it.l2); ; y = par[y] {
			ws.codes = append(ws.codes, y)
			ws.w1 = append(ws.w1, -1)
			if y == int(it.b) {
				break
			}
		}
	}
	to := len(ws.codes)
	ws.ms[d] = append(ws.ms[d], relations.Move1{Codes: ws.codes[from:to:to], W: ws.w1[from:to:to]})
	return true
}
