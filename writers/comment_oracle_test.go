package writers

// The annotated workbook's explanations as they were written with fmt
// (the oracle of TestCellCommentMatchesFmt).

import (
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
)

func oldCellComment(t *audit.Table, c *audit.Cell) string {
	var b strings.Builder
	said := map[string]bool{}
	for _, f := range c.Findings {
		if !explained(f) {
			continue
		}
		msg := f.Message()
		said[msg] = true
		verdict := " fails"
		switch {
		case f.Rule == "override":
			verdict = " by the checker"
		case f.Rule == "secondary":
			verdict = ""
		case f.Status == audit.Review:
			verdict = " needs review"
		}
		fmt.Fprintf(&b, "%s%s: %s.\n", ruleTitle(f.Rule), verdict, strings.TrimSuffix(msg, "."))
		for _, g := range f.FigureList() {
			oldWriteFigure(&b, g)
		}
	}
	for _, n := range c.Notes {
		if said[n] {
			continue
		}
		b.WriteString(n)
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return ""
	}
	s := strings.TrimRight(b.String(), "\n")
	if len(s) > 30000 {
		s = s[:30000] + "..."
	}
	return string(statusOf(c)) + " (" + t.KeyString(c.Key) + ")\n" + s
}

func oldWriteFigure(b *strings.Builder, g audit.Figure) {
	if g.Kind == audit.KindList && len(g.Items) > 0 && g.Items[0].Kind == audit.KindGroup {
		for i, it := range g.Items {
			fmt.Fprintf(b, "  %s %d: %s\n", audit.Label(g.Name), i+1, it.Readable())
		}
		return
	}
	fmt.Fprintf(b, "  %s: %s\n", audit.Label(g.Name), g.Readable())
}
