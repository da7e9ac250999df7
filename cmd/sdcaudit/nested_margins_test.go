package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Nested row dimensions with per-group subtotal rows (issue 24, items 2,
// 3 and 7; review of rv-inputs h1.csv / h2.csv): "All North" (or
// "Total") within the group North is the margin of North's areas, and
// "All regions / All regions" (or "Total / Total") the margin of the
// group subtotals. Read as ordinary rows, N2's count of 1 was withheld
// alone in its group while N1 and "All North" were published (13 − 12 =
// 1), and the report called it protected; with "Total" labels check
// refused the table (exit 3).

const nestedH1 = "Region,Area,Workers,Employees,Self-employed,Median age\n" +
	"North,N1,12,8,4,41\nNorth,N2,1,1,0,38\nNorth,All North,13,9,4,40\n" +
	"South,S1,40,30,10,44\nSouth,S2,25,20,5,39\nSouth,All South,65,50,15,42\n" +
	"All regions,All regions,78,59,19,41\n"

// nestedH2 is nestedH1 with "Total" as the subtotal and grand total labels.
var nestedH2 = strings.NewReplacer("All North", "Total", "All South", "Total", "All regions", "Total").Replace(nestedH1)

// nestedHand is the structure of nestedH1 a person sees, written by hand
// (CSV line and column, 1-based): on every line Workers = Employees +
// Self-employed; in each count column All North = N1 + N2, All South =
// S1 + S2, All regions = All North + All South. Median age adds up to
// nothing.
func nestedHand() handTable {
	h := handTable{id: "nested"}
	for r := 2; r <= 8; r++ {
		for c := 3; c <= 5; c++ {
			h.cells = append(h.cells, pos{r, c})
		}
		h.rels = append(h.rels, []relTerm{{pos{r, 3}, 1}, {pos{r, 4}, -1}, {pos{r, 5}, -1}})
	}
	for c := 3; c <= 5; c++ {
		h.rels = append(h.rels,
			[]relTerm{{pos{4, c}, 1}, {pos{2, c}, -1}, {pos{3, c}, -1}},
			[]relTerm{{pos{7, c}, 1}, {pos{5, c}, -1}, {pos{6, c}, -1}},
			[]relTerm{{pos{8, c}, 1}, {pos{4, c}, -1}, {pos{7, c}, -1}})
	}
	return h
}

func TestNestedGroupSubtotalsProtect(t *testing.T) {
	for _, tc := range []struct{ name, text, north, south, all string }{
		{"all-labels", nestedH1, "North / All North", "South / All South", "All regions / All regions"},
		{"total-labels", nestedH2, "North / Total", "South / Total", "Total / Total"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rows, rep, _ := checkCSV(t, tc.text, "--value", "count")
			orig := readCSVText(t, tc.text)
			if len(rows) != len(orig) {
				t.Fatalf("safe table has %d rows, input %d", len(rows), len(orig))
			}
			// the independent attack: every withheld count cell's
			// interval, by gonum's simplex over the hand structure
			h := nestedHand()
			h.attackSafe(t, orig, rows, pos{3, 3})
			// the structure in report.json: the group subtotals are margins
			st, _ := rep["structure"].(map[string]any)
			axes, _ := st["axes"].([]any)
			if len(axes) == 0 {
				t.Fatalf("no axes in report structure: %v", st)
			}
			ax := axes[0].(map[string]any)
			margins := map[string]string{}
			ms, _ := ax["margins"].([]any)
			for _, m := range ms {
				mm := m.(map[string]any)
				var of []string
				for _, o := range mm["of"].([]any) {
					of = append(of, o.(string))
				}
				margins[mm["code"].(string)] = strings.Join(of, ", ")
			}
			want := map[string]string{
				tc.north: "North / N1, North / N2",
				tc.south: "South / S1, South / S2",
				tc.all:   tc.north + ", " + tc.south,
			}
			for k, v := range want {
				if margins[k] != v {
					t.Errorf("margin %q of %q, want of %q (margins %v)", k, margins[k], v, margins)
				}
			}
			if w := reportWarnings(rep); strings.Contains(w, "not the sum") {
				t.Errorf("a margin that adds up is warned about:\n%s", w)
			}
		})
	}
}

// readCSVText reads a CSV text into rows.
func readCSVText(t *testing.T, text string) [][]string {
	t.Helper()
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}

// A received copy of the table with N2's counts withheld: the audit
// reads the same nesting and margins, and reports N2's Workers exactly
// disclosed (13 − 12), exit 1. With N2's Employees withheld too, no
// relation across the columns gives it back: only the group subtotal.
func TestAuditNestedGroupSubtotalDisclosed(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"workers", "North,N2,1,1,", "North,N2,x,1,"},
		{"workers-employees", "North,N2,1,1,", "North,N2,x,x,"},
		{"total-labels", "North,N2,1,1,", "North,N2,x,x,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := nestedH1
			if tc.name == "total-labels" {
				text = nestedH2
			}
			path := filepath.Join(t.TempDir(), "received.csv")
			if err := os.WriteFile(path, []byte(strings.Replace(text, tc.from, tc.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			code, res, out := runAudit(t, path, "--value", "count")
			if code != 1 {
				t.Errorf("exit %d, want 1:\n%s", code, out)
			}
			found := false
			for _, c := range res.Cells {
				if c.Key["Area"] != "N2" || c.Key["across"] != "Workers" {
					continue
				}
				found = true
				if !c.Exact || c.Protected || c.Lo == nil || c.Hi == nil || math.Abs(*c.Lo-1) > 1e-9 || math.Abs(*c.Hi-1) > 1e-9 {
					t.Errorf("N2 Workers not reported exactly disclosed at 1: %s", out)
				}
			}
			if !found || res.Exactly < 1 {
				t.Errorf("N2 Workers not among the exactly disclosed cells: %s", out)
			}
			for _, w := range res.Warnings {
				if strings.Contains(w, "not the sum") {
					t.Errorf("a margin that adds up is warned about: %s", w)
				}
			}
		})
	}
}
