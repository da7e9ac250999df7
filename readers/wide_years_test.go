package readers

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A header row of numbers (years) beside text column names, under a
// group cell and a title merged across the table, with a row set apart
// by a blank row below the body (the layout of the US Census Bureau's
// population estimates, testdata/corpus nst-est2019-01): the year row is
// a header row, not the first body row; the merged title is a title, not
// a header group; the row below the blank row is a body row, the notes
// after it are notes. Before, the year row was read as the body and the
// table refused ("row 5 has 1 row label(s), row 4 has 3").
func TestWideYearHeaderMergedTitleRowApart(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "NST01", rows: [][]string{
		{"table with row headers in column A and column headers in rows 3 through 4"},
		{"Table 1. Annual Estimates of the Resident Population"},
		{"Geographic Area", "40269", "", "Population Estimate (as of July 1)"},
		{"", "Census", "Estimates Base", "2010", "2011"},
		{"United States", "100", "101", "102", "103"},
		{"North", "60", "61", "61", "62"},
		{"South", "40", "40", "41", "41"},
		{},
		{"Puerto Rico", "5", "5", "6", "6"},
		{"Note: the estimates are based on the 2010 Census."},
		{"Source: a bureau"},
	}, merges: []string{"A1:E1", "A2:E2", "A3:A4", "B3:C3", "D3:E3", "A10:E10"}})
	rows, lay, d, _ := readDetected(t, p, "", "total")
	if !slices.Equal(d.Dims, []string{"Geographic Area"}) || len(d.Across) != 2 {
		t.Fatalf("dims %v across %v", d.Dims, d.Across)
	}
	if !slices.Equal(lay.Header, []int{3, 4}) || !slices.Equal(lay.Titles, []int{1, 2}) || !slices.Equal(lay.Body, []int{5, 6, 7, 9}) || !slices.Equal(lay.Notes, []int{10, 11}) {
		t.Fatalf("titles %v header %v body %v notes %v", lay.Titles, lay.Header, lay.Body, lay.Notes)
	}
	for _, c := range [][4]string{{"United States", "40269", "Census", "100"}, {"South", "40269", "Estimates Base", "40"}, {"North", "Population Estimate (as of July 1)", "2011", "62"}, {"Puerto Rico", "Population Estimate (as of July 1)", "2010", "6"}} {
		if r := findRow(rows, c[0], c[1], c[2]); r == nil || r[3] != c[3] {
			t.Errorf("%v = %v", c, r)
		}
	}
	if len(rows) != 4*4 {
		t.Errorf("%d cells, want 16", len(rows))
	}
}

// A three-row header whose middle row holds years beside text names, over
// a row naming the sexes under each year (the US Census Bureau's
// estimates by age and sex, testdata/corpus nc-est2019-agesex): the year
// row is a header row, since the row below it puts a text under its
// numbers. Before, the year row was read as the first body row and the
// table refused ("row 5 has 7 row label(s)").
func TestWideYearRowOverSexRow(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "AGESEX", rows: [][]string{
		{"Annual Estimates of the Resident Population by Age and Sex"},
		{"Age", "Census", "", "", "Population Estimate (as of July 1)"},
		{"", "", "", "", "2010", "", ""},
		{"", "Both Sexes", "Male", "Female", "Both Sexes", "Male", "Female"},
		{"Total", "30", "14", "16", "31", "15", "16"},
		{".Under 5 years", "10", "5", "5", "11", "6", "5"},
		{".5 years and over", "20", "9", "11", "20", "9", "11"},
		{"Source: a bureau"},
	}, merges: []string{"A1:G1", "A2:A4", "B2:D3", "E2:G2", "E3:G3"}})
	rows, lay, d, _ := readDetected(t, p, "", "total")
	if !slices.Equal(d.Dims, []string{"Age"}) || len(d.Across) != 3 {
		t.Fatalf("dims %v across %v", d.Dims, d.Across)
	}
	if !slices.Equal(lay.Header, []int{2, 3, 4}) || !slices.Equal(lay.Body, []int{5, 6, 7}) {
		t.Fatalf("header %v body %v", lay.Header, lay.Body)
	}
	if r := findRow(rows, ".Under 5 years", "Population Estimate (as of July 1)", "2010", "Male"); r == nil || r[4] != "6" {
		t.Errorf("Under 5 x 2010 x Male = %v", r)
	}
	if len(rows) != 3*6 {
		t.Errorf("%d cells, want 18", len(rows))
	}
}

// A block set apart by a blank row that repeats a row of the body above
// (the overlapping "selected age groups" below the five-year groups) is
// not read as more body rows: it is data below the table, refused naming
// the sheet, its first row and input.range. Before, it was read and the
// repeated row refused as a duplicate cell (exit 3, no key to set).
func TestWideRepeatedBlockRefused(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "AGESEX", rows: [][]string{
		{"Age", "Male", "Female"},
		{"Total", "14", "16"},
		{".Under 5 years", "5", "5"},
		{".5 years and over", "9", "11"},
		{},
		{".Under 18 years", "7", "8"},
		{".Under 5 years", "5", "5"},
	}})
	_, err := DetectWide(p, Options{Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
	var re *Error
	if !errors.As(err, &re) || re.Sheet != "AGESEX" || re.Row != 6 || !strings.Contains(err.Error(), "input.range") {
		t.Fatalf("%v, want a refusal naming sheet AGESEX, row 6 and input.range", err)
	}
}

// A note merged across the table right below the body, with no blank row
// between (the US Census Bureau's county estimates, testdata/corpus
// co-est2019-annres-06), ends the body and is a note. Before, it was read
// as a body row with a label in every column and the table refused ("row
// 7 has 4 row label(s)").
func TestWideMergedNoteEndsBody(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "CO", rows: [][]string{
		{"Annual Estimates of the Resident Population for Counties"},
		{"Geographic Area", "Census", "Population Estimate (as of July 1)"},
		{"", "", "2010", "2011"},
		{"California", "30", "31", "33"},
		{".Alameda County", "10", "11", "12"},
		{".Alpine County", "20", "20", "21"},
		{"Note: the estimates are based on the 2010 Census."},
		{"Source: a bureau"},
	}, merges: []string{"A1:D1", "A2:A3", "B2:B3", "C2:D2", "A7:D7", "A8:D8"}})
	rows, lay, _, _ := readDetected(t, p, "", "total")
	if !slices.Equal(lay.Body, []int{4, 5, 6}) || !slices.Equal(lay.Notes, []int{7, 8}) {
		t.Fatalf("body %v notes %v", lay.Body, lay.Notes)
	}
	if len(rows) != 3*3 {
		t.Errorf("%d cells, want 9", len(rows))
	}
}
