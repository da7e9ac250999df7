package structure

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/sdcaudit/sdcaudit/audit"
)

// statisticWords label codes that are statistics of a cell other than a
// count or amount (a median, a standard error): they do not add up along
// the table's margins. Matched as whole words of the normalised label.
var statisticWords = []string{
	"median", "medians", "mean", "average", "averages",
	"percentile", "percentiles", "quartile", "quartiles", "decile", "deciles", "quintile", "quintiles",
	"standard error", "standard errors", "standard deviation", "coefficient of variation", "cv",
	"margin of error", "confidence interval", "confidence limit", "lower limit", "upper limit",
}

// statisticLabel says what a code reads as when it is a statistic that
// does not add up ("" when it may): a statistic word, or a ratio
// (ratioLabel: a rate, a percentage, "%").
func statisticLabel(code string) string {
	for _, p := range label(code) {
		words := " " + strings.Join(strings.FieldsFunc(normal(p), func(r rune) bool {
			return !unicode.IsLetter(r) // a footnote number glued to a word ends it ("error3")
		}), " ") + " "
		for _, w := range statisticWords {
			if strings.Contains(words, " "+w+" ") {
				return w
			}
		}
	}
	if ratioLabel(code) {
		return "a ratio"
	}
	return ""
}

// percentileRe is a bare percentile number (1 to 99) as the percentile
// columns after the first are labelled under a "Percentiles" cell that
// names only the first ("Percentiles 10", "20", "25", ...).
func percentile(code string) bool {
	l := label(code)
	s := strings.TrimSpace(l[len(l)-1])
	if len(s) == 0 || len(s) > 2 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != "0"
}

// nonAdditive finds, on every axis, the codes labelled as statistics that
// do not add up (statisticLabel; and the bare numbers that follow a
// percentile code, the further percentiles), records them in
// Axis.NonAdditive, and blanks their cells' figures, so that the margins
// of the other axes are confirmed on the additive codes alone. Nothing is
// marked unless some code of the axis stays additive (an axis of medians
// alone is the table's one statistic, and its margins are not
// confirmed at all).
func nonAdditive(t *audit.Table, st *audit.Structure, figs []figure) {
	for a := range st.Axes {
		ax := &st.Axes[a]
		marks := map[string]string{}
		prev := ""
		for _, c := range ax.Codes {
			w := statisticLabel(c)
			if w == "" && percentile(c) && (prev == "percentile" || prev == "percentiles") {
				w = prev
			}
			if w != "" {
				marks[c] = w
			}
			prev = w
		}
		if len(marks) == 0 || len(marks) == len(ax.Codes) {
			continue
		}
		ax.NonAdditive = map[string]string{}
		var names []string
		for _, c := range ax.Codes {
			if w, ok := marks[c]; ok {
				ax.NonAdditive[c] = w
				names = append(names, fmt.Sprintf("%q", audit.CodeText(c)))
			}
		}
		for i, c := range t.Cells {
			if _, ok := marks[ax.AxisCode(c.Key)]; ok {
				figs[i] = figure{}
			}
		}
		if len(names) > 4 {
			names = append(names[:4], fmt.Sprintf("and %d more", len(names)-4))
		}
		st.Notes = append(st.Notes, fmt.Sprintf("%s: %s read as statistics that do not add up (a median, a percentile, a standard error, a rate): margins are confirmed on, and hold for, the other codes only", ax.Name(), strings.Join(names, ", ")))
	}
}
