package lp

import (
	"context"
	"errors"
	"math"
)

// Minimize moves to a vertex minimising Σ cost[v]·x[v] (cost has one
// entry per structural variable) and returns the objective there; -Inf
// when it is unbounded below (never for a non-negative cost). Like
// Optimize, it starts from the current feasible basis.
func (s *Solver) Minimize(ctx context.Context, cost []float64) (float64, error) {
	// Reduced cost of non-basic column c: cost[v] − Σ_r cost[basis r]·t[r][c]
	// (Δbasic[r] = −Σ t[r][c]·Δx[cols[c]]).
	s.z = 0
	for c := 0; c < s.ncols; c++ {
		v := s.cols[c]
		s.d[c] = cost[v]
		s.z += cost[v] * s.xN[c]
	}
	for r := 0; r < s.m; r++ {
		b := s.basis[r]
		if b < 0 || cost[b] == 0 {
			continue
		}
		cb := cost[b]
		s.z += cb * s.beta[r]
		row := s.t[r*s.stride : r*s.stride+s.ncols]
		for c, a := range row {
			if a != 0 {
				s.d[c] -= cb * a
			}
		}
	}
	err := s.run(ctx)
	if errors.Is(err, errUnbounded) {
		return math.Inf(-1), nil
	}
	if err != nil {
		return 0, err
	}
	z := 0.0
	for v, c := range cost {
		if c != 0 {
			z += c * s.Value(v)
		}
	}
	return z, nil
}

// ReducedCost returns the reduced cost of variable v under the last
// objective (Minimize, Optimize or Vertex): 0 for a basic variable. For a
// slack s_k of a row Σ a·x − s_k = b_k it is that row's dual value at the
// current basis (its multiplier; ≥ 0 at a minimum, within the
// tolerances). It is a float estimate: a caller that needs a proven
// bound must evaluate it as one (see the joint search's Lagrangian bound).
func (s *Solver) ReducedCost(v int) float64 {
	p := s.pos[v]
	if p >= 0 {
		return 0
	}
	return s.d[-p-1]
}

// RawValue is Value without clamping a basic variable's value at 0: a
// negative value shows a point outside the bounds (for checking a
// solution's feasibility).
func (s *Solver) RawValue(v int) float64 {
	if p := s.pos[v]; p >= 0 {
		return s.beta[p]
	}
	return s.xN[-s.pos[v]-1]
}
