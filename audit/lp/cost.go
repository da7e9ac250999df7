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
