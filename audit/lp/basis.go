package lp

import (
	"context"
	"errors"
	"math"
)

// ErrBasis is returned by NewBasis when the given basis or point does not
// fit the rows (a basic variable absent from its row or a singular pivot,
// or x0 infeasible): the caller falls back to New.
var ErrBasis = errors.New("lp: the given basis does not fit the rows")

// NewBasis builds a solver from a feasible point x0 (A x0 = b, x0 >= 0) and
// a basic variable per row (basic[r] basic in row r), which saves phase 1:
// the basic variables are pivoted in row by row, and the other variables
// stay non-basic at their values in x0 until an objective moves them
// (Minimize and Optimize price such a variable in both directions, so the
// optimum they reach is the LP's optimum, not only a vertex near x0).
//
// It is cheap when each basic variable is a unit column (a slack with its
// one non-zero in its own row): each pivot then only scales its row. Any
// basis of the rows works, at the cost of dense pivots for the others.
// Pivots counts the pivots of later objectives only (it is 0 on return).
//
// The rows are the same as New's; x0 must satisfy them within 1e-9
// relative to the largest |RHS| (times the row's terms) and be
// non-negative, else ErrBasis (never a silent start from an infeasible
// point). It is the caller's task to know x0 feasible; New finds a
// feasible point when there is one and reports ErrInfeasible when not.
func NewBasis(ctx context.Context, n int, rows []Row, x0 []float64, basic []int) (*Solver, error) {
	return NewBasisOpt(ctx, n, rows, x0, basic, Opt{})
}

// NewBasisOpt is NewBasis with options.
func NewBasisOpt(ctx context.Context, n int, rows []Row, x0 []float64, basic []int, o Opt) (*Solver, error) {
	if len(x0) != n || len(basic) != len(rows) {
		return nil, ErrBasis
	}
	for _, v := range x0 {
		if !(v >= 0) || math.IsInf(v, 1) {
			return nil, ErrBasis
		}
	}
	// The residuals are judged against the right-hand sides, not x0 (the
	// solver's Tol grows with x0): a point with terms far larger than
	// the rows' right-hand sides has residuals rounding cannot show.
	tol := 1.0
	for _, row := range rows {
		tol = math.Max(tol, math.Abs(row.RHS))
	}
	tol *= 1e-9
	for _, row := range rows {
		// Rounding hides a residual below about 1e-16 of the terms: a
		// point whose terms are that large cannot be known feasible.
		sum := math.Abs(row.RHS)
		for k, j := range row.Idx {
			if j < 0 || j >= n {
				return nil, ErrBasis
			}
			sum += math.Abs(row.Coef[k] * x0[j])
		}
		if sum*1e-15 > tol {
			return nil, ErrBasis
		}
	}
	s := build(n, rows, x0)
	s.keepTiny = o.KeepTiny
	for r := 0; r < s.m; r++ {
		if math.Abs(s.beta[r]) > tol*float64(len(rows[r].Idx)+1) {
			return nil, ErrBasis
		}
		// The artificial's residual is rounding noise: x0 satisfies the row.
		s.beta[r] = 0
	}
	seen := make(map[int]bool, len(basic))
	for r, v := range basic {
		if r&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if v < 0 || v >= n || seen[v] {
			return nil, ErrBasis
		}
		seen[v] = true
		p := s.pos[v]
		if p >= 0 {
			return nil, ErrBasis
		}
		q := -p - 1
		if math.Abs(s.t[r*s.stride+q]) <= pivTol {
			return nil, ErrBasis
		}
		s.pivot(r, q)
	}
	s.Pivots = 0
	return s, nil
}

// Vertex moves the solver from a point with non-basic variables away
// from zero (as NewBasis starts, and a Minimize from there may end) to a
// vertex: each such variable moves down to zero, or, where a basic
// variable reaches zero first, enters the basis. Then the current
// objective (the reduced costs Minimize or Optimize left) is optimised
// again, so the vertex is optimal when the point was: moving a variable
// whose reduced cost is zero does not change the objective.
func (s *Solver) Vertex(ctx context.Context) error {
	for it := 0; ; it++ {
		if it&63 == 63 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		q := -1
		for c := range s.ncols {
			if s.xN[c] > 0 {
				q = c
				break
			}
		}
		if q < 0 {
			break
		}
		// Ratio test moving x[cols[q]] down: basic rows with t[r][q] < 0
		// fall (Δbasic[r] = −t[r][q]·Δx).
		p, pr := -1, s.xN[q]
		for r := 0; r < s.m; r++ {
			a := -s.t[r*s.stride+q]
			if a <= pivTol {
				continue
			}
			b := max(s.beta[r], 0)
			if ratio := b / a; ratio < pr {
				p, pr = r, ratio
			}
		}
		s.move(p, q, -pr)
	}
	err := s.run(ctx)
	if errors.Is(err, errUnbounded) {
		return nil // the objective is unbounded: Minimize said so
	}
	return err
}
