package readers

import (
	"slices"
	"testing"
)

// TestWideUnread: the numbers of a wide sheet that are no cell of the
// table are those of its title, note and body rows outside the row
// labels and the body (a "Not stated" count below the notes); the
// header, a footnote number in the label column and the body are not; a
// cell named in safe (columns.safe, any case) is left out; the
// description names the cell and its row, never the value.
func TestWideUnread(t *testing.T) {
	path := crosstabBook(t, sheetSpec{name: "T1", rows: [][]string{
		{"Table 1: workers by area, 2019"},
		{"Area", "Men", "Women", "Total"},
		{"North", "10", "12", "14"},
		{"South", "20", "22", "24"},
		{"Total", "30", "34", "38"},
		{},
		{"1", "Figures are provisional"},
		{"Not stated", "", "3"},
	}})
	_, lay, _, _ := readDetected(t, path, "T1", "count")
	got := lay.Unread(nil)
	if want := []WidePos{{Row: 8, Col: 2}}; !slices.Equal(got, want) {
		t.Fatalf("unread %v, want %v (layout: body %v, notes %v, labels %v)", got, want, lay.Body, lay.Notes, lay.Labels)
	}
	if d := lay.DescribeUnread(got); !slices.Equal(d, []string{`C8 (row "Not stated")`}) {
		t.Errorf("described %q", d)
	}
	if got := lay.Unread([]string{" c8"}); len(got) != 0 {
		t.Errorf("declared safe: unread %v, want none", got)
	}
}

// TestNumberLike: a cell outside the table is a number when what is
// left of it without note markers, currency signs, brackets and
// separators is one; words with a number in them are text. The values
// with markers were read as text and published unaudited.
func TestNumberLike(t *testing.T) {
	for _, v := range []string{"3", "1,234", "12p", "3*", "3 [note 2]", "3[note 2]", "3†", "3‡", "(3)", "£1,234", "€3", "$3", "1 234", "1\u202f234", "1\u00a0234", "3e", "3r", "12.5%", "-3", "[3]", "1."} {
		if !NumberLike(v) {
			t.Errorf("NumberLike(%q) = false, want true", v)
		}
	}
	for _, v := range []string{"", "x", "[c]", "[x]", "..", "-", "Table 3: Population, 2019", "see note 1", "Source: survey 2019", "1. Source: survey", "[note 3] Figures", "Inf", "NaN", "1.2.3", "N1", "20-24", "2019-20", "2019/20", "27/11/2026"} {
		if NumberLike(v) {
			t.Errorf("NumberLike(%q) = true, want false", v)
		}
	}
}

// TestWideUnreadRowsOutsideTheBody: outside the body rows the label
// columns are no shelter: a "Not stated" count in the second label
// column (Area, beside Region) is unread; only a footnote number, the
// first cell of a row with text after it, is left alone.
func TestWideUnreadRowsOutsideTheBody(t *testing.T) {
	path := crosstabBook(t, sheetSpec{name: "T1", rows: [][]string{
		{"Injuries by area 2019"},
		{"Region", "Area", "Men", "Women", "Total"},
		{"North", "N1", "12", "8", "20"},
		{"North", "N2", "11", "13", "24"},
		{"South", "S1", "30", "31", "61"},
		{"South", "S2", "20", "21", "41"},
		{"Total", "Total", "73", "73", "146"},
		{},
		{"1", "Source: survey 2019"},
		{"Not stated", "3"},
	}})
	_, lay, _, _ := readDetected(t, path, "T1", "count")
	if got, want := lay.Unread(nil), []WidePos{{Row: 10, Col: 1}}; !slices.Equal(got, want) {
		t.Fatalf("unread %v, want %v (labels %v, notes %v)", got, want, lay.Labels, lay.Notes)
	}
}

// TestSplitCellRef: columns.safe references with and without a sheet.
func TestSplitCellRef(t *testing.T) {
	for _, c := range []struct {
		in, sheet, ref string
		q              bool
	}{
		{"d8", "", "D8", false},
		{" $D$8 ", "", "D8", false},
		{"T1!D8", "T1", "D8", true},
		{"'My sheet'!d8", "My sheet", "D8", true},
		{"'It''s'!D8", "It's", "D8", true},
	} {
		sheet, ref, q := SplitCellRef(c.in)
		if sheet != c.sheet || ref != c.ref || q != c.q {
			t.Errorf("SplitCellRef(%q) = %q, %q, %v", c.in, sheet, ref, q)
		}
	}
	for s, want := range map[string]bool{"D8": true, "$d$8": true, "AB12": true, "Workers": false, "D0": false, "T1!D8": false, "D": false} {
		if IsCellRef(s) != want {
			t.Errorf("IsCellRef(%q) != %v", s, want)
		}
	}
}

// TestWideUnreadHeaderNumbers: a number in a header row that labels no
// column ("Base: all workers" with 1234, taken for a second header row)
// was never checked and was published; it is unread. Years and periods,
// and a row of numbers over every body column (ages), are column labels.
func TestWideUnreadHeaderNumbers(t *testing.T) {
	lay := &WideLayout{
		Rows: [][]string{
			{"Base: all workers", "", "", "1234"},
			{"Area", "2019", "2019-20", "Total"},
			{"North", "12", "8", "20"},
		},
		Header: []int{1, 2}, Body: []int{3}, Labels: []int{0},
		Pos: []WidePos{{Row: 3, Col: 1}, {Row: 3, Col: 2}, {Row: 3, Col: 3}},
	}
	if got, want := lay.Unread(nil), []WidePos{{Row: 1, Col: 3}}; !slices.Equal(got, want) {
		t.Errorf("unread %v, want %v", got, want)
	}
	if got := lay.Unread([]string{"D1"}); len(got) != 0 {
		t.Errorf("declared safe: unread %v, want none", got)
	}
	lay.Rows[0] = []string{"Age", "0", "1", "2"}
	if got := lay.Unread(nil); len(got) != 0 {
		t.Errorf("a header row of ages: unread %v, want none", got)
	}
	lay.Rows[0] = []string{"Area", "Men", "Women", "1234"}
	if got, want := lay.Unread(nil), []WidePos{{Row: 1, Col: 3}}; !slices.Equal(got, want) {
		t.Errorf("a number among text labels: unread %v, want %v", got, want)
	}
	// ASHE 9.9a's header: percentiles 10 ... 90 beside "Median" (a rising
	// sequence of labels); the census tables' date 40269 merged over
	// "Census" and "Estimates Base" (the same number over two columns).
	// Both were withheld from the safe tables, which lost their labels.
	lay.Rows[0] = []string{"Area", "Median", "10", "90"}
	if got := lay.Unread(nil); len(got) != 0 {
		t.Errorf("percentiles beside a text label: unread %v, want none", got)
	}
	lay.Rows[0] = []string{"Area", "40269", "40269", "Estimate"}
	if got := lay.Unread(nil); len(got) != 0 {
		t.Errorf("a number merged over two columns: unread %v, want none", got)
	}
	lay.Rows[0] = []string{"Area", "Median", "90", "10"}
	if got, want := lay.Unread(nil), []WidePos{{Row: 1, Col: 2}, {Row: 1, Col: 3}}; !slices.Equal(got, want) {
		t.Errorf("numbers falling among text labels: unread %v, want %v", got, want)
	}
}
