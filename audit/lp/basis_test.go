package lp

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	glp "gonum.org/v1/gonum/optimize/convex/lp"
	"pgregory.net/rapid"
)

// covering is a random covering LP in the joint master's form: cuts
// Σ a_k·y ≥ 1 (a ≥ 0, as y_i with a slack s_k: Σ a·y − s_k = 1) and,
// when bounded, y_i + w_i = 1; costs ≥ 0.
type covering struct {
	ny, nc  int
	bounded bool
	a       [][]float64 // nc × ny
	cost    []float64   // per variable (y, then slacks: 0)
	rows    []Row
	nv      int
}

func drawCovering(rt *rapid.T) *covering {
	c := &covering{
		ny:      rapid.IntRange(1, 7).Draw(rt, "ny"),
		nc:      rapid.IntRange(1, 6).Draw(rt, "nc"),
		bounded: rapid.Bool().Draw(rt, "bounded"),
	}
	nb := 0
	if c.bounded {
		nb = c.ny
	}
	c.nv = c.ny + nb + c.nc
	c.cost = make([]float64, c.nv)
	for i := range c.ny {
		// Small integer costs: ties and degenerate optima are common.
		c.cost[i] = float64(rapid.IntRange(0, 4).Draw(rt, "cost"))
	}
	for k := range c.nc {
		a := make([]float64, c.ny)
		row := Row{RHS: 1}
		for i := range c.ny {
			// Quarters in [0, 1.5]: a cut is often met exactly at y = 1,
			// and one with small coefficients cannot be met with y ≤ 1.
			a[i] = float64(rapid.IntRange(0, 6).Draw(rt, "a")) / 4
			if a[i] != 0 {
				row.Idx = append(row.Idx, i)
				row.Coef = append(row.Coef, a[i])
			}
		}
		row.Idx = append(row.Idx, c.ny+nb+k)
		row.Coef = append(row.Coef, -1)
		c.a = append(c.a, a)
		c.rows = append(c.rows, row)
	}
	if c.bounded {
		for i := range c.ny {
			c.rows = append(c.rows, Row{Idx: []int{i, c.ny + i}, Coef: []float64{1, 1}, RHS: 1})
		}
	}
	return c
}

// point builds a feasible x0 and the slack basis from a start y (raised on
// the cells of each cut it violates, as the joint master does); false when
// no point with y ≤ 1 meets a cut.
func (c *covering) point(y []float64) ([]float64, []int, bool) {
	y = append([]float64(nil), y...)
	nb := 0
	if c.bounded {
		nb = c.ny
	}
	for _, a := range c.a {
		for {
			lhs := 0.0
			for i, v := range a {
				lhs += v * y[i]
			}
			if lhs >= 1 {
				break
			}
			best := -1
			for i, v := range a {
				if v > 0 && (!c.bounded || y[i] < 1) && (best < 0 || v > a[best]) {
					best = i
				}
			}
			if best < 0 {
				return nil, nil, false
			}
			y[best] += (1 - lhs) / a[best]
			if c.bounded && y[best] > 1 {
				y[best] = 1
			}
		}
	}
	x0 := make([]float64, c.nv)
	copy(x0, y)
	var basic []int
	for k, a := range c.a {
		lhs := 0.0
		for i, v := range a {
			lhs += v * y[i]
		}
		x0[c.ny+nb+k] = lhs - 1
		basic = append(basic, c.ny+nb+k)
	}
	if c.bounded {
		for i := range c.ny {
			x0[c.ny+i] = 1 - y[i]
			basic = append(basic, c.ny+i)
		}
	}
	return x0, basic, true
}

// TestNewBasisCovering compares NewBasis + Minimize (+ Vertex) from a feasible point
// and the slack basis with New + Minimize (phase 1 from scratch) and with
// gonum's simplex on random covering LPs, bounded and not, degenerate
// ones (integer costs, cuts met exactly) and infeasible ones (a cut that
// y ≤ 1 cannot meet: no point, and New must say ErrInfeasible).
func TestNewBasisCovering(t *testing.T) {
	ctx := context.Background()
	compared, infeasible := 0, 0
	defer func() { t.Logf("compared %d with gonum, %d infeasible", compared, infeasible) }()
	rapid.Check(t, func(rt *rapid.T) {
		c := drawCovering(rt)
		start := make([]float64, c.ny)
		for i := range start {
			start[i] = float64(rapid.IntRange(0, 4).Draw(rt, "y0")) / 4
		}
		x0, basic, ok := c.point(start)
		cold, err := New(ctx, c.nv, c.rows)
		if !ok {
			if !errors.Is(err, ErrInfeasible) {
				rt.Fatalf("no point meets the cuts, New: %v", err)
			}
			infeasible++
			return
		}
		if err != nil {
			rt.Fatalf("New refused a feasible system: %v", err)
		}
		want, err := cold.Minimize(ctx, c.cost)
		if err != nil {
			rt.Fatal(err)
		}
		warm, err := NewBasis(ctx, c.nv, c.rows, x0, basic)
		if err != nil {
			rt.Fatalf("NewBasis: %v", err)
		}
		if warm.Pivots != 0 {
			rt.Fatalf("Pivots %d after the start", warm.Pivots)
		}
		got, err := warm.Minimize(ctx, c.cost)
		if err != nil {
			rt.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			rt.Fatalf("warm optimum %v, cold %v", got, want)
		}
		// Vertex: no non-basic variable above 0, the same objective.
		if err := warm.Vertex(ctx); err != nil {
			rt.Fatal(err)
		}
		for c := range warm.ncols {
			if warm.xN[c] != 0 {
				rt.Fatalf("non-basic x%d = %v after Vertex", warm.cols[c], warm.xN[c])
			}
		}
		// The point reached is feasible and its objective is got.
		obj := 0.0
		for v := range c.nv {
			x := warm.Value(v)
			if x < -1e-9 {
				rt.Fatalf("x%d = %v", v, x)
			}
			obj += c.cost[v] * x
		}
		if math.Abs(obj-got) > 1e-9*(1+math.Abs(got)) {
			rt.Fatalf("objective at the point %v, reported %v", obj, got)
		}
		for r, row := range c.rows {
			lhs := 0.0
			for k, j := range row.Idx {
				lhs += row.Coef[k] * warm.Value(j)
			}
			if math.Abs(lhs-row.RHS) > 1e-9 {
				rt.Fatalf("row %d: %v != %v", r, lhs, row.RHS)
			}
		}
		a := mat.NewDense(len(c.rows), c.nv, nil)
		b := make([]float64, len(c.rows))
		for r, row := range c.rows {
			for k, j := range row.Idx {
				a.Set(r, j, row.Coef[k])
			}
			b[r] = row.RHS
		}
		g, _, err := glp.Simplex(c.cost, a, b, 1e-10, nil)
		if err != nil {
			return // gonum declines some degenerate systems
		}
		compared++
		if math.Abs(g-got) > 1e-7*(1+math.Abs(g)) {
			rt.Fatalf("warm optimum %v, gonum %v", got, g)
		}
	})
}

// TestNewBasisRefuses: an infeasible point, a negative point, a basic
// variable absent from its row or used twice give ErrBasis, never a
// solver.
func TestNewBasisRefuses(t *testing.T) {
	ctx := context.Background()
	// y0 + y1 − s = 1, y0 + w = 1 (variables y0, y1, w, s).
	rows := []Row{
		{Idx: []int{0, 1, 3}, Coef: []float64{1, 1, -1}, RHS: 1},
		{Idx: []int{0, 2}, Coef: []float64{1, 1}, RHS: 1},
	}
	cases := []struct {
		name  string
		x0    []float64
		basic []int
	}{
		{"infeasible point", []float64{0.5, 0, 0.5, 0}, []int{3, 2}},
		{"negative point", []float64{1.5, 0, -0.5, 0.5}, []int{3, 2}},
		{"negative slack", []float64{1, -0.5, 0, -0.5}, []int{3, 2}},
		{"absent from row", []float64{1, 0, 0, 0}, []int{2, 3}},
		{"twice", []float64{1, 0, 0, 0}, []int{0, 0}},
		{"short basis", []float64{1, 0, 0, 0}, []int{3}},
		// y0 − s = 1 at y0 = s = 4e16: the residual 1 is below the
		// rounding of the terms (seen with a raise on a cut's 1e-12
		// coefficient); the solver's own Tol (1e-9·4e16) would take it.
		{"terms hide the residual", []float64{0, 4e16, 1, 4e16}, []int{3, 2}},
	}
	for _, tc := range cases {
		if _, err := NewBasis(ctx, 4, rows, tc.x0, tc.basic); !errors.Is(err, ErrBasis) {
			t.Errorf("%s: %v, want ErrBasis", tc.name, err)
		}
	}
	s, err := NewBasis(ctx, 4, rows, []float64{1, 0.5, 0, 0.5}, []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	z, err := s.Minimize(ctx, []float64{2, 1, 0, 0})
	if err != nil || math.Abs(z-1) > 1e-12 {
		t.Fatalf("min 2y0+y1 = %v (%v), want 1", z, err)
	}
}
