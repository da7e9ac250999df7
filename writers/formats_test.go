package writers_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// sampleTable has one cell of each status; the confidential figures are
// 98765 (a total) and 55555 (a finding's value).
func sampleTable() *audit.Table {
	stat := func(s string) audit.Stat {
		return audit.Stat{Text: s, Value: decimal.Must(strings.ReplaceAll(s, ",", ""))}
	}
	return &audit.Table{
		Name: "grants", Source: "grants.csv", Mode: audit.Aggregate,
		Dims: []string{"region", "=size"}, TotalLabel: "Total", Columns: []string{"count", "total"},
		Cells: []*audit.Cell{
			{Key: []string{"North", "small"}, Row: 2, Status: audit.StatusOK,
				Stats:    audit.StatsOf(map[string]audit.Stat{"count": stat("12"), "total": stat("1,500.25")}),
				Findings: []audit.Finding{audit.Said("threshold", audit.Pass, "12 contributors", nil)}},
			{Key: []string{"North", "large"}, Row: 3, Status: audit.StatusPrimary,
				Stats: audit.StatsOf(map[string]audit.Stat{"count": stat("2"), "total": stat("98765")}),
				Findings: []audit.Finding{
					audit.Said("threshold", audit.Fail, "2 contributors, fewer than 10", []audit.Figure{audit.IntFig("n", 2), audit.IntFig("min", 10)}),
					audit.Said("dominance", audit.Fail, "the largest is 90% of the total", []audit.Figure{audit.IntFig("x1", 55555)}),
				}},
			{Key: []string{"=HYPERLINK(\"http://evil\")", "small"}, Row: 4, Status: audit.StatusSecondary,
				Stats: audit.StatsOf(map[string]audit.Stat{"count": stat("30"), "total": stat("-4000")}),
				Notes: []string{"suppressed to protect North/large"}},
			{Key: []string{"Total", "Total"}, Row: 5, Status: audit.StatusReview,
				Stats:    audit.StatsOf(map[string]audit.Stat{"count": {Text: "c", Missing: true, Marker: true}, "total": stat("200")}),
				Findings: []audit.Finding{audit.Said("meansd", audit.Review, "time limit", nil)}},
		},
	}
}

func render(t *testing.T, w writers.TableWriter, tab *audit.Table) []byte {
	t.Helper()
	var a, b bytes.Buffer
	if err := w.WriteContext(context.Background(), &a, tab); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteContext(context.Background(), &b, tab); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("%s: two writes differ", w.File(tab))
	}
	return a.Bytes()
}

func TestAnnotated(t *testing.T) {
	tab := sampleTable()
	data := render(t, writers.Annotated{}, tab)
	if got := (writers.Annotated{}).File(tab); got != "grants.annotated.xlsx" {
		t.Errorf("file %q", got)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{writers.SheetCells, writers.SheetSummary, writers.SheetLegend, writers.SheetCrosstab}) {
		t.Errorf("sheets %q", got)
	}
	rows, err := f.GetRows(writers.SheetCells)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"region", "'=size", "count", "total", "status", "rules"},
		{"North", "small", "12", "1,500.25", "ok"},
		{"North", "large", "2", "98,765.00", "primary", "threshold, dominance"},
		{"'=HYPERLINK(\"http://evil\")", "small", "30", "-4,000.00", "secondary"},
		{"Total", "Total", "c", "200.00", "review", "meansd"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %q\nwant %q", rows, want)
	}
	if typ, _ := f.GetCellType(writers.SheetCells, "D2"); typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
		t.Errorf("D2 type %v, want a number", typ)
	}
	CheckAnnotated(t, f, map[int]audit.Status{2: audit.StatusOK, 3: audit.StatusPrimary, 4: audit.StatusSecondary, 5: audit.StatusReview}, 6)
	comments, err := f.GetComments(writers.SheetCells)
	if err != nil {
		t.Fatal(err)
	}
	byCell := map[string]string{}
	for _, c := range comments {
		text := c.Text
		for _, p := range c.Paragraph {
			text += p.Text
		}
		byCell[c.Cell] = text
	}
	if len(byCell) != 3 {
		t.Errorf("comments on %v, want E3, E4, E5", byCell)
	}
	if c := byCell["E3"]; !strings.Contains(c, "Threshold fails: 2 contributors, fewer than 10.") || !strings.Contains(c, "largest contribution (x1): 55,555") {
		t.Errorf("comment E3 %q", c)
	}
	if c := byCell["E4"]; !strings.Contains(c, "suppressed to protect North/large") {
		t.Errorf("comment E4 %q", c)
	}
	panes, err := f.GetPanes(writers.SheetCells)
	if err != nil || !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("panes %+v %v", panes, err)
	}
	sum, _ := f.GetRows(writers.SheetSummary)
	if !containsRow(sum, []string{"primary", "1"}) || !containsRow(sum, []string{"dominance", "1"}) {
		t.Errorf("summary sheet %q", sum)
	}
}

func containsRow(rows [][]string, want []string) bool {
	for _, r := range rows {
		if reflect.DeepEqual(r, want) {
			return true
		}
	}
	return false
}

// CheckAnnotated checks that every listed row of the Cells sheet is filled
// with its status colour across width columns (ok rows have no fill).
func CheckAnnotated(t *testing.T, f *excelize.File, rows map[int]audit.Status, width int) {
	t.Helper()
	for r, st := range rows {
		for c := 1; c <= width; c++ {
			ref, _ := excelize.CoordinatesToCellName(c, r)
			id, err := f.GetCellStyle(writers.SheetCells, ref)
			if err != nil {
				t.Fatal(err)
			}
			style, err := f.GetStyle(id)
			if err != nil {
				t.Fatal(err)
			}
			var fill string
			if len(style.Fill.Color) > 0 {
				fill = strings.TrimPrefix(strings.ToUpper(style.Fill.Color[0]), "#")
			}
			if st == audit.StatusOK {
				if fill != "" {
					t.Errorf("%s (ok) filled %s", ref, fill)
				}
			} else if fill != writers.Palette[st] {
				t.Errorf("%s (%s) fill %q, want %s", ref, st, fill, writers.Palette[st])
			}
		}
	}
}

func TestSafeXLSX(t *testing.T) {
	tab := sampleTable()
	data := render(t, writers.SafeXLSX{Options: writers.Options{Marker: "x"}}, tab)
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, _ := f.GetRows("Table")
	var csv [][]string
	for _, r := range writers.SafeRows(tab, "x") {
		csv = append(csv, r)
	}
	csv[1][3] = "1500.25" // a number again, without the separator
	if !reflect.DeepEqual(rows, csv) {
		t.Errorf("rows\n got %q\nwant %q", rows, csv)
	}
	for ref, want := range map[string]excelize.CellType{"C2": excelize.CellTypeNumber, "D2": excelize.CellTypeNumber, "C3": excelize.CellTypeSharedString, "A2": excelize.CellTypeSharedString} {
		typ, _ := f.GetCellType("Table", ref)
		if typ == excelize.CellTypeInlineString {
			typ = excelize.CellTypeSharedString
		}
		if want == excelize.CellTypeNumber && typ == excelize.CellTypeUnset {
			typ = excelize.CellTypeNumber
		}
		if typ != want {
			t.Errorf("%s type %v, want %v", ref, typ, want)
		}
	}
	if strings.Contains(string(data), "98765") {
		t.Error("safe workbook holds a suppressed value")
	}
}

func TestFindings(t *testing.T) {
	tab := sampleTable()
	dir := t.TempDir()
	want := [][]string{
		{"grants", "2", "region=North, =size=small", "North", "small", "ok", "threshold", "pass", "12 contributors"},
		{"grants", "3", "region=North, =size=large", "North", "large", "primary", "threshold", "fail", "2 contributors, fewer than 10"},
		{"grants", "3", "region=North, =size=large", "North", "large", "primary", "dominance", "fail", "the largest is 90% of the total"},
		{"grants", "4", "region==HYPERLINK(\"http://evil\"), =size=small", "=HYPERLINK(\"http://evil\")", "small", "secondary", "", "", ""},
		{"grants", "5", "region=Total, =size=Total", "Total", "Total", "review", "meansd", "review", "time limit"},
	}
	for _, w := range []writers.TableWriter{writers.FindingsParquet{}, writers.FindingsArrow{}} {
		data := render(t, w, tab)
		p := filepath.Join(dir, w.File(tab))
		os.WriteFile(p, data, 0o644)
		srcs, err := readers.Open(p, readers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		src := srcs[0]
		if h := src.Header(); !reflect.DeepEqual(h, []string{"table", "row", "key", "region", "=size", "status", "rule", "outcome", "message"}) {
			t.Errorf("%s header %q", p, h)
		}
		var rows [][]string
		for {
			b, err := src.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, b.Rows...)
		}
		src.Close()
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("%s rows\n got %q\nwant %q", p, rows, want)
		}
		if bytes.Contains(data, []byte("55555")) {
			t.Errorf("%s holds a finding's figures", p)
		}
	}
}

func writeHTML(t *testing.T) (string, []byte) {
	t.Helper()
	tab := sampleTable()
	var r writers.RunSummary
	r.Version = "test"
	r.Add(writers.TableSummary{Table: tab.Name, Source: tab.Source, Mode: tab.Mode, Summary: tab.Summarize(),
		Outputs: []string{tab.Name + ".report.json", tab.Name + ".safe.csv", tab.Name + ".annotated.xlsx"}})
	var a, b bytes.Buffer
	if err := (writers.SummaryHTML{}).WriteRun(&a, &r, []*audit.Table{tab}); err != nil {
		t.Fatal(err)
	}
	(writers.SummaryHTML{}).WriteRun(&b, &r, []*audit.Table{tab})
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes differ")
	}
	p := filepath.Join(t.TempDir(), writers.HTMLFile)
	if err := os.WriteFile(p, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, a.Bytes()
}

func TestSummaryHTML(t *testing.T) {
	_, data := writeHTML(t)
	page := string(data)
	for _, bad := range []string{"98765", "55555", "fewer than 10", "<script", "<link", "@import", "url(", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	// the only URL is the SVG namespace
	if n := strings.Count(page, "http"); n != strings.Count(page, "http://www.w3.org/2000/svg")+strings.Count(page, "http-equiv")+strings.Count(page, "http://evil") {
		t.Errorf("page refers to external resources")
	}
	for _, want := range []string{"<svg", "Cells by status", "Cells flagged by rule", "1,500.25", "threshold, dominance", `class="primary"`, "Release blocked", "=HYPERLINK(&#34;http://evil&#34;)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestSummaryHTMLBrowser loads the page in a headless Chromium and checks
// what it rendered.
func TestSummaryHTMLBrowser(t *testing.T) {
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no headless browser installed (chromium, google-chrome): skipping the rendering check")
	}
	if testing.Short() {
		t.Skip("-short: skipping the browser")
	}
	p, _ := writeHTML(t)
	dir := t.TempDir()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-extensions", "--user-data-dir=" + dir, "--virtual-time-budget=2000"}
	run := func(extra ...string) []byte {
		cmd := exec.Command(browser, append(append(append([]string{}, args...), extra...), "file://"+p)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Skipf("cannot start %s: %v", browser, err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v\n%s", browser, err, errb.String())
			}
		case <-time.After(90 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s did not finish", browser)
		}
		return out.Bytes()
	}
	dom := string(run("--dump-dom"))
	for _, want := range []string{"<svg", "<rect", `id="verdict"`, "Release blocked", `class="primary"`, "threshold, dominance"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	shot := filepath.Join(dir, "page.png")
	run("--screenshot="+shot, "--window-size=1000,1200")
	if b, err := os.ReadFile(shot); err != nil || len(b) < 1000 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("no screenshot: %v", err)
	}
}

// TestWorkbooksByteIdentical: excelize visits the sheets it holds in
// memory in no fixed order; the workbooks are byte-identical all the same.
func TestWorkbooksByteIdentical(t *testing.T) {
	for _, w := range []writers.TableWriter{writers.Annotated{}, writers.SafeXLSX{}} {
		first := render(t, w, sampleTable())
		for range 12 {
			if got := render(t, w, sampleTable()); !bytes.Equal(got, first) {
				t.Fatalf("%T: two writes of the same table differ", w)
			}
		}
	}
}
