package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "missing", Quality: true, Doc: "missing statistics: a published statistic that is missing in the input, or could not be computed, sends the cell to review; a microdata cell whose records all have a missing value is review too; an undefined statistic (the mean of an empty cell, the SD of one value) is not missing", New: newMissing})
}

type missing struct {
	facts *explainFacts // made once by newMissing
}

func newMissing(decode Decoder) (Rule, error) {
	var p struct{}
	if err := decodeParams("missing", decode, &p); err != nil {
		return nil, err
	}
	r := missing{}
	r.facts = &explainFacts{r.explain}
	return r, nil
}

func (missing) Name() string { return "missing" }

// minDefined is the least number of contributors for which a statistic is
// defined (sample SD needs two values, skewness three, kurtosis four).
func minDefined(stat string) int64 {
	switch stat {
	case "count":
		return 0
	case "sd", "variance":
		return 2
	case "skewness":
		return 3
	case "kurtosis":
		return 4
	}
	return 1
}

// Check decides the cell. A cell none of whose statistics is missing, and
// that is not a microdata cell with every value or its total missing,
// passes; its finding then refers to the rule's facts, which give the
// figures and message of explain when written (they depend on the cell
// only), so that a table of a million cells holds no figures per cell.
func (r missing) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	if r.facts == nil || !allPresent(t, c) {
		return r.explain(t, c)
	}
	return audit.Finding{Rule: "missing", Outcome: audit.Pass, Facts: r.facts, Cell: c}
}

// allPresent reports whether explain passes the cell on its figures alone:
// no statistic is missing (so none is marked, undefined or missing) and,
// in microdata mode, the cell's values and total are there.
func allPresent(t *audit.Table, c *audit.Cell) bool {
	for _, st := range c.Stats.All() {
		if st.Missing {
			return false
		}
	}
	if t != nil && t.Mode == audit.Microdata && t.Value != "" {
		if c.Rows > 0 && c.Missing == c.Rows {
			return false
		}
		if _, ok := c.Stats.Get("total"); !ok && !c.HasTotal {
			return false
		}
	}
	return true
}

// explain is the full finding on the cell, figures and message included.
func (missing) explain(t *audit.Table, c *audit.Cell) audit.Finding {
	var miss, marked, undefined []string
	for name, st := range c.Stats.All() {
		if !st.Missing {
			continue
		}
		switch {
		case st.Marker:
			marked = append(marked, name)
		case c.HasN && c.N < minDefined(name):
			undefined = append(undefined, name)
		default:
			miss = append(miss, name)
		}
	}
	// A microdata cell whose records all have a missing value is not an
	// empty cell: its statistics exist but are unknown.
	allMissing := t != nil && t.Mode == audit.Microdata && t.Value != "" && c.Rows > 0 && c.Missing == c.Rows
	if t != nil && t.Mode == audit.Microdata && t.Value != "" && !c.HasTotal {
		if _, ok := c.Stats.Get("total"); !ok {
			miss = append(miss, "total")
		}
	}
	sort.Strings(miss)
	sort.Strings(marked)
	sort.Strings(undefined)
	var v []audit.Figure
	if len(miss) > 0 {
		v = append(v, audit.TextsFig("missing", miss))
	}
	if len(marked) > 0 {
		v = append(v, audit.TextsFig("suppressed_in_input", marked))
	}
	if len(undefined) > 0 {
		v = append(v, audit.TextsFig("undefined", undefined))
	}
	if c.HasN {
		v = append(v, audit.IntFig("n", c.N))
	}
	if c.Missing > 0 {
		v = append(v, audit.IntFig("missing_values", c.Missing))
	}
	if allMissing {
		v = append(v, audit.BoolFig("all_missing", true))
		msg := fmt.Sprintf("all %s of this cell have a missing %s: its statistics are missing, not zero, and cannot be assessed", report.Plural(c.Rows, "record", "records"), t.Value)
		if len(miss) > 0 {
			msg += "; also missing: " + strings.Join(miss, ", ")
		}
		return finding("missing", audit.Review, msg, v)
	}
	if len(miss) > 0 {
		return finding("missing", audit.Review, fmt.Sprintf("published statistics missing: %s; a missing figure cannot be assessed", strings.Join(miss, ", ")), v)
	}
	msg := "every published statistic is present"
	var notes []string
	if len(undefined) > 0 {
		notes = append(notes, fmt.Sprintf("%s undefined for n = %d", strings.Join(undefined, ", "), c.N))
	}
	if len(marked) > 0 {
		notes = append(notes, strings.Join(marked, ", ")+" already suppressed in the input")
	}
	if c.Missing > 0 {
		notes = append(notes, report.Plural(c.Missing, "record", "records")+" with a missing value, not counted as contributors")
	}
	if len(notes) > 0 {
		msg += " (" + strings.Join(notes, "; ") + ")"
	}
	return finding("missing", audit.Pass, msg, v)
}
