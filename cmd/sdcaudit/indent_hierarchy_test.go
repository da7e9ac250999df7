package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// indented is a hierarchy in one column shown by indentation (leading
// spaces), with a zero row closing Manufacturing's run: by arithmetic
// alone the runs are ambiguous (Manufacturing is the sum of Food and
// Textiles, and also with "Other manufacturing"), so blockTree kept
// nothing and the table had no margins.
const indented = "Industry,Men,Women\n" +
	"Whole economy,100,110\n  Manufacturing,40,44\n    Food,39,30\n    Textiles,1,14\n    Other manufacturing,0,0\n" +
	"  Services,60,66\n    Retail,30,33\n    Transport,30,33\n"

// indentedHand is the structure of indented a person sees, written by
// hand (CSV line and column, 1-based): in each column Manufacturing =
// Food + Textiles + Other manufacturing, Services = Retail + Transport,
// Whole economy = Manufacturing + Services (not labelled as a total).
func indentedHand() handTable {
	h := handTable{id: "indented"}
	for r := 2; r <= 9; r++ {
		for c := 2; c <= 3; c++ {
			h.cells = append(h.cells, pos{r, c})
		}
	}
	for c := 2; c <= 3; c++ {
		h.rels = append(h.rels,
			[]relTerm{{pos{3, c}, 1}, {pos{4, c}, -1}, {pos{5, c}, -1}, {pos{6, c}, -1}},
			[]relTerm{{pos{7, c}, 1}, {pos{8, c}, -1}, {pos{9, c}, -1}},
			[]relTerm{{pos{2, c}, 1}, {pos{3, c}, -1}, {pos{7, c}, -1}})
	}
	return h
}

// TestIndentHierarchyProtect: the safe table of indented withholds
// Textiles' count of 1, and gonum's simplex over the hand structure finds
// no withheld cell known to within 1; report.json lists the margins
// found by indentation. Before, indentation was not read: no margins,
// Textiles withheld alone, Manufacturing - Food - 0 gave it back.
func TestIndentHierarchyProtect(t *testing.T) {
	_, rows, rep, _ := checkCSV(t, indented, "--value", "count")
	orig := readCSVText(t, indented)
	if len(rows) != len(orig) {
		t.Fatalf("safe table has %d rows, input %d", len(rows), len(orig))
	}
	h := indentedHand()
	h.attackSafe(t, orig, rows, pos{5, 2})
	margins := reportMargins(t, rep)
	want := map[string]string{
		"Manufacturing": "Food, Textiles, Other manufacturing",
		"Services":      "Retail, Transport",
		"Whole economy": "Manufacturing, Services",
	}
	for k, v := range want {
		if margins[k].of != v || margins[k].found != "indentation and arithmetic" {
			t.Errorf("margin %q of %q (%q), want of %q by indentation and arithmetic (margins %v)", k, margins[k].of, margins[k].found, v, margins)
		}
	}
	if w := reportWarnings(rep); strings.Contains(w, "not the sum") || strings.Contains(w, "ambiguous") {
		t.Errorf("warnings:\n%s", w)
	}
}

type reportMargin struct{ of, found string }

// reportMargins are report.json's structure margins of the first axis.
func reportMargins(t *testing.T, rep map[string]any) map[string]reportMargin {
	t.Helper()
	st, _ := rep["structure"].(map[string]any)
	axes, _ := st["axes"].([]any)
	if len(axes) == 0 {
		t.Fatalf("no axes in report structure: %v", st)
	}
	out := map[string]reportMargin{}
	ms, _ := axes[0].(map[string]any)["margins"].([]any)
	for _, m := range ms {
		mm := m.(map[string]any)
		var of []string
		for _, o := range mm["of"].([]any) {
			of = append(of, o.(string))
		}
		f, _ := mm["found"].(string)
		out[mm["code"].(string)] = reportMargin{strings.Join(of, ", "), f}
	}
	return out
}

// indentedXLSX writes indented as a workbook: labels indented by leading
// spaces (spaces) or by the cell's indent style, one level per two
// spaces (and no spaces).
func indentedXLSX(t *testing.T, text string, spaces bool) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	styles := map[int]int{}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		for j, v := range strings.Split(line, ",") {
			cell, _ := excelize.CoordinatesToCellName(j+1, i+1)
			if n, err := strconv.Atoi(v); err == nil && i > 0 {
				if err := f.SetCellInt("Sheet1", cell, int64(n)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			lv := (len(v) - len(strings.TrimLeft(v, " "))) / 2
			if !spaces {
				v = strings.TrimLeft(v, " ")
			}
			if err := f.SetCellStr("Sheet1", cell, v); err != nil {
				t.Fatal(err)
			}
			if lv > 0 && !spaces {
				id, ok := styles[lv]
				if !ok {
					var err error
					if id, err = f.NewStyle(&excelize.Style{Alignment: &excelize.Alignment{Horizontal: "left", Indent: lv}}); err != nil {
						t.Fatal(err)
					}
					styles[lv] = id
				}
				if err := f.SetCellStyle("Sheet1", cell, cell, id); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	path := filepath.Join(t.TempDir(), "received.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAuditIndentedDisclosed: a received copy of indented with Textiles'
// Men withheld alone, as CSV (leading spaces) and as a workbook (leading
// spaces; the cells' indent style): Manufacturing - Food - Other
// manufacturing = 40 - 39 - 0 = 1 gives it back; `audit` reports it
// exactly disclosed, exit 1. Before, indentation was not read: the runs
// were ambiguous (the zero row), no margins, "protected", exit 0.
func TestAuditIndentedDisclosed(t *testing.T) {
	text := strings.Replace(indented, "Textiles,1,14", "Textiles,x,14", 1)
	csvPath := filepath.Join(t.TempDir(), "received.csv")
	if err := os.WriteFile(csvPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"csv", csvPath},
		{"xlsx spaces", indentedXLSX(t, text, true)},
		{"xlsx indent style", indentedXLSX(t, text, false)},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"audit", tc.path, "--value", "count", "--json"}, &stdout, &stderr)
		var res auditResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("%s: exit %d, %v:\n%s%s", tc.name, code, err, stdout.String(), stderr.String())
		}
		if code != 1 {
			t.Errorf("%s: exit %d, want 1:\n%s%s", tc.name, code, stdout.String(), stderr.String())
		}
		found := false
		for _, c := range res.Cells {
			if c.Key["Industry"] != "Textiles" || c.Key["across"] != "Men" {
				continue
			}
			found = true
			if !c.Exact || c.Protected || c.Lo == nil || c.Hi == nil || math.Abs(*c.Lo-1) > 1e-9 || math.Abs(*c.Hi-1) > 1e-9 {
				t.Errorf("%s: Textiles Men not reported exactly disclosed at 1: %s", tc.name, stdout.String())
			}
		}
		if !found || res.Exactly != 1 {
			t.Errorf("%s: Textiles Men not the one exactly disclosed cell: %s", tc.name, stdout.String())
		}
	}
}
