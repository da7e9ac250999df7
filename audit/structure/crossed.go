package structure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
)

// maxCrossedCodes bounds the codes of an axis searched for two
// breakdowns of one total (crossed): the search checks O(codes²) sums.
const maxCrossedCodes = 64

// crossed finds two or more breakdowns of the total t of the axis ("All
// people" = Men + Women = the three age bands, as published tables give
// one total by sex and by age in one column): every other code of the
// axis is a plain member (no margin, no statistic, no ratio, no other
// total), and the other codes, in table order, split into runs of two
// or more consecutive codes, each the sum of t on every line where all
// are known (within input.rounded when set; exactly otherwise) and with
// two nonzero parts on some line. Each run is cut at the shortest prefix
// that adds up. When it holds, t is recorded as the margin of the first
// run (Parent) with every run in Axis.Breakdowns (found as how, "and
// arithmetic" added for a label or the configuration), with a note, and
// crossed reports true; else nothing changes.
func (in *axisInference) crossed(tr *axisTree, t, how string) bool {
	ax := in.ax
	if !in.arithmetic || len(ax.Dims) != 1 || len(tr.hier) > 0 || len(ax.NonAdditive) > 0 || len(tr.parent) > 0 {
		return false
	}
	var rest []string
	for _, c := range ax.Codes {
		if c != t {
			rest = append(rest, c)
		}
	}
	if len(rest) < 4 || len(rest) > maxCrossedCodes || len(rest) != len(tr.members)-boolInt(slices.Contains(tr.members, t)) {
		return false
	}
	for _, c := range rest {
		if !slices.Contains(tr.members, c) {
			return false
		}
	}
	if !in.mayBePart(rest) {
		return false
	}
	var runs [][]string
	inexact := false
	for start := 0; start < len(rest); {
		end := -1
		for j := start + 2; j <= len(rest); j++ {
			h, checked, nontrivial, _, _ := in.check(t, rest[start:j])
			if h && checked > 0 && nontrivial && !in.negative {
				end = j
				inexact = inexact || in.inexact
				break
			}
		}
		if end < 0 {
			return false
		}
		runs = append(runs, slices.Clone(rest[start:end]))
		start = end
	}
	if len(runs) < 2 {
		return false
	}
	if inexact {
		how += ", within rounding"
	}
	in.setTotal(t, runs[0], tr.parent, how)
	if ax.Breakdowns == nil {
		ax.Breakdowns = map[string][][]string{}
	}
	ax.Breakdowns[t] = runs
	parts := make([]string, len(runs))
	dimNames := make([]string, len(runs))
	for i, r := range runs {
		dimNames[i] = fmt.Sprintf("%s (%d)", tr.name, i+1)
		if len(r) <= 3 {
			q := make([]string, len(r))
			for k, c := range r {
				q[k] = audit.CodeText(c)
			}
			parts[i] = strings.Join(q, " + ")
		} else {
			parts[i] = fmt.Sprintf("the %d codes %s ... %s", len(r), audit.CodeText(r[0]), audit.CodeText(r[len(r)-1]))
		}
	}
	in.notes = append(in.notes, fmt.Sprintf("%s: %q = %s (found by %s): %d breakdowns of one total, protected and audited as a cross of hidden dimensions (%s) whose interior cells are not published", tr.name, audit.CodeText(t), strings.Join(parts, " = "), how, len(runs), strings.Join(dimNames, " x ")))
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
