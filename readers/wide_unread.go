package readers

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Unread are the numbers of a wide table's sheet that are no cell of the
// table and are published with it unless withheld: numbers in its title
// and note rows (a "Not stated" count below the notes) and in its body
// rows outside the row labels and the body (footnote numbers, codes),
// and in header rows the numbers that label no column (headerNumbers);
// units rows left out. In body rows the row labels' columns
// are left out (codes); in every other row only a footnote number is:
// the row's first cell, a number followed by text in the row ("1",
// "Excludes not stated"). A number is what NumberLike reads as one (a
// count with note markers, currency signs, brackets or separators). They
// are not audited. safe are the cells declared safe to publish as they
// stand (columns.safe, as A1 references: "D9", or with their sheet:
// "T1!D9", "'My sheet'!D9"), left out too: a bare reference applies to
// the layout's sheet, whichever it is (the caller refuses bare ones when
// several sheets are read), one with a sheet only to that sheet. In
// sheet order; rows from the table's first title (else header) row to
// its last note (else body) row.
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
	inBody := map[int]bool{}
	for _, rows := range [][]int{l.Body, l.Sections} {
		for _, r := range rows {
			inBody[r] = true
		}
	}
	body := make(map[WidePos]bool, len(l.Pos))
	for _, p := range l.Pos {
		body[p] = true
	}
	declared := map[string]bool{}
	for _, s := range safe {
		sheet, ref, qualified := SplitCellRef(s)
		if !qualified || strings.EqualFold(sheet, l.Sheet) {
			declared[ref] = true
		}
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
	cols := map[int]bool{}
	for _, p := range l.Pos {
		cols[p.Col] = true
	}
	var out []WidePos
	for r := max(top, 1); r <= min(bottom, len(l.Rows)); r++ {
		row := l.Rows[r-1]
		if skip[r] {
			if slices.Contains(l.Header, r) {
				for _, c := range headerNumbers(row, labels, cols) {
					if p := (WidePos{Row: r, Col: c}); !declared[l.Ref(p)] {
						out = append(out, p)
					}
				}
			}
			continue
		}
		note := footnoteCell(row)
		for c, v := range row {
			p := WidePos{Row: r, Col: c}
			if inBody[r] && labels[c] || c == note || body[p] || !NumberLike(v) || declared[l.Ref(p)] {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// headerNumbers are the columns of a header row's numbers that label no
// column: a number is a column label where it reads as a year or period
// (2019, 2019-20, 2019/2020), where every body column of the row holds
// a number (ages, codes), where the row's numbers rise left to right
// (labelSequence: percentiles 10 ... 90 beside "Median") or where one
// number is merged over several columns (spansColumns); any other number in a header row,
// outside the row labels' columns, is a value ("Base: all workers" with
// 1234 above the column labels, taken for a header row).
func headerNumbers(row []string, labels, cols map[int]bool) []int {
	all := len(cols) > 0
	for c := range cols {
		if c >= len(row) || !NumberLike(row[c]) {
			all = false
			break
		}
	}
	seq := labelSequence(row, cols)
	var out []int
	for c, v := range row {
		if labels[c] || !NumberLike(v) || cols[c] && (all || seq || yearLike(v) || spansColumns(row, cols, c)) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// labelSequence reports whether the numbers over the body columns of a
// header row are column labels by their sequence: at least two, each
// plain (digits, at most one point) and greater than the one before, left
// to right (percentiles 10 ... 90, ages, size bands beside text labels
// such as "Median" in ASHE's header). A single number among text labels
// is not a sequence.
func labelSequence(row []string, cols map[int]bool) bool {
	n, last := 0, 0.0
	for c, v := range row {
		if !cols[c] || !NumberLike(v) {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || n > 0 && f <= last {
			return false
		}
		n, last = n+1, f
	}
	return n >= 2
}

// spansColumns reports whether the number at column c of a header row is
// a group label merged over several body columns: the same text in the
// body column beside it (a merged cell's value is repeated over its
// columns), as the census tables' date 40269 (1 April 2010) over
// "Census" and "Estimates Base".
func spansColumns(row []string, cols map[int]bool, c int) bool {
	v := strings.TrimSpace(row[c])
	for _, d := range []int{c - 1, c + 1} {
		if d >= 0 && d < len(row) && cols[d] && strings.TrimSpace(row[d]) == v {
			return true
		}
	}
	return false
}

// yearRe is a year or a period of years as a column label: 2019,
// 2019-20, 2019/2020, 2019–20.
var yearRe = regexp.MustCompile(`^(1[89]|2[01])\d\d(\s*[-/–]\s*(\d\d|(1[89]|2[01])\d\d))?$`)

func yearLike(v string) bool { return yearRe.MatchString(strings.TrimSpace(v)) }

// footnoteCell is the column of a row's footnote number: its first
// non-blank cell when that is a number and a cell with words follows it
// ("1", "Excludes not stated"); -1 when there is none.
func footnoteCell(row []string) int {
	first := slices.IndexFunc(row, func(v string) bool { return strings.TrimSpace(v) != "" })
	if first < 0 || !NumberLike(row[first]) {
		return -1
	}
	for _, v := range row[first+1:] {
		if strings.TrimSpace(v) != "" && !NumberLike(v) && strings.IndexFunc(v, unicode.IsLetter) >= 0 {
			return first
		}
	}
	return -1
}

// SplitCellRef reads a columns.safe cell reference: "D9" (qualified
// false), "T1!D9" or "'My sheet'!D9" (the sheet; a doubled quote stands for one
// in a quoted name). ref is upper-cased, without "$".
func SplitCellRef(s string) (sheet, ref string, qualified bool) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "!"); i >= 0 {
		sheet, s = strings.TrimSpace(s[:i]), s[i+1:]
		if len(sheet) >= 2 && sheet[0] == '\'' && sheet[len(sheet)-1] == '\'' {
			sheet = strings.ReplaceAll(sheet[1:len(sheet)-1], "''", "'")
		}
		qualified = true
	}
	return sheet, strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "$", "")), qualified
}

// IsCellRef reports whether s reads as an A1 cell reference ("D9",
// "$D$9"), with no sheet.
func IsCellRef(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "$", ""))
	i := strings.IndexFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' })
	if i < 1 || i > 3 || len(s) == i {
		return false
	}
	for _, r := range s[i:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s[i] != '0'
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
		if i := slices.IndexFunc(l.Rows[p.Row-1], func(v string) bool { return strings.TrimSpace(v) != "" && !NumberLike(v) }); i >= 0 {
			s += fmt.Sprintf(" (row %q)", strings.TrimSpace(l.Rows[p.Row-1][i]))
		}
		out = append(out, s)
	}
	return out
}

// noteMarkerRe are note markers around a number: "[note 2]", "[2]",
// "note 2" (a bracketed number alone, "[3]", is kept: it may be a count).
var noteMarkerRe = regexp.MustCompile(`(?i)\[\s*notes?\s*\d*\s*\]|\bnotes?\s*\d+`)

// rangeRe are two numbers joined by a dash or slash: a range ("20-24"),
// a period ("2019/20") or a date, labels rather than counts.
var rangeRe = regexp.MustCompile(`\d\s*[-–−/]\s*\d`)

// NumberLike reports whether a sheet cell's text is a number as a reader
// of the sheet takes it: what is left once note markers ("[note 2]", "*",
// "†", "‡", a trailing provisional or revised letter p, r, e), currency
// signs, brackets, a percent sign, signs and thousands separators
// (commas, apostrophes, spaces, no-break and narrow no-break spaces) are
// taken out is digits, with a decimal point or comma at most ("12p",
// "3*", "3 [note 2]", "(3)", "£1,234", "1 234", "3e"). A cell of words
// with a number in it ("Table 3: Population, 2019", "see note 1") is
// text; so is a marker without digits ("[c]", "x").
func NumberLike(v string) bool {
	v = noteMarkerRe.ReplaceAllString(strings.TrimSpace(v), "")
	if rangeRe.MatchString(v) {
		return false // a range or period ("20-24", "2019/20"), a date: a label
	}
	var b strings.Builder
	for _, r := range v {
		switch {
		case strings.ContainsRune("*†‡§¶#()[]{}£$€¥%+-−–'’,", r), unicode.IsSpace(r), r == '\u00a0', r == '\u202f', r == '\u2009', r == '\u2007':
		case unicode.Is(unicode.Sc, r): // any currency sign
		default:
			b.WriteRune(r)
		}
	}
	s := b.String()
	if n := len(s); n > 1 && s[n-2] >= '0' && s[n-2] <= '9' && strings.ContainsRune("prePRE", rune(s[n-1])) {
		s = s[:n-1] // provisional, revised, estimated
	}
	digits, points := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}
