package writers

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestCellCommentMatchesFmt: the explanations of the annotated workbook
// (comments and the explanation column), now appended into one buffer,
// are the texts fmt wrote (oldCellComment) on random tables with hostile
// texts, figures of every kind (lists of groups, ranges, nested groups),
// notes repeating a message, empty notes and texts past the length cap.
func TestCellCommentMatchesFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	for i := range 400 {
		tab := randomTable(r)
		for _, c := range tab.Cells {
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
			if got, want := cellComment(tab, c), oldCellComment(tab, c); got != want {
				t.Fatalf("table %d, cell %q:\ngot  %q\nwant %q", i, c.Key, got, want)
			}
		}
	}
}
