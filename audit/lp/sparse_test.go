package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
	"pgregory.net/rapid"
)

// checkPoint fails unless the solver's current point satisfies every row
// and is non-negative (within tol).
func checkPoint(t interface{ Fatalf(string, ...any) }, s *Sparse, n int, rows []Row, tol float64) {
	for j := 0; j < n; j++ {
		if s.Value(j) < -tol {
			t.Fatalf("x%d = %v < 0", j, s.Value(j))
		}
	}
	for r, row := range rows {
		v := -row.RHS
		for k, j := range row.Idx {
			v += row.Coef[k] * s.Value(j)
		}
		if math.Abs(v) > tol {
			t.Fatalf("row %d violated by %v", r, v)
		}
	}
}

// The sparse solver's ranges equal gonum's simplex on random feasible
// systems (±1 and small integer coefficients, dependent rows included),
// from a feasible start, through clones, and every point it stops at —
// also when stopping early at a target — is feasible; so is the minimum
// of a sum of variables (MinimizeSum).
func TestSparseAgainstGonum(t *testing.T) {
	compared := 0
	defer func() { t.Logf("compared %d", compared) }()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 12).Draw(rt, "n")
		m := rapid.IntRange(1, n-1).Draw(rt, "m")
		x0 := make([]float64, n)
		for j := range x0 {
			x0[j] = float64(rapid.IntRange(0, 20).Draw(rt, "x"))
		}
		var rows []Row
		for r := 0; r < m; r++ {
			var row Row
			for j := 0; j < n; j++ {
				v := float64(rapid.IntRange(-2, 2).Draw(rt, "a"))
				if v == 0 {
					continue
				}
				row.Idx = append(row.Idx, j)
				row.Coef = append(row.Coef, v)
				row.RHS += v * x0[j]
			}
			rows = append(rows, row)
		}
		if rapid.Bool().Draw(rt, "dependent") && m >= 2 {
			// The sum of the first two rows, again.
			var row Row
			acc := map[int]float64{}
			for _, r := range rows[:2] {
				for k, j := range r.Idx {
					acc[j] += r.Coef[k]
				}
				row.RHS += r.RHS
			}
			for j := 0; j < n; j++ {
				if acc[j] != 0 {
					row.Idx = append(row.Idx, j)
					row.Coef = append(row.Coef, acc[j])
				}
			}
			rows = append(rows, row)
		}
		// Σx + slack = Σx0 + 5 bounds every variable.
		last := Row{}
		for j := 0; j <= n; j++ {
			last.Idx = append(last.Idx, j)
			last.Coef = append(last.Coef, 1)
			if j < n {
				last.RHS += x0[j]
			}
		}
		last.RHS += 5
		rows = append(rows, last)
		nv := n + 1
		start := append(append([]float64(nil), x0...), 5)
		s, err := NewSparseAt(context.Background(), nv, rows, start)
		if err != nil {
			rt.Fatalf("NewSparseAt: %v", err)
		}
		// Both pricings: devex (the default) and Dantzig (the baseline).
		s.Dantzig = rapid.Bool().Draw(rt, "dantzig")
		s.rowGather = rapid.Bool().Draw(rt, "rowGather")
		ab := mat.NewDense(len(rows), nv, nil)
		b := make([]float64, len(rows))
		for r, row := range rows {
			for k, j := range row.Idx {
				ab.Set(r, j, row.Coef[k])
			}
			b[r] = row.RHS
		}
		for j := 0; j < n; j++ {
			for _, max := range []bool{false, true} {
				sv := s
				if rapid.Bool().Draw(rt, "clone") {
					sv = s.Clone()
				}
				if rapid.Bool().Draw(rt, "early") {
					target := x0[j] + 1
					if !max {
						target = x0[j] - 1
					}
					v, err := sv.OptimizeTo(context.Background(), j, max, target)
					if err != nil {
						rt.Fatal(err)
					}
					checkPoint(rt, sv, nv, rows, 1e-7)
					if v != sv.Value(j) {
						rt.Fatalf("OptimizeTo returned %v, point has %v", v, sv.Value(j))
					}
				}
				got, err := sv.Optimize(context.Background(), j, max)
				if err != nil {
					rt.Fatal(err)
				}
				checkPoint(rt, sv, nv, rows, 1e-7)
				c := make([]float64, nv)
				c[j] = 1
				if max {
					c[j] = -1
				}
				f, err := gonumSimplex(c, ab, b)
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
		// A sum over several variables (MinimizeSum, the bulk phase of
		// the interval audit): the same optimum as gonum's, at a
		// feasible point.
		var idx []int
		var coef []float64
		c := make([]float64, nv)
		for j := 0; j < n; j++ {
			if v := float64(rapid.IntRange(-2, 2).Draw(rt, "sum")); v != 0 {
				idx, coef = append(idx, j), append(coef, v)
				c[j] = v
			}
		}
		if len(idx) == 0 {
			return
		}
		sv := s.Clone()
		unb, err := sv.MinimizeSum(context.Background(), idx, coef)
		if err != nil || unb {
			rt.Fatalf("MinimizeSum: unbounded %v, %v", unb, err)
		}
		checkPoint(rt, sv, nv, rows, 1e-7)
		got := 0.0
		for k, j := range idx {
			got += coef[k] * sv.Value(j)
		}
		if f, err := gonumSimplex(c, ab, b); err == nil {
			compared++
			if math.Abs(f-got) > 1e-6 {
				rt.Fatalf("sum %v·x%v: got %v, gonum %v", coef, idx, got, f)
			}
		}
	})
}

// gridRows is the system of a k1 x k2 x k3 table with every margin in
// which the cells with sup set are unknown: one row per line (total minus
// its parts) with two or more unknowns, published cells moved to the
// right-hand side. It returns the rows over the unknown cells (numbered in
// order) and their true values.
func gridRows(seed uint64, k [3]int, share float64) ([]Row, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	dim := [3]int{k[0] + 1, k[1] + 1, k[2] + 1} // index k[d] is the total
	idx := func(a, b, c int) int { return (a*dim[1]+b)*dim[2] + c }
	val := make([]float64, dim[0]*dim[1]*dim[2])
	for a := 0; a < k[0]; a++ {
		for b := 0; b < k[1]; b++ {
			for c := 0; c < k[2]; c++ {
				v := float64(rng.IntN(200))
				for _, p := range [][3]int{{a, b, c}, {k[0], b, c}, {a, k[1], c}, {a, b, k[2]}, {k[0], k[1], c}, {k[0], b, k[2]}, {a, k[1], k[2]}, {k[0], k[1], k[2]}} {
					val[idx(p[0], p[1], p[2])] += v
				}
			}
		}
	}
	sup := make([]bool, len(val))
	num := make([]int, len(val))
	var x0 []float64
	for i := range sup {
		num[i] = -1
		if rng.Float64() < share {
			sup[i] = true
			num[i] = len(x0)
			x0 = append(x0, val[i])
		}
	}
	var rows []Row
	line := func(cells []int) {
		// cells[0] is the total.
		var row Row
		for a, i := range cells {
			c := -1.0
			if a == 0 {
				c = 1
			}
			if sup[i] {
				row.Idx = append(row.Idx, num[i])
				row.Coef = append(row.Coef, c)
			} else {
				row.RHS -= c * val[i]
			}
		}
		if len(row.Idx) >= 2 {
			rows = append(rows, row)
		}
	}
	for a := 0; a < dim[0]; a++ {
		for b := 0; b < dim[1]; b++ {
			for c := 0; c < dim[2]; c++ {
				for d := 0; d < 3; d++ {
					p := [3]int{a, b, c}
					if p[d] != k[d] {
						continue
					}
					cells := []int{idx(a, b, c)}
					for q := 0; q < k[d]; q++ {
						p[d] = q
						cells = append(cells, idx(p[0], p[1], p[2]))
					}
					line(cells)
				}
			}
		}
	}
	return rows, x0
}

// On the system of a 3-D table (hundreds of unknown cells, many dependent
// rows) the sparse solver's range of every variable equals the dense
// tableau's, and every point it stops at is feasible.
func TestSparseAgainstDenseOnTable(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 3; seed++ {
		rows, x0 := gridRows(seed, [3]int{8, 7, 5}, 0.35)
		n := len(x0)
		sp, err := NewSparseAt(ctx, n, rows, x0)
		if err != nil {
			t.Fatal(err)
		}
		// Seed 2: devex gathers every pivot row through the rows of A;
		// seed 3: the Dantzig simplex (the baseline).
		sp.rowGather, sp.Dantzig = seed == 2, seed == 3
		de, err := NewAt(ctx, n, rows, x0)
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-7 * 200 * 8 * 7 * 5
		for j := 0; j < n; j++ {
			for _, max := range []bool{false, true} {
				a, err := sp.Optimize(ctx, j, max)
				if err != nil {
					t.Fatal(err)
				}
				checkPoint(t, sp, n, rows, tol)
				b, err := de.Optimize(ctx, j, max)
				if err != nil {
					t.Fatal(err)
				}
				if !(math.IsInf(a, 1) && math.IsInf(b, 1)) && math.Abs(a-b) > tol {
					t.Fatalf("seed %d x%d max=%v: sparse %v, dense %v", seed, j, max, a, b)
				}
			}
		}
		t.Logf("seed %d: %d variables, %d rows, %d pivots", seed, n, len(rows), sp.Pivots)
	}
}

func TestSparseInfeasibleStart(t *testing.T) {
	rows := []Row{{Idx: []int{0, 1}, Coef: []float64{1, 1}, RHS: 2}}
	if _, err := NewSparseAt(context.Background(), 2, rows, []float64{1, 2}); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("err = %v, want ErrInfeasible", err)
	}
	if _, err := NewSparseAt(context.Background(), 2, rows, []float64{3, -1}); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("negative start: err = %v, want ErrInfeasible", err)
	}
}

func TestSparseUnbounded(t *testing.T) {
	rows := []Row{{Idx: []int{0, 1}, Coef: []float64{1, -1}, RHS: 3}}
	s, err := NewSparseAt(context.Background(), 2, rows, []float64{5, 2})
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

// NewSparse (phase 1, no start given) on 3-D table systems: the point it
// starts from is feasible, and every variable's range equals the dense
// tableau's (from its own phase 1). Rows that no non-negative point
// satisfies give ErrInfeasible, and a phase 1 over its iteration budget
// ErrIterations.
func TestSparsePhase1AgainstDense(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(4); seed <= 7; seed++ {
		rows, x0 := gridRows(seed, [3]int{8, 7, 5}, 0.35)
		n := len(x0)
		// Seed 7: the baseline simplex (Dantzig pricing).
		sp, err := NewSparseOpt(ctx, n, rows, 0, SparseOptions{Dantzig: seed == 7})
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-7 * 200 * 8 * 7 * 5
		checkPoint(t, sp, n, rows, tol)
		de, err := New(ctx, n, rows)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < n; j++ {
			for _, max := range []bool{false, true} {
				a, err := sp.Optimize(ctx, j, max)
				if err != nil {
					t.Fatal(err)
				}
				checkPoint(t, sp, n, rows, tol)
				b, err := de.Optimize(ctx, j, max)
				if err != nil {
					t.Fatal(err)
				}
				if !(math.IsInf(a, 1) && math.IsInf(b, 1)) && math.Abs(a-b) > tol {
					t.Fatalf("seed %d x%d max=%v: sparse %v, dense %v", seed, j, max, a, b)
				}
			}
		}
		if _, err := NewSparse(ctx, n, rows, 3); !errors.Is(err, ErrIterations) {
			t.Errorf("seed %d: a 3-iteration phase 1: err = %v, want ErrIterations", seed, err)
		}
	}
	bad := []Row{{Idx: []int{0, 1}, Coef: []float64{1, 1}, RHS: 2}, {Idx: []int{0, 1, 2}, Coef: []float64{1, 1, 1}, RHS: 1}}
	if _, err := NewSparse(ctx, 3, bad, 0); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("infeasible rows: err = %v, want ErrInfeasible", err)
	}
}

// gonumSimplex is gonum's lp.Simplex, whose panic on a singular initial
// basis of a rank-deficient system (seen with -rapid.seed=6042255614563925381)
// is returned as an error, like its other refusals.
func gonumSimplex(c []float64, a mat.Matrix, b []float64) (f float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gonum: %v", r)
		}
	}()
	f, _, err = lp.Simplex(c, a, b, 1e-10, nil)
	return f, err
}
