package rules

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
)

// magnitudeInput checks what every magnitude rule needs: a total, the
// largest `need` contributions, and no negative contributions. It returns a
// finding and false when the rule cannot be applied.
func magnitudeInput(rule string, c *audit.Cell, need int) (audit.Finding, bool) {
	switch {
	case !c.HasTotal:
		return finding(rule, audit.Review, "the cell total is missing", nil), false
	case c.Negative > 0:
		return finding(rule, audit.Review, fmt.Sprintf("%d negative contribution(s): the rule assumes non-negative values", c.Negative), map[string]any{"negative": c.Negative}), false
	case c.HasN && c.N == 0:
		return finding(rule, audit.Pass, "empty cell", nil), false
	case len(c.Top) < need && !c.AllTop && !(c.HasN && int64(len(c.Top)) >= c.N):
		return finding(rule, audit.NotApplicable, fmt.Sprintf("needs the %d largest contributions, which the input does not give", need), nil), false
	}
	return audit.Finding{}, true
}

// sumTop returns x1 + ... + xn.
func sumTop(c *audit.Cell, n int) audit.Dec {
	var s audit.Dec
	for i := 0; i < n && i < len(c.Top); i++ {
		s = s.Add(c.Top[i])
	}
	return s
}
