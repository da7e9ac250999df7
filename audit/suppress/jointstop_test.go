package suppress

import (
	"context"
	"strings"
	"testing"
)

// TestJointStoppedNamesBudget: the joint search's stopped text named its
// three budgets at once whichever ran out; it now says which one (and
// keeps the old start, which users grep for).
func TestJointStoppedNamesBudget(t *testing.T) {
	sc := suiteCase{name: "8x6-15", sizes: []int{8, 6}, share: 0.15, seed: 10}
	for _, tc := range []struct {
		name string
		jo   JointOptions
		want string
	}{
		{"nodes", JointOptions{Nodes: 1}, "what ran out: the branch-and-bound nodes (1 explored)"},
		{"work", JointOptions{Work: 0.001}, "what ran out: the simplex work ("},
		{"tableau", JointOptions{MaxTableau: 4}, "what ran out: the tableau size (the next LP needed "},
	} {
		tb, opt := sc.build()
		opt.Joint = tc.jo
		run, err := protectRun(context.Background(), tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", tc.name, run.Stopped)
		if !strings.Contains(run.Stopped, "the joint search's budget (") {
			t.Errorf("%s: stopped %q, want the joint search's budget", tc.name, run.Stopped)
			continue
		}
		if !strings.Contains(run.Stopped, tc.want) || strings.Count(run.Stopped, "what ran out") != 1 {
			t.Errorf("%s: stopped %q, want it to say %q", tc.name, run.Stopped, tc.want)
		}
	}
}
