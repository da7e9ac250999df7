package readers

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// sheetSpec is one sheet of a test workbook: rows of cells (numbers
// written as numbers) and merged ranges.
type sheetSpec struct {
	name   string
	rows   [][]string
	merges []string
}

func crosstabBook(t *testing.T, sheets ...sheetSpec) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, sh := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", sh.name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(sh.name); err != nil {
			t.Fatal(err)
		}
		for r, row := range sh.rows {
			for c, v := range row {
				if v == "" {
					continue
				}
				ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
				var err error
				if x, e := strconv.ParseFloat(v, 64); e == nil && !strings.HasPrefix(v, " ") {
					err = f.SetCellFloat(sh.name, ref, x, -1, 64)
				} else {
					err = f.SetCellStr(sh.name, ref, v)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, m := range sh.merges {
			a, b, _ := strings.Cut(m, ":")
			if err := f.MergeCell(sh.name, a, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := filepath.Join(t.TempDir(), "t.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// readDetected reads a crosstab as check does without keys: detected,
// then read with the keys detected. It returns the long rows, the layout
// and the detection.
func readDetected(t *testing.T, path, sheet, value string) ([][]string, *WideLayout, *WideDetection, []string) {
	t.Helper()
	d, err := DetectWide(path, Options{Sheet: sheet, Wide: &WideOptions{Value: value, TotalLabel: "Total"}})
	if err != nil {
		t.Fatalf("detect: %v", err)
	}
	srcs, err := Open(path, Options{Sheet: sheet, Wide: &WideOptions{Dims: d.Dims, Across: d.Across, Value: d.Value, TotalLabel: "Total"}})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	ws, _ := As[WideSource](srcs[0])
	b, err := srcs[0].Next()
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	var rows [][]string
	if b != nil {
		rows = b.Rows
	}
	return rows, ws.Layout(), d, srcs[0].(Warner).Warnings()
}

func findRow(rows [][]string, key ...string) []string {
	for _, r := range rows {
		if slices.Equal(r[:len(key)], key) {
			return r
		}
	}
	return nil
}

// The GSS markers are values, not labels: a crosstab whose body holds
// "[x]", "[c]", "[z]", "[u]", "[low]", ".." and ":" is detected and read,
// each marker as itself. Before, "[x]" was "not a number" and made the
// row a label row.
func TestWideGSSMarkers(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "Table 1", rows: [][]string{
		{"Number of deaths by area and age"},
		{"Area", "0 to 15", "16 to 64", "65 and over", "All ages"},
		{"North", "[x]", "12", "[c]", "40"},
		{"South", "[z]", "[u]", "[low]", "33"},
		{"East", "..", ":", "7", "21"},
	}})
	rows, _, d, _ := readDetected(t, p, "", "")
	if d.Value != "count" || !slices.Equal(d.Dims, []string{"Area"}) {
		t.Fatalf("detected %+v", d)
	}
	for _, c := range [][3]string{{"North", "0 to 15", "[x]"}, {"North", "65 and over", "[c]"}, {"South", "0 to 15", "[z]"}, {"South", "16 to 64", "[u]"}, {"South", "65 and over", "[low]"}, {"East", "0 to 15", ".."}, {"East", "16 to 64", ":"}} {
		if r := findRow(rows, c[0], c[1]); r == nil || r[2] != c[2] {
			t.Errorf("%s x %s = %v, want %q", c[0], c[1], r, c[2])
		}
	}
}

// Note references are not part of names: "[note 1]" after a column or
// row label is set aside, in the dimensions' names and in the labels.
func TestWideNotesInLabels(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "Table 1", rows: [][]string{
		{"Number of births [note 1]"},
		{"Region [note 2]", "Boys [Note 3]", "Girls", "Total [note 4]"},
		{"North [note 5]", "10", "12", "22"},
		{"Total", "10", "12", "22"},
	}})
	rows, _, d, _ := readDetected(t, p, "", "")
	if !slices.Equal(d.Dims, []string{"Region"}) {
		t.Fatalf("dims %v", d.Dims)
	}
	if r := findRow(rows, "North", "Boys"); r == nil || r[2] != "10" {
		t.Errorf("North x Boys = %v", r)
	}
	if r := findRow(rows, "North", "Total"); r == nil || r[2] != "22" {
		t.Errorf("North x Total = %v (the margin's label keeps no note)", r)
	}
}

// A group label printed only on the group's first row is carried down to
// the rows below it (the flow column has no header: it is "column B").
// Before, the blank label was refused and the unnamed column too.
func TestWideCarryDown(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "1", rows: [][]string{
		{"Trade by area and industry"},
		{"figures in £ millions"},
		{"Area", "", "Mining", "Retail", "All industries"},
		{"North", "Imports", "5", "..", "9"},
		{"", "Exports", "3", "..", "7"},
		{"South", "Imports", "2", "1", "3"},
		{"", "Exports", "1", "1", "2"},
		{},
		{"Source: a survey"},
	}})
	rows, lay, d, warn := readDetected(t, p, "", "total")
	if !slices.Equal(d.Dims, []string{"Area", "column B"}) {
		t.Fatalf("dims %v", d.Dims)
	}
	if r := findRow(rows, "South", "Exports", "Retail"); r == nil || r[3] != "1" {
		t.Errorf("South x Exports x Retail = %v", r)
	}
	if len(lay.Carried) != 2 || lay.Carried[0] != (WidePos{Row: 5, Col: 0}) {
		t.Errorf("carried %v", lay.Carried)
	}
	if !slices.Equal(lay.Header, []int{3}) || !slices.Equal(lay.Titles, []int{1, 2}) || !slices.Equal(lay.Notes, []int{9}) {
		t.Errorf("header %v titles %v notes %v", lay.Header, lay.Titles, lay.Notes)
	}
	if !strings.Contains(strings.Join(warn, "\n"), "2 blank row label(s) carried down from the group's first row (first A5)") {
		t.Errorf("warnings do not say what was carried down: %q", warn)
	}
}

// A blank label is carried down only when the pattern is unambiguous;
// otherwise it is refused naming the sheet, the row and what to do.
func TestWideCarryDownRefused(t *testing.T) {
	head := [][]string{{"Area", "Flow", "Mining", "Retail"}}
	for _, tc := range []struct {
		name string
		body [][]string
		want string
	}{
		{"first body row blank", [][]string{{"", "Imports", "5", "4"}, {"North", "Exports", "3", "2"}},
			`row 2, column "A": blank row label in the table's first body row`},
		{"no label of its own", [][]string{{"North", "Imports", "5", "4"}, {"South", "", "3", "2"}},
			`row 3, column "B": blank row label that cannot be carried down from row 2`},
		{"the same labels twice", [][]string{{"North", "Imports", "5", "4"}, {"", "Exports", "3", "2"}, {"", "Imports", "1", "1"}},
			`row 4: row 4 has the row labels of row 2 (North / Imports) once the blank labels are carried down`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := crosstabBook(t, sheetSpec{name: "Data", rows: append(append([][]string{}, head...), tc.body...)})
			_, err := DetectWide(p, Options{Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
			var re *Error
			if !errors.As(err, &re) || re.Sheet != "Data" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	// an outer label that changes while a middle one is blank
	p := crosstabBook(t, sheetSpec{name: "Data", rows: [][]string{
		{"Country", "Region", "Flow", "Mining"},
		{"UK", "North", "Imports", "1"},
		{"", "", "Exports", "2"},
		{"FR", "", "Imports", "3"},
	}})
	_, err := DetectWide(p, Options{Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
	if err == nil || !strings.Contains(err.Error(), `row 4, column "B": blank row label that cannot be carried down`) {
		t.Fatalf("err %v", err)
	}
}

// A units row under the header is folded into the columns' description:
// it is neither a header row (a column dimension of "(thousands)") nor
// body ("not a number"), and the title line is not taken as the header.
func TestWideUnitsRow(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "Table 2", rows: [][]string{
		{"Employment by region"},
		{"Region", "Employees", "Self-employed", "Rate"},
		{"", "(thousands)", "(thousands)", "%"},
		{"North", "120", "30", "4.5"},
		{"South", "200", "41", "3.9"},
	}})
	rows, lay, d, warn := readDetected(t, p, "", "total")
	if !slices.Equal(lay.Header, []int{2}) || !slices.Equal(lay.Units, []int{3}) || !slices.Equal(d.Across, []string{"across"}) {
		t.Fatalf("header %v units %v across %v", lay.Header, lay.Units, d.Across)
	}
	if lay.UnitsOf(1) != "(thousands)" || lay.UnitsOf(3) != "%" {
		t.Errorf("units %q %q", lay.UnitsOf(1), lay.UnitsOf(3))
	}
	if r := findRow(rows, "North", "Employees"); r == nil || r[2] != "120" {
		t.Errorf("North x Employees = %v", r)
	}
	if !strings.Contains(strings.Join(warn, "\n"), `units row 3 ("(thousands)", "%") folded into the columns' description`) {
		t.Errorf("warnings %q", warn)
	}
	// units in the header's own rows: a units line above the header
	p = crosstabBook(t, sheetSpec{name: "T", rows: [][]string{
		{"Output by sector"},
		{"", "", "", "£ million"},
		{"Sector", "2019", "2020", "Total"},
		{"A", "1", "2", "3"},
	}})
	_, lay, _, _ = readDetected(t, p, "", "total")
	if !slices.Equal(lay.Header, []int{3}) || !slices.Equal(lay.Titles, []int{1, 2}) {
		t.Errorf("header %v titles %v", lay.Header, lay.Titles)
	}
}

// A column that names another's codes (a name beside its code, or the
// code repeated) is not a dimension; an empty column between two blocks
// is skipped; indentation is kept.
func TestWideAliasesAndSpacers(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "T", rows: [][]string{
		{"Code", "Name", "Flow", "EU", "", "World"},
		{"UKC1", "Tees Valley", "Imports", "5", "", "7"},
		{"", "", "Exports", "6", "", "8"},
		{"UKC2", "Northumberland", "Imports", "1", "", "2"},
		{"", "", "  Exports", "3", "", "4"},
	}})
	rows, lay, d, _ := readDetected(t, p, "", "total")
	if !slices.Equal(d.Dims, []string{"Code", "Flow"}) || lay.Aliases[1] != 0 {
		t.Fatalf("dims %v aliases %v", d.Dims, lay.Aliases)
	}
	if !slices.Equal(lay.Spacers, []int{4}) || !slices.Equal(lay.Columns, []int{3, 5}) {
		t.Errorf("spacers %v columns %v", lay.Spacers, lay.Columns)
	}
	if r := findRow(rows, "UKC2", "Exports", "World"); r == nil || r[3] != "4" {
		t.Errorf("UKC2 x Exports x World = %v", r)
	}
	if lay.Indent[WidePos{Row: 5, Col: 2}] != 2 {
		t.Errorf("indent %v", lay.Indent)
	}
}

// --sheet '*' skips cover, contents and notes sheets (by name, or a sheet
// with no number at all) and says so, instead of stopping at the cover.
func TestWideSheetsSkipped(t *testing.T) {
	table := func(name string) sheetSpec {
		return sheetSpec{name: name, rows: [][]string{{"Number of people"}, {"Area", "Men", "Women"}, {"North", "3", "4"}}}
	}
	p := crosstabBook(t,
		sheetSpec{name: "Cover sheet", rows: [][]string{{"Births in 2024"}, {"Published 1 May 2025"}, {"Next release: 2026"}}},
		sheetSpec{name: "Contents", rows: [][]string{{"Table 1", "Births"}, {"Table 2", "Deaths"}}},
		sheetSpec{name: "About the data", rows: [][]string{{"Source: registrations"}}},
		table("Table 1"), table("Table 2"),
		sheetSpec{name: "Notes", rows: [][]string{{"Note 1", "Provisional"}}},
	)
	d, err := DetectWide(p, Options{Sheet: "*", Wide: &WideOptions{TotalLabel: "Total"}})
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := Open(p, Options{Sheet: "*", Wide: &WideOptions{Dims: d.Dims, Across: d.Across, Value: d.Value, TotalLabel: "Total"}})
	if err != nil {
		t.Fatal(err)
	}
	var sheets []string
	for _, s := range srcs {
		_, sh := s.Where()
		sheets = append(sheets, sh)
	}
	if !slices.Equal(sheets, []string{"Table 1", "Table 2"}) {
		t.Fatalf("sheets read %q", sheets)
	}
	w := strings.Join(srcs[0].(Warner).Warnings(), "\n")
	for _, want := range []string{`cover, contents and notes sheets not read: "Cover sheet", "Contents", "Notes"`, `sheets without a number not read: "About the data"`} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	// a workbook of nothing but a cover: refused, saying so
	p = crosstabBook(t, sheetSpec{name: "Cover", rows: [][]string{{"x"}}}, sheetSpec{name: "Notes", rows: [][]string{{"y"}}})
	if _, err := Open(p, Options{Sheet: "*", Wide: &WideOptions{Detect: true, TotalLabel: "Total"}}); err == nil || !strings.Contains(err.Error(), "every visible sheet is a cover, contents or notes sheet") {
		t.Errorf("err %v", err)
	}
}

// Sheets laid out differently are refused with --sheet '*', naming each
// sheet's keys briefly (not the whole detection note twice).
func TestWideSheetsDiffer(t *testing.T) {
	p := crosstabBook(t,
		sheetSpec{name: "Table 1", rows: [][]string{{"Number of people"}, {"Area", "Men", "Women"}, {"North", "3", "4"}}},
		sheetSpec{name: "Table 2", rows: [][]string{{"Number of people"}, {"Age", "Men", "Women"}, {"0-15", "3", "4"}}},
	)
	_, err := DetectWide(p, Options{Sheet: "*", Wide: &WideOptions{TotalLabel: "Total"}})
	want := `sheet "Table 2": crosstab layout not detected: the sheets are laid out differently (sheet "Table 1": columns.dims [Area], columns.across [across]; sheet "Table 2": columns.dims [Age], columns.across [across]): read one sheet at a time`
	if err == nil || !strings.Contains(err.Error(), want) || len(err.Error()) > 400 {
		t.Fatalf("err %v", err)
	}
}

// Section rows (a single label with no values, heading the rows below,
// blank rows between blocks) give an outer row dimension; a header whose
// second row is blank under the annual columns is one dimension read down
// ("2019", "2019 Q1"); notes after the last block stay notes.
func TestWideSectionsAndJoinedHeader(t *testing.T) {
	p := crosstabBook(t, sheetSpec{name: "E", rows: [][]string{
		{"E", "Trade in goods"},
		{"", "", "", "", "£ million"},
		{"", "", "2019", "2019", "2019"},
		{"", "", "", "Q1", "Q2"},
		{},
		{"", " Exports"},
		{"", "   Oil", "10", "4", "6"},
		{"", "   Food", "20", "9", "11"},
		{},
		{"", " Total", "30", "13", "17"},
		{},
		{"", " Imports"},
		{"", "   Oil", "5", "2", "3"},
		{"", "   Food", "7", "3", "4"},
		{},
		{"", " Total", "12", "5", "7"},
		{},
		{"", "Source: a survey"},
	}})
	rows, lay, d, _ := readDetected(t, p, "", "total")
	if !slices.Equal(d.Dims, []string{"section", "column B"}) || !slices.Equal(d.Across, []string{"across"}) {
		t.Fatalf("dims %v across %v", d.Dims, d.Across)
	}
	if !slices.Equal(lay.Sections, []int{6, 12}) || !slices.Equal(lay.Header, []int{3, 4}) || !slices.Equal(lay.Notes, []int{18}) {
		t.Fatalf("sections %v header %v notes %v", lay.Sections, lay.Header, lay.Notes)
	}
	for _, c := range [][4]string{{"Exports", "Total", "2019", "30"}, {"Imports", "Food", "2019 Q2", "4"}, {"Imports", "Total", "2019 Q1", "5"}} {
		if r := findRow(rows, c[0], c[1], c[2]); r == nil || r[3] != c[3] {
			t.Errorf("%v = %v", c, r)
		}
	}
	if len(rows) != 6*3 {
		t.Errorf("%d cells, want 18", len(rows))
	}
	if lay.Indent[WidePos{Row: 7, Col: 1}] != 3 || lay.Indent[WidePos{Row: 6, Col: 1}] != 1 {
		t.Errorf("indent %v", lay.Indent)
	}
}

// A CSV crosstab follows the same conventions: title and units lines, a
// blank group label carried down, GSS markers, indentation kept.
func TestWideCSVConventions(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.csv")
	text := "Trade by area,,,\nfigures in £ millions,,,\nArea,,Mining,Retail\nNorth,  Imports,5,[c]\n,  Exports,3,[x]\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, lay, d, _ := readDetected(t, p, "", "total")
	if !slices.Equal(d.Dims, []string{"Area", "column B"}) || len(rows) != 4 {
		t.Fatalf("dims %v, %d cells", d.Dims, len(rows))
	}
	if r := findRow(rows, "North", "Exports", "Retail"); r == nil || r[3] != "[x]" {
		t.Errorf("North x Exports x Retail = %v", r)
	}
	if lay.Indent[WidePos{Row: 5, Col: 1}] != 2 || !slices.Equal(lay.Titles, []int{1, 2}) {
		t.Errorf("indent %v titles %v", lay.Indent, lay.Titles)
	}
}

// TestWideRandomGrids: small sheets of labels, numbers, markers, units
// and blanks never make detection or reading panic, and a table read has
// every body cell on the sheet with one label per dimension.
func TestWideRandomGrids(t *testing.T) {
	vocab := []string{"", "", "", "North", "South", "Total", "Imports", "12", "7", "0", "-3", "[x]", "..", "(thousands)", "%", "Number of people", "2019", "Q1", " Exports", "  Oil"}
	rng := newRand(7)
	read := 0
	for n := range 3000 {
		rows := make([][]string, 1+rng.IntN(9))
		for i := range rows {
			rows[i] = make([]string, rng.IntN(7))
			for j := range rows[i] {
				rows[i][j] = vocab[rng.IntN(len(vocab))]
			}
		}
		if n%2 == 0 {
			// a crosstab, then a few cells changed
			rows = [][]string{{"Number of people"}, {"Area", "", "Men", "Women", "Total"}}
			if rng.IntN(3) == 0 {
				rows = append(rows, []string{"", "", "(thousands)", "%", ""})
			}
			for i := range 1 + rng.IntN(6) {
				label := []string{"North", "South", "East", "Total"}[i%4]
				if i%2 == 1 && rng.IntN(2) == 0 {
					label = ""
				}
				rows = append(rows, []string{label, []string{"Imports", "Exports"}[i%2], strconv.Itoa(rng.IntN(20)), "[x]", strconv.Itoa(rng.IntN(40))})
			}
			for range rng.IntN(3) {
				r := rng.IntN(len(rows))
				if len(rows[r]) > 0 {
					rows[r][rng.IntN(len(rows[r]))] = vocab[rng.IntN(len(vocab))]
				}
			}
		}
		var merges []*merge
		if rng.IntN(4) == 0 && len(rows) > 1 {
			r1 := 1 + rng.IntN(len(rows))
			c1 := rng.IntN(4)
			merges = append(merges, &merge{r1: r1, r2: min(len(rows), r1+rng.IntN(2)), c1: c1, c2: c1 + rng.IntN(3)})
		}
		for _, value := range []string{"", "total"} {
			lay := &WideLayout{File: "t.csv", Format: "csv"}
			for _, r := range rows {
				cells := make([]string, len(r))
				for j, v := range r {
					cells[j] = cellText(v)
				}
				lay.Rows = append(lay.Rows, cells)
			}
			src, err := func() (src *wideSource, err error) {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("grid %d %q: panic %v", n, rows, p)
					}
				}()
				return parseWide(lay, merges, WideOptions{Detect: true, Value: value, TotalLabel: "Total"})
			}()
			if err != nil {
				continue
			}
			seen := map[string]bool{}
			for i, k := range lay.Keys {
				pos := lay.Pos[i]
				if pos.Row < 1 || pos.Row > len(rows) {
					t.Fatalf("grid %d %q: body cell at row %d", n, rows, pos.Row)
				}
				if len(k) != len(src.header)-1 {
					t.Fatalf("grid %d %q: key %q for header %q", n, rows, k, src.header)
				}
				seen[strings.Join(k, "\x00")] = true
			}
			read++
			if len(src.rows) != len(lay.Keys) {
				t.Fatalf("grid %d: %d rows, %d keys", n, len(src.rows), len(lay.Keys))
			}
		}
	}
	if read < 1000 {
		t.Fatalf("only %d of 6000 grids read: the grids do not exercise reading", read)
	}
	t.Logf("%d of 6000 grids read as crosstabs", read)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }
