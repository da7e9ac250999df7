package suppress

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestAuditScanToleranceAtHugeScale: the interval audit settles a
// target's bound from a vertex that is within its tolerance of it
// (rangeChunk's scan). With the table's tolerance (1e-9 of its largest
// value, here about 1.5) a vertex at 78 settled the maximum of a primary
// of 71 at its row's bound 79: [.., 79] reaches its level 7.1, while the
// intruder's true maximum is 78 (gonum), so an unprotected primary was
// reported protected. Found by the searchtol engineer.
func TestAuditScanToleranceAtHugeScale(t *testing.T) {
	v := [][]int64{
		{2, 4, 1, 1},
		{1, 71, 135775943, 2},
		{181, 4, 100014379, 1459406580},
		{61, 103131764, 101662234, 100008772},
	}
	tb := tabletest.GridTable([]int{4, 4}, func(i []int) int64 { return v[i[0]][i[1]] }, func(i []int) int64 { return 3 })
	prim := map[[2]string]bool{{"d0_0", "d1_1"}: true, {"d0_1", "d1_1"}: true}
	sec := map[[2]string]bool{{"d0_0", "d1_0"}: true, {"d0_0", "d1_2"}: true, {"d0_1", "d1_0"}: true, {"d0_1", "d1_2"}: true, {"d0_2", "d1_0"}: true, {"d0_2", "d1_1"}: true}
	sup := make([]bool, len(tb.Cells))
	for i, c := range tb.Cells {
		k := [2]string{c.Key[0], c.Key[1]}
		switch {
		case prim[k]:
			tabletest.MarkPrimary(c)
			sup[i] = true
		case sec[k]:
			c.Status = audit.StatusSecondary
			sup[i] = true
		}
	}
	okOracle, why := oracleProtected(newOrTable(tb, nil, 0.10), sup)
	if okOracle {
		t.Fatal("the case no longer under-protects by gonum's attack: rebuild it")
	}
	res, err := Audit(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := true
	for _, iv := range res.Cells {
		if iv.Status == audit.StatusPrimary && iv.Protected {
			t.Logf("%v: [%v, %v] protected", iv.Key, iv.Lo, iv.Hi)
		} else if iv.Status == audit.StatusPrimary {
			all = false
		}
	}
	if all {
		t.Errorf("the audit calls every primary protected; gonum: %s", why)
	}
}
