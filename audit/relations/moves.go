package relations

// Move1 is a one-dimensional move: codes of one dimension with weights.
type Move1 struct {
	// Codes are code indices of the dimension, W their weights (±1).
	Codes []int
	W     []int8
}

// Covers reports whether cell a is a margin of cell b (or b itself): in
// every dimension a's code is b's or an ancestor of it. A singleton margin
// over b has the same single contributor as b, who is no intruder.
func (s *Structure) Covers(a, b int) bool {
	for d := 0; d < s.NDim; d++ {
		c := s.Keys[b][d]
		for c >= 0 && c != s.Keys[a][d] {
			c = s.Parent[d][c]
		}
		if c < 0 {
			return false
		}
	}
	return true
}

// InRel reports whether cell i is the total or a part of relation r.
func (s *Structure) InRel(r, i int) bool {
	rel := s.Rels[r]
	if rel.Total == i {
		return true
	}
	for _, j := range rel.Parts {
		if j == i {
			return true
		}
	}
	return false
}

// Moves1D lists the one-dimensional moves through code k of dimension d:
// a path from a leaf below k up to the root, or a path from a leaf below k
// up to an ancestor-or-self a paired with the opposite path below a
// sibling of a. A code in no relation moves alone. The moves share one
// backing array each for codes and weights (callers must not append to
// them).
func (s *Structure) Moves1D(d, k int) []Move1 {
	var out []Move1
	var codes []int
	var ws []int8
	var ends []int
	var sc Move1
	s.EachMove1D(d, k, &sc, func(m Move1) bool {
		codes = append(codes, m.Codes...)
		ws = append(ws, m.W...)
		ends = append(ends, len(codes))
		return true
	})
	out = make([]Move1, len(ends))
	from := 0
	for a, e := range ends {
		out[a] = Move1{Codes: codes[from:e:e], W: ws[from:e:e]}
		from = e
	}
	return out
}

// EachMove1D calls yield with every move of Moves1D(d, k), in the same
// order, without listing them: the move is built in sc and valid only
// during the call. It stops, returning false, when yield returns false.
func (s *Structure) EachMove1D(d, k int, sc *Move1, yield func(Move1) bool) bool {
	par, ch := s.Parent[d], s.Children[d]
	if par[k] < 0 && len(ch[k]) == 0 {
		sc.Codes, sc.W = append(sc.Codes[:0], k), append(sc.W[:0], 1)
		return yield(*sc)
	}
	path := func(l, a int, w int8) { // l up to a inclusive
		for y := l; ; y = par[y] {
			sc.Codes = append(sc.Codes, y)
			sc.W = append(sc.W, w)
			if y == a || y < 0 {
				break
			}
		}
	}
	root := k
	for par[root] >= 0 {
		root = par[root]
	}
	below := s.leavesOf(d, k)
	for _, l := range below {
		sc.Codes, sc.W = sc.Codes[:0], sc.W[:0]
		path(l, root, 1)
		if !yield(*sc) {
			return false
		}
	}
	for a := k; par[a] >= 0; a = par[a] {
		for _, b := range ch[par[a]] {
			if b == a {
				continue
			}
			for _, l := range below {
				for _, l2 := range s.leavesOf(d, b) {
					sc.Codes, sc.W = sc.Codes[:0], sc.W[:0]
					path(l, a, 1)
					path(l2, b, -1)
					if !yield(*sc) {
						return false
					}
				}
			}
		}
	}
	return true
}

// Count1D is len(Moves1D(d, k)), without listing the moves.
func (s *Structure) Count1D(d, k int) int {
	par, ch := s.Parent[d], s.Children[d]
	if par[k] < 0 && len(ch[k]) == 0 {
		return 1
	}
	below := len(s.leavesOf(d, k))
	n := below
	for a := k; par[a] >= 0; a = par[a] {
		for _, b := range ch[par[a]] {
			if b != a {
				n += below * len(s.leavesOf(d, b))
			}
		}
	}
	return n
}

// Leaves returns the leaves below code x of dimension d (x itself when
// it is a leaf), depth first, in the order Moves1D takes them. Callers
// must not modify the result.
func (s *Structure) Leaves(d, x int) []int { return s.leavesOf(d, x) }

// leavesOf returns the leaves below code x of dimension d (x itself when
// it is a leaf), depth first; computed once per structure for every code.
// Safe for concurrent use; callers must not modify the result.
func (s *Structure) leavesOf(d, x int) []int {
	s.lvOnce.Do(func() {
		s.lv = make([][][]int, s.NDim)
		for e := 0; e < s.NDim; e++ {
			ch := s.Children[e]
			s.lv[e] = make([][]int, len(ch))
			var rec func(y int) []int
			rec = func(y int) []int {
				if s.lv[e][y] != nil {
					return s.lv[e][y]
				}
				var out []int
				if len(ch[y]) == 0 {
					out = []int{y}
				} else {
					for _, c := range ch[y] {
						out = append(out, rec(c)...)
					}
				}
				s.lv[e][y] = out
				return out
			}
			for y := range ch {
				rec(y)
			}
		}
	})
	return s.lv[d][x]
}

// WalkMove visits every cell of the tensor product of the one-dimensional
// moves ms[d][idx[d]] with its weight (the product of the per-dimension
// weights); j is -1 for a cell absent from the table. tuple is scratch of
// length nd. It stops, returning false, as soon as visit returns false.
func (s *Structure) WalkMove(ms [][]Move1, idx, tuple []int, visit func(j int, w int8) bool) bool {
	return s.walkFrom(0, 1, ms, idx, tuple, visit)
}

func (s *Structure) walkFrom(e int, w int8, ms [][]Move1, idx, tuple []int, visit func(j int, w int8) bool) bool {
	if e == s.NDim {
		return visit(s.Lookup(tuple), w)
	}
	mv := ms[e][idx[e]]
	for a, c := range mv.Codes {
		tuple[e] = c
		if !s.walkFrom(e+1, w*mv.W[a], ms, idx, tuple, visit) {
			return false
		}
	}
	return true
}
