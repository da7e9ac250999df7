package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkCSV writes text as a CSV file, runs `sdcaudit check` on it with
// args and returns the exit code, the rows of its safe.csv, its
// report.json and its output directory.
func checkCSV(t *testing.T, text string, args ...string) (int, [][]string, map[string]any, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"check", path, "--out", out, "--quiet"}, args...), &stdout, &stderr)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "t.safe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	b, err = os.ReadFile(filepath.Join(out, "t.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return code, rows, rep, out
}

// reportWarnings are the table warnings of a report.json.
func reportWarnings(rep map[string]any) string {
	var b strings.Builder
	ws, _ := rep["warnings"].([]any)
	for _, w := range ws {
		b.WriteString(w.(string) + "\n")
	}
	return b.String()
}

// TestWideValuesOutsideTheTable: a number in a title or note row of a
// wide table, in one of the body's columns, is no cell of the table: not
// audited. It was published in the safe table as it stood (a "Not
// stated" count of 3 below the notes gave itself away); it is withheld,
// listed in the report's structure (unaudited) and in a table warning,
// and published only where columns.safe names its cell.
func TestWideValuesOutsideTheTable(t *testing.T) {
	text := "Injuries by area\nArea,Men,Women,Total\nNorth,12,8,20\nSouth,11,13,24\nTotal,23,21,44\n\nSource: survey 2019\nNot known,,2,\nNot stated,,,3\n"
	_, rows, rep, out := checkCSV(t, text, "--value", "count")
	if got := rows[len(rows)-2]; len(got) < 3 || got[2] != "x" {
		t.Errorf("note row: %q, want its number withheld", got)
	}
	last := rows[len(rows)-1]
	if len(last) < 4 || last[0] != "Not stated" || last[3] != "x" {
		t.Errorf("note row: %q, want its number withheld", last)
	}
	st, _ := rep["structure"].(map[string]any)
	un, _ := st["unaudited"].([]any)
	if len(un) != 2 || un[0] != `C8 (row "Not known")` || un[1] != `D9 (row "Not stated")` {
		t.Errorf("structure.unaudited %q, want C8 and D9 with their row labels (never their values)", un)
	}
	ws := reportWarnings(rep)
	if !strings.Contains(ws, "2 values outside the table") || !strings.Contains(ws, "D9") {
		t.Errorf("no warning lists the values outside the table:\n%s", ws)
	}
	// the warning and the structure line reach summary.html as the
	// table's other warnings do (the workbook's Summary sheet takes the
	// same list)
	if b, err := os.ReadFile(filepath.Join(out, "summary.html")); err != nil || !strings.Contains(string(b), "2 values outside the table") || !strings.Contains(string(b), "values outside the table, not audited and withheld") {
		t.Errorf("summary.html lacks the values outside the table (%v)", err)
	}
	// declared safe to publish: written as it stands
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("columns: {safe: [D9]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rows, rep, _ = checkCSV(t, text, "--value", "count", "--config", cfg)
	if last := rows[len(rows)-1]; len(last) < 4 || last[3] != "3" || rows[len(rows)-2][2] != "x" {
		t.Errorf("with columns.safe [D9]: notes %q, %q; want D9 published, C8 withheld", rows[len(rows)-2], last)
	}
	st, _ = rep["structure"].(map[string]any)
	if un, _ := st["unaudited"].([]any); len(un) != 1 {
		t.Errorf("with columns.safe [D9]: structure.unaudited %v, want C8 alone", un)
	}
}

// TestWideStatisticBesideWithheldCount: a rate and a median published
// beside a withheld count give it back (the median age of one worker is
// that worker's age): every cell of a statistic column (Axis.NonAdditive)
// is withheld wherever a count of its row is, primary or secondary.
func TestWideStatisticBesideWithheldCount(t *testing.T) {
	text := "Area,Workers,Employees,Self-employed,Rate per 100000 workers,Median age\n" +
		"North,12,8,4,350,41\nSouth,1,1,0,20,38\nEast,40,30,10,400,44\nWest,25,20,5,310,39\nTotal,78,59,19,330,40\n"
	_, rows, rep, _ := checkCSV(t, text, "--value", "count")
	withheld := 0
	for _, r := range rows[1:] {
		count := r[1] == "x" || r[2] == "x" || r[3] == "x"
		if count {
			withheld++
		}
		if count && (r[4] != "x" || r[5] != "x") {
			t.Errorf("row %q: a statistic published beside a withheld count", r)
		}
	}
	if withheld < 2 || rows[2][0] != "South" || rows[2][1] != "x" {
		t.Fatalf("the test needs South's count of 1 withheld and another row: %q", rows)
	}
	var found bool
	cs, _ := rep["cells"].([]any)
	for _, c := range cs {
		m := c.(map[string]any)
		k, _ := m["key"].(map[string]any)
		if k["Area"] == "North" && k["across"] == "Median age" {
			// North's 12 workers pass; its 8 employees do not
			found = true
			if b, _ := json.Marshal(m); m["status"] != "secondary" || !strings.Contains(string(b), "withheld beside") {
				t.Errorf("North's median: %s", b)
			}
		}
	}
	if !found {
		t.Errorf("no cell North / Median age in the report")
	}
}

// TestWideStatisticJudgedWithItsCount: a statistic cell of a table of
// counts (a rate, a median age beside Workers) is judged by the rules
// with the count of its line, the root of the count codes (Workers, of
// which Employees and Self-employed are parts): it was judged with its
// own value as the number of contributors (a median age of 44 read as
// 44 workers). A line with no single root count (Men and Women without
// a total) cannot be judged: review.
func TestWideStatisticJudgedWithItsCount(t *testing.T) {
	threshold := func(rep map[string]any, area, col string) (string, float64, string) {
		for _, c := range rep["cells"].([]any) {
			m := c.(map[string]any)
			k, _ := m["key"].(map[string]any)
			if k["Area"] != area || k["across"] != col {
				continue
			}
			for _, f := range m["findings"].([]any) {
				f := f.(map[string]any)
				if f["rule"] == "threshold" {
					n, _ := f["values"].(map[string]any)["n"].(float64)
					return f["status"].(string), n, m["status"].(string)
				}
			}
		}
		t.Fatalf("no threshold finding on %s / %s", area, col)
		return "", 0, ""
	}
	text := "Area,Workers,Employees,Self-employed,Rate per 100000 workers,Median age\n" +
		"North,12,8,4,350,41\nSouth,1,1,0,20,38\nEast,40,30,10,400,44\nWest,25,20,5,310,39\nTotal,78,59,19,330,40\n"
	_, _, rep, _ := checkCSV(t, text, "--value", "count")
	for _, col := range []string{"Median age", "Rate per 100000 workers"} {
		if o, n, st := threshold(rep, "East", col); o != "pass" || n != 40 || st != "ok" {
			t.Errorf("East / %s: threshold %s with n %g, status %s; want pass with East's 40 workers, ok", col, o, n, st)
		}
	}
	text = "Area,Men,Women,Median age\nNorth,12,18,41\nSouth,11,13,38\nTotal,23,31,40\n"
	_, rows, rep, _ := checkCSV(t, text, "--value", "count")
	if o, _, _ := threshold(rep, "North", "Median age"); o != "review" {
		t.Errorf("North / Median age beside Men and Women: threshold %s, want review (no single count)", o)
	}
	if rows[1][3] != "x" {
		t.Errorf("North's median published: %q", rows[1])
	}
}

// TestWideStatisticKeptByOverride: a statistic cell that an override
// keeps out of secondary suppression (protected) stays published beside
// its line's withheld count, as the checker decided, with a table
// warning saying what it risks.
func TestWideStatisticKeptByOverride(t *testing.T) {
	ov := filepath.Join(t.TempDir(), "ov.csv")
	if err := os.WriteFile(ov, []byte("Area,across,action,reason,by\nNorth,Median age,protected,published in the yearbook,J. Smith\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "Area,Workers,Employees,Self-employed,Rate per 100000 workers,Median age\n" +
		"North,12,8,4,350,41\nSouth,1,1,0,20,38\nEast,40,30,10,400,44\nWest,25,20,5,310,39\nTotal,78,59,19,330,40\n"
	_, rows, rep, _ := checkCSV(t, text, "--value", "count", "--overrides", ov)
	if r := rows[1]; r[0] != "North" || r[2] != "x" || r[5] != "41" || r[4] != "x" {
		t.Errorf("North: %q, want its employees withheld, its rate withheld beside them, its median kept", r)
	}
	if ws := reportWarnings(rep); !strings.Contains(ws, "is kept published") || !strings.Contains(ws, "Median age") {
		t.Errorf("no warning on the kept median:\n%s", ws)
	}
}

// TestClassRuleLeavesStatisticsOut: the class rule's lines hold the
// counts only: a statistic column (a median age) beside Men and Women is
// no category of persons. North's 15 persons are all women: Women is a
// class primary there. The median beside them, read as a third
// category, hid it (its count unknown, or its value read as a count).
func TestClassRuleLeavesStatisticsOut(t *testing.T) {
	text := "Area,Men,Women,Median age\nNorth,0,15,41\nSouth,11,13,38\nEast,20,30,44\n"
	_, _, rep, _ := checkCSV(t, text, "--value", "count")
	for _, c := range rep["cells"].([]any) {
		m := c.(map[string]any)
		k, _ := m["key"].(map[string]any)
		if k["Area"] != "North" || k["across"] != "Women" {
			continue
		}
		for _, f := range m["findings"].([]any) {
			if f := f.(map[string]any); f["rule"] == "class" {
				if f["status"] != "fail" {
					t.Errorf("North / Women: class %v, want fail (every North person is a woman)", f)
				}
				return
			}
		}
	}
	t.Fatal("no class finding on North / Women")
}

// TestColumnsNotUnderstoodListedBriefly: the warning on the columns of a
// long table that are not understood names a few and counts the rest
// (it named all of them: a table of 124 columns gave a warning of 124
// names); report.json's structure.columns lists every one.
func TestColumnsNotUnderstoodListedBriefly(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("columns: {dims: [g], count: n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "g,n,c1,c2,c3,c4,c5,c6,c7,c8\na,30,x,x,x,x,x,x,x,x\nb,40,y,y,y,y,y,y,y,y\n"
	_, rows, rep, _ := checkCSV(t, text, "--config", cfg)
	ws := reportWarnings(rep)
	if !strings.Contains(ws, `8 columns not understood`) || !strings.Contains(ws, `"c1", "c2", "c3", "c4" and 4 more`) || strings.Contains(ws, `"c8"`) {
		t.Errorf("warning:\n%s", ws)
	}
	not := 0
	for _, c := range rep["structure"].(map[string]any)["columns"].([]any) {
		if c.(map[string]any)["role"] == "not understood" {
			not++
		}
	}
	if not != 8 || len(rows[0]) != 2 {
		t.Errorf("structure.columns: %d not understood, want 8; safe header %q, want g, n", not, rows[0])
	}
}

// TestLongStatisticBesideWithheldCount: the same in a long table whose
// measure dimension holds a count and a statistic (Workers, Median age):
// the median rows of North and South were published beside their
// withheld counts (South's median age of its 3 workers).
func TestLongStatisticBesideWithheldCount(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("columns: {dims: [area, measure], count: n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "area,measure,n\nNorth,Workers,12\nNorth,Median age,41\nSouth,Workers,3\nSouth,Median age,38\nEast,Workers,40\nEast,Median age,44\nTotal,Workers,55\nTotal,Median age,40\n"
	_, rows, _, _ := checkCSV(t, text, "--config", cfg)
	withheld := map[string]bool{}
	for _, r := range rows[1:] {
		if r[1] == "Workers" && r[2] == "x" {
			withheld[r[0]] = true
		}
	}
	if !withheld["South"] {
		t.Fatalf("the test needs South's 3 workers withheld: %q", rows)
	}
	for _, r := range rows[1:] {
		if r[1] == "Median age" && withheld[r[0]] && r[2] != "x" {
			t.Errorf("%s's median age published beside its withheld count: %q", r[0], r)
		}
	}
}
