package meansd

import (
	"context"
	"errors"
)

// errStop ends a search early; errTime when the time limit or the context
// ran out.
var (
	errStop = errors.New("stop")
	errTime = errors.New("time limit")
)

// searcher enumerates count vectors c[0..K] by depth-first search from the
// largest value down, pruned with two-sided bounds on the sum of squares of
// the values still to place.
type searcher struct {
	p      *problem
	lo, hi []int // per-value count bounds (constraint queries)
	vmax   int   // values above vmax are not used
	pre    []int // counts placed before the search (constraint queries)
	c      []int
	visit  func(c []int) error
	ctx    context.Context
	work   *work
	nodes  int
	found  uint64
	// dead holds states whose subtree has no solution; the state fixes the
	// subtree when there is no median constraint.
	dead map[state]struct{}

	// maxAtLeast > 0 asks for a solution whose largest value is at least
	// maxAtLeast; minAtMost >= 0 for one whose smallest value is at most
	// minAtMost (existence queries for the ranges; not combined with pre).
	maxAtLeast, minAtMost int
	r0                    int64 // values to place at the top of the search
}

type state struct{ v, r, sig, qlo, qhi int64 }

// maxDead bounds the memory of the dead-state memo.
const maxDead = 1 << 21

func newSearcher(ctx context.Context, p *problem, w *work) *searcher {
	s := &searcher{p: p, ctx: ctx, work: w, vmax: p.K, minAtMost: -1}
	s.lo = make([]int, p.K+1)
	s.hi = make([]int, p.K+1)
	for i := range s.hi {
		s.hi[i] = p.n
	}
	s.c = make([]int, p.K+1)
	if !p.hasM {
		s.dead = make(map[state]struct{})
	}
	return s
}

// run visits every solution (in order of S) until visit returns an error.
func (s *searcher) run() error {
	p := s.p
	var pr, ps, pq int64
	for k, x := range s.pre {
		pr += int64(x)
		ps += int64(x) * int64(k)
		pq += int64(x) * int64(k) * int64(k)
	}
	if pr > int64(p.n) {
		return nil
	}
	if pr > 0 {
		inner := s.visit
		full := make([]int, len(s.c))
		s.visit = func(c []int) error {
			for k := range full {
				full[k] = c[k] + s.pre[k]
			}
			return inner(full)
		}
		defer func() { s.visit = inner }()
	}
	s.r0 = int64(p.n) - pr
	for S := p.sLo; S <= p.sHi; S++ {
		qlo, qhi := p.qRange(S)
		if qlo > qhi {
			continue
		}
		if err := s.dfs(s.vmax, int64(p.n)-pr, S-ps, qlo-pq, qhi-pq); err != nil {
			return err
		}
	}
	return nil
}

func (s *searcher) tick() error {
	s.nodes++
	if s.work.spend() {
		return errTime
	}
	if s.nodes&1023 == 0 && s.ctx.Err() != nil {
		s.work.stopped = true
		return errTime
	}
	return nil
}

// work is the deterministic work budget of a request: search nodes
// visited by every search and existence query of the request together.
// limit 0 means none. It replaces the wall clock as what bounds a verdict,
// so that a verdict is the same on any machine; the request's time limit
// (the context) stays only as the user's hard stop (stopped).
type work struct {
	used, limit int64
	// out: the budget ran out; stopped: the context (the hard stop or a
	// cancellation) ended a search.
	out, stopped bool
}

// spend counts one node and reports whether the budget is exhausted.
func (w *work) spend() bool {
	if w == nil {
		return false
	}
	w.used++
	if w.limit > 0 && w.used > w.limit {
		w.out = true
		return true
	}
	return false
}

// wordsPerNode is how many word operations of the counting and analysis
// tables are charged as one search node (about the same time).
const wordsPerNode = 50

// spendN counts k nodes' worth of work and reports whether the budget is
// exhausted.
func (w *work) spendN(k int64) bool {
	if w == nil {
		return false
	}
	w.used += k
	if w.limit > 0 && w.used > w.limit {
		w.out = true
		return true
	}
	return false
}

// half returns a budget of half of what is left (the whole when there is
// no limit), to be given back with join.
func (w *work) half() *work {
	h := &work{used: w.used}
	if w.limit > 0 {
		h.limit = w.used + max(0, w.limit-w.used)/2
	}
	return h
}

// join adds what a sub-budget used; its running out is not the request's.
func (w *work) join(h *work) {
	w.used = h.used
	w.out = w.out || h.out
	w.stopped = w.stopped || h.stopped
}

// qmin is the least sum of squares of r values summing to sig.
func qmin(r, sig int64) int64 {
	if r == 0 {
		return 0
	}
	a, b := sig/r, sig%r
	return (r-b)*a*a + b*(a+1)*(a+1)
}

// qmax is the largest sum of squares of r values in 0..v summing to sig.
func qmax(r, sig, v int64) int64 {
	if r == 0 || v == 0 {
		return 0
	}
	a, b := sig/v, sig%v
	if a >= r {
		return r * v * v
	}
	return a*v*v + b*b
}

// feasible reports whether r values in 0..v can have sum sig and a sum of
// squares in [qlo, qhi] (a relaxation: per-value bounds are ignored).
func feasible(r, sig int64, v int, qlo, qhi int64) bool {
	if sig < 0 || sig > r*int64(v) || qhi < 0 {
		return false
	}
	return qmin(r, sig) <= qhi && qmax(r, sig, int64(v)) >= qlo
}

// dfs places the counts of values v, v-1, ..., 0 for r values with sum sig
// and sum of squares in [qlo, qhi].
func (s *searcher) dfs(v int, r, sig, qlo, qhi int64) error {
	if err := s.tick(); err != nil {
		return err
	}
	if !feasible(r, sig, v, qlo, qhi) {
		return nil
	}
	// nothing placed above v although the maximum must reach maxAtLeast;
	// nothing left for the levels up to minAtMost
	if v < s.maxAtLeast && r == s.r0 || v == min(s.minAtMost, s.vmax) && r == 0 {
		return nil
	}
	if v == 0 {
		if sig != 0 || qlo > 0 || int(r) < s.lo[0] || int(r) > s.hi[0] {
			return nil
		}
		s.c[0] = int(r)
		for k := 1; k <= s.p.K; k++ {
			if k > s.vmax {
				s.c[k] = 0
			}
		}
		if s.p.hasM && !s.p.medianOK(s.withPre()) {
			return nil
		}
		s.found++
		return s.visit(s.c)
	}
	var key state
	if s.dead != nil {
		key = state{int64(v), r, sig, qlo, qhi}
		if _, ok := s.dead[key]; ok {
			return nil
		}
	}
	before := s.found
	vv := int64(v)
	w := vv * vv
	cmax := min(r, sig/vv, int64(s.hi[v]))
	cmin := max(int64(s.lo[v]), sig-r*(vv-1))
	for c := cmax; c >= cmin; c-- {
		r2, sig2 := r-c, sig-c*vv
		qlo2, qhi2 := qlo-c*w, qhi-c*w
		if !feasible(r2, sig2, v-1, qlo2, qhi2) {
			// as c falls the remaining sum rises; once the remaining values
			// cannot reach the needed squares from above, fewer copies of v
			// only help the sum but the quick test is not monotone: go on.
			continue
		}
		s.c[v] = int(c)
		if err := s.dfs(v-1, r2, sig2, qlo2, qhi2); err != nil {
			return err
		}
	}
	s.c[v] = 0
	if s.dead != nil && s.found == before && len(s.dead) < maxDead {
		s.dead[key] = struct{}{}
	}
	return nil
}

// exists reports whether some solution satisfies the searcher's bounds.
func (s *searcher) exists() (bool, error) {
	found := false
	s.visit = func([]int) error { found = true; return errStop }
	err := s.run()
	if errors.Is(err, errStop) {
		return true, nil
	}
	return found, err
}

// withPre returns the current vector plus the pre-placed counts.
func (s *searcher) withPre() []int {
	if s.pre == nil {
		return s.c
	}
	out := make([]int, len(s.c))
	for k := range out {
		out[k] = s.c[k] + s.pre[k]
	}
	return out
}
