package intervals

import (
	"context"
	"math"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// receivedRows returns the LP rows of the largest component of a received
// table (the system the audit's phase 1 solves) and the table's scale.
func receivedRows(t *testing.T, seed uint64, sizes []int, share float64) ([]lp.Row, int, float64) {
	t.Helper()
	tb := receivedTable(seed, sizes, share)
	s, err := newStructure(tb, Options{Role: "total"})
	if err != nil {
		t.Fatal(err)
	}
	sup := make([]bool, len(tb.Cells))
	for i := range tb.Cells {
		sup[i] = s.IsSuppressed(i)
	}
	n := len(sup)
	iv := &intervalSet{lo: make([]float64, n), hi: make([]float64, n), olo: make([]float64, n), ohi: make([]float64, n)}
	resid, free, fixed := s.prepass(sup, iv, func(string, ...any) {})
	comp := s.components(sup, fixed, free)[0]
	rows, _ := s.compRows(comp, sup, fixed, resid, free, func(int) bool { return true }, false)
	return rows, len(comp), s.Scale()
}

// TestReceivedPhase1Devex (issue 25 item 4): the phase 1 of a received
// 30 x 25 x 8 table with 20% of its interior cells marked (965 unknown
// cells, 797 rows) ends within 2,500 simplex iterations with devex pricing
// (1,532 pivots) at a point that satisfies every row; with the Dantzig
// pricing of before it needed 4,970 pivots (and on the 50 x 40 x 10 table
// it stalled in degenerate pivots past 500,000), so with the budget of
// 2,500 it fails on main (ErrIterations).
func TestReceivedPhase1Devex(t *testing.T) {
	rows, n, scale := receivedRows(t, 1, []int{30, 25, 8}, 0.2)
	if n < 900 {
		t.Fatalf("component of %d cells: the table is too small for the test", n)
	}
	sp, err := lp.NewSparse(context.Background(), n, rows, 2500)
	if err != nil {
		t.Fatalf("phase 1 of %d cells, %d rows: %v", n, len(rows), err)
	}
	tol := 1e-9 * scale * 100
	for r, row := range rows {
		v := row.RHS
		for k, j := range row.Idx {
			v -= row.Coef[k] * sp.Value(j)
		}
		if math.Abs(v) > tol {
			t.Fatalf("row %d off by %v at the phase 1 point", r, v)
		}
	}
	for j := 0; j < n; j++ {
		if sp.Value(j) < 0 {
			t.Fatalf("x%d = %v < 0", j, sp.Value(j))
		}
	}
	t.Logf("%d cells, %d rows: %d pivots", n, len(rows), sp.Pivots)
}
