package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Three nested row dimensions, Country > Region > Area, with subtotal
// rows at every level (issue 24 items 2, 3 and 7): "All North" is the
// margin of North's areas, "All England" of England's regions'
// subtotals, "Wales total" of Wales's, and "Total" of the countries'.
const nestedL3 = "Country,Region,Area,Workers,Employees,Self-employed\n" +
	"England,North,N1,12,8,4\nEngland,North,N2,1,1,0\nEngland,North,N3,5,3,2\nEngland,North,All North,18,12,6\n" +
	"England,South,S1,40,30,10\nEngland,South,S2,25,20,5\nEngland,South,All South,65,50,15\n" +
	"England,All England,All England,83,62,21\n" +
	"Wales,East,E1,25,20,5\nWales,East,E2,36,30,6\nWales,East,All East,61,50,11\n" +
	"Wales,West,W1,27,20,7\nWales,West,W2,2,2,0\nWales,West,Total West,29,22,7\n" +
	"Wales,Wales total,Wales total,90,72,18\n" +
	"Total,Total,Total,173,134,39\n"

// nestedL3Hand is the structure of nestedL3 a person sees, written by
// hand (CSV line and column, 1-based): on every line Workers = Employees
// + Self-employed; in each column All North = N1 + N2 + N3, All South = S1 +
// S2, All England = All North + All South, All East = E1 + E2, Total West
// = W1 + W2, Wales total = All East + Total West, Total = All England +
// Wales total.
func nestedL3Hand() handTable {
	h := handTable{id: "nested3"}
	for r := 2; r <= 17; r++ {
		for c := 4; c <= 6; c++ {
			h.cells = append(h.cells, pos{r, c})
		}
		h.rels = append(h.rels, []relTerm{{pos{r, 4}, 1}, {pos{r, 5}, -1}, {pos{r, 6}, -1}})
	}
	for c := 4; c <= 6; c++ {
		h.rels = append(h.rels, []relTerm{{pos{5, c}, 1}, {pos{2, c}, -1}, {pos{3, c}, -1}, {pos{4, c}, -1}})
		for _, s := range [][3]int{{8, 6, 7}, {9, 5, 8}, {12, 10, 11}, {15, 13, 14}, {16, 12, 15}, {17, 9, 16}} {
			h.rels = append(h.rels, []relTerm{{pos{s[0], c}, 1}, {pos{s[1], c}, -1}, {pos{s[2], c}, -1}})
		}
	}
	return h
}

// TestNestedLevelsProtect: the safe table of nestedL3 withholds N2's and
// W2's small counts, and gonum's simplex over the hand structure finds
// no withheld cell known to within 1; report.json's structure block
// lists the margins of every level. Before, the countries' subtotals and
// the grand total were no margins: the pattern was protected within the
// regions only, and the structure block listed the regions' subtotals
// alone.
func TestNestedLevelsProtect(t *testing.T) {
	_, rows, rep, _ := checkCSV(t, nestedL3, "--value", "count")
	orig := readCSVText(t, nestedL3)
	if len(rows) != len(orig) {
		t.Fatalf("safe table has %d rows, input %d", len(rows), len(orig))
	}
	h := nestedL3Hand()
	h.attackSafe(t, orig, rows, pos{3, 4}, pos{14, 4})
	st, _ := rep["structure"].(map[string]any)
	axes, _ := st["axes"].([]any)
	if len(axes) == 0 {
		t.Fatalf("no axes in report structure: %v", st)
	}
	margins := map[string]string{}
	ms, _ := axes[0].(map[string]any)["margins"].([]any)
	for _, m := range ms {
		mm := m.(map[string]any)
		var of []string
		for _, o := range mm["of"].([]any) {
			of = append(of, o.(string))
		}
		margins[mm["code"].(string)] = strings.Join(of, ", ")
	}
	want := map[string]string{
		"England / North / All North":         "England / North / N1, England / North / N2, England / North / N3",
		"England / All England / All England": "England / North / All North, England / South / All South",
		"Wales / Wales total / Wales total":   "Wales / East / All East, Wales / West / Total West",
		"Total / Total / Total":               "England / All England / All England, Wales / Wales total / Wales total",
	}
	for k, v := range want {
		if margins[k] != v {
			t.Errorf("margin %q of %q, want of %q (margins %v)", k, margins[k], v, margins)
		}
	}
	if w := reportWarnings(rep); strings.Contains(w, "not the sum") {
		t.Errorf("a margin that adds up is warned about:\n%s", w)
	}
}

// TestAuditNestedOuterSubtotalDisclosed: a received copy of nestedL3 with
// N1 withheld in every column and All North's Workers and Employees
// withheld: All North's Workers is given back by the country's subtotal
// (All England - All South = 83 - 65 = 18), then N1's by its region's
// (18 - 1 - 5 = 12); within North alone one unknown stays free. `audit`
// reports both exactly disclosed, exit 1. Before, only the regions'
// subtotals were margins: both were reported protected, exit 0.
func TestAuditNestedOuterSubtotalDisclosed(t *testing.T) {
	text := strings.Replace(strings.Replace(nestedL3, "North,N1,12,8,4", "North,N1,x,x,x", 1), "North,All North,18,12,6", "North,All North,x,x,6", 1)
	path := filepath.Join(t.TempDir(), "received.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, res, out := runAudit(t, path, "--value", "count")
	if code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, out)
	}
	want := map[string]float64{"N1": 12, "All North": 18}
	for _, c := range res.Cells {
		v, ok := want[c.Key["Area"]]
		if !ok || c.Key["across"] != "Workers" {
			continue
		}
		delete(want, c.Key["Area"])
		if !c.Exact || c.Protected || c.Lo == nil || c.Hi == nil || math.Abs(*c.Lo-v) > 1e-9 || math.Abs(*c.Hi-v) > 1e-9 {
			t.Errorf("%s Workers not reported exactly disclosed at %v: %s", c.Key["Area"], v, out)
		}
	}
	if len(want) > 0 || res.Exactly < 2 {
		t.Errorf("not among the exactly disclosed cells: %v: %s", want, out)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "not the sum") {
			t.Errorf("a margin that adds up is warned about: %s", w)
		}
	}
}
