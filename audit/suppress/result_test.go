package suppress

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestUnprotectedAsData: a primary cell that no pattern can protect (every
// other cell kept published) comes back in Result.Unprotected with its
// reason, with both methods, and Protect writes no warning for it;
// ProtectAudit, for callers that report it as a table warning, writes
// Unprotected.Warning. Before, the method wrote only the warning text,
// which pipeline/linked.go matched by its prefix.
func TestUnprotectedAsData(t *testing.T) {
	build := func() (*audit.Table, int) {
		tb := tabletest.GridTable([]int{2}, func(i []int) int64 { return int64(10 + i[0]) }, func([]int) int64 { return 3 })
		p := slices.IndexFunc(tb.Cells, func(c *audit.Cell) bool { return c.Key[0] == "d0_0" })
		tabletest.MarkPrimary(tb.Cells[p])
		return tb, p
	}
	for _, method := range []string{"lp", "hypercube"} {
		tb, p := build()
		opt := Options{Method: method, Keep: func(c *audit.Cell) bool { return c.Status != audit.StatusPrimary }}
		res, err := Protect(context.Background(), tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := []Unprotected{{Cell: p, Reason: NoPattern, By: -1}}
		if !reflect.DeepEqual(res.Unprotected, want) {
			t.Errorf("%s: unprotected %+v, want %+v", method, res.Unprotected, want)
		}
		if len(tb.Warnings) != 0 {
			t.Errorf("%s: Protect wrote warnings %q", method, tb.Warnings)
		}
		tb2, _ := build()
		tb2.Warnings = []string{"before"}
		if _, _, err := ProtectAudit(context.Background(), tb2, opt); err != nil {
			t.Fatal(err)
		}
		if w := []string{"before", "secondary suppression: no complementary pattern protects dim0=d0_0"}; !reflect.DeepEqual(tb2.Warnings, w) {
			t.Errorf("%s: ProtectAudit's warnings %q", method, tb2.Warnings)
		}
	}
	tb, p := build()
	u := Unprotected{Cell: p, Reason: Singleton, By: p + 1}
	if got, want := u.Warning(tb), "secondary suppression: "+tb.KeyString(tb.Cells[p].Key)+" can be recovered by the single contributor of "+tb.KeyString(tb.Cells[p+1].Key); got != want {
		t.Errorf("singleton warning %q, want %q", got, want)
	}
}
