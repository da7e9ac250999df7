package suppress

import (
	"context"
	"encoding/json"
	"testing"
)

// TestProtectAuditReusesAudit checks that the audit ProtectAudit returns
// for a large table (the one protectCheaper computed of the kept pattern)
// is byte for byte the audit a separate Audit call gives of the table it
// leaves, with the lp and with the hypercube pattern kept (seeds 6 and 3,
// as in TestProtectKeepsCheaperPattern), and that a small table returns
// none (the caller audits it).
func TestProtectAuditReusesAudit(t *testing.T) {
	ctx := context.Background()
	seen := map[string]bool{}
	for _, seed := range []uint64{6, 3} {
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
	if !seen["lp"] || !seen["hypercube"] {
		t.Errorf("choices %v: want both lp and hypercube among the cases", seen)
	}
	small := scaleTable(1, []int{6, 5}, 0.2)
	if _, got, err := ProtectAudit(ctx, small, Options{}); err != nil || got != nil {
		t.Errorf("small table: audit %v, error %v: want none", got, err)
	}
}
