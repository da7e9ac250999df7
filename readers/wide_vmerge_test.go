package readers

import (
	"slices"
	"testing"
)

// A header whose every cell is merged down over two rows (NIHE table 3.5:
// A2:A3 ... J2:J3) is one header row, not two: the second row holds
// nothing of its own, so it is joined to the first as one column
// dimension. Before, it was read as a second column dimension with the
// same labels ("< 6 Months" x "< 6 Months"), and the Total column was a
// total of both: the audit of the published table called four exactly
// disclosed '*' cells protected.
func TestWideHeaderMergedDown(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "Sheet1", rows: [][]string{
		{"Households by length of stay"},
		{"Type", "< 6 Months", "6 to 12 Months", "Total"},
		{},
		{"Hotel", "64", "*", "68"},
		{"Leased", "43", "12", "55"},
		{"Total", "107", "16", "123"},
	}, merges: []string{"A2:A3", "B2:B3", "C2:C3", "D2:D3"}})
	rows, lay, d, _ := readDetected(t, p, "", "count")
	if !slices.Equal(d.Across, []string{AcrossDefault}) || !slices.Equal(d.Dims, []string{"Type"}) {
		t.Fatalf("dims %v across %v, want [Type] and one column dimension", d.Dims, d.Across)
	}
	if !slices.Equal(lay.Header, []int{2, 3}) {
		t.Errorf("header rows %v, want [2 3]", lay.Header)
	}
	if len(rows) != 9 {
		t.Errorf("%d cells, want 9", len(rows))
	}
	for _, c := range [][3]string{{"Hotel", "6 to 12 Months", "*"}, {"Total", "Total", "123"}, {"Leased", "< 6 Months", "43"}} {
		if r := findRow(rows, c[0], c[1]); r == nil || r[2] != c[2] {
			t.Errorf("%v = %v", c, r)
		}
	}
}
