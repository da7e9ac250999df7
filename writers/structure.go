package writers

import (
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// structureJSON is the `structure` block of report.json: what the table's
// layout was taken to mean (audit.Structure).
type structureJSON struct {
	// Margins is false when no margin was found.
	Margins bool `json:"margins"`
	// Axes are the dimensions (nested ones together) and their margins.
	Axes []axisJSON `json:"axes"`
	// Columns are the input columns and their roles (aggregate tables).
	Columns []audit.ColumnRole `json:"columns,omitempty"`
	// Notes say what was found and how.
	Notes []string `json:"notes,omitempty"`
	// Layout is how the table was found in its file.
	Layout []string `json:"layout,omitempty"`
	// Unconfirmed are the totals not used as margins because they add up
	// only within the rounding, have a breakdown the relations cannot
	// hold, or the layout proposes them and the arithmetic does not
	// confirm them (audit.Structure.Unconfirmed): labels only, never the
	// difference.
	Unconfirmed []string `json:"unconfirmed,omitempty"`
	// Unaudited are the values outside the table (audit.Structure.Unaudited):
	// references and row labels, never a value.
	Unaudited []string `json:"unaudited,omitempty"`
	// Rounded is the base the published values are rounded to
	// (input.rounded), absent when they are exact.
	Rounded *decimal.Dec `json:"rounded,omitempty"`
}

type axisJSON struct {
	Dims    []string     `json:"dims"`
	Nested  bool         `json:"nested,omitempty"`
	Margins []marginJSON `json:"margins,omitempty"`
	// Breakdowns are the margins with two or more breakdowns
	// (Axis.Breakdowns: People = Men + Women = the age bands), each
	// breakdown's codes in table order.
	Breakdowns []breakdownJSON `json:"breakdowns,omitempty"`
	// Signed are the codes whose cells may be negative (Axis.Signed), in
	// the axis's code order, with how each was found.
	Signed []signedJSON `json:"signed,omitempty"`
	// NonAdditive are the codes read as statistics that do not add up
	// (Axis.NonAdditive), in the axis's code order: the margins of the
	// other axes hold in the other codes only.
	NonAdditive []signedJSON `json:"non_additive,omitempty"`
}

type signedJSON struct {
	Code  string `json:"code"`
	Found string `json:"found"`
}

type breakdownJSON struct {
	Code  string     `json:"code"`
	Found string     `json:"found"`
	Of    [][]string `json:"of"`
}

type marginJSON struct {
	Code  string   `json:"code"`
	Found string   `json:"found"`
	Of    []string `json:"of"`
}

// recordsStructureJSON is the `structure` block of report.json for a
// table built from records (no audit.Structure: its margins are those of
// its dimensions' totals and hierarchies).
type recordsStructureJSON struct {
	// UnusedColumns are the input columns not read
	// (audit.Table.UnusedColumns): names only.
	UnusedColumns []string `json:"unused_columns"`
}

// structureBlock is the report's structure block of t, nil without one:
// a *structureJSON, or a *recordsStructureJSON for a table built from
// records with input columns it did not use.
func structureBlock(t *audit.Table) any {
	st := t.Structure
	if st == nil {
		if len(t.UnusedColumns) > 0 {
			return &recordsStructureJSON{UnusedColumns: t.UnusedColumns}
		}
		return nil
	}
	out := &structureJSON{Margins: st.Margins, Columns: st.Columns, Notes: st.Notes, Layout: st.Layout, Unconfirmed: st.Unconfirmed, Unaudited: st.Unaudited}
	if st.Rounded.Sign() > 0 {
		b := st.Rounded
		out.Rounded = &b
	}
	for i := range st.Axes {
		ax := &st.Axes[i]
		a := axisJSON{Dims: ax.Names, Nested: len(ax.Dims) > 1}
		children := ax.Children()
		for _, c := range ax.Codes {
			f, ok := ax.Found[c]
			if !ok {
				continue
			}
			m := marginJSON{Code: audit.CodeText(c), Found: f, Of: []string{}}
			for _, ch := range children[c] {
				m.Of = append(m.Of, audit.CodeText(ch))
			}
			a.Margins = append(a.Margins, m)
		}
		for _, c := range ax.Codes {
			runs, ok := ax.Breakdowns[c]
			if !ok {
				continue
			}
			b := breakdownJSON{Code: audit.CodeText(c), Found: ax.Found[c]}
			for _, r := range runs {
				codes := make([]string, len(r))
				for k, x := range r {
					codes[k] = audit.CodeText(x)
				}
				b.Of = append(b.Of, codes)
			}
			a.Breakdowns = append(a.Breakdowns, b)
		}
		for _, c := range ax.Codes {
			if how, ok := ax.Signed[c]; ok {
				a.Signed = append(a.Signed, signedJSON{Code: audit.CodeText(c), Found: how})
			}
			if what, ok := ax.NonAdditive[c]; ok {
				a.NonAdditive = append(a.NonAdditive, signedJSON{Code: audit.CodeText(c), Found: what})
			}
		}
		out.Axes = append(out.Axes, a)
	}
	return out
}

// StructureLines describe t's structure for people, one line each: the
// margins of every axis, nested rows, the codes whose cells may be
// negative, the totals not confirmed, and the columns audited and not.
// They name labels and how things were found, never a value. A table
// built from records has no structure: its one line names the input
// columns it did not use, if any.
func StructureLines(t *audit.Table) []string {
	st := t.Structure
	if st == nil {
		if len(t.UnusedColumns) > 0 {
			return []string{unusedLine(t.UnusedColumns)}
		}
		return nil
	}
	out := append([]string(nil), st.Layout...)
	if b := st.Rounded; b.Sign() > 0 {
		h := b.Mul(decimal.Scaled(5, 1))
		out = append(out, fmt.Sprintf("values rounded to base %s (input.rounded): a published count or total v stands for v - %s to v + %s (never below 0); margins are confirmed within the rounding, and the rules and the interval audit judge every value", report.DecText(b), report.DecText(h), report.DecText(h)))
	}
	for i := range st.Axes {
		ax := &st.Axes[i]
		children := ax.Children()
		if len(ax.Dims) > 1 {
			out = append(out, fmt.Sprintf("nested rows: %s read as one dimension", strings.Join(ax.Names, " > ")))
		}
		n := 0
		for _, c := range ax.Codes {
			f, ok := ax.Found[c]
			if !ok {
				continue
			}
			n++
			ch := children[c]
			list := make([]string, 0, min(len(ch), 6))
			for k, x := range ch {
				if k == 5 && len(ch) > 6 {
					list = append(list, fmt.Sprintf("and %d more", len(ch)-5))
					break
				}
				list = append(list, audit.CodeText(x))
			}
			out = append(out, fmt.Sprintf("margin of %s: %q is the sum of %s (%s): %s", ax.Name(), audit.CodeText(c), report.Plural(int64(len(ch)), "code", "codes"), f, strings.Join(list, ", ")))
			if runs := ax.Breakdowns[c]; len(runs) > 1 {
				sizes := make([]string, len(runs))
				for k, r := range runs {
					sizes[k] = fmt.Sprintf("%s ... %s (%d)", audit.CodeText(r[0]), audit.CodeText(r[len(r)-1]), len(r))
				}
				out = append(out, fmt.Sprintf("%d breakdowns of %s %q (%s): %s; protected and audited as a cross of hidden dimensions", len(runs), ax.Name(), audit.CodeText(c), f, strings.Join(sizes, "; ")))
			}
		}
		if n == 0 {
			out = append(out, fmt.Sprintf("%s: no margin", ax.Name()))
		}
		for _, c := range ax.Codes {
			if how, ok := ax.Signed[c]; ok {
				out = append(out, fmt.Sprintf("may be negative: %s %q (%s): a suppressed cell of it has no lower bound 0", ax.Name(), audit.CodeText(c), how))
			}
		}
		var stats []string
		for _, c := range ax.Codes {
			if _, ok := ax.NonAdditive[c]; ok {
				stats = append(stats, fmt.Sprintf("%q", audit.CodeText(c)))
			}
		}
		if n := len(stats); n > 0 {
			if n > 6 {
				stats = append(stats[:5], fmt.Sprintf("and %d more", n-5))
			}
			out = append(out, fmt.Sprintf("not additive: %s %s (statistics that do not add up): the margins hold in the other codes only", ax.Name(), strings.Join(stats, ", ")))
		}
	}
	if !st.Margins {
		out = append(out, "no margins were found")
	}
	if len(st.Unconfirmed) > 0 {
		out = append(out, fmt.Sprintf("totals not confirmed: %s are not used as margins (they add up only within the rounding, or they have a breakdown the relations cannot hold, or the layout proposes them and the arithmetic does not confirm them: the warnings say which), so the audit cannot confirm a suppressed cell protected; if the table is rounded, set input.rounded to its base", strings.Join(st.Unconfirmed, ", ")))
	}
	var audited, not []string
	for _, c := range st.Columns {
		switch {
		case c.Role == audit.RoleDimension:
		case c.Audited:
			audited = append(audited, fmt.Sprintf("%q (%s)", c.Column, c.Role))
		default:
			not = append(not, fmt.Sprintf("%q (%s%s)", c.Column, c.Role, map[bool]string{true: ", written", false: ", not written"}[c.Written]))
		}
	}
	if len(st.Unaudited) > 0 {
		line := "values outside the table, not audited and withheld: " + fewOf(st.Unaudited, 6)
		if len(st.Unaudited) > 6 {
			line += " (every one on the annotated workbook's Summary sheet and in report.json structure.unaudited)"
		}
		out = append(out, line)
	}
	if len(audited) > 0 {
		out = append(out, "columns audited: "+strings.Join(audited, ", "))
	}
	if len(not) > 0 {
		out = append(out, "columns not audited: "+strings.Join(not, ", "))
	}
	return out
}

// fewOf joins a list, its first entries only when it is longer than n.
func fewOf(list []string, n int) string {
	if len(list) > n {
		return strings.Join(list[:n-1], ", ") + fmt.Sprintf(" and %d more", len(list)-n+1)
	}
	return strings.Join(list, ", ")
}

// unusedLine names the input columns a table built from records did not
// read (audit.Table.UnusedColumns).
func unusedLine(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return "columns not used (neither a dimension, the value, the holding nor a hierarchy's parent column; not audited, in no output): " + fewOf(q, 12)
}
