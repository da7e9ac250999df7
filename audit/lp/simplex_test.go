package lp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
	"pgregory.net/rapid"
)

// TestRangesAgainstGonum compares the range of every variable with gonum's
// simplex on random feasible systems with ±1 and small integer coefficients.
var compared int

func TestRangesAgainstGonum(t *testing.T) {
	defer func() { t.Logf("compared %d", compared) }()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 8).Draw(rt, "n")
		m := rapid.IntRange(1, n-1).Draw(rt, "m")
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = float64(rapid.IntRange(0, 20).Draw(rt, "x"))
		}
		a := mat.NewDense(m, n, nil)
		rows := make([]Row, m)
		for r := 0; r < m; r++ {
			var rhs float64
			for j := 0; j < n; j++ {
				v := float64(rapid.IntRange(-2, 2).Draw(rt, "a"))
				if v == 0 {
					continue
				}
				a.Set(r, j, v)
				rows[r].Idx = append(rows[r].Idx, j)
				rows[r].Coef = append(rows[r].Coef, v)
				rhs += v * x0[j]
			}
			rows[r].RHS = rhs
		}
		// Bound every variable so that gonum's minimisation of -x is
		// bounded: add Σx + slack = Σx0 + 5 as a last row for both solvers.
		ab := mat.NewDense(m+1, n+1, nil)
		ab.Slice(0, m, 0, n).(*mat.Dense).Copy(a)
		var sum float64
		last := Row{RHS: 0}
		for j := 0; j <= n; j++ {
			ab.Set(m, j, 1)
			last.Idx = append(last.Idx, j)
			last.Coef = append(last.Coef, 1)
			if j < n {
				sum += x0[j]
			}
		}
		last.RHS = sum + 5
		rows = append(rows, last)
		b := make([]float64, m+1)
		for r := 0; r < m; r++ {
			b[r] = rows[r].RHS
		}
		b[m] = last.RHS
		s, err := New(context.Background(), n+1, rows)
		if err != nil {
			rt.Fatalf("New: %v", err)
		}
		s2, err := NewAt(context.Background(), n+1, rows, append(append([]float64(nil), x0...), 5))
		if err != nil {
			rt.Fatalf("NewAt: %v", err)
		}
		for j := 0; j < n; j++ {
			for _, max := range []bool{false, true} {
				got, err := s.Optimize(context.Background(), j, max)
				if err != nil {
					rt.Fatal(err)
				}
				got2, err := s2.Optimize(context.Background(), j, max)
				if err != nil {
					rt.Fatal(err)
				}
				if math.Abs(got-got2) > 1e-7 {
					rt.Fatalf("x%d max=%v: phase 1 start %v, feasible start %v", j, max, got, got2)
				}
				if max && got < x0[j]-1e-7 || !max && got > x0[j]+1e-7 {
					rt.Fatalf("x%d: optimum %v (max=%v) excludes feasible %v", j, got, max, x0[j])
				}
				c := make([]float64, n+1)
				c[j] = 1
				if max {
					c[j] = -1
				}
				f, _, err := lp.Simplex(c, ab, b, 1e-10, nil)
				if err != nil {
					continue // gonum refuses rank-deficient systems
				}
				if max {
					f = -f
				}
				compared++
				if math.Abs(f-got) > 1e-6 {
					rt.Fatalf("x%d max=%v: got %v, gonum %v", j, max, got, f)
				}
			}
		}
	})
}

func TestInfeasible(t *testing.T) {
	rows := []Row{
		{Idx: []int{0, 1}, Coef: []float64{1, 1}, RHS: 1},
		{Idx: []int{0, 1}, Coef: []float64{1, 1}, RHS: 2},
	}
	if _, err := New(context.Background(), 2, rows); err != ErrInfeasible {
		t.Fatalf("err = %v, want ErrInfeasible", err)
	}
}

func TestUnbounded(t *testing.T) {
	// x0 - x1 = 3: x0 has no upper bound, x1 >= 0 and x0 >= 3.
	rows := []Row{{Idx: []int{0, 1}, Coef: []float64{1, -1}, RHS: 3}}
	s, err := New(context.Background(), 2, rows)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Optimize(context.Background(), 0, true); !math.IsInf(v, 1) {
		t.Errorf("max x0 = %v, want +Inf", v)
	}
	if v, _ := s.Optimize(context.Background(), 0, false); v != 3 {
		t.Errorf("min x0 = %v, want 3", v)
	}
}
