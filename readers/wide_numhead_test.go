package readers

import (
	"errors"
	"slices"
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
		}, `row 5, column "H": duplicate column labels "Annual percentage change" (also column E)`},
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
