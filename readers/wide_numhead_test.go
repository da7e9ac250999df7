package readers

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ashe is a sheet laid out as ONS ASHE 2014 Table 9.9a (testdata/corpus,
// ashe2014_t99a.cells): column names read down over three header rows,
// the last of them ending in numbers (the percentiles under a
// "Percentiles" cell), an area column with a code column blank above
// constituency level, a key beside the body, a note merged across the
// table right under it.
func ashe() sheetSpec {
	return sheetSpec{name: "All", rows: [][]string{
		{"Table 9.9a   Paid hours worked"},
		{},
		{"", "", "Number", "", "Annual", "", "Annual"},
		{"", "", "of jobsb", "", "percentage", "", "percentage", "Percentiles"},
		{"Description", "Code", "(thousand)", "Median", "change", "Mean", "change", "10", "20", "90"},
		{"United Kingdom", "", "250", "37", "0", "33.1", "0.1", "15", "23.3", "43.5", "", "Key"},
		{"North East", "", "95", "37", "0", "33.1", "0.2", "15.8", "22.8", "43.2", "", "x = unreliable"},
		{"Berwick-upon-Tweed", "E14000554", "19", "30.7", "-13.5", "29.9", "-5.6", "10.9", "16", "x"},
		{"Blyth Valley", "E14000575", "23", "36.8", "-0.5", "32.1", "-0.4", "15", "22.1", "x"},
		{"a  Employees on adult rates"},
	}, merges: []string{"A10:J10"}}
}

// A last header row that ends in numbers is a header row when a person
// cannot read it otherwise: its numbers are distinct and stand under one
// header cell spanning them, and its texts stand over columns the body
// rows below fill with numbers. Before, row 5 read as the first body row
// and the sheet was refused at row 6 ("row 6 has 1 row label(s), row 5
// has 7").
func TestWideNumberHeaderRow(t *testing.T) {
	p := crosstabBook(t, ashe())
	rows, lay, d, warn := readDetected(t, p, "All", "median")
	if !slices.Equal(d.Dims, []string{"Description"}) || len(d.Across) != 1 {
		t.Fatalf("dims %v across %v, want [Description] and one column dimension", d.Dims, d.Across)
	}
	if !slices.Equal(lay.Header, []int{3, 4, 5}) || !slices.Equal(lay.Body, []int{6, 7, 8, 9}) || !slices.Equal(lay.Notes, []int{10}) {
		t.Fatalf("header %v body %v notes %v", lay.Header, lay.Body, lay.Notes)
	}
	if lay.Aliases[1] != 0 {
		t.Errorf("aliases %v: column B names the codes of A", lay.Aliases)
	}
	for _, c := range [][3]string{
		{"Berwick-upon-Tweed", "Percentiles 10", "10.9"},
		{"Berwick-upon-Tweed", "20", "16"},
		{"Blyth Valley", "90", "x"},
		{"United Kingdom", "Number of jobsb (thousand)", "250"},
		{"North East", "Median", "37"},
		{"Blyth Valley", "Annual percentage change (column E)", "-0.5"},
		{"Blyth Valley", "Annual percentage change (column G)", "-0.4"},
	} {
		if r := findRow(rows, c[0], c[1]); r == nil || r[2] != c[2] {
			t.Errorf("%s x %s = %v, want %q", c[0], c[1], r, c[2])
		}
	}
	if len(rows) != 4*8 {
		t.Errorf("%d cells read, want 32", len(rows))
	}
	if !strings.Contains(strings.Join(warn, "\n"), "2 text cell(s) beside the body not read (a key or legend: L6-L7)") {
		t.Errorf("warnings do not list the key beside the body: %q", warn)
	}
}

// What is not unambiguous is still refused, naming the sheet and the row.
func TestWideNumberHeaderRowRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *sheetSpec)
		want string
	}{
		{"numbers under a title line", func(s *sheetSpec) {
			s.rows[2], s.rows[3] = []string{}, []string{"", "", "", "", "", "", "", "Percentiles"}
		}, `row 5 reads as the table's first body row`},
		{"no cell spanning the numbers", func(s *sheetSpec) {
			s.rows[3] = []string{"", "", "of jobsb", "", "percentage", "", "percentage", "P", "Q", "R"}
		}, `row 6 has 1 row label(s), row 5 has 7`},
		{"numbers repeated", func(s *sheetSpec) { s.rows[4][8] = "10" }, `row 6 has 1 row label(s), row 5 has 7`},
		{"a repeated code", func(s *sheetSpec) { s.rows[8][1] = "E14000554" }, `row 8 has 2 row label(s), row 6 has 1`},
		{"a number beside the body", func(s *sheetSpec) { s.rows[6][11] = "5" }, `row 7, column "L": a value right of the table's last labelled column J`},
		{"a block of columns repeated", func(s *sheetSpec) {
			s.rows[4] = []string{"Description", "Code", "(thousand)", "Median", "change", "Mean", "Median", "change", "20", "90"}
			s.rows[3] = []string{"", "", "of jobsb", "", "percentage", "", "", "percentage", "Percentiles"}
			s.rows[2] = []string{"", "", "Number", "", "Annual", "", "", "Annual"}
		}, `row 5, column "G": duplicate column labels "Median" (also column D)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ashe()
			tc.edit(&s)
			p := crosstabBook(t, s)
			_, err := DetectWide(p, Options{Sheet: "All", Wide: &WideOptions{Value: "median", TotalLabel: "Total"}})
			var re *Error
			if !errors.As(err, &re) || re.Sheet != "All" || re.Row == 0 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a refusal naming the sheet and a row (%q)", err, tc.want)
			}
		})
	}
}

// Header rows whose names read down are one dimension only where no
// label may span others: a group label over unmerged blank cells ("Men"
// over "Number" and "%") repeats the names under it, and is refused as
// before, not read as "Men Number", "% (column C)".
func TestWideReadDownSpanRefused(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "T", rows: [][]string{
		{"Number of people"},
		{"Area", "Men", "", "Women", "", "Total"},
		{"", "Number", "%", "Number", "%", ""},
		{"North", "5", "50", "5", "50", "10"},
		{"South", "3", "30", "7", "70", "10"},
	}})
	_, err := DetectWide(p, Options{Wide: &WideOptions{Value: "count", TotalLabel: "Total"}})
	var re *Error
	if !errors.As(err, &re) || re.Sheet != "T" || re.Row == 0 {
		t.Fatalf("err %v, want a refusal naming the sheet and a row", err)
	}
}

// ott is a sheet laid out as ONS Overseas Travel and Tourism 2015 Table 2
// (testdata/corpus, ott2015.cells): the year a number on a block's first
// row only, months beside it, a header over rows 3-6 with a blank row 5
// and groups merged over empty columns.
func ott() sheetSpec {
	s := sheetSpec{name: "Table 2", rows: [][]string{
		{"2", "Purpose of overseas resident's visits to the UK by month"},
		{"", "", "", "", "", "", "", "", "thousands"},
		{"", "", "All Visits", "", "", "", "Purpose"},
		{"", "", "", "", "", "", "Holiday", "", "Business"},
		{},
		{"", "", "NSA", "", "SA", "", "NSA", "", "NSA"},
	}, merges: []string{"C3:E3", "G3:I3"}}
	for y, year := range []string{"2012", "2013"} {
		for m, month := range []string{"Jan", "Feb", "Mar"} {
			label := ""
			if m == 0 {
				label = year
			}
			v := func(k int) string { return strconv.Itoa(100*y + 10*m + k) }
			s.rows = append(s.rows, []string{label, month, v(1), "", v(2), "", v(3), "", v(4)})
		}
	}
	return s
}

// Year labels printed as numbers on a block's first row only are carried
// down the block: a whole number left of the row labels is a label.
// Before, the first year row read as a header row and the second year
// was refused ("row 10 has a cell (\"2013\") left of the row-label
// columns"); the blank row inside the header ended it, and the empty
// columns under a merged group were blank header cells.
func TestWideNumberYearLabels(t *testing.T) {
	p := crosstabBook(t, ott())
	rows, lay, d, _ := readDetected(t, p, "Table 2", "total")
	if !slices.Equal(d.Dims, []string{"column A", "column B"}) || len(d.Across) != 2 {
		t.Fatalf("dims %v across %v", d.Dims, d.Across)
	}
	if !slices.Equal(lay.Header, []int{3, 4, 6}) || !slices.Equal(lay.Body, []int{7, 8, 9, 10, 11, 12}) {
		t.Fatalf("header %v body %v", lay.Header, lay.Body)
	}
	if !slices.Equal(lay.Spacers, []int{3, 5, 7}) {
		t.Errorf("spacers %v, want D, F, H", lay.Spacers)
	}
	if len(lay.Carried) != 4 || lay.Carried[0] != (WidePos{Row: 8, Col: 0}) || lay.Carried[2] != (WidePos{Row: 11, Col: 0}) {
		t.Errorf("carried %v", lay.Carried)
	}
	for _, c := range [][5]string{
		{"2012", "Feb", "All Visits", "SA", "12"},
		{"2013", "Mar", "Purpose Business", "NSA", "124"},
		{"2013", "Jan", "Purpose Holiday", "NSA", "103"},
	} {
		if r := findRow(rows, c[:4]...); r == nil || r[4] != c[4] {
			t.Errorf("%v = %v, want %q", c[:4], r, c[4])
		}
	}
	if len(rows) != 6*4 {
		t.Errorf("%d cells read, want 24", len(rows))
	}
}

// Numbers left of the row labels that do not follow the block pattern
// are still refused, naming the sheet and the row.
func TestWideNumberYearLabelsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *sheetSpec)
		want string
	}{
		{"a number on every row", func(s *sheetSpec) {
			for r := 6; r < len(s.rows); r++ {
				s.rows[r][0] = strconv.Itoa(2000 + r)
			}
		}, `no row of numbers below a header found`},
		{"the same year twice", func(s *sheetSpec) { s.rows[9][0] = "2012" }, `row 10`},
		// the label is printed on a block's first row only: a number on
		// the row right below the first is not a carried year label
		{"a number right below the first year", func(s *sheetSpec) { s.rows[7][0] = "2014" }, `rows 7 and 8 both start with a whole number`},
		{"not a whole number", func(s *sheetSpec) { s.rows[9][0] = "2013.5" }, `row 10`},
		{"a number beside the body", func(s *sheetSpec) { s.rows[8] = append(s.rows[8], "0") }, `row 9, column "J": a value right of the table's last labelled column I`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ott()
			tc.edit(&s)
			_, err := DetectWide(crosstabBook(t, s), Options{Sheet: "Table 2", Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
			var re *Error
			if !errors.As(err, &re) || re.Sheet != "Table 2" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a refusal naming the sheet (%q)", err, tc.want)
			}
		})
	}
}

// The OTT 2015 tables of the corpus are refused where the stacked summary
// tables (row 50) or the stray zeros beside the table (row 45) start,
// no longer at the second year's row (19); within their range they are
// read (TestCorpusTablesRead).
func TestCorpusOTTRefusedBelow(t *testing.T) {
	_, paths, _ := buildCorpus(t)
	for sheet, row := range map[string]int{"Table 1": 50, "Table 2": 45, "Table 3": 50, "Table 4": 45} {
		_, err := DetectWide(paths["ott2015.cells"], Options{Sheet: sheet, Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
		var re *Error
		if !errors.As(err, &re) || re.Row != row || !strings.Contains(err.Error(), "input.range") {
			t.Errorf("%s: %v, want a refusal at row %d naming input.range", sheet, err, row)
		}
	}
}

// Construction Table 2a (testdata/corpus) stacks an annual table over a
// quarterly one whose years are printed on a block's first row: it is
// refused at row 35, where the second table starts, naming input.range
// (before the year labels were read it was refused at row 39, the second
// year of the quarterly rows; then at row 35 without input.range).
func TestCorpusStackedRefused(t *testing.T) {
	_, paths, _ := buildCorpus(t)
	_, err := DetectWide(paths["construction_aug2020.cells"], Options{Sheet: "Table 2a", Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
	var re *Error
	if !errors.As(err, &re) || re.Row != 35 || !strings.Contains(err.Error(), "several tables stacked on the sheet?): give input.range") {
		t.Fatalf("%v, want a refusal at row 35 naming input.range", err)
	}
}

// A blank row ends the header unless the row above it is a header row
// over the body's columns (several cells, one under or in a range merged
// across): a title merged across the columns stays a title.
func TestWideBlankRowInHeaderTitle(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "T", rows: [][]string{
		{"", "Number of people by area"},
		{},
		{"Area", "Men", "Women"},
		{"North", "1", "2"},
		{"South", "3", "4"},
	}, merges: []string{"B1:C1"}})
	_, lay, _, _ := readDetected(t, p, "T", "count")
	if !slices.Equal(lay.Header, []int{3}) || !slices.Equal(lay.Titles, []int{1}) {
		t.Fatalf("header %v titles %v, want [3] and [1]", lay.Header, lay.Titles)
	}
}
