package suppress

import (
	"context"
	"strings"
	"testing"
)

// TestLPStoppedOnlyWhenKept: the lp method's stopped text ("the lp
// method's work budget ... was spent") was added to the run's stopped
// whichever pattern was kept. On issue 25's 3x3 table with a tiny lp
// budget the joint pattern is kept: the run's stopped must not speak of
// the lp budget, the chosen reason says it of the pattern not kept. With
// the joint search off the lp pattern (tied with hypercube's) is kept and
// its stopped text is the run's.
func TestLPStoppedOnlyWhenKept(t *testing.T) {
	const lpText = "the lp method's work budget ("
	opt := Options{LP: LPOptions{Work: 1e-9}}
	run, err := protectRun(context.Background(), diagonalTable(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if run.Chosen == "lp" {
		t.Fatalf("the lp pattern was kept (%s): the case does not test a pattern not kept", run.ChosenReason)
	}
	if strings.Contains(run.Stopped, lpText) {
		t.Errorf("kept %s, stopped %q: names the lp method's budget", run.Chosen, run.Stopped)
	}
	if !strings.Contains(run.ChosenReason, "the lp pattern, not kept, was found with its budget spent: "+lpText) {
		t.Errorf("kept %s, reason %q: does not say the lp budget of the pattern not kept", run.Chosen, run.ChosenReason)
	}

	opt.Joint.Off = true
	run, err = protectRun(context.Background(), diagonalTable(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if run.Chosen != "lp" {
		t.Fatalf("kept %s (%s), want lp", run.Chosen, run.ChosenReason)
	}
	if !strings.Contains(run.Stopped, lpText) || strings.Contains(run.ChosenReason, "not kept, was found") {
		t.Errorf("lp kept: stopped %q, reason %q", run.Stopped, run.ChosenReason)
	}
}
