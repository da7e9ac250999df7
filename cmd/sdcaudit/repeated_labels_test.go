package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// repeatedOther is a hierarchy in one column shown by indentation whose
// leaf "Other" repeats under each group, with a labelled total flush with
// the groups. Other (Manufacturing) x North = 2 is a primary. Before, the
// second "Other" was refused as a duplicate cell (exit 3).
const repeatedOther = "Industry,North,South,Total\n" +
	"All industries,100,200,300\n" +
	"Manufacturing,40,90,130\n  Food,38,60,98\n  Other,2,30,32\n" +
	"Services,60,110,170\n  Retail,45,70,115\n  Other,15,40,55\n"

// repeatedOtherFlat is repeatedOther with no indentation: only the
// blocks of rows that add up to the row above them (Food + Other =
// Manufacturing) tell the repeats apart.
var repeatedOtherFlat = strings.ReplaceAll(repeatedOther, "\n  ", "\n")

// repeatedOtherHand is the structure of repeatedOther a person sees,
// written by hand (CSV line and column, 1-based): in each column
// Manufacturing = Food + Other (row 5), Services = Retail + Other (row
// 8), All industries = Manufacturing + Services; in each row Total =
// North + South.
func repeatedOtherHand() handTable {
	h := handTable{id: "repeatedOther"}
	for r := 2; r <= 8; r++ {
		for c := 2; c <= 4; c++ {
			h.cells = append(h.cells, pos{r, c})
		}
		h.rels = append(h.rels, []relTerm{{pos{r, 4}, 1}, {pos{r, 2}, -1}, {pos{r, 3}, -1}})
	}
	for c := 2; c <= 4; c++ {
		h.rels = append(h.rels,
			[]relTerm{{pos{3, c}, 1}, {pos{4, c}, -1}, {pos{5, c}, -1}},
			[]relTerm{{pos{6, c}, 1}, {pos{7, c}, -1}, {pos{8, c}, -1}},
			[]relTerm{{pos{2, c}, 1}, {pos{3, c}, -1}, {pos{6, c}, -1}})
	}
	return h
}

// checkRepeatedMargins checks report.json's margins of repeatedOther: the
// repeats qualified by their parent, the groups by indentation.
func checkRepeatedMargins(t *testing.T, name, how string, rep map[string]any) {
	t.Helper()
	margins := reportMargins(t, rep)
	want := map[string]reportMargin{
		"Manufacturing":  {"Food, Manufacturing / Other", how},
		"Services":       {"Retail, Services / Other", how},
		"All industries": {"Manufacturing, Services", "label and arithmetic"},
	}
	for k, v := range want {
		if margins[k] != v {
			t.Errorf("%s: margin %q = %+v, want %+v (margins %v)", name, k, margins[k], v, margins)
		}
	}
	if len(margins) != len(want) {
		t.Errorf("%s: margins %v, want %v", name, margins, want)
	}
	if w := reportWarnings(rep); strings.Contains(w, "only part") || strings.Contains(w, "not the sum") || strings.Contains(w, "not confirmed by the margins") {
		t.Errorf("%s: warnings:\n%s", name, w)
	}
}

// TestRepeatedLeafUnderTwoParents: "Other" under Manufacturing and under
// Services are two cells, named "Manufacturing / Other" and "Services /
// Other" in the report; the safe table prints each label as published
// ("  Other", indented), withholds the primary, and gonum's simplex over
// the hand structure recovers no withheld cell to within 1; `audit` of
// the safe table reads the same structure (the indentation is kept) and
// finds nothing disclosed. The same with the labels not indented
// (repeatedOtherFlat): each "Other" is in the block of rows that adds up
// to its group's row, and the margins are found by arithmetic. Before:
// exit 3, "duplicate cell Industry=Other, across=North (also row 5)".
func TestRepeatedLeafUnderTwoParents(t *testing.T) {
	for _, tc := range []struct{ name, text, how string }{
		{"indented", repeatedOther, "indentation and arithmetic"},
		{"blocks", repeatedOtherFlat, "arithmetic"},
	} {
		t.Run(tc.name, func(t *testing.T) { repeatedLeafCheck(t, tc.text, tc.how) })
	}
}

func repeatedLeafCheck(t *testing.T, text, how string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", path, "--out", out, "--quiet", "--value", "count"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	safePath := filepath.Join(out, "t.safe.csv")
	rows := readCSVFile(t, safePath)
	orig := readCSVText(t, text)
	if len(rows) != len(orig) {
		t.Fatalf("safe table has %d rows, input %d", len(rows), len(orig))
	}
	for i := range orig {
		if rows[i][0] != orig[i][0] {
			t.Errorf("safe row %d's label %q, published %q", i+1, rows[i][0], orig[i][0])
		}
	}
	repeatedOtherHand().attackSafe(t, orig, rows, pos{5, 2})
	rep := readJSONFile(t, filepath.Join(out, "t.report.json"))
	checkRepeatedMargins(t, "check", how, rep)
	// the primary is named by its qualified label
	primary := false
	cells, _ := rep["cells"].([]any)
	for _, c := range cells {
		cm, _ := c.(map[string]any)
		key, _ := cm["key"].(map[string]any)
		if key["Industry"] == "Manufacturing / Other" && key["across"] == "North" && cm["status"] == "primary" {
			primary = true
		}
	}
	if !primary {
		t.Errorf("no primary cell Industry=Manufacturing / Other, across=North in report.json; safe table:\n%q", rows)
	}
	// the safe table audited as received: the same cells and margins
	code, res, text := runAudit(t, safePath, "--value", "count")
	if code != 0 || res.Exactly != 0 || res.NoMargins {
		t.Errorf("audit of the safe table: exit %d, %d exactly disclosed:\n%s", code, res.Exactly, text)
	}
	named := false
	for _, c := range res.Cells {
		if c.Key["Industry"] == "Manufacturing / Other" && c.Key["across"] == "North" {
			named = true
			if !c.Protected {
				t.Errorf("audit of the safe table: the primary is not protected:\n%s", text)
			}
		}
	}
	if !named {
		t.Errorf("audit of the safe table does not name Manufacturing / Other x North:\n%s", text)
	}
}

// readJSONFile reads a JSON object.
func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRepeatedLeafWorkbook: the same table as a workbook whose labels are
// indented by the cells' indent style (no spaces): the same cells and
// margins. Before: exit 3, duplicate cell.
func TestRepeatedLeafWorkbook(t *testing.T) {
	path := indentedXLSX(t, repeatedOther, false)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", path, "--out", out, "--quiet", "--value", "count"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	rep := readJSONFile(t, filepath.Join(out, "received.report.json"))
	checkRepeatedMargins(t, "xlsx", "indentation and arithmetic", rep)
	// the annotated copy keeps the labels as published; the safe table
	// prints the cell's indent as two spaces a level
	f, err := excelize.OpenFile(filepath.Join(out, "received.annotated.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := os.ReadFile(filepath.Join(out, "received.safe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	safe, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []int{5, 8} {
		ref := fmt.Sprintf("A%d", r)
		if v, _ := f.GetCellValue("Sheet1", ref); v != "Other" {
			t.Errorf("annotated %s = %q, want Other", ref, v)
		}
		if v := safe[r-1][0]; v != "  Other" {
			t.Errorf("safe.csv %s = %q, want \"  Other\"", ref, v)
		}
	}
}

// TestAuditRepeatedLeafDisclosed: a received copy of repeatedOther with
// Other (Manufacturing) x North withheld alone, as CSV (leading spaces)
// as a workbook (the cells' indent style) and as CSV not indented (the
// blocks of rows by arithmetic): 40 - 38 = 2 gives it
// back; `audit` reports exactly that cell disclosed, exit 1. Before: exit
// 3, duplicate cell.
func TestAuditRepeatedLeafDisclosed(t *testing.T) {
	text := strings.Replace(repeatedOther, "  Other,2,30,32", "  Other,x,30,32", 1)
	csvPath := filepath.Join(t.TempDir(), "received.csv")
	if err := os.WriteFile(csvPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	flatPath := filepath.Join(t.TempDir(), "received.csv")
	if err := os.WriteFile(flatPath, []byte(strings.ReplaceAll(text, "\n  ", "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"csv", csvPath},
		{"xlsx indent style", indentedXLSX(t, text, false)},
		{"csv not indented (blocks)", flatPath},
	} {
		code, res, out := runAudit(t, tc.path, "--value", "count")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1:\n%s", tc.name, code, out)
		}
		found := false
		for _, c := range res.Cells {
			if c.Key["Industry"] != "Manufacturing / Other" || c.Key["across"] != "North" {
				continue
			}
			found = true
			if !c.Exact || c.Protected || c.Lo == nil || c.Hi == nil || math.Abs(*c.Lo-2) > 1e-9 || math.Abs(*c.Hi-2) > 1e-9 {
				t.Errorf("%s: Manufacturing / Other x North not reported exactly disclosed at 2:\n%s", tc.name, out)
			}
		}
		if !found || res.Exactly != 1 {
			t.Errorf("%s: Manufacturing / Other x North not the one exactly disclosed cell:\n%s", tc.name, out)
		}
	}
}

// TestRepeatedLeafRefused: repeats that nothing tells apart are refused
// naming the file, the row, the column and the keys that resolve them:
// labels not indented whose second group does not add up (no block holds
// the second "Other"), and a repeat under one parent.
func TestRepeatedLeafRefused(t *testing.T) {
	flat := "Industry,North,South\nManufacturing,40,90\nFood,30,60\nOther,10,30\nServices,60,110\nRetail,45,70\nOther,15,41\n"
	oneParent := "Industry,North,South\nManufacturing,40,90\n  Other,10,30\n  Other,30,60\n"
	for _, tc := range []struct{ name, text, row, why string }{
		{"not indented", flat, "row 7", "not indented, nor is each repeat inside a block"},
		{"one parent", oneParent, "row 4", `both are under "Manufacturing"`},
	} {
		path := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run([]string{"check", path, "--out", filepath.Join(t.TempDir(), "out"), "--value", "count"}, &stdout, &stderr)
		msg := stderr.String()
		if code != 3 {
			t.Errorf("%s: exit %d, want 3:\n%s", tc.name, code, msg)
		}
		for _, want := range []string{"t.csv", tc.row, `column "A"`, `"Other" repeats`, tc.why, "Indent each repeat", "columns.dims"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: message lacks %q:\n%s", tc.name, want, msg)
			}
		}
	}
}

// TestRepeatedLeafNotConfirmed: repeats named by their indentation where
// the arithmetic does not confirm the groups (Manufacturing is not Food +
// Other): the cells are still distinct rows, and a warning says that the
// names the layout gives are not confirmed by the margins. Before: exit
// 3, duplicate cell.
func TestRepeatedLeafNotConfirmed(t *testing.T) {
	text := strings.Replace(repeatedOther, "Manufacturing,40,90,130", "Manufacturing,41,90,131", 1)
	text = strings.Replace(text, "All industries,100,200,300", "All industries,101,200,301", 1)
	_, _, rep, _ := checkCSV(t, text, "--value", "count")
	w := reportWarnings(rep)
	if !strings.Contains(w, `of repeated labels named by the layout not confirmed by the margins: "Manufacturing / Other" at row 5 is named by "Manufacturing" above it`) {
		t.Errorf("warnings:\n%s", w)
	}
}
