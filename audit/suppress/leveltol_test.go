package suppress

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestProtectionToleranceRelativeToLevel: the audit's float tolerance was
// 1e-9 of the table's largest value (about 6 here), so a pattern that left
// the primary 100 (level 10) reachable only 5 above its value counted as
// protected and was kept (cost 45), with a lower bound above its cost.
// The verdict's tolerance is now at most a millionth of the level: the
// kept pattern must protect the primary by gonum's attack, and the bound
// must not exceed its cost.
func TestProtectionToleranceRelativeToLevel(t *testing.T) {
	v := [][]int64{{100, 5, 1000000}, {20, 20, 2000000000}, {1000000, 2000000000, 2000000000}}
	tb := tabletest.GridTable([]int{3, 3}, func(i []int) int64 { return v[i[0]][i[1]] }, func(i []int) int64 { return 3 })
	for _, c := range tb.Cells {
		if c.Key[0] == "d0_0" && c.Key[1] == "d1_0" {
			tabletest.MarkPrimary(c)
		}
	}
	run, err := protectRun(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sup := make([]bool, len(tb.Cells))
	for i, c := range tb.Cells {
		sup[i] = c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary
	}
	if ok, why := oracleProtected(newOrTable(tb, nil, 0.10), sup); !ok {
		t.Errorf("the kept pattern (%s, cost %v) does not protect the primary by gonum's attack: %s", run.Chosen, deref(run.PatternCost), why)
	}
	if run.LowerBound != nil && run.PatternCost != nil && *run.LowerBound > *run.PatternCost {
		t.Errorf("lower bound %v above the pattern's cost %v", *run.LowerBound, *run.PatternCost)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
