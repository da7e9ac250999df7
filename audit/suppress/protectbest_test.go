package suppress

import (
	"context"
	"strings"
	"testing"
)

// TestProtectBestSkipsDominatedAudit: on issue 25's 3x3 table the lp
// method's pattern (objective cost 620) protects both primaries, so the
// hypercube method's (820) cannot be kept and is not audited; the joint
// pattern (600) is kept, and the reason says which pattern went
// unaudited.
func TestProtectBestSkipsDominatedAudit(t *testing.T) {
	run, err := protectRun(context.Background(), diagonalTable(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Chosen != "joint" || !strings.Contains(run.ChosenReason, "lp 620 (0 unprotected)") || !strings.Contains(run.ChosenReason, "hypercube 820 (not audited") {
		t.Errorf("chosen %q: %s", run.Chosen, run.ChosenReason)
	}
}
