package writers_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/writers"
)

// readableTable has cells flagged by the real dominance, p% and meansd
// rules, a year dimension, a mean with two decimals and a total in the
// thousands.
func readableTable(t *testing.T) *audit.Table {
	t.Helper()
	dom, err := rules.NewDominance(false, rules.NK{N: 1, K: decimal.FromInt(90)})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := rules.NewPPercent(decimal.FromInt(10), false)
	if err != nil {
		t.Fatal(err)
	}
	// the meansd rule with the default profile's parameters
	def, err := configs.Resolve(&configs.Config{Profile: "default"})
	if err != nil {
		t.Fatal(err)
	}
	var msd rules.Rule
	for _, r := range def.Rules {
		if r.Name == "meansd" {
			msd, err = rules.New("meansd", r.Decode)
		}
	}
	if msd == nil || err != nil {
		t.Fatalf("meansd rule: %v", err)
	}
	tab := &audit.Table{Name: "survey", Source: "survey.csv", Mode: audit.Aggregate, Dims: []string{"year", "region"},
		TotalLabel: "Total", Columns: []string{"count", "mean", "sd", "total"},
		Measure: &audit.Domain{Min: decimal.FromInt(1), Max: decimal.FromInt(5), Step: decimal.FromInt(1)}}
	stat := func(s string) audit.Stat { return audit.Stat{Text: s, Value: decimal.Must(s)} }
	mag := func(key string, total int64, top ...int64) *audit.Cell {
		c := &audit.Cell{Key: []string{"2024", key}, HasN: true, N: 4, HasTotal: true, Total: decimal.FromInt(total), AllTop: true,
			Stats: audit.StatsOf(map[string]audit.Stat{"count": stat("4"), "mean": stat("3.50"), "sd": stat("1.29"), "total": stat(decimal.FromInt(total).String())})}
		for _, v := range top {
			c.Top = append(c.Top, decimal.FromInt(v))
		}
		return c
	}
	a := mag("North", 2077400, 1869750, 200000, 7000, 650)
	a.Findings = append(a.Findings, dom.(rules.CellRule).Check(tab, a))
	b := mag("South", 1100000, 600000, 450000, 50000)
	b.Findings = append(b.Findings, pp.(rules.CellRule).Check(tab, b))
	c := &audit.Cell{Key: []string{"2025", "East"}, HasN: true, N: 15,
		Stats: audit.StatsOf(map[string]audit.Stat{"count": stat("15"), "mean": stat("4.00"), "sd": stat("0.00"), "total": stat("60")})}
	c.Findings = append(c.Findings, msd.(rules.CellRule).Check(tab, c))
	tab.Cells = []*audit.Cell{a, b, c}
	for _, c := range tab.Cells {
		if len(c.Findings) != 1 || c.Findings[0].Outcome != audit.Fail {
			t.Fatalf("setup: %s %+v", c.Key, c.Findings)
		}
		audit.Decide(c)
	}
	return tab
}

// openAnnotated writes tab's annotated workbook with the default limits
// and opens it.
func openAnnotated(t *testing.T, tab *audit.Table) *excelize.File {
	t.Helper()
	return openAnnotatedWith(t, writers.Annotated{}, tab)
}

// openAnnotatedWith writes tab's annotated workbook by w and opens it.
func openAnnotatedWith(t *testing.T, w writers.Annotated, tab *audit.Table) *excelize.File {
	t.Helper()
	var buf bytes.Buffer
	if err := w.Write(&buf, tab); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestAnnotatedCommentsReadable(t *testing.T) {
	f := openAnnotated(t, readableTable(t))
	comments, err := f.GetComments(writers.SheetCells)
	if err != nil {
		t.Fatal(err)
	}
	byCell := map[string]excelize.Comment{}
	for _, c := range comments {
		for _, p := range c.Paragraph {
			c.Text += p.Text
		}
		byCell[c.Cell] = c
	}
	want := map[string][]string{
		"G2": {"Dominance fails: the largest contribution makes 90.004% of the total, more than 90% (1,90).", "total (X): 2,077,400", "rule set 1: ", "sum of the n largest 1,869,750", "dominated yes"},
		"G3": {"P% rule fails: the second largest contributor can estimate the largest within 10%: X - x1 - x2 = 50,000 < 60,000"},
		"G4": {"Mean/SD reconstruction fails: mean 4.00 and SD 0.00 of 15 values", "all 15 respondents answered 4", "samples that fit: 1", "the value 4 at least 15 times"},
	}
	for ref, parts := range want {
		c, ok := byCell[ref]
		if !ok {
			t.Errorf("no comment on %s (have %v)", ref, byCell)
			continue
		}
		for _, p := range parts {
			if !strings.Contains(c.Text, p) {
				t.Errorf("comment %s lacks %q:\n%s", ref, p, c.Text)
			}
		}
		if strings.Contains(c.Text, "map[") || strings.Contains(c.Text, "(s)") {
			t.Errorf("comment %s is not plain text:\n%s", ref, c.Text)
		}
		// the box fits the text: as many lines as the text has, at least
		// (excelize does not read a box's size back: check the sizing)
		lines, longest := 0, 0
		for l := range strings.SplitSeq(c.Text, "\n") {
			lines++
			longest = max(longest, len(l))
		}
		w, h := writers.CommentSize(c.Text)
		if int(h) < lines*12 || int(w) < min(longest, 100)*6 {
			t.Errorf("comment %s box %dx%d for %d lines of up to %d characters", ref, w, h, lines, longest)
		}
	}
}

func TestAnnotatedNumberFormats(t *testing.T) {
	f := openAnnotated(t, readableTable(t))
	rows, err := f.GetRows(writers.SheetCells)
	if err != nil {
		t.Fatal(err)
	}
	// formatted as shown: the year stays as written, the mean keeps its
	// two decimals, counts and totals have separators
	want := []string{"2024", "North", "4", "3.50", "1.29", "2,077,400", "primary", "dominance"}
	if strings.Join(rows[1], "|") != strings.Join(want, "|") {
		t.Errorf("row 2 %q, want %q", rows[1], want)
	}
	formats := map[string]string{"C2": "#,##0", "D2": "#,##0.00", "E4": "#,##0.00", "F2": "#,##0"}
	for ref, fmtWant := range formats {
		id, err := f.GetCellStyle(writers.SheetCells, ref)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		if st.CustomNumFmt == nil || *st.CustomNumFmt != fmtWant {
			t.Errorf("%s number format %v, want %q", ref, st.CustomNumFmt, fmtWant)
		}
		if typ, _ := f.GetCellType(writers.SheetCells, ref); typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
			t.Errorf("%s type %v, want a number", ref, typ)
		}
	}
	if typ, _ := f.GetCellType(writers.SheetCells, "A2"); typ == excelize.CellTypeNumber || typ == excelize.CellTypeUnset {
		t.Errorf("the year level is a number (%v), want the text as written", typ)
	}
	names := f.GetDefinedName()
	var filter, titles bool
	for _, n := range names {
		filter = filter || (n.Name == "_xlnm._FilterDatabase" && strings.Contains(n.RefersTo, "$A$1:$H$4"))
		titles = titles || (n.Name == "_xlnm.Print_Titles" && strings.Contains(n.RefersTo, "$1:$1"))
	}
	if !filter || !titles {
		t.Errorf("defined names %+v: want an autofilter over A1:H4 and the header repeated", names)
	}
	pl, err := f.GetPageLayout(writers.SheetCells)
	if err != nil || pl.FitToWidth == nil || *pl.FitToWidth != 1 {
		t.Errorf("page layout %+v %v: want fit to one page wide", pl, err)
	}
	legend, _ := f.GetRows(writers.SheetLegend)
	for _, r := range legend {
		for _, v := range r {
			if strings.Contains(v, "NAME") {
				t.Errorf("legend says %q", v)
			}
		}
	}
}

// summary.html says what to do next and lists the flagged cells first.
func TestSummaryHTMLFlaggedFirst(t *testing.T) {
	_, data := writeHTML(t)
	page := string(data)
	for _, want := range []string{`id="next"`, "grants.annotated.xlsx"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// North/small is ok and first in the table; every flagged row comes before it
	ok := strings.Index(page, `<tr class="ok">`)
	for _, cls := range []string{`<tr class="primary">`, `<tr class="secondary">`, `<tr class="review">`} {
		if i := strings.Index(page, cls); i < 0 || i > ok {
			t.Errorf("%s at %d, the ok row at %d: flagged cells must come first", cls, i, ok)
		}
	}
}

// Every override appears, with its reason and author, in report.json,
// summary.html and the annotated workbook (its cell's comment and the
// summary sheet).
func TestOverridesInEveryReport(t *testing.T) {
	tab := sampleTable()
	c := tab.Cells[0] // North/small, ok
	c.Findings = append(c.Findings, audit.Said("override", audit.Pass, "marked safe by J. Smith: published last year", []audit.Figure{audit.TextFig("action", "safe"), audit.TextFig("reason", "published last year"), audit.TextFig("by", "J. Smith")}))
	tab.Overrides = []audit.Override{{Key: c.Key, Cell: tab.KeyString(c.Key), Action: "safe", Reason: "published last year", By: "J. Smith", Source: "overrides.csv row 2", Status: audit.StatusOK}}

	var rep bytes.Buffer
	if err := (writers.Report{}).Write(&rep, tab); err != nil {
		t.Fatal(err)
	}
	var r writers.RunSummary
	r.Add(writers.TableSummary{Table: tab.Name, Source: tab.Source, Mode: tab.Mode, Summary: tab.Summarize()})
	var page bytes.Buffer
	if err := (writers.SummaryHTML{}).WriteRun(&page, &r, []*audit.Table{tab}); err != nil {
		t.Fatal(err)
	}
	f := openAnnotated(t, tab)
	sum, _ := f.GetRows(writers.SheetSummary)
	var sheet strings.Builder
	for _, row := range sum {
		sheet.WriteString(strings.Join(row, "|") + "\n")
	}
	comments, _ := f.GetComments(writers.SheetCells)
	var comment string
	for _, cm := range comments {
		if cm.Cell == "E2" {
			for _, p := range cm.Paragraph {
				comment += p.Text
			}
		}
	}
	for name, text := range map[string]string{"report.json": rep.String(), "summary.html": page.String(), "summary sheet": sheet.String(), "comment E2": comment} {
		for _, want := range []string{"published last year", "J. Smith"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}
}

// summary.html writes published numbers like the workbook: separators and
// the column's decimals; the year level stays as written.
func TestSummaryHTMLNumbers(t *testing.T) {
	tab := readableTable(t)
	for _, c := range tab.Cells {
		c.Status = audit.StatusOK
	}
	var r writers.RunSummary
	r.Add(writers.TableSummary{Table: tab.Name, Source: tab.Source, Mode: tab.Mode, Summary: tab.Summarize()})
	var page bytes.Buffer
	if err := (writers.SummaryHTML{}).WriteRun(&page, &r, []*audit.Table{tab}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<td class="num">2,077,400</td>`, `<td class="num">3.50</td>`, `<td>2024</td>`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

// TestAnnotatedCellWithoutStatus: a cell no stage gave a status is shown
// as ok (statusOf), as on the Crosstab sheet, instead of the writer
// indexing an empty style.
func TestAnnotatedCellWithoutStatus(t *testing.T) {
	tab := readableTable(t)
	tab.Cells[2].Status = ""
	f := openAnnotated(t, tab)
	rows, err := f.GetRows("Cells")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		if len(r) > 1 && r[0] == "2025" && r[1] == "East" {
			found = true
			if !slices.Contains(r, string(audit.StatusOK)) {
				t.Fatalf("row %q: want status ok", r)
			}
		}
	}
	if !found {
		t.Fatalf("no row for 2025/East in %q", rows)
	}
}
