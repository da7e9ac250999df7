package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// specTable is a hand structure written as the review's specs: "col R =
// A + B @ c1-c2" says row R is the sum of rows A, B in columns c1..c2;
// "row C = A + B @ r1-r2" says column C is the sum of columns A, B in
// rows r1..r2 (CSV line and column, 1-based). The body is rows 2..rows,
// columns 2..cols.
func specTable(t *testing.T, id string, rows, cols int, spec string) handTable {
	t.Helper()
	h := handTable{id: id}
	for r := 2; r <= rows; r++ {
		for c := 2; c <= cols; c++ {
			h.cells = append(h.cells, pos{r, c})
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		var kind, rng string
		var sum int
		head, rest, _ := strings.Cut(line, "=")
		if _, err := fmt.Sscan(head, &kind, &sum); err != nil {
			t.Fatalf("spec %q: %v", line, err)
		}
		partsText, rng, _ := strings.Cut(rest, "@")
		lohi := strings.Split(strings.TrimSpace(rng), "-")
		lo, _ := strconv.Atoi(lohi[0])
		hi, _ := strconv.Atoi(lohi[1])
		var parts []int
		for _, p := range strings.Split(partsText, "+") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil {
				t.Fatalf("spec %q: %v", line, err)
			}
			parts = append(parts, n)
		}
		for k := lo; k <= hi; k++ {
			at := func(i int) pos {
				if kind == "col" {
					return pos{i, k}
				}
				return pos{k, i}
			}
			rel := []relTerm{{at(sum), 1}}
			for _, p := range parts {
				rel = append(rel, relTerm{at(p), -1})
			}
			h.rels = append(h.rels, rel)
		}
	}
	return h
}

// specAttack attacks the withheld cells ("x") of published (a CSV text
// with the table's layout) over h with gonum's simplex; truth holds the
// true values where the test knows them.
func specAttack(t *testing.T, h handTable, published [][]string) map[pos]*attackCell {
	t.Helper()
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	for _, p := range h.cells {
		s := strings.TrimSpace(published[p.row-1][p.col-1])
		if s == "x" {
			withheld[p] = &attackCell{at: p, need: true}
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: cell %v: %v", h.id, p, err)
		}
		known[p] = v
	}
	h.attack(t, known, withheld)
	return withheld
}

// The review's tables (rv-inputs/indent): a hierarchy in one column
// confirmed by indentation for one block only (mixcase: MANUFACTURING's
// parts indented, SERVICES' not; mixtab: SERVICES' parts indented by a
// tab), and a block indented by tabs under a space-indented parent
// (tabtotal).
const (
	mixcaseText = "Industry,Men,Women,Total\nMANUFACTURING,40,44,84\n  Food,39,30,69\n  Textiles,1,14,15\nSERVICES,61,66,127\nRetail,1,33,34\nTransport,60,33,93\n"
	mixcaseSpec = "col 2 = 3 + 4 @ 2-4\ncol 5 = 6 + 7 @ 2-4\nrow 4 = 2 + 3 @ 2-7"
	mixtabText  = "Industry,Men,Women,Total\nMANUFACTURING,40,44,84\n  Food,39,30,69\n  Textiles,1,14,15\nSERVICES,61,66,127\n\tRetail,1,33,34\n\tTransport,60,33,93\n"
	tabtotText  = "Industry,Men,Women,Total\nWhole economy,101,110,211\n  Manufacturing,40,44,84\n    Food,39,30,69\n    Textiles,1,14,15\n  Services,61,66,127\n\tRetail,1,33,34\n\tTransport,60,33,93\n"
	tabtotSpec  = "col 3 = 4 + 5 @ 2-4\ncol 6 = 7 + 8 @ 2-4\ncol 2 = 3 + 6 @ 2-4\nrow 4 = 2 + 3 @ 2-8"
)

// TestIndentPartOfColumnProtect: `check` of the review's tables; gonum's
// simplex over the true structure finds no withheld cell of the safe
// table known to within 1. Before, indentation confirmed for
// MANUFACTURING alone kept the other finders from running (case found
// SERVICES before), and a leading tab was no indentation: SERVICES had
// no parts and 61 - 60 gave Retail/Men = 1 back (review findings F3,
// F4).
func TestIndentPartOfColumnProtect(t *testing.T) {
	for _, tc := range []struct {
		id, text, spec string
		rows           int
	}{
		{"mixcase", mixcaseText, mixcaseSpec, 7},
		{"mixtab", mixtabText, mixcaseSpec, 7},
		{"tabtotal", tabtotText, tabtotSpec, 8},
	} {
		_, rows, _, _ := checkCSV(t, tc.text, "--value", "count")
		h := specTable(t, tc.id, tc.rows, 4, tc.spec)
		if len(rows) != tc.rows {
			t.Fatalf("%s: safe table has %d rows", tc.id, len(rows))
		}
		w := specAttack(t, h, rows)
		if w[pos{tc.rows - 1, 2}] == nil {
			t.Errorf("%s: Retail/Men (1) is published: %q", tc.id, rows)
		}
		for p, c := range w {
			if c.hi-c.lo < 1-1e-9 {
				t.Errorf("%s: withheld cell %v recoverable from the safe table: [%g, %g]", tc.id, p, c.lo, c.hi)
			}
		}
	}
}

// TestIndentReceivedVerdicts: `audit` of received tables; each cell the
// audit calls protected has an interval of width 1 or more by gonum's
// simplex over the true structure, and each it calls exactly disclosed
// is exact there. correct_recv (CSV; a workbook with leading spaces):
// Owner occupied 63 over Owned outright 60 and a withheld mortgage:
// exactly disclosed (3), exit 1. tenure_recv: the indentation lies (All
// households over Owner occupied and Rented, not Tenure not stated): no
// cell called protected, exit 1. Before, correct_recv's mortgage was
// "[0, unbounded] protected" (partial() wanted two published parts) and
// every cell of tenure_recv was "protected" (a false margin kept, the
// true one rejected), exit 0 both (review findings F1, F2).
func TestIndentReceivedVerdicts(t *testing.T) {
	correct := "Tenure,Households\nAll households,74\n  Owner occupied,63\n    Owned outright,60\n    Buying with mortgage,x\n  Rented,11\n    Social rented,5\n    Private rented,x\n    Housing association,x\n    Other rented,2\n"
	tenure := "Tenure,Households,Persons\nAll households,592,1466\n  Owner occupied,500,1200\n    Owned outright,300,700\n    Buying with mortgage,200,500\n  Rented,91,264\n    Social rented,x,x\n    Private rented,40,140\n    Other rented,1,4\n    Tenure not stated,x,x\n"
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		id, path, text string
		h              handTable
		exact          int
	}{
		{"correct_recv.csv", write("correct_recv.csv", correct), correct, specTable(t, "correct", 10, 2, "col 2 = 3 + 6 @ 2-2\ncol 3 = 4 + 5 @ 2-2\ncol 6 = 7 + 8 + 9 + 10 @ 2-2"), 1},
		{"correct_recv.xlsx", indentedXLSX(t, correct, true), correct, specTable(t, "correct", 10, 2, "col 2 = 3 + 6 @ 2-2\ncol 3 = 4 + 5 @ 2-2\ncol 6 = 7 + 8 + 9 + 10 @ 2-2"), 1},
		{"tenure_recv.csv", write("tenure_recv.csv", tenure), tenure, specTable(t, "tenure", 10, 3, "col 2 = 3 + 6 + 10 @ 2-3\ncol 3 = 4 + 5 @ 2-3\ncol 6 = 7 + 8 + 9 @ 2-3"), 0},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"audit", tc.path, "--value", "count", "--json"}, &stdout, &stderr)
		var res auditResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("%s: exit %d, %v:\n%s%s", tc.id, code, err, stdout.String(), stderr.String())
		}
		if code != 1 {
			t.Errorf("%s: exit %d, want 1:\n%s", tc.id, code, stdout.String())
		}
		w := specAttack(t, tc.h, readCSVText(t, tc.text))
		label := map[string]int{}
		for i, r := range readCSVText(t, tc.text) {
			label[strings.TrimSpace(r[0])] = i + 1
		}
		hdr := readCSVText(t, tc.text)[0]
		exact := 0
		for _, c := range res.Cells {
			col := 0
			for j, name := range hdr {
				if name == c.Key["across"] {
					col = j + 1
				}
			}
			a := w[pos{label[c.Key["Tenure"]], col}]
			if a == nil {
				t.Fatalf("%s: cell %v not withheld", tc.id, c.Key)
			}
			if c.Exact {
				exact++
			}
			if c.Protected && a.hi-a.lo < 1-1e-9 {
				t.Errorf("%s: %v called protected, [%g, %g] over the true structure", tc.id, c.Key, a.lo, a.hi)
			}
			if c.Exact && a.hi-a.lo > 1e-9 {
				t.Errorf("%s: %v called exact, [%g, %g] over the true structure", tc.id, c.Key, a.lo, a.hi)
			}
		}
		if exact != tc.exact || len(res.Cells) != len(w) {
			t.Errorf("%s: %d exact of %d cells, want %d of %d: %+v", tc.id, exact, len(res.Cells), tc.exact, len(w), res.Cells)
		}
	}
}
