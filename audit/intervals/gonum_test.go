package intervals

import (
	"context"
	"math"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
	"pgregory.net/rapid"
)

// Random suppression patterns: the audit's intervals hold the true values
// and agree with gonum's simplex on the whole system.
func TestAuditAgainstGonum(t *testing.T) {
	compared := 0
	defer func() { t.Logf("%d bounds compared with gonum", compared) }()
	rapid.Check(t, func(rt *rapid.T) {
		tb := tabletest.RandomTable(rt)
		for _, c := range tb.Cells {
			if c.Status == audit.StatusOK && rapid.IntRange(0, 3).Draw(rt, "sup") == 0 {
				c.Status = audit.StatusSecondary
			}
		}
		res, err := Audit(context.Background(), tb, Options{})
		if err != nil {
			rt.Fatal(err)
		}
		s, _ := newStructure(tb, Options{})
		var vars []int
		local := map[int]int{}
		for i := range tb.Cells {
			if s.IsSuppressed(i) {
				local[i] = len(vars)
				vars = append(vars, i)
			}
		}
		// Equalities over the suppressed cells, plus one slack per cell
		// bounding it by the grand total so that gonum's LPs are bounded.
		n := len(vars)
		var rows [][]float64
		var b []float64
		for r, rel := range s.Rels {
			row := make([]float64, 2*n)
			rhs := 0.0
			any := false
			for _, j := range s.RelCells(r) {
				c := s.Coef(r, j)
				if l, ok := local[j]; ok {
					row[l] += c
					any = true
				} else {
					rhs -= c * s.Val[j]
				}
			}
			_ = rel
			if any {
				rows = append(rows, row)
				b = append(b, rhs)
			}
		}
		big := 0.0
		for _, v := range s.Val {
			big = math.Max(big, v)
		}
		for l := 0; l < n; l++ {
			row := make([]float64, 2*n)
			row[l], row[n+l] = 1, 1
			rows = append(rows, row)
			b = append(b, 1000*(big+1))
		}
		if n == 0 || len(rows) > 2*n {
			return // gonum needs at least as many variables as rows
		}
		A := mat.NewDense(len(rows), 2*n, nil)
		for r, row := range rows {
			A.SetRow(r, row)
		}
		for _, r := range res.Cells {
			if r.Lo > r.Value+1e-9 || r.Hi < r.Value-1e-9 {
				rt.Fatalf("%v: [%v, %v] misses %v", r.Key, r.Lo, r.Hi, r.Value)
			}
			var i int
			for i = range tb.Cells {
				if tabletest.JoinKey(tb.Cells[i].Key) == tabletest.JoinKey(r.Key) {
					break
				}
			}
			for _, max := range []bool{false, true} {
				c := make([]float64, 2*n)
				c[local[i]] = 1
				if max {
					c[local[i]] = -1
				}
				f, _, err := lp.Simplex(c, A, b, 1e-10, nil)
				if err != nil {
					continue // rank-deficient: gonum declines
				}
				want, got := f, r.Lo
				if max {
					want, got = -f, r.Hi
					if want > 100*(big+1) { // unbounded in the audit
						if !math.IsInf(got, 1) {
							rt.Fatalf("%v: hi %v, want unbounded", r.Key, got)
						}
						continue
					}
				}
				compared++
				if math.Abs(want-got) > 1e-6 {
					rt.Fatalf("%v max=%v: audit %v, gonum %v", r.Key, max, got, want)
				}
			}
		}
	})
}
