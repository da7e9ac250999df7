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
