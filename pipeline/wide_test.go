package pipeline

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// The crosstab inputs in testdata/wide are built by TestWideTestdata with
// -update: enterprises by region, sector and size class, with their margins.
const wideDir = "../testdata/wide/"

var (
	wideRegions = []string{"North", "South", "East", "West"}
	wideSectors = []string{"Manufacturing", "Services", "Retail"}
	wideSizes   = []string{"Small", "Large"}
)

// wideCounts are the counts per region, sector and size (the last index
// of each is its Total).
func wideCounts() [5][4][3]int {
	rng := rand.New(rand.NewPCG(13, 13))
	var n [5][4][3]int
	for r := range 4 {
		for s := range 3 {
			for z := range 2 {
				n[r][s][z] = 2 + rng.IntN(60)
				if rng.IntN(5) == 0 {
					n[r][s][z] = 1 + rng.IntN(4) // below the threshold
				}
			}
		}
	}
	for r := range 5 {
		for s := range 4 {
			for z := range 3 {
				if r < 4 && s < 3 && z < 2 {
					continue
				}
				sum := 0
				for rr := range 4 {
					for ss := range 3 {
						for zz := range 2 {
							if (r == 4 || rr == r) && (s == 3 || ss == s) && (z == 2 || zz == z) {
								sum += n[rr][ss][zz]
							}
						}
					}
				}
				n[r][s][z] = sum
			}
		}
	}
	return n
}

func label(list []string, i int) string {
	if i == len(list) {
		return "Total"
	}
	return list[i]
}

// wideMarked are the cells (region, sector) of the one-header tables given
// as already suppressed ("c"): a rectangle, so that the margins do not
// give them away.
var wideMarked = map[[2]int]bool{{0, 1}: true, {0, 2}: true, {1, 1}: true, {1, 2}: true}

// wideMarked2 are the cells (region, sector, size) of the two-header table
// given as suppressed.
var wideMarked2 = map[[3]int]bool{{0, 0, 0}: true, {0, 0, 1}: true, {2, 0, 0}: true, {2, 0, 1}: true}

func cellText2(n [5][4][3]int, r, s int) string {
	if wideMarked[[2]int{r, s}] {
		return "c"
	}
	return strconv.Itoa(n[r][s][2])
}

func cellText3(n [5][4][3]int, r, s, z int) string {
	if wideMarked2[[3]int{r, s, z}] {
		return "c"
	}
	return strconv.Itoa(n[r][s][z])
}

func setCell(t testing.TB, f *excelize.File, sheet string, col, row int, v string) {
	t.Helper()
	ref, _ := excelize.CoordinatesToCellName(col, row)
	var err error
	if x, e := strconv.Atoi(v); e == nil {
		err = f.SetCellInt(sheet, ref, int64(x))
	} else {
		err = f.SetCellStr(sheet, ref, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

var wideFiles = []string{"region_sector.xlsx", "region_sector_size.xlsx", "region_sector.csv", "region_sector_long.csv", "region_sector_size_long.csv"}

// TestWideTestdata regenerates the crosstab inputs and compares them with
// the committed ones (texts byte for byte; workbooks sheet by sheet: cell
// values, types and merged ranges); with -update it rewrites them.
func TestWideTestdata(t *testing.T) {
	if *update {
		if err := os.MkdirAll(wideDir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeWideTestdata(t, wideDir)
		return
	}
	dir := t.TempDir() + "/"
	writeWideTestdata(t, dir)
	for _, name := range wideFiles {
		if strings.HasSuffix(name, ".xlsx") {
			if got, want := workbookText(t, dir+name), workbookText(t, wideDir+name); !bytes.Equal(got, want) {
				t.Errorf("%s differs from what the test writes (run go test ./pipeline -run TestWideTestdata -update):\n%s\nwant\n%s", name, got, want)
			}
			continue
		}
		got, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(wideDir + name)
		if err != nil {
			t.Fatalf("%v (run go test ./pipeline -run TestWideTestdata -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the test writes (run go test ./pipeline -run TestWideTestdata -update)", name)
		}
	}
}

// writeWideTestdata writes the crosstab inputs into dir (ending in /).
func writeWideTestdata(t *testing.T, wideDir string) {
	t.Helper()
	files := wideFiles
	n := wideCounts()
	const sh = "Table 1"
	notes := []string{"Source: Business register 2025.", "c = confidential (fewer than 10 enterprises or dominated)."}

	// one header row
	f := excelize.NewFile()
	f.SetSheetName("Sheet1", sh)
	setCell(t, f, sh, 1, 1, "Table 1. Enterprises by region and sector, 2025")
	setCell(t, f, sh, 1, 2, "Number of enterprises")
	setCell(t, f, sh, 1, 4, "Region")
	for s := range 4 {
		setCell(t, f, sh, 2+s, 4, label(wideSectors, s))
	}
	for r := range 5 {
		setCell(t, f, sh, 1, 5+r, label(wideRegions, r))
		for s := range 4 {
			setCell(t, f, sh, 2+s, 5+r, cellText2(n, r, s))
		}
	}
	for i, note := range notes {
		setCell(t, f, sh, 1, 11+i, note)
	}
	f.MergeCell(sh, "A1", "E1")
	if err := f.SaveAs(wideDir + files[0]); err != nil {
		t.Fatal(err)
	}

	// two header rows: sector over size, merged
	f = excelize.NewFile()
	f.SetSheetName("Sheet1", sh)
	setCell(t, f, sh, 1, 1, "Table 2. Enterprises by region, sector and size class, 2025")
	setCell(t, f, sh, 1, 2, "Number of enterprises")
	setCell(t, f, sh, 1, 4, "Region")
	f.MergeCell(sh, "A4", "A5")
	for s := range 4 {
		c := 2 + 3*s
		setCell(t, f, sh, c, 4, label(wideSectors, s))
		from, _ := excelize.CoordinatesToCellName(c, 4)
		to, _ := excelize.CoordinatesToCellName(c+2, 4)
		f.MergeCell(sh, from, to)
		for z := range 3 {
			setCell(t, f, sh, c+z, 5, label(wideSizes, z))
		}
	}
	for r := range 5 {
		setCell(t, f, sh, 1, 6+r, label(wideRegions, r))
		for s := range 4 {
			for z := range 3 {
				setCell(t, f, sh, 2+3*s+z, 6+r, cellText3(n, r, s, z))
			}
		}
	}
	for i, note := range notes {
		setCell(t, f, sh, 1, 12+i, note)
	}
	if err := f.SaveAs(wideDir + files[1]); err != nil {
		t.Fatal(err)
	}

	// the one-header table as CSV, with a title holding a comma and notes
	var b strings.Builder
	b.WriteString("\"Table 1. Enterprises by region and sector, 2025\"\n\nRegion")
	for s := range 4 {
		b.WriteString("," + label(wideSectors, s))
	}
	b.WriteString("\n")
	for r := range 5 {
		b.WriteString(label(wideRegions, r))
		for s := range 4 {
			b.WriteString("," + cellText2(n, r, s))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, note := range notes {
		b.WriteString("\"" + note + "\"\n")
	}
	if err := os.WriteFile(wideDir+files[2], []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	// the same tables long
	b.Reset()
	b.WriteString("region,sector,count\n")
	for r := range 5 {
		for s := range 4 {
			fmt.Fprintf(&b, "%s,%s,%s\n", label(wideRegions, r), label(wideSectors, s), cellText2(n, r, s))
		}
	}
	if err := os.WriteFile(wideDir+files[3], []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	b.WriteString("region,sector,size,count\n")
	for r := range 5 {
		for s := range 4 {
			for z := range 3 {
				fmt.Fprintf(&b, "%s,%s,%s,%s\n", label(wideRegions, r), label(wideSectors, s), label(wideSizes, z), cellText3(n, r, s, z))
			}
		}
	}
	if err := os.WriteFile(wideDir+files[4], []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	wideConfig1     = "columns: {dims: [region], across: [sector], value: count}\n"
	wideConfig2     = "columns: {dims: [region], across: [sector, size], value: count}\n"
	wideLongConfig1 = "columns: {dims: [region, sector], count: count}\n"
	wideLongConfig2 = "columns: {dims: [region, sector, size], count: count}\n"
)

// wideReport is the report of a table with the source rows cleared (they
// are the rows of the file read: one per cell long, one per row wide) and
// the warnings (the wide layout detected) left out.
func wideReport(t *testing.T, path, y string) []byte {
	t.Helper()
	tab := auditFile(t, path, y)
	tab.Source, tab.Input, tab.Warnings, tab.Name = "", nil, nil, ""
	if tab.Structure != nil {
		tab.Structure.Columns, tab.Structure.Layout = nil, nil // a long table's columns; a wide one's are its body, its layout in the sheet
	}
	for _, c := range tab.Cells {
		c.Row = 0
	}
	var b bytes.Buffer
	if err := (writers.Report{}).Write(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWideRoundTrip: a long table and the same table laid out wide (a
// workbook with one or two header rows, a CSV) give the same report.
func TestWideRoundTrip(t *testing.T) {
	for _, tc := range []struct{ wide, long, cfg, longCfg string }{
		{"region_sector.xlsx", "region_sector_long.csv", wideConfig1, wideLongConfig1},
		{"region_sector.csv", "region_sector_long.csv", wideConfig1, wideLongConfig1},
		{"region_sector_size.xlsx", "region_sector_size_long.csv", wideConfig2, wideLongConfig2},
	} {
		want := wideReport(t, wideDir+tc.long, tc.longCfg)
		var rep struct {
			Cells []struct {
				Status string `json:"status"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(want, &rep); err != nil {
			t.Fatal(err)
		}
		statuses := map[string]int{}
		for _, c := range rep.Cells {
			statuses[c.Status]++
		}
		if statuses["primary"] == 0 || statuses["ok"] == 0 {
			t.Fatalf("%s: the test table needs ok and primary cells: %v", tc.long, statuses)
		}
		got := wideReport(t, wideDir+tc.wide, tc.cfg)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the report differs from %s's:\n%s", tc.wide, tc.long, firstDiff(want, got))
		}
	}
}

// TestWideLayoutDetected: the report says where the table was found.
func TestWideLayoutDetected(t *testing.T) {
	tab := auditFile(t, wideDir+"region_sector_size.xlsx", wideConfig2)
	want := `sheet "Table 1": wide layout: header rows 4-5 (sector, size across), row labels in column A (region), body rows 6-10 x columns B-M, titles rows 1-2, notes rows 12-13`
	if len(tab.Warnings) == 0 || tab.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", tab.Warnings, want)
	}
	if len(tab.Cells) != 5*4*3 {
		t.Errorf("%d cells", len(tab.Cells))
	}
}

// TestWideAuditIntervals: the interval audit of a wide workbook with
// markers gives the intervals of the same table long.
func TestWideAuditIntervals(t *testing.T) {
	for _, tc := range []struct{ wide, long, cfg, longCfg string }{
		{"region_sector.xlsx", "region_sector_long.csv", wideConfig1, wideLongConfig1},
		{"region_sector.csv", "region_sector_long.csv", wideConfig1, wideLongConfig1},
		{"region_sector_size.xlsx", "region_sector_size_long.csv", wideConfig2, wideLongConfig2},
	} {
		for range 3 {
			_, wantIv, err := AuditFile(context.Background(), wideDir+tc.long, settings(t, tc.longCfg), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, gotIv, err := AuditFile(context.Background(), wideDir+tc.wide, settings(t, tc.cfg), nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.wide, err)
			}
			if len(wantIv.Cells) == 0 {
				t.Fatalf("%s: no suppressed cell audited", tc.long)
			}
			w, _ := json.Marshal(wantIv)
			g, _ := json.Marshal(gotIv)
			if !bytes.Equal(w, g) {
				t.Errorf("%s: intervals\n%s\nwant (long)\n%s", tc.wide, g, w)
			}
		}
	}
}

// wideSheet writes a one-sheet workbook of the rows (numbers as numbers)
// and the merged ranges ("A1:C1").
func wideSheet(t *testing.T, rows [][]string, merges ...string) string {
	t.Helper()
	f := excelize.NewFile()
	for r, row := range rows {
		for c, v := range row {
			if v != "" {
				setCell(t, f, "Sheet1", c+1, r+1, v)
			}
		}
	}
	for _, m := range merges {
		p := strings.Split(m, ":")
		if err := f.MergeCell("Sheet1", p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "t.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWideRefusesAmbiguous: layouts the configuration does not resolve are
// refused with the sheet, row and column and the keys to set.
func TestWideRefusesAmbiguous(t *testing.T) {
	body := [][]string{{"A", "3", "4", "7"}, {"B", "5", "6", "11"}, {"Total", "8", "10", "18"}}
	for _, tc := range []struct {
		name   string
		rows   [][]string
		merges []string
		cfg    string
		want   string
	}{
		{"blank header cell", append([][]string{{"Region", "Mining", "", "Total"}}, body...), nil, wideConfig1,
			`sheet "Sheet1", row 1, column "C": blank header cell`},
		{"blank row label", [][]string{{"Region", "Mining", "Trade", "Total"}, {"A", "3", "4", "7"}, {"", "5", "6", "11"}, {"Total", "8", "10", "18"}}, nil, wideConfig1,
			`row 3, column "A": blank row label`},
		{"two header rows read as one", [][]string{{"", "Sector", "Sector", ""}, {"Region", "Mining", "Trade", "Total"}, {"A", "3", "4", "7"}}, nil, wideConfig1,
			`row 1, column "C": duplicate column labels "Sector" (also column B): the header has more rows than columns.across`},
		{"one header row read as two", append([][]string{{"Region", "Mining", "Trade", "Total"}}, body...), nil, wideConfig2,
			`row 2, column "A": row 2 has a row label ("A") like a body row`},
		{"text in the body", append([][]string{{"Region", "Mining", "Trade", "Total"}}, append([][]string{{"A", "3", "none", "7"}}, body[1:]...)...), nil, wideConfig1,
			`sheet "Sheet1", row 2, column "C": not a number`},
		{"statistics side by side", append([][]string{{"Region", "N", "N", "Total"}}, body...), nil, wideConfig1,
			`duplicate column labels "N"`},
		{"value right of the header", [][]string{{"Region", "Mining", "Trade", "Total"}, {"A", "3", "4", "7", "9"}}, nil, wideConfig1,
			`row 2, column "E": a value right of the table`},
		{"merged body cells", append([][]string{{"Region", "Mining", "Trade", "Total"}}, body...), []string{"B2:C2"}, wideConfig1,
			`merged range B2:C2 in the table's body`},
		{"data below the notes", append(append([][]string{{"Region", "Mining", "Trade", "Total"}}, body...), []string{}, []string{"note"}, []string{"C", "1", "2", "3"}), nil, wideConfig1,
			`row 7 below the end of the table`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := wideSheet(t, tc.rows, tc.merges...)
			_, err := LoadFile(context.Background(), path, settings(t, tc.cfg))
			var re *readers.Error
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a *readers.Error containing %q", err, tc.want)
			}
		})
	}
}

// TestWideRange: input.range picks one of two tables on a sheet.
func TestWideRange(t *testing.T) {
	rows := [][]string{
		{"Region", "Mining", "Trade", "Total"},
		{"A", "3", "4", "7"},
		{"Total", "3", "4", "7"},
		{},
		{"Region", "Mining", "Trade", "Total"},
		{"B", "5", "6", "11"},
		{"Total", "5", "6", "11"},
	}
	path := wideSheet(t, rows)
	if _, err := LoadFile(context.Background(), path, settings(t, wideConfig1)); err == nil || !strings.Contains(err.Error(), "row 6 below the end of the table") {
		t.Fatalf("two tables on a sheet without a range: %v", err)
	}
	tab, err := LoadFile(context.Background(), path, settings(t, wideConfig1+"input: {range: A5:D7}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Cells) != 6 || tab.Cells[0].Key[0] != "B" || tab.Cells[0].Row != 6 {
		t.Errorf("cells %d, first %v row %d", len(tab.Cells), tab.Cells[0].Key, tab.Cells[0].Row)
	}
}

// TestWideBlankTotalBelow: a Total over both header rows needs no label
// below it, and the cells of a wide workbook are read as numbers, markers
// and missing values like a long table's.
func TestWideBlankTotalBelow(t *testing.T) {
	rows := [][]string{
		{"Region", "Mining", "Mining", "Total"},
		{"", "a", "b", ""},
		{"A", "3", "c", "7"},
		{"Total", "3", "4", "7"},
	}
	path := wideSheet(t, rows, "B1:C1")
	tab, err := LoadFile(context.Background(), path, settings(t, wideConfig2))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range tab.Cells {
		keys = append(keys, strings.Join(c.Key, "/")+"="+c.Stats.Of("count").Text)
	}
	want := "A/Mining/a=3 A/Mining/b=c A/Total/Total=7 Total/Mining/a=3 Total/Mining/b=4 Total/Total/Total=7"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("cells %s\nwant  %s", got, want)
	}
	if !tab.Cells[1].Stats.Of("count").Marker {
		t.Errorf("the c marker is not a marker")
	}
	_ = audit.StatusOK
}

// TestWideOutputs opens the annotated copy of a wide workbook and finds
// the fills and comments on the right body cells, the title and note rows
// untouched; the safe tables are laid out like the input, withholding
// every cell that is not ok; and every output is byte-identical between
// runs.
func TestWideOutputs(t *testing.T) {
	in := wideDir + "region_sector_size.xlsx"
	s := settings(t, wideConfig2+"output: {safe_xlsx: true, annotated: true, html: true}\n")
	dir := t.TempDir()
	res, err := Run(context.Background(), []Job{{Path: in, Settings: s}}, Options{Out: dir, Workers: 2, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	tab := res.Tables[0]
	statuses := map[audit.Status]int{}
	for _, c := range tab.Cells {
		statuses[c.Status]++
	}
	if statuses[audit.StatusPrimary] == 0 || statuses[audit.StatusSecondary] == 0 || statuses[audit.StatusOK] == 0 {
		t.Fatalf("the test table needs ok, primary and secondary cells: %v", statuses)
	}
	orig, err := excelize.OpenFile(in)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	ann, err := excelize.OpenFile(filepath.Join(dir, "region_sector_size.annotated.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	const sh = "Table 1"
	if got := ann.GetSheetList(); strings.Join(got, "|") != sh+"|"+writers.SheetSummary+"|"+writers.SheetLegend {
		t.Errorf("sheets %q", got)
	}
	comments, err := ann.GetComments(sh)
	if err != nil {
		t.Fatal(err)
	}
	commented := map[string]string{}
	for _, c := range comments {
		for _, p := range c.Paragraph {
			commented[c.Cell] += p.Text
		}
	}
	fillOf := func(f *excelize.File, ref string) string {
		id, err := f.GetCellStyle(sh, ref)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Fill.Color) == 0 {
			return ""
		}
		return strings.ToUpper(strings.TrimPrefix(st.Fill.Color[0], "#"))
	}
	// the body: B6:M10, in reading order, one cell per table cell
	i := 0
	for r := 6; r <= 10; r++ {
		for c := 2; c <= 13; c++ {
			ref, _ := excelize.CoordinatesToCellName(c, r)
			cell := tab.Cells[i]
			i++
			ov, _ := orig.GetCellValue(sh, ref)
			av, _ := ann.GetCellValue(sh, ref)
			if ov != av || cell.Stats.Of("count").Text != ov {
				t.Errorf("%s: value %q, input %q, cell %s %q", ref, av, ov, strings.Join(cell.Key, "/"), cell.Stats.Of("count").Text)
			}
			want := ""
			if cell.Status != audit.StatusOK {
				want = writers.Palette[cell.Status]
			}
			if got := fillOf(ann, ref); got != want {
				t.Errorf("%s (%s, %s): fill %q, want %q", ref, strings.Join(cell.Key, "/"), cell.Status, got, want)
			}
			text, has := commented[ref]
			if (cell.Status != audit.StatusOK) && !has {
				t.Errorf("%s (%s): no comment", ref, cell.Status)
			}
			if has && !strings.Contains(text, string(cell.Status)+" (region="+cell.Key[0]) {
				t.Errorf("%s: comment %q does not name the cell", ref, text)
			}
		}
	}
	if i != len(tab.Cells) {
		t.Errorf("%d body cells, %d table cells", i, len(tab.Cells))
	}
	// titles, header and notes untouched
	for _, ref := range []string{"A1", "A2", "A4", "B4", "B5", "M5", "A6", "A12", "A13"} {
		ov, _ := orig.GetCellValue(sh, ref)
		av, _ := ann.GetCellValue(sh, ref)
		if ov != av || ov == "" {
			t.Errorf("%s: %q, input %q", ref, av, ov)
		}
		if fillOf(ann, ref) != fillOf(orig, ref) {
			t.Errorf("%s: fill changed", ref)
		}
		if _, has := commented[ref]; has {
			t.Errorf("%s: commented", ref)
		}
	}
	if mc, _ := ann.GetMergeCells(sh); len(mc) != 5 {
		t.Errorf("%d merged ranges, want the input's 5", len(mc))
	}

	// the safe CSV: the input's rows, every cell not ok withheld
	safe, err := os.ReadFile(filepath.Join(dir, "region_sector_size.safe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(safe))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// encoding/csv skips the blank lines: titles 2, header 2, body 5, notes 2
	if len(recs) != 11 || !strings.HasPrefix(recs[0][0], "Table 2. Enterprises") || !strings.HasPrefix(recs[9][0], "Source: Business register") {
		t.Errorf("titles or notes missing:\n%s", safe)
	}
	i = 0
	for r := 4; r <= 8; r++ {
		fields := recs[r]
		if fields[0] != label(wideRegions, r-4) {
			t.Errorf("record %d: %q", r, fields)
		}
		for c := 1; c <= 12; c++ {
			cell := tab.Cells[i]
			i++
			want := cell.Stats.Of("count").Text
			if writers.Suppressed(cell) {
				want = "x"
			}
			if fields[c] != want {
				t.Errorf("safe.csv record %d field %d (%s, %s): %q, want %q", r, c+1, strings.Join(cell.Key, "/"), cell.Status, fields[c], want)
			}
		}
	}
	sx, err := excelize.OpenFile(filepath.Join(dir, "region_sector_size.safe.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer sx.Close()
	rows, _ := sx.GetRows("Table")
	var nonEmpty [][]string
	for _, r := range rows {
		if len(r) > 0 {
			nonEmpty = append(nonEmpty, r)
		}
	}
	for r, rec := range recs {
		if r >= len(nonEmpty) || strings.Join(nonEmpty[r], ",") != strings.Join(rec, ",") {
			t.Errorf("safe.xlsx differs from safe.csv at record %d: %q", r, rec)
		}
	}

	first := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		first[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
	}
	if _, err := Run(context.Background(), []Job{{Path: in, Settings: s}}, Options{Out: dir, Workers: 2, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	for f, b := range first {
		again, _ := os.ReadFile(filepath.Join(dir, f))
		if !bytes.Equal(b, again) {
			t.Errorf("%s differs between two runs", f)
		}
	}

	// output.layout: long keeps the one-row-per-cell safe table
	long := settings(t, wideConfig2+"output: {layout: long}\n")
	dir2 := t.TempDir()
	if _, err := Run(context.Background(), []Job{{Path: in, Settings: long}}, Options{Out: dir2, Workers: 2, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	safe2, _ := os.ReadFile(filepath.Join(dir2, "region_sector_size.safe.csv"))
	if !strings.HasPrefix(string(safe2), "region,sector,size,count\nNorth,Manufacturing,Small,") {
		t.Errorf("long safe table:\n%s", safe2)
	}
}

// TestCrosstabSheet: the annotated workbook of a long table shows it in
// crosstab form too (the last dimension across, margins last), each body
// cell with its value and its status's fill, as in the wide input it
// came from.
func TestCrosstabSheet(t *testing.T) {
	for _, tc := range []struct{ long, cfg, wide string }{
		{"region_sector_long.csv", wideLongConfig1, "region_sector.xlsx"},
		{"region_sector_size_long.csv", wideLongConfig2, ""},
	} {
		for range 3 {
			dir := t.TempDir()
			s := settings(t, tc.cfg+"output: {annotated: true}\n")
			res, err := Run(context.Background(), []Job{{Path: wideDir + tc.long, Settings: s}}, Options{Out: dir, Workers: 2, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			tab := res.Tables[0]
			f, err := excelize.OpenFile(filepath.Join(dir, strings.TrimSuffix(tc.long, ".csv")+".annotated.xlsx"))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := f.GetRows(writers.SheetCrosstab)
			if err != nil {
				t.Fatal(err)
			}
			nd := len(tab.Dims)
			// block header: title row, header row; then one row per
			// combination of the dimensions down
			if got := strings.Join(rows[1][nd-1:], ","); got != strings.Join(append([]string{label(wideSectors, 0)}, wideSectors[1:]...), ",")+",Total" && nd == 2 {
				t.Errorf("%s: header %q", tc.long, rows[1])
			}
			across := len(rows[1]) - (nd - 1)
			if nd == 1 {
				across--
			}
			for i, c := range tab.Cells {
				down := i / across
				r, col := 3+down, nd-1+i%across
				ref, _ := excelize.CoordinatesToCellName(col+1, r)
				v, _ := f.GetCellValue(writers.SheetCrosstab, ref)
				if v != c.Stats.Of("count").Text {
					t.Errorf("%s %s (%s): %q, want %q", tc.long, ref, strings.Join(c.Key, "/"), v, c.Stats.Of("count").Text)
				}
				for d := 0; d < nd-1; d++ {
					lref, _ := excelize.CoordinatesToCellName(d+1, r)
					if l, _ := f.GetCellValue(writers.SheetCrosstab, lref); l != c.Key[d] {
						t.Errorf("%s %s: label %q, want %q", tc.long, lref, l, c.Key[d])
					}
				}
				id, _ := f.GetCellStyle(writers.SheetCrosstab, ref)
				st, _ := f.GetStyle(id)
				fill := ""
				if len(st.Fill.Color) > 0 {
					fill = strings.ToUpper(strings.TrimPrefix(st.Fill.Color[0], "#"))
				}
				want := ""
				if c.Status != audit.StatusOK {
					want = writers.Palette[c.Status]
				}
				if fill != want {
					t.Errorf("%s %s (%s): fill %q, want %q", tc.long, ref, c.Status, fill, want)
				}
			}
			f.Close()
			if tc.wide == "" {
				continue
			}
			// the crosstab of the long table is the wide input's body
			in, err := excelize.OpenFile(wideDir + tc.wide)
			if err != nil {
				t.Fatal(err)
			}
			for r := 0; r < 5; r++ {
				for c := 0; c < 5; c++ {
					a, _ := excelize.CoordinatesToCellName(c+1, 5+r)
					b, _ := excelize.CoordinatesToCellName(c+1, 3+r)
					want, _ := in.GetCellValue("Table 1", a)
					g, _ := excelize.OpenFile(filepath.Join(dir, strings.TrimSuffix(tc.long, ".csv")+".annotated.xlsx"))
					got, _ := g.GetCellValue(writers.SheetCrosstab, b)
					g.Close()
					if got != want {
						t.Errorf("crosstab %s %q, wide input %s %q", b, got, a, want)
					}
				}
			}
			in.Close()
		}
	}
}

// TestWideStatistics: a count block and a total block side by side under
// one header, with a statistic header row, give the report of the same
// table long; without columns.statistics the layout is refused.
func TestWideStatistics(t *testing.T) {
	n := wideCounts()
	rows := [][]string{{"Table 3. Enterprises and turnover by region and sector"}, {}, {"Region", "Number of enterprises", "", "", "", "Turnover (EUR 1,000)"}, {""}}
	var long strings.Builder
	long.WriteString("region,sector,count,total\n")
	for s := range 4 {
		rows[3] = append(rows[3], label(wideSectors, s))
	}
	for s := range 4 {
		rows[3] = append(rows[3], label(wideSectors, s))
	}
	// turnover: the margins add up from the inner cells
	tv := func(r, s int) int { return n[r][s][2]*137 + 5*(1+r%2) }
	tot := func(r, s int) string {
		if r < 4 && s < 3 {
			if wideMarked[[2]int{r, s}] {
				return "c"
			}
			return strconv.Itoa(tv(r, s))
		}
		sum := 0
		for rr := range 4 {
			for ss := range 3 {
				if (r == 4 || rr == r) && (s == 3 || ss == s) {
					sum += tv(rr, ss)
				}
			}
		}
		return strconv.Itoa(sum)
	}
	for r := range 5 {
		row := []string{label(wideRegions, r)}
		for s := range 4 {
			row = append(row, cellText2(n, r, s))
		}
		for s := range 4 {
			row = append(row, tot(r, s))
			fmt.Fprintf(&long, "%s,%s,%s,%s\n", label(wideRegions, r), label(wideSectors, s), cellText2(n, r, s), tot(r, s))
		}
		rows = append(rows, row)
	}
	rows = append(rows, []string{}, []string{"Source: Business register 2025."})
	wide := wideSheet(t, rows, "B3:E3", "F3:I3")
	longPath := filepath.Join(t.TempDir(), "long.csv")
	if err := os.WriteFile(longPath, []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `columns: {dims: [region], across: [sector], statistics: {"Number of enterprises": count, "Turnover (EUR 1,000)": total}}` + "\n"
	for range 3 {
		want := wideReport(t, longPath, "columns: {dims: [region, sector], count: count, total: total}\n")
		if !bytes.Contains(want, []byte(`"status":"primary"`)) {
			t.Fatalf("no primary cell:\n%s", want)
		}
		got := wideReport(t, wide, cfg)
		if !bytes.Equal(got, want) {
			t.Errorf("the report differs from the long table's:\n%s", firstDiff(want, got))
		}
	}
	// read as one statistic, the blocks are refused, not misread
	_, err := LoadFile(context.Background(), wide, settings(t, wideConfig1))
	if err == nil || !strings.Contains(err.Error(), "duplicate column labels") && !strings.Contains(err.Error(), "like a body row") {
		t.Errorf("two statistics read as one: %v", err)
	}
	_, err = LoadFile(context.Background(), wide, settings(t, `columns: {dims: [region], across: [sector], statistics: {"Number": count, "Turnover (EUR 1,000)": total}}`+"\n"))
	if err == nil || !strings.Contains(err.Error(), `row 3, column "B": statistic header "Number of enterprises" is not one of columns.statistics`) {
		t.Errorf("unknown statistic label: %v", err)
	}
	// the audit reads the totals
	_, wantIv, err := AuditFile(context.Background(), longPath, settings(t, "columns: {dims: [region, sector], count: count, total: total}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, gotIv, err := AuditFile(context.Background(), wide, settings(t, cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := json.Marshal(wantIv)
	g, _ := json.Marshal(gotIv)
	if !bytes.Equal(w, g) || len(wantIv.Cells) == 0 {
		t.Errorf("intervals\n%s\nwant\n%s", g, w)
	}
	// the safe table withholds both statistics of a suppressed cell
	dir := t.TempDir()
	res, err := Run(context.Background(), []Job{{Path: wide, Settings: settings(t, cfg)}}, Options{Out: dir, Workers: 2, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	safe, err := os.ReadFile(filepath.Join(dir, "t.safe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(safe))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	withheld := 0
	for i, c := range res.Tables[0].Cells {
		r, s := i/4, i%4
		rec := recs[3+r] // title, the two header rows, then the body
		cnt, tot := rec[1+s], rec[5+s]
		if writers.Suppressed(c) {
			withheld++
			if cnt != "x" || tot != "x" {
				t.Errorf("%s (%s): published %q and %q", strings.Join(c.Key, "/"), c.Status, cnt, tot)
			}
		} else if cnt != c.Stats.Of("count").Text || tot != c.Stats.Of("total").Text {
			t.Errorf("%s: %q %q", strings.Join(c.Key, "/"), cnt, tot)
		}
	}
	if withheld == 0 {
		t.Errorf("nothing withheld:\n%s", safe)
	}
}

// TestWideTotalMismatch: a Total column that does not add up sends its
// cells to review with the difference (the consistency rule, as for long
// tables).
func TestWideTotalMismatch(t *testing.T) {
	rows := [][]string{
		{"Region", "Mining", "Trade", "Total"},
		{"A", "30", "40", "71"},
		{"B", "50", "60", "110"},
		{"Total", "80", "100", "181"},
	}
	tab := auditFile(t, wideSheet(t, rows), wideConfig1)
	for _, c := range tab.Cells {
		if c.Key[0] != "A" || c.Key[1] != "Total" {
			continue
		}
		if c.Status != audit.StatusReview {
			t.Errorf("A/Total: status %s", c.Status)
		}
		found := false
		for _, f := range c.AllFindings() {
			if f.Rule == "consistency" && f.Outcome == audit.Review && strings.Contains(f.Message(), "sum to 70 (difference 1)") {
				found = true
			}
		}
		if !found {
			t.Errorf("A/Total: no consistency review: %+v", c.AllFindings())
		}
	}
}

// TestWideWritersCancel: the writers of wide outputs stop on a cancelled
// context.
func TestWideWritersCancel(t *testing.T) {
	s := settings(t, wideConfig2)
	srcs, err := readers.Open(wideDir+"region_sector_size.xlsx", cells.ReaderOptions(s))
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	tab, err := AuditSource(context.Background(), srcs[0], s, 2)
	if err != nil {
		t.Fatal(err)
	}
	s.Output.SafeXLSX, s.Output.Annotated = true, true
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	for _, w := range outputWriters(srcs[0], s) {
		switch w.(type) {
		case writers.AnnotatedCopy, writers.SafeWideCSV, writers.SafeWideXLSX:
			n++
			if err := w.WriteContext(ctx, io.Discard, tab); !errors.Is(err, context.Canceled) {
				t.Errorf("%T: %v", w, err)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d wide writers", n)
	}
}

// TestWideRangeSafeTable (issue 29 item 8): a table read from a range of a
// sheet that holds other tables is published as the table alone: its own
// title and notes above and below it, no rows or columns of the sheet
// around it as empty padding, in the safe CSV and the safe workbook.
func TestWideRangeSafeTable(t *testing.T) {
	rows := [][]string{
		{"Table 1. Persons by sex"},
		{},
		{"Sex", "Persons"},
		{"Male", "120"},
		{"Female", "130"},
		{"Total", "250"},
		{},
		{},
		{"", "Table 2. Enterprises by region and sector"},
		{"", "Number of enterprises"},
		{},
		{"", "Region", "Mining", "Trade", "Total"},
		{"", "North", "17", "3", "20"},
		{"", "South", "40", "50", "90"},
		{"", "Total", "57", "53", "110"},
		{},
		{"", "Source: business register."},
		{},
		{},
		{"Table 3. Something else"},
	}
	path := wideSheet(t, rows)
	want := "Table 2. Enterprises by region and sector\nNumber of enterprises\n\n" +
		"Region,Mining,Trade,Total\nNorth,x,x,20\nSouth,x,x,90\nTotal,57,53,110\n\nSource: business register.\n"
	for _, rng := range []string{"B9:E17", "A8:F19"} {
		s := settings(t, wideConfig1+"input: {range: "+rng+"}\noutput: {safe_xlsx: true}\n")
		dir := t.TempDir()
		if _, err := Run(context.Background(), []Job{{Path: path, Settings: s}}, Options{Out: dir, Workers: 2, Version: "test"}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "t.safe.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("range %s: safe.csv\n%s\nwant\n%s", rng, got, want)
		}
		f, err := excelize.OpenFile(filepath.Join(dir, "t.safe.xlsx"))
		if err != nil {
			t.Fatal(err)
		}
		sh := f.GetSheetList()[0]
		a1, _ := f.GetCellValue(sh, "A1")
		typ, _ := f.GetCellType(sh, "D5")
		marker, _ := f.GetCellValue(sh, "C5")
		f.Close()
		if a1 != "Table 2. Enterprises by region and sector" || typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString || marker != "x" {
			t.Errorf("range %s: safe.xlsx A1 %q, D5 type %v (want a number), C5 %q", rng, a1, typ, marker)
		}
	}
}
