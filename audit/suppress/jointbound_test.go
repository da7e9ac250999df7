package suppress

import (
	"context"
	"strings"
	"testing"
)

// TestJointBoundOnlyStallAndWarm runs the bound-only search (MaxCells
// below the table) on a small 3-D table: with the default stall rule it
// stops by the stall or the budget and says so; with the warm-started
// masters (WarmMaster), the bound is still at most the pattern's cost and
// the full joint search's pattern (4,409; its bound is 2,940.8).
func TestJointBoundOnlyStallAndWarm(t *testing.T) {
	run := func(jo JointOptions) (float64, float64, string) {
		tb := scaleTable(3, []int{8, 6, 4}, 0.08)
		res, err := Protect(context.Background(), tb, Options{Joint: jo})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Run
		if r.LowerBound == nil || r.PatternCost == nil {
			t.Fatalf("no bound: %+v", r)
		}
		return *r.LowerBound, *r.PatternCost, r.Stopped
	}
	for _, jo := range []JointOptions{
		{MaxCells: 10, BoundWork: 300},
		{MaxCells: 10, BoundWork: 300, WarmMaster: true},
	} {
		lb, c, stopped := run(jo)
		t.Logf("%+v: bound %v cost %v %q", jo, lb, c, stopped)
		if lb > c+1e-6*c || lb > 4409 {
			t.Errorf("%+v: bound %v above a pattern's cost (%v; 4409 by the full search)", jo, lb, c)
		}
		if jo.BoundStall == 0 && stopped != "" && !strings.Contains(stopped, "stopped when") && !strings.Contains(stopped, "budget") {
			t.Errorf("%+v: stopped %q", jo, stopped)
		}
	}
}
