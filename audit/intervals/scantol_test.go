package intervals

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestScanSettlesNoWiderThanTheMove: the primary 1e10 at (0,0) has its
// own upper level 6; its row allows it 6 more (the published 6 beside
// it), but the cycle through the other suppressed cells lets the
// intruder move it only 5 (min(6, 5, 7)), so it is not protected. The
// scan settled its maximum at the row bound 1e10+6 from a vertex within
// 1e-9 of that bound (10 here), and the audit called it protected.
// Found by the final review.
func TestScanSettlesNoWiderThanTheMove(t *testing.T) {
	const big = 10_000_000_000
	v := [][]int64{{big, 6, 1}, {1, 1000, 5}, {7, 1, 2000}}
	tb := tabletest.GridTable([]int{3, 3}, func(i []int) int64 { return v[i[0]][i[1]] }, func([]int) int64 { return 3 })
	sec := map[[2]string]bool{{"d0_0", "d1_1"}: true, {"d0_1", "d1_1"}: true, {"d0_1", "d1_2"}: true, {"d0_2", "d1_2"}: true, {"d0_2", "d1_0"}: true}
	for _, c := range tb.Cells {
		k := [2]string{c.Key[0], c.Key[1]}
		switch {
		case k == [2]string{"d0_0", "d1_0"}:
			tabletest.MarkPrimary(c)
		case sec[k]:
			c.Status = audit.StatusSecondary
		}
	}
	opt := Options{Protection: Protection{CellLevels: func(c *audit.Cell) (float64, float64, bool) {
		if c.Key[0] == "d0_0" && c.Key[1] == "d1_0" {
			return 6, 0, true
		}
		return 0, 0, false
	}}}
	res, err := Audit(context.Background(), tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Cells {
		if r.Key[0] != "d0_0" || r.Key[1] != "d1_0" {
			continue
		}
		found = true
		if r.Protected {
			t.Errorf("primary %v: [%v, %v] protected at upper level %v; the intruder reaches only value + 5", r.Key, r.Lo, r.Hi, r.Upper)
		}
		if r.Hi > big+5+1e-3 {
			t.Errorf("primary %v: hi %v, the intruder's maximum is %v", r.Key, r.Hi, big+5)
		}
	}
	if !found {
		t.Fatal("the primary is not in the audit")
	}
}
