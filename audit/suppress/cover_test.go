package suppress

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestUnpublishedCoverCells: a 3-dimensional cover of two linked tables
// (dim0 x dim1 and dim0 x dim2) whose interior cells no table publishes.
// Protect uses them freely but never marks them secondary, Audit reports
// no interval for them, and every primary of the published cells is
// protected (or Protect says it could not).
func TestUnpublishedCoverCells(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sizes := []int{rapid.IntRange(2, 4).Draw(rt, "s0"), rapid.IntRange(2, 4).Draw(rt, "s1"), rapid.IntRange(2, 4).Draw(rt, "s2")}
		cells := sizes[0] * sizes[1] * sizes[2]
		vals := rapid.SliceOfN(rapid.IntRange(1, 40), cells, cells).Draw(rt, "vals")
		k := 0
		tb := tabletest.GridTable(sizes, func([]int) int64 { k++; return int64(vals[(k-1)%cells]) }, func([]int) int64 { return 3 })
		unpub := make([]bool, len(tb.Cells))
		hidden := 0
		for i, c := range tb.Cells {
			unpub[i] = c.Key[1] != "Total" && c.Key[2] != "Total"
			if unpub[i] {
				hidden++
			} else if c.Key[0] != "Total" && rapid.IntRange(0, 5).Draw(rt, "primary") == 0 {
				tabletest.MarkPrimary(c)
			}
		}
		opt := Options{Unpublished: unpub}
		if _, err := Protect(context.Background(), tb, opt); err != nil {
			rt.Fatal(err)
		}
		for i, c := range tb.Cells {
			if unpub[i] && c.Status != audit.StatusOK {
				rt.Fatalf("unpublished cell %v got status %s", c.Key, c.Status)
			}
		}
		res, err := Audit(context.Background(), tb, opt)
		if err != nil {
			rt.Fatal(err)
		}
		reported := map[string]bool{}
		for _, r := range res.Cells {
			reported[tabletest.JoinKey(r.Key)] = true
			if r.Status == audit.StatusPrimary && (r.Exact || !r.Protected && len(tb.Warnings) == 0) {
				rt.Fatalf("primary %v: [%v, %v] exact=%v protected=%v", r.Key, r.Lo, r.Hi, r.Exact, r.Protected)
			}
		}
		for i, c := range tb.Cells {
			if unpub[i] && reported[tabletest.JoinKey(c.Key)] {
				rt.Fatalf("interval reported for unpublished cell %v", c.Key)
			}
		}
		if _, err := Audit(context.Background(), tb, Options{Unpublished: unpub[:1]}); err == nil {
			rt.Fatal("a short Unpublished slice is accepted")
		}
	})
}
