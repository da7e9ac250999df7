package main

import (
	"testing"
)

// columnHierarchy is a hierarchy in one column without labels, codes or
// marks: each subtotal row followed by its parts, the nation first.
const columnHierarchy = "Area,Men,Women\n" +
	"Nation,99,109\nNortheast,30,33\nAlpha,10,11\nBravo,1,13\nCharlie,19,9\n" +
	"Midwest,29,31\nDelta,14,15\nEcho,15,16\nSouth,40,45\nFoxtrot,25,30\nGolf,15,15\n"

// TestColumnHierarchyProtect: the safe table of columnHierarchy withholds
// Bravo's count of 1, and gonum's simplex over the structure a person sees
// (written here by hand, CSV line and column: in each column Northeast =
// Alpha + Bravo + Charlie, Midwest = Delta + Echo, South = Foxtrot +
// Golf, Nation = the three regions)
// finds no withheld cell known to within 1. Before the hierarchy was
// found by arithmetic, the table had no margins and Bravo was withheld
// alone: Northeast - Alpha - Charlie gives it back.
func TestColumnHierarchyProtect(t *testing.T) {
	_, rows, _, _ := checkCSV(t, columnHierarchy, "--value", "count")
	orig := readCSVText(t, columnHierarchy)
	if len(rows) != len(orig) {
		t.Fatalf("safe table has %d rows, input %d", len(rows), len(orig))
	}
	h := handTable{id: "column"}
	for r := 2; r <= 12; r++ {
		for c := 2; c <= 3; c++ {
			h.cells = append(h.cells, pos{r, c})
		}
	}
	for c := 2; c <= 3; c++ {
		h.rels = append(h.rels,
			[]relTerm{{pos{3, c}, 1}, {pos{4, c}, -1}, {pos{5, c}, -1}, {pos{6, c}, -1}},
			[]relTerm{{pos{7, c}, 1}, {pos{8, c}, -1}, {pos{9, c}, -1}},
			[]relTerm{{pos{10, c}, 1}, {pos{11, c}, -1}, {pos{12, c}, -1}},
			[]relTerm{{pos{2, c}, 1}, {pos{3, c}, -1}, {pos{7, c}, -1}, {pos{10, c}, -1}})
	}
	h.attackSafe(t, orig, rows, pos{5, 2})
}
