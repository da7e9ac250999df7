package structure

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// statisticWords label codes that are statistics of a cell other than a
// count or amount (a median, a standard error): they do not add up along
// the table's margins. Matched as whole words of the normalised label.
var statisticWords = []string{
	"median", "medians", "mean", "average", "averages",
	"percentile", "percentiles", "quartile", "quartiles", "decile", "deciles", "quintile", "quintiles",
	"standard error", "standard errors", "standard deviation", "coefficient of variation", "cv",
	"margin of error", "confidence interval", "confidence limit", "lower limit", "upper limit",
	// extremes: a minimum or maximum is one contributor's own value
	"minimum", "minimums", "minima", "maximum", "maximums", "maxima", "min", "max", "range", "ranges",
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
func nonAdditive(t *audit.Table, st *audit.Structure, figs []figure, opt Options, shared *axisLines) {
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
		addingUp(t, st, a, figs, opt, marks, shared)
		if len(marks) == 0 {
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

// maxStatGroups and maxStatCodes bound addingUp's search: on an axis with
// more kinds of statistic words, or more codes, the codes labelled as
// statistics stay marked unsearched, with a table warning: the marks keep
// the statistics withheld beside withheld counts (pipeline withholdBeside),
// and where no margin confirms them (audit.Axis.StatisticsConfirmed) the
// class rule also judges them as categories and they have no count of
// their line (review). Clearing the marks instead published a median age
// of one worker beside his withheld count.
const (
	maxStatGroups = 6
	maxStatCodes  = 200
)

// addingUp takes out of marks the codes that the arithmetic shows to be
// counts after all: a label is only a hint ("Most deprived decile",
// "Below average" and "Upper limit" are common labels of count
// categories), and a code that is a part of another code of the axis
// (on every line where all are published, on one at least with two parts
// not zero; within Options.Rounded) adds up. The marked codes are tried
// by the word that marked them, in every combination of those words, as
// parts of each unmarked code, with and without the other unmarked
// codes. Marking a count category as a statistic would drop the margin it
// is a part of (a false "protected"); leaving a statistic unmarked only
// keeps the margins to those that hold in every column. Beyond
// maxStatGroups words or maxStatCodes codes nothing is searched: every
// labelled code stays marked, with a table warning.
func addingUp(t *audit.Table, st *audit.Structure, a int, figs []figure, opt Options, marks map[string]string, shared *axisLines) {
	ax := &st.Axes[a]
	var words []string
	for _, c := range ax.Codes {
		if w, ok := marks[c]; ok && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) > maxStatGroups || len(ax.Codes) > maxStatCodes {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: %d codes labelled as statistics (%d kinds, %d codes in all) were not checked against the margins (the search is bounded at %d kinds and %d codes): all are read as statistics; if some are counts that add up into a total, declare the margins (totals:) or split the table", ax.Name(), len(marks), len(words), len(ax.Codes), maxStatGroups, maxStatCodes))
		return
	}
	in := &axisInference{t: t, opt: opt, ax: ax, figs: figs, axes: st.Axes, arithmetic: true, shared: shared, a: a}
	in.lines()
	var unmarked []string
	for _, c := range ax.Codes {
		if _, ok := marks[c]; !ok {
			unmarked = append(unmarked, c)
		}
	}
	adds := map[string]bool{} // words whose codes are parts
	for _, total := range unmarked {
		var others []string
		for _, c := range unmarked {
			if c != total {
				others = append(others, c)
			}
		}
		for mask := 1; mask < 1<<len(words); mask++ {
			var group []string
			for _, c := range ax.Codes {
				if w, ok := marks[c]; ok && mask>>slices.Index(words, w)&1 == 1 {
					group = append(group, c)
				}
			}
			for _, parts := range [][]string{group, append(slices.Clone(others), group...)} {
				if holds, checked, nontrivial, _, _ := in.check(total, parts); holds && checked > 0 && nontrivial {
					for k, w := range words {
						if mask>>k&1 == 1 {
							adds[w] = true
						}
					}
				}
			}
		}
	}
	for c, w := range marks {
		if adds[w] {
			delete(marks, c)
		}
	}
}

// countWords label codes that are counts or totals of the cells (the
// number of jobs beside their median hours): the additive figure of a
// table read as one statistic (--value median) where its other codes are
// statistics that do not add up.
var countWords = []string{"number", "count", "counts", "frequency", "total", "sum"}

// valueStats are the statistics a wide table's body may hold, whose value
// is a count-labelled code's figure (countFigures).
var valueStats = []string{"median", "mean", "sd", "variance", "min", "max", "skewness", "kurtosis"}

// countFigures gives the figure of the cells of count-labelled codes
// (countWords) on an axis with statistics that do not add up, in a table
// read as one statistic with neither totals nor counts (ASHE read with
// --value median: its number of jobs beside medians and percentiles of
// hours): the published value, so that the margins of the other axes are
// confirmed on the count. It does nothing when any cell has a figure.
func countFigures(t *audit.Table, st *audit.Structure, figs []figure) {
	for _, f := range figs {
		if f.known {
			return
		}
	}
	for a := range st.Axes {
		ax := &st.Axes[a]
		if len(ax.NonAdditive) == 0 {
			continue
		}
		counts := map[string]bool{}
		for _, c := range ax.Codes {
			if _, ok := ax.NonAdditive[c]; !ok && hasWord(c, countWords) {
				counts[c] = true
			}
		}
		if len(counts) == 0 {
			continue
		}
		ax.CountCodes = counts
		for i, c := range t.Cells {
			if v, ok := CountValue(st, c); ok {
				figs[i] = figure{v, true}
			}
		}
		st.Notes = append(st.Notes, fmt.Sprintf("%s: %s read as counts: the margins of the other axes are confirmed on their published values", ax.Name(), quotedCodes(counts, ax.Codes)))
	}
}

// hasWord reports whether a code's label has one of words as a whole word
// (letters only: a footnote letter or number glued to it ends it).
func hasWord(code string, words []string) bool {
	for _, p := range label(code) {
		ws := " " + strings.Join(strings.FieldsFunc(normal(p), func(r rune) bool { return !unicode.IsLetter(r) }), " ") + " "
		for _, w := range words {
			if strings.Contains(ws, " "+w+" ") {
				return true
			}
		}
	}
	return false
}

func quotedCodes(set map[string]bool, order []string) string {
	var q []string
	for _, c := range order {
		if set[c] {
			q = append(q, fmt.Sprintf("%q", audit.CodeText(c)))
		}
	}
	return strings.Join(q, ", ")
}

// CountValue is the figure of a cell on a count code (Axis.CountCodes)
// where its other codes add up: the published value of the one statistic
// the table is read as. ok is false for every other cell, and for a
// missing, suppressed or negative value.
func CountValue(st *audit.Structure, c *audit.Cell) (v decimal.Dec, ok bool) {
	on := false
	for a := range st.Axes {
		if st.Axes[a].CountCodes[st.Axes[a].AxisCode(c.Key)] {
			on = true
			break
		}
	}
	if !on || !st.Additive(c.Key) {
		return v, false
	}
	for _, k := range valueStats {
		if s, has := c.Stats.Get(k); has {
			if s.Missing || s.Value.Sign() < 0 {
				return v, false
			}
			return s.Value, true
		}
	}
	return v, false
}
