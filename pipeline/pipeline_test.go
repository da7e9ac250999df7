package pipeline

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/pipeline/internal/pipelinetest"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

var update = flag.Bool("update", false, "rewrite golden files")

// shared is the reference data (sdcTable's and ACRO's examples), kept in
// the repository so that a test never skips for want of it.
const shared = "../testdata/reference/"

// settings resolves a YAML config over the embedded default profile;
// firstDiff is the first line where two outputs differ. The cell
// builders' tests (pipeline/cells) use the same.
var (
	settings  = pipelinetest.Settings
	firstDiff = pipelinetest.FirstDiff
)

// noClock lifts the default profile's wall-clock limit of secondary
// suppression (suppression.time_limit, 60 s) unless the test sets one, for
// tests whose outcome would otherwise depend on the machine's speed: on a
// loaded machine the limit can run out and leave primaries to the audit
// (which sends them to review). Tests that compare reports with golden
// files keep the limit, which the run trail records.
func noClock(s *configs.Settings, y string) {
	if !strings.Contains(y, "time_limit") {
		s.Suppression.TimeLimit = 0
	}
}

// auditFile audits one table file with the settings of the YAML text y,
// read as check reads it (cells.ReaderOptions).
func auditFile(t testing.TB, path, y string) *audit.Table {
	t.Helper()
	s := settings(t, y)
	srcs, err := readers.Open(path, cells.ReaderOptions(s))
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	tab, err := AuditSource(context.Background(), srcs[0], s, 2)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tab
}

func auditText(t testing.TB, csv, y string) (*audit.Table, error) {
	t.Helper()
	return auditTextWork(t, csv, y, 0)
}

// auditTextWork is auditText with the joint search's work budget
// jointWork (Options.JointWork; 0: the default).
func auditTextWork(t testing.TB, csv, y string, jointWork float64) (*audit.Table, error) {
	t.Helper()
	src, err := readers.NewCSV("in.csv", strings.NewReader(csv), readers.Options{BatchSize: 3})
	if err != nil {
		return nil, err
	}
	return auditSource(context.Background(), src, settings(t, y), 2, jointWork)
}

func primaries(t *audit.Table) []string {
	var out []string
	for _, c := range t.Cells {
		if c.Status == audit.StatusPrimary {
			out = append(out, strings.Join(c.Key, "/"))
		}
	}
	return out
}

func needShared(t *testing.T, name string) string {
	p := shared + name
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("reference data %s: %v", p, err)
	}
	return p
}

// The acceptance case of the foundation issue: threshold 3 on
// sdctable_microdata1 marks exactly A/female, in 15 cells with margins.
func TestMicrodata1Threshold(t *testing.T) {
	p := needShared(t, "sdctable_microdata1.csv")
	tab := auditFile(t, p, `
microdata: {dims: [region, gender], value: val}
rules:
  threshold: {min: 3}
  dominance: {enabled: false}
  p_percent: {enabled: false}
`)
	if len(tab.Cells) != 15 {
		t.Fatalf("%d cells, want 15", len(tab.Cells))
	}
	if got := primaries(tab); len(got) != 1 || got[0] != "A/female" {
		t.Fatalf("primary cells %v, want [A/female]", got)
	}
	// margins add up: Total/Total is every record
	last := tab.Cells[len(tab.Cells)-1]
	if strings.Join(last.Key, "/") != "Total/Total" || last.N != 100 || last.Total.String() != "1284" {
		t.Fatalf("grand total cell %v n=%d total=%s", last.Key, last.N, last.Total)
	}
}

func TestMicrodataFigures(t *testing.T) {
	tab := auditFile(t, "../testdata/golden/micro.csv", `
microdata: {dims: [region, sex], value: income}
publish: [count, total, mean, sd, min, max]
`)
	byKey := map[string]*audit.Cell{}
	for _, c := range tab.Cells {
		byKey[strings.Join(c.Key, "/")] = c
	}
	sf := byKey["South/F"]
	// 3 records, one missing: 2 contributors
	if sf.Rows != 3 || sf.Missing != 1 || sf.N != 2 || sf.Total.String() != "4300" {
		t.Fatalf("South/F rows=%d missing=%d n=%d total=%s", sf.Rows, sf.Missing, sf.N, sf.Total)
	}
	nf := byKey["North/F"]
	if nf.Stats.Of("mean").Text != "1000.25" || nf.Stats.Of("sd").Text != "283.20" {
		t.Fatalf("North/F mean %q sd %q", nf.Stats.Of("mean").Text, nf.Stats.Of("sd").Text)
	}
	if g := byKey["Total/Total"]; g.N != 9 || g.Total.String() != "21766.25" || g.Max.String() != "15000" || g.Min.String() != "50" {
		t.Fatalf("grand total n=%d total=%s min=%s max=%s", g.N, g.Total, g.Min, g.Max)
	}
	if len(tab.Cells) != 9 {
		t.Fatalf("%d cells, want 9 (2x2 + margins)", len(tab.Cells))
	}
}

// With a holding column, the two North/F records of holding H1 are one
// contributor, and the margins count every holding once.
func TestHoldings(t *testing.T) {
	in := "h,r,v\nH1,a,10\nH1,a,5\nH2,a,1\nH1,b,100\nH3,b,\n"
	tab, err := auditText(t, in, "microdata: {dims: [r], value: v, holding: h}\n")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range tab.Cells {
		got[c.Key[0]] = fmt.Sprintf("n=%d total=%s top=%v", c.N, c.Total, c.Top)
	}
	want := map[string]string{
		"a":     "n=2 total=16 top=[15 1]",
		"b":     "n=1 total=100 top=[100]", // H3 has only a missing value
		"Total": "n=2 total=116 top=[115 1]",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
}

// Empty combinations of observed levels are cells too.
func TestCrossProductCells(t *testing.T) {
	tab, err := auditText(t, "a,b\nx,1\ny,2\n", "microdata: {dims: [a, b]}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Cells) != 9 {
		t.Fatalf("%d cells, want 9", len(tab.Cells))
	}
	for _, c := range tab.Cells {
		if c.Key[0] == "x" && c.Key[1] == "2" && (c.N != 0 || c.Status != audit.StatusOK) {
			t.Fatalf("empty cell x/2: n=%d status=%s", c.N, c.Status)
		}
	}
}

func TestInputErrors(t *testing.T) {
	tests := []struct {
		name, in, cfg string
		row           int
		col, text     string
	}{
		{"non-number", "r,v\na,1\nb,abc\n", "microdata: {dims: [r], value: v}\n", 3, "v", "not a number"},
		{"ragged", "r,v\na,1\nb\n", "microdata: {dims: [r], value: v}\n", 3, "", "wrong number of fields"},
		{"margin label as value", "r,v\nTotal,1\n", "microdata: {dims: [r], value: v}\n", 2, "r", "margin label"},
		{"missing column", "r,v\na,1\n", "microdata: {dims: [r], value: w}\n", 1, "w", "no such column"},
		{"aggregate non-number", "r;n\na;1\nb;1.5.5\n", "columns: {dims: [r], count: n}\n", 3, "n", "not a number"},
		{"aggregate duplicate", "r,n\na,1\na,2\n", "columns: {dims: [r], count: n}\n", 3, "", "duplicate cell"},
		{"aggregate count", "r,n\na,-1\n", "columns: {dims: [r], count: n}\n", 2, "n", "non-negative integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := auditText(t, tt.in, tt.cfg)
			var re *readers.Error
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *readers.Error", err)
			}
			if re.File != "in.csv" || re.Row != tt.row || re.Column != tt.col || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %q at row %d column %q, want row %d column %q mentioning %q", err, re.Row, re.Column, tt.row, tt.col, tt.text)
			}
		})
	}
}

func TestAggregateMarkersAndThousands(t *testing.T) {
	in := "r,n,total\na,\"1,234\",\"12,345.5\"\nb,c,x\nc,5,\n"
	tab, err := auditText(t, in, "columns: {dims: [r], count: n, total: total}\n")
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := tab.Cells[0], tab.Cells[1], tab.Cells[2]
	if a.N != 1234 || a.Total.String() != "12345.5" {
		t.Fatalf("thousands: n=%d total=%s", a.N, a.Total)
	}
	if b.HasN || !b.Stats.Of("count").Marker || !b.Stats.Of("total").Marker {
		t.Fatalf("markers: %+v", b.Stats)
	}
	if c.HasTotal || !c.Stats.Of("total").Missing {
		t.Fatalf("missing total: %+v", c.Stats)
	}
}

// Permuting input rows never changes the report.
func TestRowOrderDoesNotMatter(t *testing.T) {
	data, err := os.ReadFile("../testdata/demo/businesses.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	cfg := "microdata: {dims: [region, sector], value: turnover, holding: group}\npublish: [count, total, mean, sd]\n"
	report := func(body []string) []byte {
		tab, err := auditText(t, lines[0]+"\n"+strings.Join(body, "\n")+"\n", cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := (writers.Report{}).Write(&b, tab); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	want := report(lines[1:])
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5; i++ {
		body := append([]string(nil), lines[1:]...)
		r.Shuffle(len(body), func(i, j int) { body[i], body[j] = body[j], body[i] })
		if got := report(body); !bytes.Equal(got, want) {
			t.Fatalf("shuffle %d changed the report", i)
		}
	}
}

// Golden reports: go test ./pipeline -update rewrites them.
func TestGolden(t *testing.T) {
	cases := []struct{ name, in, cfg string }{
		{"micro", "../testdata/golden/micro.csv", "microdata: {dims: [region, sex], value: income, holding: holding}\npublish: [count, total, mean]\n"},
		{"micro_freq", "../testdata/golden/micro.csv", "microdata: {dims: [region, sex]}\n"},
		{"agg", "../testdata/golden/agg.csv", "columns: {dims: [year, grant_type], count: n, total: total, top: [top1, top2]}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := settings(t, tc.cfg)
			res, err := Run(context.Background(), []Job{{Path: tc.in, Name: tc.name, Settings: s}}, Options{Out: dir, Workers: 2, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Summary.NeedsPerson {
				t.Errorf("expected sensitive cells in %s", tc.name)
			}
			// the workbook as text: what a checker sees on each sheet
			dump := workbookText(t, filepath.Join(dir, tc.name+".annotated.xlsx"))
			if err := os.WriteFile(filepath.Join(dir, tc.name+".annotated.txt"), dump, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{tc.name + ".report.json", tc.name + ".safe.csv", "summary.html", tc.name + ".annotated.txt"} {
				got, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("../testdata/golden", f+".golden")
				if f == "summary.html" {
					golden = filepath.Join("../testdata/golden", tc.name+".summary.html.golden")
				}
				if *update {
					os.WriteFile(golden, got, 0o644)
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./pipeline -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s; run go test ./pipeline -update and review the diff", f, golden)
				}
			}
			// identical input gives byte-identical outputs
			dir2 := t.TempDir()
			if _, err := Run(context.Background(), []Job{{Path: tc.in, Name: tc.name, Settings: s}}, Options{Out: dir2, Workers: 1, Version: "test"}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{tc.name + ".report.json", tc.name + ".safe.csv", "summary.json"} {
				a, _ := os.ReadFile(filepath.Join(dir, f))
				b, _ := os.ReadFile(filepath.Join(dir2, f))
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs between runs", f)
				}
			}
		})
	}
}

// The safe table never shows a suppressed cell's figures, and leaves no
// temporary files behind.
func TestSafeTableHidesSuppressed(t *testing.T) {
	dir := t.TempDir()
	s := settings(t, "microdata: {dims: [region, sex], value: income}\n")
	res, err := Run(context.Background(), []Job{{Path: "../testdata/golden/micro.csv", Settings: s}}, Options{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	safe, _ := os.ReadFile(filepath.Join(dir, "micro.safe.csv"))
	for _, c := range res.Tables[0].Cells {
		if c.Status == audit.StatusOK {
			continue
		}
		line := strings.Join(c.Key, ",") + ",x,x\n"
		if !strings.Contains(string(safe), line) {
			t.Errorf("suppressed cell %v not masked in safe table:\n%s", c.Key, safe)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestCancelledRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := settings(t, "microdata: {dims: [region, sex], value: income}\n")
	if _, err := Run(ctx, []Job{{Path: "../testdata/golden/micro.csv", Settings: s}}, Options{Out: dir}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("cancelled run left %d files", len(ents))
	}
}

func TestMicrodataThousandsSeparators(t *testing.T) {
	tab, err := auditText(t, "g,v\na,\"1,234.5\"\na,\"12 000\"\n", "microdata: {dims: [g], value: v}\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Cells[0].Total.String(); got != "13234.5" {
		t.Fatalf("total %s, want 13234.5", got)
	}
	if _, err := auditText(t, "g,v\na,\"1,5\"\n", "microdata: {dims: [g], value: v}\n"); err == nil {
		t.Fatal("a decimal comma is ambiguous and must be an error")
	}
}

// Building with parallel shards gives the same table as one builder, and
// the input error reported is the one at the smallest row.
func TestShardsAgreeWithOneBuilder(t *testing.T) {
	var b strings.Builder
	b.WriteString("h,r,s,v\n")
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "H%d,R%d,S%d,%d.%02d\n", r.IntN(400), r.IntN(7), r.IntN(5), r.IntN(100000), r.IntN(100))
	}
	in := b.String()
	cfg := settings(t, "microdata: {dims: [r, s], value: v, holding: h}\npublish: [count, total, mean, sd, min, max]\n")
	report := func(workers int, text string) ([]byte, error) {
		src, err := readers.NewCSV("in.csv", strings.NewReader(text), readers.Options{BatchSize: 64})
		if err != nil {
			return nil, err
		}
		tab, err := AuditSource(context.Background(), src, cfg, workers)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		err = (writers.Report{}).Write(&out, tab)
		return out.Bytes(), err
	}
	one, err := report(1, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 4} {
		got, err := report(w, in)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, one) {
			t.Fatalf("%d shards give a different report", w)
		}
	}
	// errors in two different batches: row 2000 and row 100
	lines := strings.Split(in, "\n")
	lines[1999] = "H1,R1,S1,oops"
	lines[99] = "H1,R1,S1,bad"
	bad := strings.Join(lines, "\n")
	for _, w := range []int{1, 2, 4} {
		_, err := report(w, bad)
		var re *readers.Error
		if !errors.As(err, &re) || re.Row != 100 {
			t.Fatalf("%d shards: err %v, want row 100", w, err)
		}
	}
}

// workbookText writes a workbook as text for a golden file: per sheet its
// column widths, its rows (each cell's value, and as shown where its
// number format changes it), its merged ranges and its comments, in sheet
// order.
func workbookText(t *testing.T, path string) []byte {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	for _, sh := range f.GetSheetList() {
		fmt.Fprintf(&b, "== sheet %s\n", sh)
		rows, err := f.GetRows(sh, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		ncol := 0
		for _, r := range rows {
			ncol = max(ncol, len(r))
		}
		b.WriteString("widths:")
		for c := 1; c <= ncol; c++ {
			name, _ := excelize.ColumnNumberToName(c)
			w, _ := f.GetColWidth(sh, name)
			fmt.Fprintf(&b, " %s=%g", name, w)
		}
		b.WriteString("\n")
		for i, r := range rows {
			fmt.Fprintf(&b, "%d:", i+1)
			for j, v := range r {
				ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
				shown, _ := f.GetCellValue(sh, ref)
				if shown != v {
					fmt.Fprintf(&b, " %q(%q)", v, shown)
				} else {
					fmt.Fprintf(&b, " %q", v)
				}
			}
			b.WriteString("\n")
		}
		merges, err := f.GetMergeCells(sh)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range merges {
			fmt.Fprintf(&b, "merged %s:%s\n", m.GetStartAxis(), m.GetEndAxis())
		}
		comments, err := f.GetComments(sh)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range comments {
			var text strings.Builder
			for _, p := range c.Paragraph {
				text.WriteString(p.Text)
			}
			fmt.Fprintf(&b, "comment %s: %q\n", c.Cell, text.String())
		}
	}
	return b.Bytes()
}
