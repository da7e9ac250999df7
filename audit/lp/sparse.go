package lp

import (
	"context"
	"errors"
	"math"
	"slices"
)

// Sparse is a revised primal simplex over {x : A x = b, x >= 0} for large
// sparse systems (the relations of a table component with thousands of
// suppressed cells), where the dense tableau of Solver grows with the
// product of rows and columns. The basis matrix is kept as a sparse LU
// factorisation (Markowitz-ordered Gaussian elimination) followed by
// product-form updates, refactorised every refactorEvery pivots. Memory
// and work per iteration grow with the non-zeros of A and of the factors,
// not with rows × columns.
//
// It starts from a feasible point x0 (which need not be a vertex): the
// non-basic variables keep their values until an objective moves them,
// exactly as NewAt does for Solver. Arithmetic is float64 with the same
// tolerances as Solver.
type Sparse struct {
	m, n   int
	colIdx [][]int32 // A by column: rows (after redundant rows are dropped)
	colVal [][]float64
	rowIdx [][]int32 // A by row: columns (read-only, shared by clones)
	rowVal [][]float64
	// cstart, cidxA, cvalA: A by column in one arena (column j at
	// cstart[j]:cstart[j+1]; colIdx and colVal are views of it).
	cstart []int32
	cidxA  []int32
	cvalA  []float64
	rhs    []float64
	head   []int // variable basic at each position
	pos    []int // position of a basic variable, -1 when non-basic
	x      []float64
	f      *luFactor
	etas   []eta
	// etaIdx, etaVal: the arena of the etas' entries, reused after each
	// refactorisation (never shared: Clone copies the etas into its own).
	etaIdx []int32
	etaVal []float64
	// etaDense: each eta's column also dense over positions (zero at p
	// and where idx has no entry), in slabs of m reused like the arena,
	// for btran's products with a sparse vector.
	etaDense []float64
	nzPos    []int32 // btran's scratch
	// Tol is the feasibility tolerance: values within Tol of zero are zero.
	Tol float64
	// Pivots counts the basis changes so far.
	Pivots int
	// Iters counts the simplex iterations so far (pivots and bound
	// flips); with IterLimit > 0, OptimizeTo returns ErrIterations once
	// Iters reaches it: a deterministic work budget shared by every
	// objective solved with this solver.
	Iters, IterLimit int
	// noEnter marks variables that never enter the basis once they are
	// non-basic at zero (the artificial variables of NewSparse's phase 1).
	noEnter []bool
	// Dantzig selects the simplex of before (the baseline of benchmarks):
	// every column priced afresh each iteration, the largest reduced cost
	// entering. Without it (the default) reduced costs are updated from
	// the pivot row and devex weights pick the entering column
	// (devex.go).
	Dantzig bool
	// rowGather makes devex gather every pivot row through the rows of A
	// (tests: both paths).
	rowGather bool
	// plain turns the shortcuts that change no result off (tests): devex
	// computes every weight update and score with its divisions,
	// unscreened, and btran takes every eta's product over its entries.
	plain bool
	// scratch
	y, w, cb, wb []float64
	cost         []float64 // objective of the current run, by variable
	cidx         [1]int
	cval         [1]float64
	dx           *devexState
}

// eta is one product-form update: the basis column at position p replaced,
// w = B⁻¹·a of the entering column (over positions, sparse).
type eta struct {
	p   int
	idx []int32
	val []float64
	wp  float64
	// dense: val over all positions (0 elsewhere and at p).
	dense []float64
}

// refactorEvery bounds the product-form updates kept before the basis is
// factorised afresh.
const refactorEvery = 64

// ErrSingular reports a basis that the sparse factorisation found
// numerically singular.
var ErrSingular = errors.New("lp: basis numerically singular")

// NewSparseAt builds a sparse solver for n variables and the given rows,
// starting from the feasible point x0 (ErrInfeasible when x0 violates a
// row beyond the tolerance). Linearly dependent rows are dropped.
func NewSparseAt(ctx context.Context, n int, rows []Row, x0 []float64) (*Sparse, error) {
	scale := 1.0
	for _, row := range rows {
		scale = math.Max(scale, math.Abs(row.RHS))
	}
	for _, v := range x0 {
		scale = math.Max(scale, math.Abs(v))
		if v < 0 {
			return nil, ErrInfeasible
		}
	}
	tol := 1e-9 * scale
	for _, row := range rows {
		r := row.RHS
		for k, j := range row.Idx {
			r -= row.Coef[k] * x0[j]
		}
		if math.Abs(r) > tol*float64(len(row.Idx)+1) {
			return nil, ErrInfeasible
		}
	}
	// Crash: Gaussian elimination on all of A picks a basis (one column
	// per independent row), preferring variables far from zero.
	m := len(rows)
	cols := make([][]entry, n)
	for r, row := range rows {
		for k, j := range row.Idx {
			cols[j] = append(cols[j], entry{int32(r), row.Coef[k]})
		}
	}
	piv, err := factorize(ctx, m, cols, x0, true)
	if err != nil {
		return nil, err
	}
	keep := make([]int32, m)
	for r := range keep {
		keep[r] = -1
	}
	s := &Sparse{n: n, Tol: tol, x: append([]float64(nil), x0...)}
	for _, pv := range piv.order {
		keep[pv.row] = int32(s.m)
		s.m++
	}
	// Rows in pivot order; columns renumbered.
	s.rhs = make([]float64, s.m)
	for r, row := range rows {
		if keep[r] >= 0 {
			s.rhs[keep[r]] = row.RHS
		}
	}
	// A by column, in one arena (cstart: where each column starts), with
	// colIdx and colVal views of it.
	s.colIdx = make([][]int32, n)
	s.colVal = make([][]float64, n)
	s.cstart = make([]int32, n+1)
	for j, c := range cols {
		for _, e := range c {
			if k := keep[e.row]; k >= 0 {
				s.cidxA = append(s.cidxA, k)
				s.cvalA = append(s.cvalA, e.v)
			}
		}
		s.cstart[j+1] = int32(len(s.cidxA))
	}
	for j := range cols {
		a, b := s.cstart[j], s.cstart[j+1]
		s.colIdx[j], s.colVal[j] = s.cidxA[a:b:b], s.cvalA[a:b:b]
	}
	s.rowIdx = make([][]int32, s.m)
	s.rowVal = make([][]float64, s.m)
	for j := range s.colIdx {
		for k, r := range s.colIdx[j] {
			s.rowIdx[r] = append(s.rowIdx[r], int32(j))
			s.rowVal[r] = append(s.rowVal[r], s.colVal[j][k])
		}
	}
	s.pos = make([]int, n)
	for j := range s.pos {
		s.pos[j] = -1
	}
	s.head = make([]int, s.m)
	for p, pv := range piv.order {
		s.head[p] = pv.col
		s.pos[pv.col] = p
	}
	s.y, s.w, s.cb = make([]float64, s.m), make([]float64, s.m), make([]float64, s.m)
	if err := s.refactor(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Clone returns an independent copy of the solver at its current point.
func (s *Sparse) Clone() *Sparse {
	c := *s
	c.head = append([]int(nil), s.head...)
	c.pos = append([]int(nil), s.pos...)
	c.x = append([]float64(nil), s.x...)
	// The etas into the clone's own arena: s reuses its arena after its
	// next refactorisation.
	c.etas, c.etaIdx, c.etaVal, c.etaDense, c.nzPos = make([]eta, 0, refactorEvery), nil, nil, nil, nil
	for _, e := range s.etas {
		c.addEta(e.p, e.wp, e.idx, e.val)
	}
	c.y, c.w, c.cb, c.wb, c.cost, c.dx = make([]float64, s.m), make([]float64, s.m), make([]float64, s.m), nil, nil, nil
	return &c
}

// Value returns variable v at the current point.
func (s *Sparse) Value(v int) float64 { return s.x[v] }

// Entries returns the number of nonzero entries of the constraint
// matrix over the rows kept: a pivot row reads each of them once, so an
// iteration costs in proportion to them (and to the rows, for B⁻¹).
func (s *Sparse) Entries() int { return len(s.cidxA) }

// Rows returns the number of independent rows the solver kept.
func (s *Sparse) Rows() int { return s.m }

// refactor factorises the current basis afresh and recomputes the basic
// values from the non-basic ones (removing accumulated rounding).
func (s *Sparse) refactor(ctx context.Context) error {
	bc := make([][]entry, s.m)
	nz := 0
	for _, j := range s.head {
		nz += len(s.colIdx[j])
	}
	arena := make([]entry, 0, nz)
	for p, j := range s.head {
		from := len(arena)
		for k, r := range s.colIdx[j] {
			arena = append(arena, entry{r, s.colVal[j][k]})
		}
		bc[p] = arena[from:len(arena):len(arena)]
	}
	f, err := factorize(ctx, s.m, bc, nil, false)
	if err != nil {
		return err
	}
	if len(f.order) != s.m {
		return ErrSingular
	}
	s.f, s.etas = f, s.etas[:0]
	s.etaIdx, s.etaVal = s.etaIdx[:0], s.etaVal[:0]
	// etaDense's slabs are reused in order (denseSlab).
	// x_B = B⁻¹ (b − N x_N).
	r := s.w
	copy(r, s.rhs)
	for j := 0; j < s.n; j++ {
		if s.pos[j] >= 0 || s.x[j] == 0 {
			continue
		}
		for k, i := range s.colIdx[j] {
			r[i] -= s.colVal[j][k] * s.x[j]
		}
	}
	z := make([]float64, s.m)
	s.f.ftran(r, z)
	for p, j := range s.head {
		v := z[p]
		if v < 0 && v > -s.Tol*10 {
			v = 0
		}
		s.x[j] = v
	}
	return nil
}

// ftran solves B z = a (a over rows, overwritten; z over positions).
func (s *Sparse) ftran(a, z []float64) {
	s.f.ftran(a, z)
	for _, e := range s.etas {
		zp := z[e.p] / e.wp
		if zp != 0 {
			for k, q := range e.idx {
				z[q] -= e.val[k] * zp
			}
		}
		z[e.p] = zp
	}
}

// btran solves yᵀ B = cᵀ (c over positions, overwritten; y over rows).
//
// Through the eta file only c's entry at each eta's p changes, so a c
// with few non-zeros (e_p for the pivot row: at most one more per eta)
// stays sparse: the product with an eta's column is then taken over c's
// non-zeros (nz, ascending, as idx is) through the eta's dense copy,
// instead of over the eta's entries. The terms left out are products with
// an exact zero, so the sums are the same (up to the sign of a zero sum).
func (s *Sparse) btran(c, y []float64) {
	if len(s.etas) > 0 {
		nz := s.nzPos[:0]
		if !s.plain {
			for r, v := range c {
				if v != 0 {
					nz = append(nz, int32(r))
				}
			}
		}
		for k := len(s.etas) - 1; k >= 0; k-- {
			e := s.etas[k]
			v := c[e.p]
			if !s.plain && 2*len(nz) < len(e.idx) {
				for _, r := range nz {
					if int(r) != e.p {
						v -= e.dense[r] * c[r]
					}
				}
			} else {
				for a, q := range e.idx {
					v -= e.val[a] * c[q]
				}
			}
			c[e.p] = v / e.wp
			if !s.plain && c[e.p] != 0 {
				nz = insertPos(nz, int32(e.p))
			}
		}
		s.nzPos = nz
	}
	s.f.btran(c, y)
}

// insertPos inserts r into the ascending list nz unless it is there.
func insertPos(nz []int32, r int32) []int32 {
	i, found := slices.BinarySearch(nz, r)
	if found {
		return nz
	}
	return slices.Insert(nz, i, r)
}

// denseSlab returns a slab of m floats for eta k's dense copy, from
// etaDense (grown as needed; slabs already handed out are never moved, so
// an eta's copy stays valid), not cleared.
func (s *Sparse) denseSlab(k int) []float64 {
	if (k+1)*s.m > len(s.etaDense) {
		// A new slab array for the etas from k on; the older etas keep
		// their views of the old one.
		s.etaDense = make([]float64, max(refactorEvery, 2*(k+1))*s.m)
		return s.etaDense[k*s.m : (k+1)*s.m : (k+1)*s.m]
	}
	return s.etaDense[k*s.m : (k+1)*s.m : (k+1)*s.m]
}

// Optimize moves to a vertex minimising (or, with max, maximising) variable
// v and returns its value there; +Inf when the maximum is unbounded.
func (s *Sparse) Optimize(ctx context.Context, v int, max bool) (float64, error) {
	return s.OptimizeTo(ctx, v, max, math.NaN())
}

// OptimizeTo is Optimize stopping early, at a feasible point, once v has
// reached target (≥ target when maximising, ≤ when minimising; NaN: no
// early stop). The value returned is v's value at the point reached: the
// optimum, or a feasible value at least as good as target.
func (s *Sparse) OptimizeTo(ctx context.Context, v int, max bool, target float64) (float64, error) {
	sign := 1.0
	if max {
		sign = -1
	}
	reached := func() bool {
		if math.IsNaN(target) {
			return false
		}
		if max {
			return s.x[v] >= target
		}
		return s.x[v] <= target
	}
	s.cidx[0], s.cval[0] = v, sign
	unb, err := s.minimize(ctx, s.cidx[:1], s.cval[:1], reached)
	if err != nil {
		return 0, err
	}
	if unb {
		return math.Inf(1), nil
	}
	return s.x[v], nil
}

// minimize runs the primal simplex on min Σ cval[k]·x[cidx[k]] until it is
// optimal (false), unbounded (true) or reached reports true (false).
func (s *Sparse) minimize(ctx context.Context, cidx []int, cval []float64, reached func() bool) (bool, error) {
	if len(s.cost) != s.n {
		s.cost = make([]float64, s.n)
	}
	for k, j := range cidx {
		s.cost[j] += cval[k]
	}
	defer func() {
		for _, j := range cidx {
			s.cost[j] = 0
		}
	}()
	if s.Dantzig {
		return s.minimizeDantzig(ctx, cidx, reached)
	}
	return s.minimizeDevex(ctx, cidx, reached)
}

// step moves along the entering column q (direction dir) as far as the
// ratio test allows: unbounded when nothing stops it; otherwise the
// basic variables move, p is the leaving row (-1 when the entering
// variable itself reached zero) and w the entering column for the
// exchange. degenerate counts consecutive degenerate steps.
func (s *Sparse) step(q int, dir float64, bland bool, degenerate *int) (w []float64, p int, unbounded bool) {
	w = s.column(q)
	p, pr := s.ratio(w, q, dir, bland)
	if math.IsInf(pr, 1) {
		return w, p, true
	}
	if pr <= s.Tol {
		*degenerate++
	} else {
		*degenerate = 0
	}
	s.move(w, q, dir*pr)
	if p < 0 {
		s.x[q] = 0 // the entering variable reached zero
	}
	return w, p, false
}

// iteration starts iteration it of a simplex loop (both pricings): done
// when the target is reached (reached) or the iterations run out
// (ErrIterations: it past limit, or Sparse.IterLimit spent), the
// context checked every 16 iterations, and the basis refactored when its
// eta file is full (refactored: reduced costs must be priced afresh).
func (s *Sparse) iteration(ctx context.Context, it, limit int, reached func() bool) (done, refactored bool, err error) {
	if reached() {
		return true, false, nil
	}
	if it > limit || s.IterLimit > 0 && s.Iters >= s.IterLimit {
		return true, false, ErrIterations
	}
	s.Iters++
	if it&15 == 15 {
		if err := ctx.Err(); err != nil {
			return true, false, err
		}
	}
	if len(s.etas) >= refactorEvery {
		if err := s.refactor(ctx); err != nil {
			return true, false, err
		}
		return false, true, nil
	}
	return false, false, nil
}

// minimizeDantzig is the simplex as it was before devex pricing (kept as
// the baseline, Sparse.Dantzig): every iteration prices every column afresh
// (BTRAN of the basic costs) and takes the largest reduced cost.
func (s *Sparse) minimizeDantzig(ctx context.Context, cidx []int, reached func() bool) (bool, error) {
	limit := 50*(s.m+s.n) + 1000
	degenerate := 0
	for it := 0; ; it++ {
		if done, _, err := s.iteration(ctx, it, limit, reached); done || err != nil {
			return false, err
		}
		// Prices: y solves yᵀB = c_B; reduced cost d_j = c_j − yᵀA_j.
		clear(s.cb)
		for _, j := range cidx {
			if p := s.pos[j]; p >= 0 {
				s.cb[p] = s.cost[j]
			}
		}
		s.btran(s.cb, s.y)
		bland := degenerate > 30
		q, dir, best := -1, 0.0, pivTol
		for j := 0; j < s.n; j++ {
			if s.pos[j] >= 0 || s.noEnter != nil && s.noEnter[j] && s.x[j] == 0 {
				continue
			}
			dj := s.cost[j]
			for k, i := range s.colIdx[j] {
				dj -= s.y[i] * s.colVal[j][k]
			}
			dd := s.enterDir(j, dj)
			if dd == 0 {
				continue
			}
			if bland {
				if q < 0 {
					q, dir = j, dd
				}
				continue
			}
			if a := math.Abs(dj); a > best {
				q, dir, best = j, dd, a
			}
		}
		if q < 0 {
			return false, nil
		}
		w, p, unbounded := s.step(q, dir, bland, &degenerate)
		if unbounded {
			return true, nil
		}
		if p < 0 {
			continue // the entering variable reached zero: no exchange
		}
		s.exchange(p, q, w)
	}
}

// column returns w = B⁻¹ A_q (over positions; scratch, valid until the
// next call): moving x_q by t moves x_B by −t·w.
func (s *Sparse) column(q int) []float64 {
	a := s.w
	clear(a)
	for k, i := range s.colIdx[q] {
		a[i] = s.colVal[q][k]
	}
	if len(s.wb) != s.m {
		s.wb = make([]float64, s.m)
	}
	w := s.wb
	s.ftran(a, w)
	return w
}

// ratio is the ratio test for moving x_q in direction dir (w its column):
// the step pr ≥ 0 until a basic variable (position p) or, moving down,
// x_q itself (p = −1) reaches zero; pr = +Inf when nothing limits it.
// Ties go to the largest pivot, or (bland) the smallest variable.
func (s *Sparse) ratio(w []float64, q int, dir float64, bland bool) (int, float64) {
	p := -1
	pr := math.Inf(1)
	var pa float64
	if dir < 0 {
		pr = s.x[q]
	}
	for r := 0; r < s.m; r++ {
		a := w[r] * dir
		if a <= pivTol {
			continue
		}
		b := math.Max(s.x[s.head[r]], 0)
		ratio := b / a
		switch {
		case math.IsInf(pr, 1) || ratio < pr-1e-12*math.Max(1, pr):
			p, pr, pa = r, ratio, a
		case p >= 0 && ratio <= pr+1e-12*math.Max(1, pr):
			if bland {
				if s.head[r] < s.head[p] {
					p, pr, pa = r, ratio, a
				}
			} else if a > pa {
				p, pr, pa = r, ratio, a
			}
		}
	}
	return p, pr
}

// move moves x_q by delta and the basic variables with it.
func (s *Sparse) move(w []float64, q int, delta float64) {
	if delta == 0 {
		return
	}
	for r := 0; r < s.m; r++ {
		if w[r] != 0 {
			j := s.head[r]
			s.x[j] -= w[r] * delta
		}
	}
	s.x[q] += delta
}

// exchange makes q basic at position p (w its column), the variable
// there leaving at zero, with a product-form update.
func (s *Sparse) exchange(p, q int, w []float64) {
	leave := s.head[p]
	s.x[leave] = 0
	from := len(s.etaIdx)
	dense := s.denseSlab(len(s.etas))
	for r, wv := range w {
		if r != p && math.Abs(wv) > 1e-12 {
			s.etaIdx = append(s.etaIdx, int32(r))
			s.etaVal = append(s.etaVal, wv)
			dense[r] = wv
		} else {
			dense[r] = 0
		}
	}
	to := len(s.etaIdx)
	e := eta{p: p, wp: w[p], idx: s.etaIdx[from:to:to], val: s.etaVal[from:to:to], dense: dense}
	s.etas = append(s.etas, e)
	s.head[p] = q
	s.pos[q] = p
	s.pos[leave] = -1
	s.Pivots++
	for _, r := range e.idx {
		if j := s.head[r]; s.x[j] < 0 && s.x[j] > -s.Tol {
			s.x[j] = 0
		}
	}
}

// addEta appends the eta (p, wp, idx, val) to the eta file, its entries
// copied into the arena.
func (s *Sparse) addEta(p int, wp float64, idx []int32, val []float64) {
	from := len(s.etaIdx)
	s.etaIdx = append(s.etaIdx, idx...)
	s.etaVal = append(s.etaVal, val...)
	to := len(s.etaIdx)
	dense := s.denseSlab(len(s.etas))
	clear(dense)
	for k, r := range idx {
		dense[r] = val[k]
	}
	s.etas = append(s.etas, eta{p: p, wp: wp, idx: s.etaIdx[from:to:to], val: s.etaVal[from:to:to], dense: dense})
}

// entry is one non-zero of a sparse column: its row and value.
type entry struct {
	row int32
	v   float64
}

// luFactor is a sparse LU factorisation of a set of columns by Gaussian
// elimination: order lists the pivots (row, column) in elimination order;
// lower[k] the multipliers of step k (row i gets row i − l·pivot row);
// upper[k] the pivot row at step k over the columns not yet eliminated
// (the pivot's own column first).
type luFactor struct {
	m     int
	order []pivotRC
	lower [][]entry
	upper [][]colVal
}

type pivotRC struct {
	row int32
	col int
}

type colVal struct {
	col int32
	v   float64
}

// factorize eliminates the columns cols (each a sparse column over m
// rows) in Markowitz order: at each step the active column with the fewest
// non-zeros (ties: larger pref, then lower index), pivoting on its entry
// of largest magnitude among those within a factor 10 of the largest,
// fewest row non-zeros first. Columns left without a usable entry are
// dependent (skipped, crash) or make the matrix singular; rows left
// without a pivot are dependent on the others.
func factorize(ctx context.Context, m int, cols [][]entry, pref []float64, crash bool) (*luFactor, error) {
	z := newMarkowitz(m, cols, pref, crash)
	for step := 1; len(z.f.order) < m; step++ {
		if step&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		bestC, err := z.nextColumn()
		if err != nil {
			return nil, err
		}
		if bestC < 0 {
			break
		}
		c := int32(bestC)
		amax := z.gather(c, step)
		if amax <= pivTol {
			// Numerically empty column.
			if !crash {
				return nil, ErrSingular
			}
			z.dropColumn(c)
			continue
		}
		z.eliminate(c, z.pivotRow(amax))
	}
	return z.f, nil
}

// markowitz is the state of factorize's elimination: the active matrix by
// rows (rc, rv: column and value), per column the rows that may hold it
// (colRows; stale entries are skipped) and its count (cnt; -1 once
// eliminated or dropped), the rows holding the current column (targets,
// with their entries tl), and the factor built so far.
type markowitz struct {
	m       int
	pref    []float64
	crash   bool
	rc      [][]int32
	rv      [][]float64
	colRows [][]int32
	cnt     []int
	rowDone []bool
	mark    []int
	// active lists the columns not yet eliminated, for the scan.
	active  []int
	targets []int32
	tl      []float64
	// buckets[b] holds columns whose count was b when pushed.
	buckets [][]int32
	// where is subtractRow's scratch (by column, zero between calls).
	where []int32
	f     *luFactor
}

// newMarkowitz loads the columns cols (over m rows) into the active
// matrix, zero entries left out, every column active and in its bucket.
func newMarkowitz(m int, cols [][]entry, pref []float64, crash bool) *markowitz {
	n := len(cols)
	z := &markowitz{m: m, pref: pref, crash: crash,
		rc: make([][]int32, m), rv: make([][]float64, m),
		colRows: make([][]int32, n), cnt: make([]int, n),
		rowDone: make([]bool, m), mark: make([]int, m),
		active: make([]int, 0, n), buckets: make([][]int32, m+2),
		f: &luFactor{m: m}}
	// Rows sized by a first count (one allocation each, room for some
	// fill-in).
	rowN := make([]int32, m)
	for _, c := range cols {
		for _, e := range c {
			if e.v != 0 {
				rowN[e.row]++
			}
		}
	}
	for r, k := range rowN {
		z.rc[r], z.rv[r] = make([]int32, 0, 2*k+4), make([]float64, 0, 2*k+4)
	}
	for j, c := range cols {
		z.colRows[j] = make([]int32, 0, len(c))
		for _, e := range c {
			if e.v == 0 {
				continue
			}
			z.rc[e.row] = append(z.rc[e.row], int32(j))
			z.rv[e.row] = append(z.rv[e.row], e.v)
			z.colRows[j] = append(z.colRows[j], e.row)
			z.cnt[j]++
		}
	}
	for j := range cols {
		z.active = append(z.active, j)
	}
	for j := n - 1; j >= 0; j-- {
		z.push(int32(j))
	}
	return z
}

// find returns the position of column c in row r of the active matrix, or
// -1.
func (z *markowitz) find(r int32, c int32) int {
	for k, j := range z.rc[r] {
		if j == c {
			return k
		}
	}
	return -1
}

// push puts column j in the bucket of its count (the last bucket holding
// every larger count); not for the crash, nor for a column without
// entries.
func (z *markowitz) push(j int32) {
	if c := z.cnt[j]; c > 0 && z.pref == nil {
		if c >= len(z.buckets) {
			c = len(z.buckets) - 1
		}
		z.buckets[c] = append(z.buckets[c], j)
	}
}

// remove drops the entry at position p of row r of the active matrix (the
// row's last entry takes its place).
func (z *markowitz) remove(r int32, p int) {
	last := len(z.rc[r]) - 1
	z.rc[r][p], z.rv[r][p] = z.rc[r][last], z.rv[r][last]
	z.rc[r], z.rv[r] = z.rc[r][:last], z.rv[r][:last]
}

// nextColumn returns the active column with the fewest non-zeros: from the
// count buckets (stale entries skipped), or, for the crash (which breaks
// ties by pref), a scan of the active columns that also drops the empty
// ones (ErrSingular when not a crash). It returns -1 when no column is
// left.
func (z *markowitz) nextColumn() (int, error) {
	bestC, bestN := -1, math.MaxInt
	for b := 1; z.pref == nil && b < len(z.buckets) && bestC < 0; b++ {
		for len(z.buckets[b]) > 0 {
			j := z.buckets[b][len(z.buckets[b])-1]
			z.buckets[b] = z.buckets[b][:len(z.buckets[b])-1]
			if z.cnt[j] == b {
				bestC, bestN = int(j), b
				break
			}
		}
	}
	if bestC >= 0 {
		return bestC, nil
	}
	cnt, pref, active := z.cnt, z.pref, z.active
	k := 0
	for a, j := range active {
		if cnt[j] < 0 {
			continue
		}
		if cnt[j] == 0 {
			if !z.crash {
				return -1, ErrSingular
			}
			cnt[j] = -1
			continue
		}
		active[k] = j
		k++
		if cnt[j] < bestN || cnt[j] == bestN && pref != nil && pref[j] > pref[bestC] {
			bestC, bestN = j, cnt[j]
			if bestN == 1 && pref == nil {
				k += copy(active[k:], active[a+1:])
				break
			}
		}
	}
	z.active = active[:k]
	return bestC, nil
}

// gather collects the rows holding column c (deduplicated through mark,
// step being the elimination step) into targets and their entries into
// tl, and returns the largest magnitude.
func (z *markowitz) gather(c int32, step int) float64 {
	z.targets, z.tl = z.targets[:0], z.tl[:0]
	amax := 0.0
	for _, r := range z.colRows[c] {
		if z.rowDone[r] || z.mark[r] == step {
			continue
		}
		if p := z.find(r, c); p >= 0 {
			z.mark[r] = step
			z.targets = append(z.targets, r)
			z.tl = append(z.tl, z.rv[r][p])
			amax = math.Max(amax, math.Abs(z.rv[r][p]))
		}
	}
	return amax
}

// dropColumn removes column c, numerically empty, from the rows of
// targets and from the active columns (the crash skips it).
func (z *markowitz) dropColumn(c int32) {
	for _, r := range z.targets {
		z.remove(r, z.find(r, c))
	}
	z.cnt[c] = -1
}

// pivotRow chooses the pivot among targets by threshold partial pivoting:
// of the entries within a factor 10 of amax, the one of the sparsest row
// (ties: lower row). It returns its index in targets.
func (z *markowitz) pivotRow(amax float64) int {
	rc, targets := z.rc, z.targets
	pi := -1
	for t, r := range targets {
		if math.Abs(z.tl[t]) >= amax/10 && (pi < 0 || len(rc[r]) < len(rc[targets[pi]]) || len(rc[r]) == len(rc[targets[pi]]) && r < targets[pi]) {
			pi = t
		}
	}
	return pi
}

// eliminate pivots column c on targets[pi]: it records the pivot, its row
// (the upper factor) and the multipliers of the other rows (the lower
// factor), subtracts the pivot row from those rows, and retires the pivot
// row and column.
func (z *markowitz) eliminate(c int32, pi int) {
	targets, tl := z.targets, z.tl
	pr, alpha := targets[pi], tl[pi]
	up := make([]colVal, 1, len(z.rc[pr])+1)
	up[0] = colVal{c, alpha}
	for a, j := range z.rc[pr] {
		if j != c {
			up = append(up, colVal{j, z.rv[pr][a]})
		}
	}
	sortColVals(up[1:])
	low := make([]entry, 0, len(targets)-1)
	for t, r := range targets {
		if r == pr {
			continue
		}
		l := tl[t] / alpha
		low = append(low, entry{r, l})
		// Drop c from row r.
		z.remove(r, z.find(r, c))
		z.subtractRow(r, l, up[1:])
	}
	for _, u := range up[1:] {
		z.cnt[u.col]--
		z.push(u.col)
	}
	z.cnt[c] = -1
	z.colRows[c] = nil
	z.rc[pr], z.rv[pr] = nil, nil
	z.rowDone[pr] = true
	z.f.order = append(z.f.order, pivotRC{pr, int(c)})
	z.f.lower = append(z.f.lower, low)
	z.f.upper = append(z.f.upper, up)
}

// subtractRow sets row r to row r − l·up (up: the pivot row without the
// pivot's column), dropping entries that fall below 1e-11 in magnitude and
// keeping the column counts and buckets up to date.
func (z *markowitz) subtractRow(r int32, l float64, up []colVal) {
	// where[c] is 1 + the position of column c in row r (0: absent),
	// instead of a search of the row for each entry of up.
	if len(z.where) < len(z.cnt) {
		z.where = make([]int32, len(z.cnt))
	}
	where := z.where
	for k, c := range z.rc[r] {
		where[c] = int32(k + 1)
	}
	defer func() {
		for _, c := range z.rc[r] {
			where[c] = 0
		}
	}()
	for _, u := range up {
		p := int(where[u.col]) - 1
		if p < 0 {
			v := -l * u.v
			if math.Abs(v) < 1e-11 {
				continue
			}
			z.rc[r] = append(z.rc[r], u.col)
			z.rv[r] = append(z.rv[r], v)
			where[u.col] = int32(len(z.rc[r]))
			z.colRows[u.col] = append(z.colRows[u.col], r)
			z.cnt[u.col]++
			z.push(u.col)
			continue
		}
		v := z.rv[r][p] - l*u.v
		if math.Abs(v) < 1e-11 {
			where[u.col] = 0
			if last := len(z.rc[r]) - 1; p != last {
				where[z.rc[r][last]] = int32(p + 1) // remove moves the last entry to p
			}
			z.remove(r, p)
			z.cnt[u.col]--
			z.push(u.col)
			continue
		}
		z.rv[r][p] = v
	}
}

// ftran solves B z = a for the factorised square matrix (a over rows,
// overwritten; z over columns, in the column numbering of factorize).
func (f *luFactor) ftran(a, z []float64) {
	for k, pv := range f.order {
		if v := a[pv.row]; v != 0 {
			for _, e := range f.lower[k] {
				a[e.row] -= e.v * v
			}
		}
	}
	for k := len(f.order) - 1; k >= 0; k-- {
		up := f.upper[k]
		v := a[f.order[k].row]
		for _, u := range up[1:] {
			v -= u.v * z[u.col]
		}
		z[up[0].col] = v / up[0].v
	}
}

// btran solves yᵀ B = cᵀ (c over columns, overwritten; y over rows).
func (f *luFactor) btran(c, y []float64) {
	clear(y)
	// wᵀ U = cᵀ, forward over the pivots.
	for k, pv := range f.order {
		up := f.upper[k]
		wv := c[up[0].col] / up[0].v
		y[pv.row] = wv
		if wv != 0 {
			for _, u := range up[1:] {
				c[u.col] -= wv * u.v
			}
		}
	}
	// yᵀ = wᵀ M_K … M_1.
	for k := len(f.order) - 1; k >= 0; k-- {
		r := f.order[k].row
		v := y[r]
		for _, e := range f.lower[k] {
			v -= e.v * y[e.row]
		}
		y[r] = v
	}
}

func sortColVals(a []colVal) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].col < a[j-1].col; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// NewSparse builds a sparse solver for n variables and the given rows
// without a known feasible point: a phase 1 first. Every row gets an
// artificial variable (rows with a negative right-hand side negated), and
// one more variable z with z − Σ artificials = 0; the point x = 0,
// artificials = |b|, z = Σ|b| is feasible for that system, and minimising
// z from it (the sparse simplex; an artificial never re-enters once it
// leaves at zero) reaches z = 0 exactly when the rows have a non-negative
// solution (ErrInfeasible otherwise). The solver returned starts at the
// original variables of that point. The work is bounded by the simplex's
// iteration limit and by iterLimit (> 0: at most that many iterations in
// the phase 1; ErrIterations), never by a clock.
func NewSparse(ctx context.Context, n int, rows []Row, iterLimit int) (*Sparse, error) {
	return NewSparseOpt(ctx, n, rows, iterLimit, SparseOptions{})
}

// SparseOptions select variants of the sparse simplex; the zero value is
// the default.
type SparseOptions struct {
	// Dantzig: see Sparse.Dantzig (the simplex of before, the baseline of
	// benchmarks), for the phase 1 and the solver returned.
	Dantzig bool
}

// NewSparseOpt is NewSparse with options.
func NewSparseOpt(ctx context.Context, n int, rows []Row, iterLimit int, opt SparseOptions) (*Sparse, error) {
	m := len(rows)
	ext := make([]Row, 0, m+1)
	x0 := make([]float64, n+m+1)
	z := n + m
	sum := Row{Idx: []int{z}, Coef: []float64{1}}
	scale := 1.0
	for r, row := range rows {
		sign := 1.0
		if row.RHS < 0 {
			sign = -1
		}
		e := Row{RHS: sign * row.RHS, Idx: append(append([]int(nil), row.Idx...), n+r)}
		for _, c := range row.Coef {
			e.Coef = append(e.Coef, sign*c)
		}
		e.Coef = append(e.Coef, 1)
		ext = append(ext, e)
		x0[n+r] = e.RHS
		x0[z] += e.RHS
		scale = math.Max(scale, e.RHS)
		sum.Idx = append(sum.Idx, n+r)
		sum.Coef = append(sum.Coef, -1)
	}
	ext = append(ext, sum)
	p1, err := NewSparseAt(ctx, n+m+1, ext, x0)
	if err != nil {
		return nil, err
	}
	p1.noEnter = make([]bool, n+m+1)
	for r := range m {
		p1.noEnter[n+r] = true
	}
	p1.IterLimit = iterLimit
	p1.Dantzig = opt.Dantzig
	v, err := p1.Optimize(ctx, z, false)
	if err != nil {
		return nil, err
	}
	if v > 1e-9*scale*float64(m+1) {
		return nil, ErrInfeasible
	}
	x := make([]float64, n)
	for j := range x {
		x[j] = math.Max(p1.x[j], 0)
	}
	s, err := NewSparseAt(ctx, n, rows, x)
	if err != nil {
		return nil, err
	}
	s.Pivots += p1.Pivots
	s.Dantzig = opt.Dantzig
	return s, nil
}

// MinimizeSum moves to a vertex minimising Σ coef[k]·x[idx[k]] (idx
// without repeats) from the current feasible point and reports whether the
// objective is unbounded below. Like OptimizeTo it counts its iterations
// against IterLimit (ErrIterations, the point reached still feasible).
func (s *Sparse) MinimizeSum(ctx context.Context, idx []int, coef []float64) (bool, error) {
	return s.minimize(ctx, idx, coef, func() bool { return false })
}

// enterDir is the direction in which non-basic variable j with reduced
// cost dj improves the objective: 1 (increase), -1 (decrease, only from a
// positive value), 0 when it does not.
func (s *Sparse) enterDir(j int, dj float64) float64 { return enterDirOf(dj, s.x[j]) }

// enterDirOf is enterDir of a variable of reduced cost dj at value xj
// (small enough to be inlined in the pricing loops).
func enterDirOf(dj, xj float64) float64 {
	switch {
	case dj < -pivTol:
		return 1
	case dj > pivTol && xj > 0:
		return -1
	}
	return 0
}
