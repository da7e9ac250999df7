package intervals

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
	glp "gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestAuditRoundedAgainstGonum (issue 24 item 6): a 2-D table whose
// published values (margins included) are rounded to base 5, so that they
// do not add up; Options.Rounded = 5 makes every published value the
// interval [v − 2.5, v + 2.5] (cut at 0). The interval of every suppressed
// cell must equal gonum's simplex over the same constraints written out
// here from the grid (rows and columns sum to their margins, each
// published cell within its rounding interval, every cell non-negative),
// within 1e-6. Without the option the audit reads the rounded values as
// exact and finds them inconsistent (or narrower intervals).
func TestAuditRoundedAgainstGonum(t *testing.T) {
	const R, C, base = 6, 5, 5
	checked := 0
	defer func() {
		if checked < 10 {
			t.Errorf("%d cells compared, want at least 10", checked)
		}
	}()
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 21))
		true_ := make([][]int64, R)
		for i := range true_ {
			true_[i] = make([]int64, C)
			for j := range true_[i] {
				true_[i][j] = int64(rng.IntN(40))
			}
		}
		tb := tabletest.GridTable([]int{R, C}, func(idx []int) int64 { return true_[idx[0]][idx[1]] }, func(idx []int) int64 { return 3 })
		// grid position of each cell: R / C stand for the margin
		pos := func(c *audit.Cell) (int, int) {
			at := func(code string, n int) int {
				if code == "Total" {
					return n
				}
				k, _ := strconv.Atoi(code[3:])
				return k
			}
			return at(c.Key[0], R), at(c.Key[1], C)
		}
		pub := map[[2]int]int64{}
		sup := map[[2]int]bool{}
		for _, c := range tb.Cells {
			i, j := pos(c)
			v, _ := c.Total.Int64()
			r := tabletest.RoundTo(v, base)
			c.Total = decimal.FromInt(r)
			pub[[2]int{i, j}] = r
			if i < R && j < C && rng.IntN(4) == 0 {
				tabletest.MarkPrimary(c)
				sup[[2]int{i, j}] = true
			}
		}
		if len(sup) < 3 {
			continue
		}
		res, err := Audit(context.Background(), tb, Options{Role: "total", Rounded: base, Workers: 2})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// The independent LP: one variable per grid cell (margins
		// included), two slacks per published cell.
		nc := (R + 1) * (C + 1)
		id := func(i, j int) int { return i*(C+1) + j }
		var rowsA [][]float64
		var b []float64
		var pubs [][2]int
		for i := 0; i <= R; i++ {
			for j := 0; j <= C; j++ {
				if !sup[[2]int{i, j}] {
					pubs = append(pubs, [2]int{i, j})
				}
			}
		}
		nv := nc + 2*len(pubs)
		var ind tabletest.Independent
		add := func(row []float64, rhs float64) {
			if ind.Keep(append([]float64(nil), row...), nv) {
				rowsA = append(rowsA, row)
				b = append(b, rhs)
			}
		}
		for i := 0; i <= R; i++ { // rows: Σ_j x_ij = x_iC
			row := make([]float64, nv)
			for j := 0; j < C; j++ {
				row[id(i, j)] = 1
			}
			row[id(i, C)] = -1
			add(row, 0)
		}
		for j := 0; j <= C; j++ { // columns
			row := make([]float64, nv)
			for i := 0; i < R; i++ {
				row[id(i, j)] = 1
			}
			row[id(R, j)] = -1
			add(row, 0)
		}
		for k, p := range pubs { // x − u = max(0, v − 2.5); x + t = v + 2.5
			v := float64(pub[p])
			row := make([]float64, nv)
			row[id(p[0], p[1])], row[nc+2*k] = 1, -1
			add(row, math.Max(0, v-base/2.0))
			row = make([]float64, nv)
			row[id(p[0], p[1])], row[nc+2*k+1] = 1, 1
			add(row, v+base/2.0)
		}
		A := mat.NewDense(len(rowsA), nv, nil)
		for r, row := range rowsA {
			A.SetRow(r, row)
		}
		solve := func(k int, max bool) float64 {
			c := make([]float64, nv)
			c[k] = 1
			if max {
				c[k] = -1
			}
			f, _, err := glp.Simplex(c, A, b, 1e-10, nil)
			if err != nil {
				t.Fatalf("seed %d: gonum: %v", seed, err)
			}
			if max {
				return -f
			}
			return f
		}
		byKey := map[string]audit.Interval{}
		for _, r := range res.Cells {
			byKey[tabletest.JoinKey(r.Key)] = r
		}
		if len(res.Cells) != len(sup) || res.Undetermined != 0 || res.Approximate != 0 {
			t.Fatalf("seed %d: %d cells, %d undetermined, %d approximate; want %d", seed, len(res.Cells), res.Undetermined, res.Approximate, len(sup))
		}
		for _, c := range tb.Cells {
			i, j := pos(c)
			if !sup[[2]int{i, j}] {
				continue
			}
			r := byKey[tabletest.JoinKey(c.Key)]
			lo, hi := solve(id(i, j), false), solve(id(i, j), true)
			checked++
			if math.Abs(r.Lo-lo) > 1e-6 || math.Abs(r.Hi-hi) > 1e-6 {
				t.Errorf("seed %d: %v: audit [%v, %v], gonum [%v, %v]", seed, c.Key, r.Lo, r.Hi, lo, hi)
			}
			if r.Exact != (hi-lo <= 1e-6) {
				t.Errorf("seed %d: %v: exact %v, gonum [%v, %v]", seed, c.Key, r.Exact, lo, hi)
			}
		}
	}
}

// TestRoundedPinned: Options.Pinned publishes a cell of a rounded table
// exactly (a singleton's contributor knows it). One row a + b + c = T,
// published b = 30, c = 40, T = 90 rounded to base 10, a suppressed:
// a = T − b − c lies in [90 − 5 − 35 − 45, 95 − 25 − 35] = [5, 35]; with c
// pinned at 40, [10, 30]; with b and c pinned, [15, 25].
func TestRoundedPinned(t *testing.T) {
	vals := []int64{20, 30, 40}
	for _, tc := range []struct {
		pin    []string
		lo, hi float64
	}{{nil, 5, 35}, {[]string{"d0_2"}, 10, 30}, {[]string{"d0_1", "d0_2"}, 15, 25}} {
		tb := tabletest.GridTable([]int{3}, func(i []int) int64 { return vals[i[0]] }, func([]int) int64 { return 3 })
		tabletest.MarkPrimary(tabletest.CellAt(t, tb, "d0_0"))
		pinned := make([]bool, len(tb.Cells))
		for i, c := range tb.Cells {
			pinned[i] = slices.Contains(tc.pin, c.Key[0])
		}
		res, err := Audit(context.Background(), tb, Options{Role: "total", Rounded: 10, Pinned: pinned})
		if err != nil {
			t.Fatal(err)
		}
		r := tabletest.ResultFor(t, res, "d0_0")
		if math.Abs(r.Lo-tc.lo) > 1e-9 || math.Abs(r.Hi-tc.hi) > 1e-9 {
			t.Errorf("pinned %v: [%v, %v], want [%v, %v]", tc.pin, r.Lo, r.Hi, tc.lo, tc.hi)
		}
	}
}
