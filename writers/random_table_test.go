package writers

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// hostileText returns a label or message that exercises every escaper:
// markup, quotes, ampersands, plus signs, NUL and control characters,
// text that looks like a formula, non-ASCII and invalid UTF-8, Unicode
// line separators and noncharacters, or plain ASCII.
func hostileText(r *rand.Rand) string {
	pieces := []string{
		"a", "Nord", "<b>", "</td>", ">", "<", "&", "&amp;", `"`, "'", "+", "=SUM(A1)", "-1+2", "@x", "\x00",
		"\t", "\r", "\n", "\x01", "\x1f", "\x7f", "é", "日本", "\u2028", "\u2029", "\ufdd0", "\ufffe", "\xff", "\xc3",
		"😀", "\\", "/", "<script>alert(1)</script>", "1,234.5", " ", "Total", "%", "{{.}}",
	}
	if r.IntN(3) == 0 {
		return fmt.Sprintf("L%d", r.IntN(20))
	}
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomTable is a table of random shape (1 to 3 dimensions, margins,
// missing combinations) with hostile labels, every status, findings of
// every outcome with figures and texts, notes, published values of every
// form (plain, thousands, decimals, markers, missing, text) and overrides.
func randomTable(r *rand.Rand) *audit.Table {
	nd := 1 + r.IntN(3)
	t := &audit.Table{Name: fmt.Sprintf("t%d", r.IntN(100)), Source: hostileText(r), Mode: audit.Aggregate, TotalLabel: "Total"}
	if r.IntN(4) == 0 {
		t.Mode = audit.Microdata
	}
	levels := make([][]string, nd)
	for d := range nd {
		t.Dims = append(t.Dims, fmt.Sprintf("d%d%s", d, hostileText(r)))
		n := 1 + r.IntN(6)
		seen := map[string]bool{"Total": true}
		for len(levels[d]) < n {
			l := hostileText(r)
			if !seen[l] {
				seen[l] = true
				levels[d] = append(levels[d], l)
			}
		}
		levels[d] = append(levels[d], "Total")
	}
	t.Columns = []string{"count", "total"}
	if r.IntN(2) == 0 {
		t.Columns = append(t.Columns, "mean")
	}
	if r.IntN(2) == 0 {
		t.ColumnLabels = make([]string, len(t.Columns))
		for i := range t.ColumnLabels {
			if r.IntN(2) == 0 {
				t.ColumnLabels[i] = hostileText(r)
			}
		}
	}
	statuses := []audit.Status{audit.StatusOK, audit.StatusOK, audit.StatusPrimary, audit.StatusSecondary, audit.StatusReview, ""}
	outcomes := []audit.Outcome{audit.Pass, audit.Fail, audit.Review, audit.NotApplicable}
	rules := []string{"threshold", "dominance", "p_percent", "zeros", "override", hostileText(r)}
	key := make([]int, nd)
	for {
		if r.IntN(5) > 0 {
			c := &audit.Cell{Key: make([]string, nd), Status: statuses[r.IntN(len(statuses))], Stats: audit.StatsOf(map[string]audit.Stat{})}
			for d := range nd {
				c.Key[d] = levels[d][key[d]]
			}
			if r.IntN(2) == 0 {
				c.Row = 2 + r.IntN(1000)
			}
			for _, col := range t.Columns {
				if r.IntN(8) == 0 {
					continue
				}
				c.Stats.Set(col, randomStat(r))
			}
			if r.IntN(2) == 0 {
				c.HasN, c.N = true, int64(r.IntN(100))
			}
			if r.IntN(2) == 0 {
				c.HasTotal, c.Total = true, randomDec(r, 2_000_000, 4)
			}
			for range r.IntN(4) {
				rule, o, text := rules[r.IntN(len(rules))], outcomes[r.IntN(len(outcomes))], hostileText(r)
				var figs []audit.Figure
				for range r.IntN(4) {
					figs = append(figs, randomFigure(r, 0))
				}
				c.Findings = append(c.Findings, audit.Said(rule, o, text, figs))
			}
			for range r.IntN(2) {
				c.Notes = append(c.Notes, hostileText(r))
			}
			t.Cells = append(t.Cells, c)
		}
		d := 0
		for ; d < nd; d++ {
			key[d]++
			if key[d] < len(levels[d]) {
				break
			}
			key[d] = 0
		}
		if d == nd {
			break
		}
	}
	r.Shuffle(len(t.Cells), func(i, j int) { t.Cells[i], t.Cells[j] = t.Cells[j], t.Cells[i] })
	for range r.IntN(3) {
		t.Overrides = append(t.Overrides, audit.Override{Cell: hostileText(r), Action: "safe", Reason: hostileText(r), By: hostileText(r), Source: hostileText(r), Status: audit.StatusOK})
	}
	if r.IntN(3) == 0 {
		t.Warnings = []string{hostileText(r)}
	}
	return t
}

func randomStat(r *rand.Rand) audit.Stat {
	v := randomDec(r, 20_000_000, 4)
	switch r.IntN(7) {
	case 0:
		return audit.Stat{Text: "x", Missing: true, Marker: true}
	case 1:
		return audit.Stat{Missing: true}
	case 2:
		return audit.Stat{Text: report.Thousands(v.String()), Value: v}
	case 3:
		return audit.Stat{Text: hostileText(r), Value: v}
	case 4:
		return audit.Stat{Value: v}
	}
	return audit.Stat{Text: v.String(), Value: v}
}

func randomFigure(r *rand.Rand, depth int) audit.Figure {
	name := []string{"n", "k", "share", "limit", "top", hostileText(r)}[r.IntN(6)]
	switch r.IntN(9) {
	case 0:
		return audit.DecFig(name, randomDec(r, 2_000_000, 5))
	case 1:
		return audit.IntFig(name, int64(r.IntN(1000)-500))
	case 2:
		return audit.UintFig(name, r.Uint64())
	case 3:
		return audit.BoolFig(name, r.IntN(2) == 0)
	case 4:
		return audit.FloatFig(name, []float64{0, 1.5, -2e-9, 1e21, 3.14159e-7, r.NormFloat64() * 1e6}[r.IntN(6)])
	case 5:
		return audit.TextFig(name, hostileText(r))
	case 6:
		if depth < 2 {
			items := make([]audit.Figure, r.IntN(3))
			for i := range items {
				items[i] = randomFigure(r, depth+1)
				items[i].Name = ""
			}
			return audit.ListFig(name, items...)
		}
	case 7:
		if depth < 2 {
			items := make([]audit.Figure, r.IntN(3))
			for i := range items {
				items[i] = randomFigure(r, depth+1)
			}
			return audit.GroupFig(name, items...)
		}
	}
	return audit.NullFig(name)
}

// randomDec is a decimal of up to dp decimals and about span in magnitude.
func randomDec(r *rand.Rand, span, dp int) decimal.Dec {
	v := r.IntN(span) - span/4
	s := fmt.Sprint(v)
	if k := r.IntN(dp); k > 0 {
		s = fmt.Sprintf("%d.%0*d", v, k, r.IntN(int(decimal.Pow10(k))))
		if v == 0 && r.IntN(2) == 0 {
			s = "-" + s
		}
	}
	return decimal.Must(s)
}
