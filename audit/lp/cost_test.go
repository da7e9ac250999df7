package lp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
	"pgregory.net/rapid"
)

// TestMinimizeAgainstGonum compares the optimum of a non-negative linear
// objective with gonum's simplex on random feasible systems.
func TestMinimizeAgainstGonum(t *testing.T) {
	compared := 0
	defer func() { t.Logf("compared %d", compared) }()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 9).Draw(rt, "n")
		m := rapid.IntRange(1, n-1).Draw(rt, "m")
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = float64(rapid.IntRange(0, 20).Draw(rt, "x"))
		}
		a := mat.NewDense(m, n, nil)
		rows := make([]Row, m)
		b := make([]float64, m)
		for r := 0; r < m; r++ {
			for j := 0; j < n; j++ {
				v := float64(rapid.IntRange(-2, 2).Draw(rt, "a"))
				if v == 0 {
					continue
				}
				a.Set(r, j, v)
				rows[r].Idx = append(rows[r].Idx, j)
				rows[r].Coef = append(rows[r].Coef, v)
				b[r] += v * x0[j]
			}
			rows[r].RHS = b[r]
		}
		cost := make([]float64, n)
		for j := range cost {
			cost[j] = float64(rapid.IntRange(0, 9).Draw(rt, "c"))
		}
		s, err := New(context.Background(), n, rows)
		if err != nil {
			rt.Fatalf("feasible system refused: %v", err)
		}
		got, err := s.Minimize(context.Background(), cost)
		if err != nil {
			rt.Fatal(err)
		}
		// The vertex reached is feasible and its objective is got.
		for r, row := range rows {
			lhs := 0.0
			for k, j := range row.Idx {
				lhs += row.Coef[k] * s.Value(j)
			}
			if math.Abs(lhs-b[r]) > 1e-6 {
				rt.Fatalf("row %d: %v != %v", r, lhs, b[r])
			}
		}
		want, _, err := lp.Simplex(cost, a, b, 1e-10, nil)
		if err != nil {
			return // gonum declines rank-deficient systems
		}
		compared++
		if math.Abs(want-got) > 1e-6*(1+math.Abs(want)) {
			rt.Fatalf("minimum %v, gonum %v", got, want)
		}
	})
}
