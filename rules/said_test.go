package rules

import (
	"fmt"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestFindingSharesFacts: a finding without figures shares its facts with
// every finding of the same message (so that audit.RuleFindings keeps it
// as a byte per cell), says the same, and one with figures does not.
func TestFindingSharesFacts(t *testing.T) {
	a := finding("minmax", audit.NotApplicable, "the table publishes neither min nor max", nil)
	b := finding("zeros", audit.Pass, "the table publishes neither min nor max", nil)
	if fmt.Sprintf("%p", a.Facts) != fmt.Sprintf("%p", b.Facts) {
		t.Error("two findings of one message without figures have their own facts")
	}
	if a.Rule != "minmax" || b.Rule != "zeros" || a.Outcome != audit.NotApplicable || b.Outcome != audit.Pass || a.Message() != "the table publishes neither min nor max" || a.FigureList() != nil {
		t.Errorf("%+v %+v", a, b)
	}
	figs := []audit.Figure{audit.IntFig("n", 1)}
	c, d := finding("minmax", audit.Pass, "m", figs), finding("minmax", audit.Pass, "m", figs)
	if fmt.Sprintf("%p", c.Facts) == fmt.Sprintf("%p", d.Facts) || len(c.FigureList()) != 1 {
		t.Error("findings with figures share facts")
	}
}
