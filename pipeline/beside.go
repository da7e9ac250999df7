package pipeline

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
)

// withholdBeside withholds every cell of a statistic code (a rate, a
// share, a mean, a median: Axis.NonAdditive) wherever a count or total of
// its line is withheld (primary, secondary or review): the cells with the
// same codes on every other axis. A rate or a median published beside a
// withheld count of 1 gives it back (the median age of one worker is that
// worker's age); the interval audit, which bounds the counts by their
// margins, does not model that. Run after secondary suppression, once the
// pattern of the counts is final; a withheld statistic adds no relation,
// so the pattern still protects what it protected. It is conservative:
// the statistic is withheld beside any withheld count of its line, not
// only the one it is computed from. A cell in keep (an override's
// protected, an a-priori keep: kept out of secondary suppression) stays
// published, with a table warning.
func withholdBeside(t *audit.Table, keep map[*audit.Cell]bool) {
	st := t.Structure
	if st == nil {
		return
	}
	for a := range st.Axes {
		ax := &st.Axes[a]
		if len(ax.NonAdditive) == 0 {
			continue
		}
		line := ax.LineKey
		// the first withheld count or total of each line
		withheld := map[string]*audit.Cell{}
		for _, c := range t.Cells {
			if c.Status == audit.StatusOK || !st.Additive(c.Key) {
				continue
			}
			if k := line(c.Key); withheld[k] == nil {
				withheld[k] = c
			}
		}
		if len(withheld) == 0 {
			continue
		}
		for _, c := range t.Cells {
			if c.Status != audit.StatusOK {
				continue
			}
			if _, ok := ax.NonAdditive[ax.AxisCode(c.Key)]; !ok {
				continue
			}
			by := withheld[line(c.Key)]
			if by == nil {
				continue
			}
			if keep[c] {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s is kept published (an override or a-priori status keeps it) beside %s, which is withheld: a statistic published beside a withheld count can give it back", t.KeyString(c.Key), t.KeyString(by.Key)))
				continue
			}
			msg := fmt.Sprintf("withheld beside %s: a statistic published beside a withheld count can give it back", t.KeyString(by.Key))
			c.Findings = append(c.Findings, audit.Said("secondary", audit.Fail, msg, []audit.Figure{audit.TextFig("beside", t.KeyString(by.Key))}))
			c.Notes = append(c.Notes, msg)
			c.Status = audit.StatusSecondary
		}
	}
}
