package suppress

import (
	"context"
	"encoding/json"
	"testing"
)

// TestProtectAuditReusesAudit checks that the audit Protect returns
// (Result.Audit, the one protectBest computed of the kept pattern) is
// byte for byte the audit a separate Audit call gives of the table it
// leaves, on a small table; TestProtectKeepsCheaperPattern checks it on
// the large tables, with the lp and with the hypercube pattern kept (the
// check was here, protecting those tables once more).
func TestProtectAuditReusesAudit(t *testing.T) {
	ctx := context.Background()
	// Small tables too: every size is audited to choose among the lp,
	// joint and hypercube patterns.
	small := scaleTable(1, []int{6, 5}, 0.2)
	res, err := Protect(ctx, small, Options{})
	got := res.Audit
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
