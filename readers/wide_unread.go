package readers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Unread are the numbers of a wide table's sheet that are no cell of the
// table and are published with it unless withheld: numbers in its title
// and note rows (a "Not stated" count below the notes) and in its body
// rows outside the row labels and the body, in any column but the row
// labels' (footnote numbers, codes), header and units rows left out. They
// are not audited. safe are the cells declared safe to publish as they
// stand (columns.safe, as A1 references: "D9"), left out too. In sheet
// order; rows from the table's first title (else header) row to its last
// note (else body) row.
func (l *WideLayout) Unread(safe []string) []WidePos {
	skip := map[int]bool{}
	for _, r := range l.Header {
		skip[r] = true
	}
	for _, r := range l.Units {
		skip[r] = true
	}
	labels := map[int]bool{}
	for _, c := range l.Labels {
		labels[c] = true
	}
	for c := range l.Aliases {
		labels[c] = true
	}
	body := make(map[WidePos]bool, len(l.Pos))
	for _, p := range l.Pos {
		body[p] = true
	}
	declared := map[string]bool{}
	for _, s := range safe {
		declared[strings.ToUpper(strings.TrimSpace(s))] = true
	}
	top, bottom := 0, 0
	for _, rows := range [][]int{l.Titles, l.Header, l.Body, l.Notes, l.Sections} {
		for _, r := range rows {
			if top == 0 || r < top {
				top = r
			}
			bottom = max(bottom, r)
		}
	}
	var out []WidePos
	for r := max(top, 1); r <= min(bottom, len(l.Rows)); r++ {
		if skip[r] {
			continue
		}
		for c, v := range l.Rows[r-1] {
			p := WidePos{Row: r, Col: c}
			if labels[c] || body[p] || !isNumberText(v) || declared[l.Ref(p)] {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// Ref is the A1 reference of a position on the sheet ("D9").
func (l *WideLayout) Ref(p WidePos) string { return colName(p.Col) + strconv.Itoa(p.Row) }

// DescribeUnread names each position of Unread for people: its reference
// and the first text of its row ("D9 (row \"Not stated\")"), never its
// value.
func (l *WideLayout) DescribeUnread(ps []WidePos) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		s := l.Ref(p)
		if i := slices.IndexFunc(l.Rows[p.Row-1], func(v string) bool { return strings.TrimSpace(v) != "" && !isNumberText(v) }); i >= 0 {
			s += fmt.Sprintf(" (row %q)", strings.TrimSpace(l.Rows[p.Row-1][i]))
		}
		out = append(out, s)
	}
	return out
}

// isNumberText reports whether a sheet cell's text is a number (thousands
// separators and a trailing percent sign allowed), not a marker.
func isNumberText(v string) bool {
	v = strings.NewReplacer(",", "", " ", "", "'", "", "\u00a0", "").Replace(strings.TrimSpace(v))
	v = strings.TrimSuffix(v, "%")
	if !strings.ContainsAny(v, "0123456789") {
		return false // not "Inf" or "NaN"
	}
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}
