// Package lp finds the range of variables over a polyhedron
// {x : A x = b, x >= 0}: for each variable its minimum and maximum, as the
// interval audit of suppressed table cells needs.
//
// The solver is a primal simplex on a dense compact (Tucker) tableau that
// stores only the non-basic columns. Phase 1 finds a feasible basis once;
// every later objective (minimise or maximise one variable) starts from the
// previous optimal basis, which is still feasible, so a sequence of 2n
// objectives costs a few pivots each. Pivots skip zero entries of the pivot
// row and column, which keeps them cheap on the sparse ±1 systems of tables.
//
// Arithmetic is float64. Callers that need exact answers compare results
// with a tolerance relative to the magnitude of b (see Solver.Tol).
//
// Sparse (sparse.go) is the revised simplex for large systems (thousands
// of variables), whose dense tableau would be too large.
package lp

import (
	"context"
	"errors"
	"math"
)

// Row is one equality constraint Σ Coef[k]·x[Idx[k]] = RHS.
type Row struct {
	Idx  []int
	Coef []float64
	RHS  float64
}

// Errors returned by the solver.
var (
	ErrInfeasible = errors.New("lp: constraints have no non-negative solution")
	ErrIterations = errors.New("lp: iteration limit reached")
)

// Solver holds a feasible basis of {x : A x = b, x >= 0} and optimises
// single-variable objectives from it.
type Solver struct {
	n      int       // structural variables
	m      int       // rows still in the tableau
	stride int       // row length of t
	ncols  int       // non-basic columns in use
	t      []float64 // m × stride: Δbasic[r] = -Σ t[r][c]·Δx[cols[c]]
	beta   []float64 // values of the basic variables
	xN     []float64 // values of the non-basic variables (0 at a vertex)
	d      []float64 // reduced costs per column
	z      float64   // objective value
	cols   []int     // variable in each non-basic column
	basis  []int     // variable basic in each row; -1 for an artificial
	pos    []int     // row of a basic variable, or -(col+1) when non-basic
	// Tol is the feasibility tolerance: values within Tol of zero are zero.
	Tol float64
	// Pivots counts the pivots done so far.
	Pivots int
	nz     []int
	colNZ  []int
	// keepTiny: pivot drops no tableau entry as rounding noise (Opt)
	keepTiny bool
}

// Opt are the options of NewOpt and NewBasisOpt.
type Opt struct {
	// KeepTiny keeps every tableau entry a pivot computes: by default
	// entries below 1e-12 (pivot row) and 1e-11 (other rows) are dropped
	// as rounding noise, which suits the ±1 systems of tables but not
	// rows whose coefficients span many magnitudes (the joint search's
	// master LPs, with coefficients down to 1e-19: the dropped entries
	// made the tableau drift from the LP, ending at points that missed a
	// row by 6 with 2.2 times the optimum).
	KeepTiny bool
}

// pivTol is the smallest pivot element (and reduced cost) taken as
// non-zero. Tableau entries of table systems are small rationals; entries
// of 1e-9 are rounding noise, and pivoting on one (as 1e-9 allowed, seen
// at 1.5e-9 on a 3-D table) made the basis singular.
const pivTol = 1e-7

// New builds a solver for n variables and the given rows and finds a
// feasible basis by a phase 1 on artificial variables.
func New(ctx context.Context, n int, rows []Row) (*Solver, error) {
	return NewOpt(ctx, n, rows, Opt{})
}

// NewOpt is New with options.
func NewOpt(ctx context.Context, n int, rows []Row, o Opt) (*Solver, error) {
	s := build(n, rows, nil)
	s.keepTiny = o.KeepTiny
	m := s.m
	// Phase 1: minimise the sum of artificials.
	for r := 0; r < m; r++ {
		s.z += s.beta[r]
		row := s.t[r*n : r*n+n]
		for c, v := range row {
			s.d[c] -= v
		}
	}
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	var infeas float64
	for r := 0; r < s.m; r++ {
		if s.basis[r] < 0 {
			infeas += math.Abs(s.beta[r])
		}
	}
	if infeas > s.Tol*float64(m+1) {
		return nil, ErrInfeasible
	}
	s.finish()
	return s, nil
}

// NewAt builds a solver from a known feasible point x0 (A x0 = b, x0 >= 0),
// which saves phase 1: Gauss-Jordan elimination picks a basis and the other
// variables keep their values until the first objective moves them.
func NewAt(ctx context.Context, n int, rows []Row, x0 []float64) (*Solver, error) {
	s := build(n, rows, x0)
	for r := 0; r < s.m; r++ {
		if math.Abs(s.beta[r]) > s.Tol*float64(len(rows[r].Idx)+1) {
			return nil, ErrInfeasible
		}
	}
	for r := 0; r < s.m; r++ {
		if r&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if s.basis[r] >= 0 {
			continue
		}
		// Pivot on the largest entry, preferring a variable far from its
		// bound so that later steps are not degenerate.
		row := s.t[r*s.stride : r*s.stride+s.ncols]
		best, bv, bx := -1, pivTol, -1.0
		for c, v := range row {
			a := math.Abs(v)
			if a > bv+1e-9 || a > bv-1e-9 && a > pivTol && s.xN[c] > bx {
				best, bv, bx = c, a, s.xN[c]
			}
		}
		if best < 0 {
			continue
		}
		s.pivot(r, best)
	}
	s.finish()
	return s, nil
}

// build sets up the tableau with an artificial basic variable per row and
// the structural variables non-basic at x0 (zero when nil).
func build(n int, rows []Row, x0 []float64) *Solver {
	m := len(rows)
	s := &Solver{n: n, m: m, stride: n, ncols: n}
	s.t = make([]float64, m*n)
	s.beta = make([]float64, m)
	s.xN = make([]float64, n)
	s.d = make([]float64, n)
	s.cols = make([]int, n)
	s.basis = make([]int, m)
	s.pos = make([]int, n)
	if x0 != nil {
		copy(s.xN, x0)
	}
	scale := 1.0
	for r, row := range rows {
		rhs := row.RHS
		for k, j := range row.Idx {
			rhs -= row.Coef[k] * s.xN[j]
		}
		sign := 1.0
		if rhs < 0 {
			sign = -1
		}
		s.beta[r] = sign * rhs
		scale = math.Max(scale, math.Abs(row.RHS))
		for k, j := range row.Idx {
			s.t[r*n+j] += sign * row.Coef[k]
		}
		s.basis[r] = -1
	}
	for _, v := range s.xN {
		scale = math.Max(scale, math.Abs(v))
	}
	s.Tol = 1e-9 * scale
	for c := 0; c < n; c++ {
		s.cols[c] = c
		s.pos[c] = -(c + 1)
	}
	return s
}

// finish drives remaining artificials out of the basis, dropping
// redundant rows.
func (s *Solver) finish() {
	for r := 0; r < s.m; {
		if s.basis[r] >= 0 {
			r++
			continue
		}
		row := s.t[r*s.stride : r*s.stride+s.ncols]
		best, bv := -1, pivTol
		for c, v := range row {
			if math.Abs(v) > bv {
				best, bv = c, math.Abs(v)
			}
		}
		if best < 0 {
			s.dropRow(r)
			continue
		}
		s.beta[r] = 0
		s.pivot(r, best)
		r++
	}
}

// dropRow removes row r (a redundant constraint whose artificial is basic).
func (s *Solver) dropRow(r int) {
	last := s.m - 1
	if r != last {
		copy(s.t[r*s.stride:(r+1)*s.stride], s.t[last*s.stride:(last+1)*s.stride])
		s.beta[r] = s.beta[last]
		s.basis[r] = s.basis[last]
		if v := s.basis[r]; v >= 0 {
			s.pos[v] = r
		}
	}
	s.m--
}

// Clone returns an independent copy of the solver in its current basis.
func (s *Solver) Clone() *Solver {
	c := *s
	c.t = append([]float64(nil), s.t[:s.m*s.stride]...)
	c.beta = append([]float64(nil), s.beta[:s.m]...)
	c.d = append([]float64(nil), s.d...)
	c.xN = append([]float64(nil), s.xN...)
	c.cols = append([]int(nil), s.cols...)
	c.basis = append([]int(nil), s.basis[:s.m]...)
	c.pos = append([]int(nil), s.pos...)
	c.nz, c.colNZ = nil, nil
	return &c
}

// Value returns variable v at the current vertex.
func (s *Solver) Value(v int) float64 {
	p := s.pos[v]
	if p >= 0 {
		if b := s.beta[p]; b > 0 {
			return b
		}
		return 0
	}
	return s.xN[-p-1]
}

// Basic returns the variables basic at the current vertex, one per row
// still in the tableau (redundant rows are dropped), in row order; -1
// marks a row whose artificial variable is still basic. With the rows'
// coefficients it lets a caller check the vertex's optimality
// independently (see the audit's oracle tests).
func (s *Solver) Basic() []int {
	return append([]int(nil), s.basis[:s.m]...)
}

// Optimize moves to a vertex minimising (or, with max, maximising) variable
// v and returns its value there; +Inf when the maximum is unbounded.
func (s *Solver) Optimize(ctx context.Context, v int, max bool) (float64, error) {
	sign := 1.0
	if max {
		sign = -1
	}
	for c := range s.d[:s.ncols] {
		s.d[c] = 0
	}
	if p := s.pos[v]; p >= 0 {
		s.z = sign * s.beta[p]
		row := s.t[p*s.stride : p*s.stride+s.ncols]
		for c, a := range row {
			s.d[c] = -sign * a
		}
	} else {
		s.z = 0
		s.d[-p-1] = sign
	}
	err := s.run(ctx)
	if errors.Is(err, errUnbounded) {
		return math.Inf(1), nil
	}
	if err != nil {
		return 0, err
	}
	return s.Value(v), nil
}

var errUnbounded = errors.New("lp: unbounded")

// run pivots until no reduced cost is negative.
func (s *Solver) run(ctx context.Context) error {
	limit := 50*(s.m+s.ncols) + 1000
	degenerate := 0
	for it := 0; ; it++ {
		if it > limit {
			return ErrIterations
		}
		if it&63 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		bland := degenerate > 30
		q, dir := -1, 0.0
		best := pivTol
		for c, dc := range s.d[:s.ncols] {
			var dd float64
			switch {
			case dc < -pivTol:
				dd = 1
			case dc > pivTol && s.xN[c] > 0:
				dd = -1
			default:
				continue
			}
			if bland {
				if q < 0 || s.cols[c] < s.cols[q] {
					q, dir = c, dd
				}
				continue
			}
			if a := math.Abs(dc); a > best {
				q, dir, best = c, dd, a
			}
		}
		if q < 0 {
			return nil
		}
		// Ratio test: the step t >= 0 along dir until a basic variable (or,
		// moving down, the entering variable itself) reaches zero.
		p := -1
		pr := math.Inf(1)
		var pa float64
		if dir < 0 {
			pr = s.xN[q]
		}
		for r := 0; r < s.m; r++ {
			a := s.t[r*s.stride+q] * dir
			if a <= pivTol {
				continue
			}
			b := s.beta[r]
			if b < 0 {
				b = 0
			}
			ratio := b / a
			switch {
			case math.IsInf(pr, 1) || ratio < pr-1e-12*math.Max(1, pr):
				p, pr, pa = r, ratio, a
			case p >= 0 && ratio <= pr+1e-12*math.Max(1, pr):
				// Tie: prefer artificials leaving, then (Bland) the
				// smallest variable, else the largest pivot.
				if s.basis[r] < 0 && s.basis[p] >= 0 {
					p, pr, pa = r, ratio, a
				} else if bland {
					if s.basis[r] >= 0 && s.basis[p] >= 0 && s.basis[r] < s.basis[p] {
						p, pr, pa = r, ratio, a
					}
				} else if a > pa && !(s.basis[p] < 0) {
					p, pr, pa = r, ratio, a
				}
			}
		}
		if math.IsInf(pr, 1) {
			return errUnbounded
		}
		if pr <= s.Tol {
			degenerate++
		} else {
			degenerate = 0
		}
		s.move(p, q, dir*pr)
	}
}

// move moves the non-basic column q by delta, the basic variables
// following, and then leaves it at its bound (p < 0: the entering
// variable reached zero) or pivots it into row p (the row's basic
// variable reached zero).
func (s *Solver) move(p, q int, delta float64) {
	if delta != 0 {
		for r := 0; r < s.m; r++ {
			if a := s.t[r*s.stride+q]; a != 0 {
				s.beta[r] -= a * delta
			}
		}
		s.xN[q] += delta
		s.z += s.d[q] * delta
	}
	if p < 0 {
		s.xN[q] = 0
		return
	}
	s.pivot(p, q)
}

// pivot exchanges the basic variable of row p with the non-basic column q.
func (s *Solver) pivot(p, q int) {
	s.Pivots++
	st := s.stride
	prow := s.t[p*st : p*st+s.ncols]
	alpha := prow[q]
	inv := 1 / alpha
	s.nz = s.nz[:0]
	for c, v := range prow {
		if v != 0 && c != q {
			v *= inv
			if math.Abs(v) < 1e-12 && !s.keepTiny {
				v = 0
			} else {
				s.nz = append(s.nz, c)
			}
			prow[c] = v
		}
	}
	prow[q] = inv
	// The entering variable takes the row; the leaving one is at zero.
	s.beta[p] = s.xN[q]
	s.xN[q] = 0
	for r := 0; r < s.m; r++ {
		if r == p {
			continue
		}
		row := s.t[r*st : r*st+s.ncols]
		f := row[q]
		if f == 0 {
			continue
		}
		if s.keepTiny {
			// The same update without the noise test (Opt.KeepTiny):
			// the masters' inner loop, kept free of the branch.
			for _, c := range s.nz {
				row[c] -= f * prow[c]
			}
		} else {
			for _, c := range s.nz {
				v := row[c] - f*prow[c]
				if math.Abs(v) < 1e-11 {
					v = 0
				}
				row[c] = v
			}
		}
		row[q] = -f * inv
	}
	if f := s.d[q]; f != 0 {
		for _, c := range s.nz {
			s.d[c] -= f * prow[c]
		}
		s.d[q] = -f * inv
	}
	enter, leave := s.cols[q], s.basis[p]
	s.basis[p] = enter
	s.pos[enter] = p
	if leave >= 0 {
		s.cols[q] = leave
		s.pos[leave] = -(q + 1)
		return
	}
	// An artificial left: drop its column for good.
	last := s.ncols - 1
	if q != last {
		for r := 0; r < s.m; r++ {
			s.t[r*st+q] = s.t[r*st+last]
		}
		s.d[q] = s.d[last]
		s.xN[q] = s.xN[last]
		s.cols[q] = s.cols[last]
		s.pos[s.cols[q]] = -(q + 1)
	}
	s.ncols--
}
