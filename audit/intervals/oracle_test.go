package intervals

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/internal/unionfind"
	"github.com/sdcaudit/sdcaudit/report"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	alp "github.com/sdcaudit/sdcaudit/audit/lp"
)

// oracleTable is a magnitude table of the given sizes with every margin,
// values with two decimal places (some interior cells empty), and about
// share of the interior cells suppressed: one in four primary, the others
// secondary.
func oracleTable(seed uint64, sizes []int, share float64) *audit.Table {
	rng := rand.New(rand.NewPCG(seed, 7))
	vals := map[string]int64{}
	key := func(idx []int) string {
		b := make([]byte, 0, 2*len(idx))
		for _, i := range idx {
			b = append(b, byte(i), ',')
		}
		return string(b)
	}
	tb := tabletest.GridTable(sizes, func(idx []int) int64 {
		k := key(idx)
		if v, ok := vals[k]; ok {
			return v
		}
		var v int64
		if rng.IntN(8) > 0 {
			v = int64(math.Exp(rng.NormFloat64()+9)) + 1
		}
		vals[k] = v
		return v
	}, func(idx []int) int64 {
		if vals[key(idx)] == 0 {
			return 0
		}
		return 3
	})
	for _, c := range tb.Cells {
		// Values in hundredths: 123456 is 1234.56.
		c.Total = c.Total.Mul(decimal.Scaled(1, 2))
		if !c.IsMargin("Total") && rng.Float64() < share {
			if rng.IntN(4) == 0 {
				tabletest.MarkPrimary(c)
			} else {
				c.Status = audit.StatusSecondary
			}
		}
	}
	return tb
}

// certifiedIntervals computes the interval of every suppressed cell of tb
// independently of the audit's pipeline: one LP per block of suppressed
// cells linked by relations, over all of them (no pre-pass, propagation,
// split or shortcut), with linearly dependent relations dropped. Each
// bound comes from a vertex found by a fresh lp.Solver (phase 1, one
// goroutine) and is then proven here: the vertex is checked to be
// feasible (A x = b, x >= 0) and its basis to be dual feasible (y solving
// B^T y = c_B by gonum's LU, c - A^T y >= 0), so that weak duality makes
// its value the optimum whatever the solver did. tol bounds the primal
// residuals and the gap between primal and dual values. Every cell must be
// bounded (the tables here publish their margins).
func certifiedIntervals(t testing.TB, tb *audit.Table, tol float64) (lo, hi map[int]float64) {
	t.Helper()
	return certifiedSample(t, tb, tol, nil)
}

// certifiedSample is certifiedIntervals for the suppressed cells i with
// want(i) (nil: every one).
func certifiedSample(t testing.TB, tb *audit.Table, tol float64, want func(i int) bool) (lo, hi map[int]float64) {
	t.Helper()
	ctx := context.Background()
	s, err := newStructure(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi = map[int]float64{}, map[int]float64{}
	var vars []int
	for i := range tb.Cells {
		if s.IsSuppressed(i) {
			vars = append(vars, i)
		}
	}
	uf := unionfind.New(len(tb.Cells))
	for r := range s.Rels {
		first := -1
		for _, j := range s.RelCells(r) {
			if s.IsSuppressed(j) {
				if first < 0 {
					first = j
				} else {
					uf.Union(first, j)
				}
			}
		}
	}
	blocks := map[int][]int{}
	for _, i := range vars {
		blocks[uf.Find(i)] = append(blocks[uf.Find(i)], i)
	}
	for _, block := range blocks {
		local := map[int]int{}
		for l, i := range block {
			local[i] = l
		}
		n := len(block)
		// Rows over the block, published cells moved to the right.
		var coefs [][]float64
		var rhs []float64
		var ind tabletest.Independent
		seen := map[int32]bool{}
		for _, i := range block {
			for _, r := range s.CellRels[i] {
				if seen[r] {
					continue
				}
				seen[r] = true
				row := make([]float64, n)
				var b float64
				for _, j := range s.RelCells(int(r)) {
					c := s.Coef(int(r), j)
					if l, ok := local[j]; ok {
						row[l] += c
					} else {
						b -= c * s.Val[j]
					}
				}
				if ind.Keep(row, n) {
					coefs, rhs = append(coefs, row), append(rhs, b)
				}
			}
		}
		m := len(coefs)
		if m == 0 {
			t.Fatalf("oracle: cell %v is in no relation", tb.Cells[block[0]].Key)
		}
		A := mat.NewDense(m, n, nil)
		rows := make([]alp.Row, m)
		for r, row := range coefs {
			A.SetRow(r, row)
			rows[r].RHS = rhs[r]
			for l, c := range row {
				if c != 0 {
					rows[r].Idx = append(rows[r].Idx, l)
					rows[r].Coef = append(rows[r].Coef, c)
				}
			}
		}
		sv, err := alp.New(ctx, n, rows)
		if err != nil {
			t.Fatalf("oracle: block of %v: %v", tb.Cells[block[0]].Key, err)
		}
		x := make([]float64, n)
		c := make([]float64, n)
		B := mat.NewDense(m, m, nil)
		for l, i := range block {
			if want != nil && !want(i) {
				continue
			}
			for _, max := range []bool{false, true} {
				v, err := sv.Optimize(ctx, l, max)
				if err != nil || math.IsInf(v, 0) {
					t.Fatalf("oracle: %v (max %v): %v, %v", tb.Cells[i].Key, max, v, err)
				}
				// Primal: the vertex is feasible.
				for j := range x {
					x[j] = sv.Value(j)
					if x[j] < -tol {
						t.Fatalf("oracle: vertex has x[%d] = %v", j, x[j])
					}
				}
				for r := range m {
					if d := floats.Dot(coefs[r], x) - rhs[r]; math.Abs(d) > tol {
						t.Fatalf("oracle: vertex misses row %d by %v", r, d)
					}
				}
				// A minimum at zero needs no more proof (x >= 0); a
				// maximum reaching what one row with coefficients of one
				// sign allows is proven by that row alone (y a multiple
				// of it).
				if !max && x[l] <= tol {
					lo[i] = x[l]
					continue
				}
				if max && rowBound(coefs, rhs, l, x[l], tol) {
					hi[i] = x[l]
					continue
				}
				// Dual: y with B^T y = c_B and c - A^T y >= 0.
				sign := 1.0
				if max {
					sign = -1
				}
				clear(c)
				c[l] = sign
				basic := sv.Basic()
				if len(basic) != m {
					t.Fatalf("oracle: %d basic variables for %d independent rows", len(basic), m)
				}
				cB := mat.NewVecDense(m, nil)
				for k, j := range basic {
					if j < 0 {
						t.Fatalf("oracle: artificial variable left in the basis")
					}
					for r := range m {
						B.Set(r, k, coefs[r][j])
					}
					cB.SetVec(k, c[j])
				}
				var lu mat.LU
				lu.Factorize(B)
				var y mat.VecDense
				if err := lu.SolveVecTo(&y, true, cB); err != nil {
					t.Fatalf("oracle: basis of %v: %v", tb.Cells[i].Key, err)
				}
				var dual float64
				for r := range m {
					dual += rhs[r] * y.AtVec(r)
				}
				for j := range n {
					red := c[j]
					for r := range m {
						red -= coefs[r][j] * y.AtVec(r)
					}
					if red < -1e-9 {
						t.Fatalf("oracle: %v (max %v): vertex not optimal (reduced cost %v)", tb.Cells[i].Key, max, red)
					}
				}
				if gap := sign*x[l] - dual; math.Abs(gap) > tol {
					t.Fatalf("oracle: %v (max %v): primal %v, dual %v", tb.Cells[i].Key, max, x[l], sign*dual)
				}
				if max {
					hi[i] = x[l]
				} else {
					lo[i] = x[l]
				}
			}
		}
	}
	return lo, hi
}

// rowBound reports whether some row whose non-zero coefficients all have
// the sign of variable l's bounds l by v (within tol): a dual certificate
// of max x_l = v.
func rowBound(coefs [][]float64, rhs []float64, l int, v, tol float64) bool {
	for r, row := range coefs {
		cl := row[l]
		if cl == 0 {
			continue
		}
		same := true
		for _, c := range row {
			if c*cl < 0 {
				same = false
				break
			}
		}
		if same && math.Abs(rhs[r]/cl-v) <= tol {
			return true
		}
	}
	return false
}

// A phase 1 on this 3-D table's relations once pivoted on a rounding
// residue (1.5e-9), leaving a singular basis: every vertex the solver
// reaches must have a non-singular, dual-feasible basis that proves its
// value (certifiedIntervals fails otherwise).
func TestLPBasisNonsingularOn3DTable(t *testing.T) {
	tb := oracleTable(103, []int{9, 8, 6}, 0.75)
	s, err := newStructure(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lo, _ := certifiedIntervals(t, tb, 1e-7*s.Scale())
	if len(lo) < 300 {
		t.Fatalf("%d cells certified, want >= 300", len(lo))
	}
}

type oracleResult struct{ lo, hi map[int]float64 }

var oracleCache sync.Map

// TestAuditLargeComponentsAgainstOracle audits random 2-D and 3-D tables
// whose suppressed cells (over 300) form components of 200 to 400 cells,
// so that the audit solves each as one LP shared among its workers, and
// compares every interval, and the exact and protected flags, with the
// certified optimum (certifiedIntervals), over two runs (more with -count)
// that must agree byte for byte. Bounds must agree within 1e-7 of the table's
// largest value.
func TestAuditLargeComponentsAgainstOracle(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int
		seed  uint64
	}{
		{"3d-9x8x6", []int{9, 8, 6}, 1},
		{"2d-24x20", []int{24, 20}, 3},
		{"2d-20x20", []int{20, 20}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := oracleTable(tc.seed, tc.sizes, 0.8)
			opt := Options{Workers: 4}
			s, err := newStructure(tb, opt)
			if err != nil {
				t.Fatal(err)
			}
			scale := s.Scale()
			tol := 1e-7 * scale
			atol := 1e-9 * scale // the audit's own tolerance for exact
			sup := make([]bool, len(tb.Cells))
			nsup := 0
			for i := range sup {
				sup[i] = s.IsSuppressed(i)
				if sup[i] {
					nsup++
				}
			}
			iv, err := s.intervals(context.Background(), sup, opt)
			if err != nil {
				t.Fatal(err)
			}
			if large := DefaultTuning().LargeComponent; nsup < 300 || iv.largest < 200 || iv.largest > large {
				t.Fatalf("%d suppressed cells, largest component %d: want >= 300 cells and a component of 200 to %d", nsup, iv.largest, large)
			}
			// The oracle is deterministic: computed once per table for
			// every -count.
			var o oracleResult
			if v, ok := oracleCache.Load(tc.name); ok {
				o = v.(oracleResult)
			} else {
				o.lo, o.hi = certifiedIntervals(t, tb, tol)
				oracleCache.Store(tc.name, o)
			}
			lo, hi := o.lo, o.hi
			index := map[string]int{}
			for i, c := range tb.Cells {
				index[tabletest.JoinKey(c.Key)] = i
			}
			var first []byte
			for run := 0; run < 2; run++ {
				res, err := Audit(context.Background(), tb, opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Cells) != nsup {
					t.Fatalf("run %d: %d cells audited, want %d", run, len(res.Cells), nsup)
				}
				bad := 0
				for _, r := range res.Cells {
					i := index[tabletest.JoinKey(r.Key)]
					wlo, whi := lo[i], hi[i]
					if math.Abs(r.Lo-wlo) > tol || math.Abs(r.Hi-whi) > tol || r.Approximate || r.Undetermined {
						if bad++; bad <= 10 {
							t.Errorf("run %d: %v (%s, value %v): audit [%v, %v], oracle [%v, %v]", run, r.Key, r.Status, r.Value, r.Lo, r.Hi, wlo, whi)
						}
						continue
					}
					// Flags, where the oracle's interval is not within the
					// tolerances of the boundary.
					w := whi - wlo
					switch {
					case w <= atol/2 && !r.Exact, w > 2*atol && r.Exact:
						t.Errorf("run %d: %v: exact %v, oracle [%v, %v]", run, r.Key, r.Exact, wlo, whi)
						continue
					case w <= 2*atol:
						continue
					}
					want := true
					if r.Status == audit.StatusPrimary {
						up, down := s.levels(opt, i, s.Val[i])
						if up != r.Upper || down != r.Lower {
							t.Errorf("run %d: %v: levels %v/%v, want %v/%v", run, r.Key, r.Upper, r.Lower, up, down)
						}
						margin := math.Min(whi-(s.Val[i]+up), s.Val[i]-down-wlo)
						if math.Abs(margin) <= 2*tol {
							continue
						}
						want = margin > 0
					}
					if r.Protected != want {
						t.Errorf("run %d: %v (%s, value %v, levels %v/%v): protected %v, oracle [%v, %v]", run, r.Key, r.Status, r.Value, r.Upper, r.Lower, r.Protected, wlo, whi)
					}
				}
				if bad > 0 {
					t.Errorf("run %d: %d of %d intervals differ from the oracle", run, bad, len(res.Cells))
				}
				out := report.IntervalsJSON(res)
				if first == nil {
					first = out
				} else if !bytes.Equal(out, first) {
					t.Errorf("run %d differs from run 0", run)
				}
			}
		})
	}
}
