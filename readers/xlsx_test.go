package readers

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

var update = flag.Bool("update", false, "rewrite generated test fixtures")

const businessesXLSX = "../testdata/xlsx/businesses.xlsx"

func collect(t testing.TB, src Source) ([][]string, []int, error) {
	t.Helper()
	var rows [][]string
	var lines []int
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			return rows, lines, nil
		}
		if err != nil {
			return rows, lines, err
		}
		rows = append(rows, b.Rows...)
		lines = append(lines, b.Lines...)
	}
}

// BusinessWorkbook builds a workbook laid out for people: title lines, a
// two-row header with merged group titles, a dimension merged down its
// rows, numbers with thousands formats and as text, percentages, a formula
// with its cached value, "c" markers, footnotes, a second sheet and a
// hidden sheet.
func BusinessWorkbook() *excelize.File {
	f := excelize.NewFile()
	const sh = "Table 3"
	f.SetSheetName("Sheet1", sh)
	set := func(cell string, v any) { f.SetCellValue(sh, cell, v) }
	set("A1", "Table 3. Businesses by region and sex of owner, 2024")
	set("A2", "Source: Business Survey 2024")
	set("A4", "Region")
	set("B4", "Sex")
	set("C4", "Businesses")
	set("E4", "Turnover (EUR 1,000)")
	set("C5", "Number")
	set("D5", "Share")
	set("E5", "Total")
	set("F5", "Largest")
	set("G5", "Second largest")
	f.MergeCell(sh, "A4", "A5")
	f.MergeCell(sh, "B4", "B5")
	f.MergeCell(sh, "C4", "D4")
	f.MergeCell(sh, "E4", "G4")
	type row struct {
		region, sex string
		n           any
		share       any
		total       any
		top1, top2  any
	}
	data := []row{
		{"North", "F", 12, 0.125, "12,345", 4000, 2500.5},
		{"", "M", 2, 0.5, "c", "c", "c"},
		{"", "Total", 14, 0.2, 18345, 4000, 3000},
		{"South", "F", 40, 0.3, "1,234,567.5", 600000, 10},
		{"", "M", 25, 0.0625, 99000.25, 91000, 1000},
		{"", "Total", 65, 0.28125, 1333567.75, 600000, 91000},
	}
	num, _ := f.NewStyle(&excelize.Style{NumFmt: 3})  // #,##0
	pct, _ := f.NewStyle(&excelize.Style{NumFmt: 10}) // 0.00%
	dec, _ := f.NewStyle(&excelize.Style{NumFmt: 4})  // #,##0.00
	bold, _ := f.NewStyle(&excelize.Style{NumFmt: 4, Font: &excelize.Font{Bold: true}})
	for i, d := range data {
		r := 6 + i
		c := func(col string) string { return col + strconv.Itoa(r) }
		set(c("A"), d.region)
		set(c("B"), d.sex)
		set(c("C"), d.n)
		set(c("D"), d.share)
		set(c("E"), d.total)
		set(c("F"), d.top1)
		set(c("G"), d.top2)
		f.SetCellStyle(sh, c("C"), c("C"), num)
		f.SetCellStyle(sh, c("D"), c("D"), pct)
		f.SetCellStyle(sh, c("E"), c("G"), dec)
	}
	// the South total count is a formula with its cached value
	f.SetCellFormula(sh, "C11", "SUM(C9:C10)")
	f.SetCellStyle(sh, "A11", "G11", bold)
	f.MergeCell(sh, "A6", "A8")
	f.MergeCell(sh, "A9", "A11")
	set("A13", "c = confidential: fewer than 3 businesses or dominated by one")
	set("A14", "Note: shares are of all businesses in the region.")

	f.NewSheet("Table 4")
	f.SetSheetRow("Table 4", "A1", &[]any{"region", "n"})
	f.SetSheetRow("Table 4", "A2", &[]any{"North", 3})
	f.SetSheetRow("Table 4", "A3", &[]any{"South", 5})
	f.NewSheet("Workings")
	f.SetCellValue("Workings", "A1", "secret scratch")
	f.SetSheetVisible("Workings", false)
	return f
}

func TestBusinessWorkbookFixture(t *testing.T) {
	var b bytes.Buffer
	if err := BusinessWorkbook().Write(&b); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(businessesXLSX), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(businessesXLSX, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(businessesXLSX)
	if err != nil {
		t.Fatalf("%v (run go test ./readers -run Fixture -update)", err)
	}
	if !bytes.Equal(old, b.Bytes()) {
		t.Errorf("%s is stale: run go test ./readers -run Fixture -update", businessesXLSX)
	}
}

func TestXLSXBusinesses(t *testing.T) {
	srcs, err := Open(businessesXLSX, Options{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 1 {
		t.Fatalf("%d sources", len(srcs))
	}
	src := srcs[0]
	defer src.Close()
	if src.Name() != "businesses" {
		t.Errorf("name %q", src.Name())
	}
	if f, sh := src.Where(); sh != "Table 3" || f != businessesXLSX {
		t.Errorf("where %q %q", f, sh)
	}
	wantHeader := []string{"Region", "Sex", "Businesses Number", "Businesses Share", "Turnover (EUR 1,000) Total", "Turnover (EUR 1,000) Largest", "Turnover (EUR 1,000) Second largest"}
	if !reflect.DeepEqual(src.Header(), wantHeader) {
		t.Errorf("header\n got %q\nwant %q", src.Header(), wantHeader)
	}
	rows, lines, err := collect(t, src)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"North", "F", "12", "0.125", "12,345", "4000", "2500.5"},
		{"North", "M", "2", "0.5", "c", "c", "c"},
		{"North", "Total", "14", "0.2", "18345", "4000", "3000"},
		{"South", "F", "40", "0.3", "1,234,567.5", "600000", "10"},
		{"South", "M", "25", "0.0625", "99000.25", "91000", "1000"},
		{"South", "Total", "65", "0.28125", "1333567.75", "600000", "91000"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %q\nwant %q", rows, want)
	}
	if !reflect.DeepEqual(lines, []int{6, 7, 8, 9, 10, 11}) {
		t.Errorf("lines %v", lines)
	}
	w := src.(Warner).Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "rows 13-14") || !strings.Contains(w[0], "c = confidential") {
		t.Errorf("warnings %q", w)
	}
}

func TestXLSXSheets(t *testing.T) {
	srcs, err := Open(businessesXLSX, Options{Sheet: "*"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range srcs {
		names = append(names, s.Name())
		defer s.Close()
	}
	if !reflect.DeepEqual(names, []string{"businesses_Table_3", "businesses_Table_4"}) {
		t.Errorf("names %q", names)
	}
	if w := srcs[0].(Warner).Warnings(); len(w) == 0 || !strings.Contains(w[0], `hidden sheets not read: "Workings"`) {
		t.Errorf("warnings %q", w)
	}
	for _, sel := range []string{"2", "Table 4", "table 4"} {
		srcs, err := Open(businessesXLSX, Options{Sheet: sel})
		if err != nil {
			t.Fatal(sel, err)
		}
		rows, _, err := collect(t, srcs[0])
		srcs[0].Close()
		if err != nil || !reflect.DeepEqual(srcs[0].Header(), []string{"region", "n"}) || !reflect.DeepEqual(rows, [][]string{{"North", "3"}, {"South", "5"}}) {
			t.Errorf("sheet %q: %q %q %v", sel, srcs[0].Header(), rows, err)
		}
	}
	_, err = Open(businessesXLSX, Options{Sheet: "Nope"})
	var re *Error
	if !errors.As(err, &re) || re.Sheet != "Nope" || !strings.Contains(err.Error(), `"Table 3"`) {
		t.Errorf("unknown sheet: %v", err)
	}
}

func TestXLSXRange(t *testing.T) {
	srcs, err := Open(businessesXLSX, Options{Range: "B5:E7"})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	if h := srcs[0].Header(); !reflect.DeepEqual(h, []string{"Sex", "Number", "Share", "Total"}) {
		t.Errorf("header %q", h)
	}
	rows, lines, err := collect(t, srcs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"F", "12", "0.125", "12,345"}, {"M", "2", "0.5", "c"}}
	if !reflect.DeepEqual(rows, want) || !reflect.DeepEqual(lines, []int{6, 7}) {
		t.Errorf("rows %q lines %v", rows, lines)
	}
}

// writeBook saves a workbook built by fill into a temporary file.
func writeBook(t testing.TB, fill func(f *excelize.File)) string {
	t.Helper()
	f := excelize.NewFile()
	fill(f)
	p := filepath.Join(t.TempDir(), "book.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestXLSXLayouts(t *testing.T) {
	tests := []struct {
		name   string
		rows   [][]any
		header []string
		want   [][]string
		err    string
	}{
		{name: "plain", rows: [][]any{{"a", "b"}, {"x", 1}, {"y", 2.5}},
			header: []string{"a", "b"}, want: [][]string{{"x", "1"}, {"y", "2.5"}}},
		{name: "floats", rows: [][]any{{"a", "b"}, {"x", 0.25}, {"y", 1e-7}, {"z", 1.5e20}},
			header: []string{"a", "b"}, want: [][]string{{"x", "0.25"}, {"y", "0.0000001"}, {"z", "150000000000000000000"}}},
		{name: "text numbers", rows: [][]any{{"code", "pct", "n"}, {"007", "12.5%", " 1 234 "}, {"1E3x", "-3%", "5"}},
			header: []string{"code", "pct", "n"}, want: [][]string{{"007", "0.125", "1 234"}, {"1E3x", "-0.03", "5"}}},
		{name: "title and stub", rows: [][]any{{"My table"}, {}, {nil, "n", "total"}, {"A", 1, 2}, {"B", 3, 4}},
			header: []string{"column A", "n", "total"}, want: [][]string{{"A", "1", "2"}, {"B", "3", "4"}}},
		{name: "frequency table all text", rows: [][]any{{"region", "sex"}, {"N", "F"}, {"S", "M"}},
			header: []string{"region", "sex"}, want: [][]string{{"N", "F"}, {"S", "M"}}},
		{name: "data after blank", rows: [][]any{{"a", "b", "c"}, {"x", 1, 2}, {}, {"y", 3, 4}},
			err: "holds data"},
		{name: "duplicate", rows: [][]any{{"a", "a"}, {"x", 1}},
			err: "duplicate column name"},
		{name: "empty", rows: nil, err: "no header row"},
		{name: "header only", rows: [][]any{{"a", "b"}}, header: []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeBook(t, func(f *excelize.File) {
				for i, r := range tc.rows {
					cell, _ := excelize.CoordinatesToCellName(1, i+1)
					f.SetSheetRow("Sheet1", cell, &r)
				}
			})
			srcs, err := Open(p, Options{})
			var rows [][]string
			if err == nil {
				defer srcs[0].Close()
				if tc.err == "" && !reflect.DeepEqual(srcs[0].Header(), tc.header) {
					t.Errorf("header %q, want %q", srcs[0].Header(), tc.header)
				}
				rows, _, err = collect(t, srcs[0])
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				var re *Error
				if !errors.As(err, &re) || re.File != p {
					t.Errorf("not a *Error naming the file: %#v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rows, tc.want) {
				t.Errorf("rows %q, want %q", rows, tc.want)
			}
		})
	}
}

func TestXLSXCorrupt(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.xlsx")
	os.WriteFile(bad, []byte("PK\x03\x04 not really a zip"), 0o644)
	_, err := Open(bad, Options{})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt: %v", err)
	}
	// a zip bomb: a sheet that unzips beyond the limit
	p := writeBook(t, func(f *excelize.File) {
		sw, _ := f.NewStreamWriter("Sheet1")
		for r := 1; r <= 2000; r++ {
			cell, _ := excelize.CoordinatesToCellName(1, r)
			sw.SetRow(cell, []any{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", r})
		}
		sw.Flush()
	})
	_, err = Open(p, Options{MaxXLSXUnzipSize: 50_000})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("bomb: %v", err)
	}
}

func TestCellText(t *testing.T) {
	for in, want := range map[string]string{
		"2.0499999999999998":   "2.05",
		"1.2E-3":               "0.0012",
		"1E+21":                "1000000000000000000000",
		"12345678901234567890": "12345678901234567890",
		"007":                  "007",
		" 12.5% ":              "0.125",
		"0.5%":                 "0.005",
		"150%":                 "1.5",
		"-100%":                "-1",
		"%":                    "%",
		"abc%":                 "abc%",
		"E1":                   "E1",
		"\u00a0c\u00a0":        "c",
	} {
		if got := cellText(in); got != want {
			t.Errorf("cellText(%q) = %q, want %q", in, got, want)
		}
	}
}
