package suppress

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// TestProtectAuditReusesAudit checks that the audit ProtectAudit returns
// for a large table (the one protectBest computed of the kept pattern)
// is byte for byte the audit a separate Audit call gives of the table it
// leaves, with the lp and with the hypercube pattern kept (seeds 6 and 3,
// as in TestProtectKeepsCheaperPattern), and on a small table.
func TestProtectAuditReusesAudit(t *testing.T) {
	ctx := context.Background()
	seen := map[string]bool{}
	for _, seed := range heavySeeds() {
		tb := scaleTable(seed, []int{20, 15, 6}, 0.05)
		opt := Options{Workers: 2}
		run, got, err := ProtectAudit(ctx, tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			t.Fatalf("seed %d: %d cells: no audit returned", seed, len(tb.Cells))
		}
		seen[run.Chosen] = true
		want, err := Audit(ctx, tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		gj, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		wj, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if string(gj) != string(wj) {
			t.Errorf("seed %d (%s kept): the returned audit differs from Audit's:\n%s\n%s", seed, run.Chosen, gj, wj)
		}
		if want.UnderProtected+want.ExactlyDisclosed+want.Undetermined > 0 {
			t.Errorf("seed %d: %d under-protected, %d exact, %d undetermined", seed, want.UnderProtected, want.ExactlyDisclosed, want.Undetermined)
		}
	}
	if !tabletest.RaceEnabled && (!seen["lp"] || !seen["hypercube"]) {
		t.Errorf("choices %v: want both lp and hypercube among the cases", seen)
	}
	// Small tables too: every size is audited to choose among the lp,
	// joint and hypercube patterns.
	small := scaleTable(1, []int{6, 5}, 0.2)
	_, got, err := ProtectAudit(ctx, small, Options{})
	if err != nil || got == nil {
		t.Fatalf("small table: audit %v, error %v: want one", got, err)
	}
	want, err := Audit(ctx, small, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("small table: the returned audit differs from Audit's:\n%s\n%s", gj, wj)
	}
}
