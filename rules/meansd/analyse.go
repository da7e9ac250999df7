package meansd

import (
	"context"
	"math"
	"math/bits"
)

// The one-pass analysis: ranges of the maximum and minimum, forced values
// with their least counts and impossible values from feasibility tables,
// without existence searches.
//
// Values are centred on a grid point c near the mean (e = k − c, t = Σe,
// u = Σe², as in countDP). A table holds, for every reachable (t, u) of a
// multiset of some grid values, the set of its sizes m ≤ n as a bitset.
// Reachable cells have t ≡ u (mod 2) and |t| ≤ sqrt(n·u) (Cauchy–Schwarz),
// so row u stores only t = −R_u, −R_u+2, ..., R_u. Adding a value (any
// number of copies) is one pass over the table. From these tables:
//   - values 0..v added in turn: the first v for which a solution exists is
//     the least maximum; v..K in turn, the greatest minimum;
//   - a table of every value but k (divide and conquer over the values,
//     (K+1)·log2(K+1) passes) gives every count j of k that some solution
//     has: j copies of k complete a multiset of n − j values of that table.

// ftab is a feasibility table over (t, u) with sizes as bitsets.
type ftab []uint64

type analyser struct {
	ctx context.Context
	// w is the request's work budget; each pass over a table charges
	// its words (wordsPerNode per search node).
	w        *work
	p        *problem
	n        int
	c        int64   // centre
	tLo, tHi int64   // target range of T = S − n·c
	ulo, uhi []int64 // target range of U per T (index T − tLo)
	U        int64   // largest u kept
	W        int     // words per cell
	R        []int64 // half width of row u
	off      []int   // first cell of row u
	cells    int
}

// maxAnalysisWork bounds the word operations of the one-pass analysis
// (table size times passes); beyond it the queries are used.
const maxAnalysisWork = 1 << 31

// newAnalyser sets up the tables for p, or returns errTooBig when they do
// not fit maxCells (8-byte words, all tables held at once), errStop when
// nothing can match.
func newAnalyser(ctx context.Context, p *problem, maxCells int) (*analyser, error) {
	n := int64(p.n)
	a := &analyser{ctx: ctx, p: p, n: p.n, W: (p.n + 64) / 64}
	mid := (p.sLo + p.sHi) / 2
	a.c = min(max((2*mid+n)/(2*n), 0), int64(p.K))
	a.tLo, a.tHi = p.sLo-n*a.c, p.sHi-n*a.c
	a.U = -1
	for S := p.sLo; S <= p.sHi; S++ {
		qlo, qhi := p.qRange(S)
		shift := -2*a.c*S + n*a.c*a.c
		lo, hi := max(qlo+shift, 0), qhi+shift
		a.ulo, a.uhi = append(a.ulo, lo), append(a.uhi, hi)
		if lo <= hi {
			a.U = max(a.U, hi)
		}
	}
	if a.U < 0 {
		return nil, errStop // no target: no solution
	}
	if a.U > int64(maxCells) {
		return nil, errTooBig
	}
	a.R = make([]int64, a.U+1)
	a.off = make([]int, a.U+2)
	for u := int64(0); u <= a.U; u++ {
		r := isqrt(n * u)
		if (r-u)&1 != 0 {
			r--
		}
		a.R[u] = r
		a.off[u+1] = a.off[u] + int(r+1)
		if a.off[u+1] > maxCells {
			return nil, errTooBig
		}
	}
	a.cells = a.off[a.U+1]
	tables := int64(a.depth() + 2)
	size := int64(a.cells) * int64(a.W)
	passes := int64(p.K+1) * tables
	if size*tables > int64(maxCells) || size*passes > maxAnalysisWork {
		return nil, errTooBig
	}
	return a, nil
}

// depth is the number of halvings of the K+1 values.
func (a *analyser) depth() int { return bits.Len(uint(a.p.K)) }

func isqrt(x int64) int64 {
	r := int64(math.Sqrt(float64(x)))
	for r*r > x {
		r--
	}
	for (r+1)*(r+1) <= x {
		r++
	}
	return r
}

// empty returns a table holding only the empty multiset.
func (a *analyser) empty(buf ftab) ftab {
	if buf == nil {
		buf = make(ftab, a.cells*a.W)
	}
	clear(buf)
	buf[0] = 1 // (t, u) = (0, 0), m = 0
	return buf
}

// add adds any number of copies of grid value k to tab.
func (a *analyser) add(tab ftab, k int) error {
	if err := a.ctx.Err(); err != nil {
		return errTime
	}
	if a.w.spendN(int64(a.cells*a.W)/wordsPerNode + 1) {
		return errTime
	}
	e := int64(k) - a.c
	W := a.W
	top := uint64(1)<<(uint(a.n)%64+1) - 1 // bits of the last word ≤ n
	if uint(a.n)%64 == 63 {
		top = math.MaxUint64
	}
	if e == 0 {
		for i := 0; i < a.cells; i++ {
			smear(tab[i*W:(i+1)*W], top)
		}
		return nil
	}
	w := e * e
	for u := w; u <= a.U; u++ {
		s := u - w
		Ru, Rs := a.R[u], a.R[s]
		t0, t1 := max(-Ru, -Rs+e), min(Ru, Rs+e)
		if t0 > t1 {
			continue
		}
		di := a.off[u] + int((t0+Ru)/2)
		si := a.off[s] + int((t0-e+Rs)/2)
		cnt := int((t1-t0)/2 + 1)
		dst := tab[di*W : (di+cnt)*W]
		src := tab[si*W : (si+cnt)*W]
		if W == 1 {
			for i, x := range src {
				dst[i] |= x << 1 & top
			}
			continue
		}
		for i := 0; i < cnt; i++ {
			shlOr(dst[i*W:(i+1)*W], src[i*W:(i+1)*W], top)
		}
	}
	return nil
}

// shlOr ors src shifted up by one bit into dst, keeping the bits ≤ n.
func shlOr(dst, src []uint64, top uint64) {
	var carry uint64
	for i, x := range src {
		dst[i] |= x<<1 | carry
		carry = x >> 63
	}
	dst[len(dst)-1] &= top
}

// smear sets every bit above the lowest set bit (closure under one more
// copy of a value that changes neither t nor u).
func smear(x []uint64, top uint64) {
	for i, w := range x {
		if w == 0 {
			continue
		}
		x[i] |= ^(w&-w - 1)
		for j := i + 1; j < len(x); j++ {
			x[j] = math.MaxUint64
		}
		x[len(x)-1] &= top
		return
	}
}

// fits reports whether j copies of grid value k complete a multiset of
// n − j values in tab to a solution (j = 0: a solution of tab itself).
func (a *analyser) fits(tab ftab, k, j int) bool {
	e := int64(k) - a.c
	m := a.n - j
	word, bit := m/64, uint(m%64)
	je, jw := int64(j)*e, int64(j)*e*e
	for T := a.tLo; T <= a.tHi; T++ {
		t := T - je
		lo, hi := max(a.ulo[T-a.tLo]-jw, 0), min(a.uhi[T-a.tLo]-jw, a.U)
		if (lo-t)&1 != 0 {
			lo++
		}
		for u := lo; u <= hi; u += 2 {
			R := a.R[u]
			if t < -R || t > R {
				continue
			}
			i := a.off[u] + int((t+R)/2)
			if tab[i*a.W+word]>>bit&1 != 0 {
				return true
			}
		}
	}
	return false
}

// analyseDP sets the ranges, forced and impossible values of res from the
// tables; errTooBig when they do not fit maxCells, errTime when ctx ends.
func analyseDP(ctx context.Context, p *problem, maxCells int, res *Result, w *work) error {
	a, err := newAnalyser(ctx, p, maxCells)
	if a != nil {
		a.w = w
	}
	if err != nil {
		return err
	}
	tabs := make([]ftab, a.depth()+1)
	// least maximum: values 0..v; greatest minimum: values v..K
	mxLo, mnHi := -1, -1
	tab := a.empty(nil)
	for v := 0; v <= p.K && mxLo < 0; v++ {
		if err := a.add(tab, v); err != nil {
			return err
		}
		if a.fits(tab, v, 0) {
			mxLo = v
		}
	}
	tab = a.empty(tab)
	for v := p.K; v >= 0 && mnHi < 0; v-- {
		if err := a.add(tab, v); err != nil {
			return err
		}
		if a.fits(tab, v, 0) {
			mnHi = v
		}
	}
	if mxLo < 0 || mnHi < 0 {
		return errStop // no solution: nothing to analyse
	}
	tabs[0] = a.empty(tab)
	minC := make([]int, p.K+1)
	maxPos := make([]bool, p.K+1)
	if err := a.split(tabs, 0, 0, p.K, minC, maxPos); err != nil {
		return err
	}
	lo, hi := -1, -1
	res.Forced, res.Impossible = nil, nil
	for k := 0; k <= p.K; k++ {
		if !maxPos[k] {
			res.Impossible = append(res.Impossible, p.value(k))
			continue
		}
		if lo < 0 {
			lo = k
		}
		hi = k
		if minC[k] > 0 {
			res.Forced = append(res.Forced, Forced{p.value(k), minC[k]})
		}
	}
	if lo < 0 {
		return errStop
	}
	res.MaxRange = &Range{p.value(mxLo), p.value(hi)}
	res.MinRange = &Range{p.value(lo), p.value(mnHi)}
	return nil
}

// split analyses the values lo..hi; tabs[d] holds every value outside
// lo..hi.
func (a *analyser) split(tabs []ftab, d, lo, hi int, minC []int, pos []bool) error {
	if lo == hi {
		return a.counts(tabs[d], lo, minC, pos)
	}
	mid := (lo + hi) / 2
	for _, half := range [2][2]int{{lo, mid}, {mid + 1, hi}} {
		if tabs[d+1] == nil {
			tabs[d+1] = make(ftab, len(tabs[d]))
		}
		copy(tabs[d+1], tabs[d])
		for k := lo; k <= hi; k++ {
			if k >= half[0] && k <= half[1] {
				continue
			}
			if err := a.add(tabs[d+1], k); err != nil {
				return err
			}
		}
		if err := a.split(tabs, d+1, half[0], half[1], minC, pos); err != nil {
			return err
		}
	}
	return nil
}

// counts sets the least count of value k over all solutions and whether
// some solution has it, from the table of every other value.
func (a *analyser) counts(tab ftab, k int, minC []int, pos []bool) error {
	if a.w.spendN(int64(a.cells*a.W)/wordsPerNode + 1) {
		return errTime
	}
	minC[k] = -1
	for j := 0; j <= a.n; j++ {
		if j&63 == 0 && a.ctx.Err() != nil {
			return errTime
		}
		if !a.fits(tab, k, j) {
			continue
		}
		if minC[k] < 0 {
			minC[k] = j
		}
		if j > 0 {
			pos[k] = true
			break
		}
	}
	if minC[k] < 0 {
		return errStop // no solution at all
	}
	return nil
}
