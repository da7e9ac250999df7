package suppress

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
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

// TestFinalAuditAfterTheDeadline: when the time limit has run out before
// the kept pattern's whole audit, its verdicts' audit stands (no audit
// runs: the table here has no pattern to audit) with a warning naming the
// limit and the intervals left approximate; the candidate's own audit is
// not changed. An audit that already is the whole one is returned as is.
func TestFinalAuditAfterTheDeadline(t *testing.T) {
	verdicts := &audit.Intervals{Approximate: 3, Warnings: []string{"w"}}
	po := &patternOffers{ctx: context.Background(), opt: Options{TimeLimit: time.Second}, deadline: time.Unix(1, 0)}
	iv, err := po.finalAudit(candidate{iv: verdicts})
	if err != nil {
		t.Fatal(err)
	}
	want := exactCutWarning(time.Second, 3)
	if iv == verdicts || len(iv.Warnings) != 2 || iv.Warnings[1] != want || iv.Approximate != 3 {
		t.Errorf("got %+v, want the verdicts' audit with the warning %q", iv, want)
	}
	if len(verdicts.Warnings) != 1 {
		t.Errorf("the candidate's audit changed: %q", verdicts.Warnings)
	}
	if !strings.Contains(want, "time limit 1s") || !strings.Contains(want, "3 intervals are inner bounds") {
		t.Errorf("warning %q", want)
	}
	if iv, _ := po.finalAudit(candidate{iv: verdicts, full: true}); iv != verdicts {
		t.Errorf("a whole audit was not returned as is")
	}
}
