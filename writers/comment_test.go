package writers

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// TestCellCommentSaysEachFinding: the explanation of a cell (its comment
// in the annotated workbook, or its explanation column) starts with the
// cell's status and key; then, for each finding that flags or overrides
// the cell, in order, a sentence naming the rule and its verdict with the
// finding's message, and a line per figure; then each note the findings
// did not already say; nothing for a cell with nothing to say; the body
// cut at 30,000 bytes with "...". Checked on random tables with hostile
// texts, figures of every kind (lists of groups, ranges, nested groups),
// notes repeating a message, empty notes and texts past the length cap.
func TestCellCommentSaysEachFinding(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	for i := range 400 {
		tab := randomTable(r)
		for _, c := range tab.Cells {
			mutateFindings(r, c)
			got := cellComment(tab, c)
			var want []string // the lines expected, in order
			var said []string
			for _, f := range c.Findings {
				if !explained(f) {
					continue
				}
				said = append(said, f.Message())
				verdict := map[bool]string{true: " needs review", false: " fails"}[f.Outcome == audit.Review]
				switch f.Rule {
				case "override":
					verdict = " by the checker"
				case "secondary":
					verdict = ""
				}
				want = append(want, ruleTitle(f.Rule)+verdict+": "+strings.TrimSuffix(f.Message(), ".")+".")
				for _, g := range f.FigureList() {
					if g.Kind == audit.KindList && len(g.Items) > 0 && g.Items[0].Kind == audit.KindGroup {
						for k, it := range g.Items {
							want = append(want, "  "+report.Label(g.Name)+" "+strconv.Itoa(k+1)+": "+report.Readable(it))
						}
						continue
					}
					want = append(want, "  "+report.Label(g.Name)+": "+report.Readable(g))
				}
			}
			for _, n := range c.Notes {
				if !contains(said, n) {
					want = append(want, n)
				}
			}
			body := strings.TrimRight(strings.Join(want, "\n"), "\n")
			if body == "" {
				if got != "" {
					t.Fatalf("table %d, cell %q: nothing to say, got %q", i, c.Key, got)
				}
				continue
			}
			head := string(statusOf(c)) + " ("
			for d, dim := range tab.Dims {
				if d > 0 {
					head += ", "
				}
				head += dim + "=" + c.Key[d]
			}
			head += ")\n"
			if !strings.HasPrefix(got, head) {
				t.Fatalf("table %d, cell %q: %q does not start with %q", i, c.Key, trunc(got), head)
			}
			rest := got[len(head):]
			if len(body) > 30000 {
				if !strings.HasSuffix(rest, "...") || len(rest) != 30003 || !strings.HasPrefix(body, rest[:30000]) {
					t.Fatalf("table %d, cell %q: a long explanation is not cut at 30,000 bytes with ...: %d bytes", i, c.Key, len(rest))
				}
				continue
			}
			if rest != body {
				t.Fatalf("table %d, cell %q:\ngot  %q\nwant %q", i, c.Key, trunc(rest), trunc(body))
			}
		}
	}
}

// mutateFindings gives c's findings the rules, figures and notes the
// explanation treats specially.
func mutateFindings(r *rand.Rand, c *audit.Cell) {
	for k := range c.Findings {
		f := &c.Findings[k]
		switch r.IntN(6) {
		case 0:
			f.Rule = "override"
		case 1:
			f.Rule = "secondary"
		case 2:
			f.Figures = append(f.Figures, audit.ListFig("sets", audit.GroupFig("", audit.IntFig("n", 2), audit.DecFig("k", randomDec(r, 200, 2))), audit.GroupFig("", audit.IntFig("n", 1))))
		case 3:
			f.Figures = append(f.Figures, audit.ListFig("x_range", audit.DecFig("", randomDec(r, 1e9, 3)), audit.IntFig("", int64(r.IntN(1e7)))))
		case 4:
			f.Figures = append(f.Figures, audit.GroupFig("g", audit.DecFig("value", randomDec(r, 1e6, 2)), audit.IntFig("min_count", int64(r.IntN(3)))))
		}
		if r.IntN(3) == 0 {
			f.Text += "."
		}
		if r.IntN(4) == 0 {
			c.Notes = append(c.Notes, f.Text)
		}
	}
	switch r.IntN(10) {
	case 0:
		c.Notes = append(c.Notes, "", "\n")
	case 1:
		c.Notes = append(c.Notes, strings.Repeat("é<x>", 9000))
	case 2:
		c.Notes = []string{"\n\n"}
		c.Findings = nil
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func trunc(s string) string {
	if len(s) > 300 {
		for i := 300; i > 0; i-- {
			if utf8.RuneStart(s[i]) {
				return s[:i] + "..."
			}
		}
	}
	return s
}
