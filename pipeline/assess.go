package pipeline

import (
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/rules"
)

// unassessedRule is the rule name of the finding that sends a cell no
// sensitivity rule could assess to review.
const unassessedRule = "unassessed"

// sensitivityRules are the names of the enabled rules that say whether a
// cell discloses a contributor (every rule but the input-quality checks,
// rules.Spec.Quality), in the order given.
func sensitivityRules(names []string) []string {
	var out []string
	for _, n := range names {
		if s, ok := rules.Lookup(n); ok && !s.Quality && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// countRules need the number of contributors; magnitudeRules need the
// largest contributions. They name what to provide in the reason.
var (
	countRules     = []string{"threshold", "zeros", "class", "all_zero"}
	magnitudeRules = []string{"dominance", "p_percent", "pq", "interval"}
)

// markUnassessed sends to review every decided ok cell that publishes
// something and that no enabled sensitivity rule could assess (each found
// it not applicable): a table of totals alone, without counts or
// contributions, would otherwise pass unchecked. A cell whose every
// statistic the input already suppressed publishes nothing and stays as
// decided. The finding says what to publish or provide so that the cell
// can be assessed.
func markUnassessed(t *audit.Table, sensitive []string) {
	if len(sensitive) == 0 {
		return
	}
	for _, c := range t.Cells {
		if c.Status != audit.StatusOK || !publishes(c) {
			continue
		}
		var na []string
		assessed := false
		for _, f := range c.EachFinding() {
			if !slices.Contains(sensitive, f.Rule) {
				continue
			}
			if f.Outcome != audit.NotApplicable {
				assessed = true
				break
			}
			if !slices.Contains(na, f.Rule) {
				na = append(na, f.Rule)
			}
		}
		if assessed || len(na) == 0 {
			continue
		}
		needs := unassessedNeeds(c, na)
		text := "no sensitivity rule could assess this cell (each found it not applicable)"
		if len(needs) > 0 {
			text += ": publish or provide " + strings.Join(needs, ", and ") + ", so that it can be assessed"
		} else {
			text += ": see each rule's finding for what it needs"
		}
		text += "; until then a person must decide"
		figs := []audit.Figure{audit.TextsFig("rules", na)}
		if len(needs) > 0 {
			figs = append(figs, audit.TextsFig("needs", needs))
		}
		c.Findings = append(c.Findings, audit.Said(unassessedRule, audit.Review, text, figs))
		c.Status = audit.StatusReview
	}
}

// publishes reports whether the cell publishes a statistic the input did
// not already suppress (or is a microdata cell, which publishes what its
// records give).
func publishes(c *audit.Cell) bool {
	if c.Stats.Len() == 0 {
		return true
	}
	for _, st := range c.Stats.All() {
		if !st.Marker {
			return true
		}
	}
	return false
}

// unassessedNeeds says what the cell lacks for the rules that could not
// assess it.
func unassessedNeeds(c *audit.Cell, na []string) []string {
	var needs []string
	uses := func(names []string) []string {
		var out []string
		for _, n := range na {
			if slices.Contains(names, n) {
				out = append(out, n)
			}
		}
		return out
	}
	if r := uses(countRules); !c.HasN && len(r) > 0 {
		needs = append(needs, "the number of contributors of each cell (a count column, or the microdata) for "+strings.Join(r, ", "))
	}
	if r := uses(magnitudeRules); c.HasTotal && len(r) > 0 && (len(c.Top) < 2 || !c.HasN) {
		needs = append(needs, "the largest contributions of each cell (columns top1, top2, ..., or the microdata) for "+strings.Join(r, ", "))
	}
	return needs
}
