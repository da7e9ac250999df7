package structure

import (
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// nestedRows is a wide table of nested rows Region > Area with a
// subtotal row in each group and a grand total row, in columns a and b.
func nestedRows(rows [][3]string, vals [][2]int64) *audit.Table {
	tab := &audit.Table{Name: "t", Dims: []string{"Region", "Area", "across"}, Mode: audit.Aggregate}
	for i, r := range rows {
		for j, c := range []string{"a", "b"} {
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{r[0], r[1], c}, HasN: true, N: vals[i][j]})
		}
	}
	return tab
}

// TestNestedGroupSubtotals: within each group of nested rows, a detail
// labelled as the group's total ("All North", "Total", "North total",
// "Total South") is the margin of the group's details when it adds up,
// and the grand total row (every label a total) the margin of the group
// subtotals. Before, "All North" was read as an ordinary area, the grand
// total as the sum of all six rows (not used), and no margin was found.
func TestNestedGroupSubtotals(t *testing.T) {
	vals := [][2]int64{{12, 8}, {1, 1}, {13, 9}, {40, 30}, {25, 20}, {65, 50}, {78, 59}}
	for _, names := range [][3]string{
		{"All North", "All South", "All regions"},
		{"Total", "Total", "Total"},
		{"North total", "Total South", "Total"},
	} {
		rows := [][3]string{{"North", "N1"}, {"North", "N2"}, {"North", names[0]}, {"South", "S1"}, {"South", "S2"}, {"South", names[1]}, {names[2], names[2]}}
		res, err := Infer(nestedRows(rows, vals), Options{RowDims: 2, Wide: true})
		if err != nil {
			t.Fatal(err)
		}
		ax := res.Structure.Axes[0]
		if len(ax.Dims) != 2 {
			t.Fatalf("%v: axes %+v", names, res.Structure.Axes)
		}
		code := func(r int) string { return rows[r][0] + "\x1f" + rows[r][1] }
		want := map[int]int{0: 2, 1: 2, 3: 5, 4: 5, 2: 6, 5: 6}
		for c, p := range want {
			if got := ax.Parent[code(c)]; got != code(p) {
				t.Errorf("%v: parent of %q is %q, want %q", names, code(c), got, code(p))
			}
		}
		if len(res.Warnings) > 0 {
			t.Errorf("%v: warnings %q", names, res.Warnings)
		}
	}
}

// TestNestedGroupSubtotalNotSum: a labelled group subtotal that is not
// the sum of its group's details is a warning with the difference, no
// margin and no part of the grand total (which is then the sum of
// North's areas and South's subtotal, a true relation); the other group's subtotal is
// still found, and nothing is refused.
func TestNestedGroupSubtotalNotSum(t *testing.T) {
	rows := [][3]string{{"North", "N1"}, {"North", "N2"}, {"North", "All North"}, {"South", "S1"}, {"South", "S2"}, {"South", "All South"}, {"All regions", "All regions"}}
	vals := [][2]int64{{12, 8}, {1, 1}, {14, 9}, {40, 30}, {25, 20}, {65, 50}, {78, 59}}
	res, err := Infer(nestedRows(rows, vals), Options{RowDims: 2, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	if ax.Parent["North\x1fN1"] == "North\x1fAll North" || ax.IsMarginCode("North\x1fAll North") {
		t.Errorf("North's subtotal used as a margin: %v", ax.Parent)
	}
	if ax.Parent["South\x1fS1"] != "South\x1fAll South" {
		t.Errorf("South's subtotal not found: %v", ax.Parent)
	}
	if ax.Parent["North\x1fN1"] != "All regions\x1fAll regions" || ax.Parent["South\x1fAll South"] != "All regions\x1fAll regions" {
		t.Errorf("grand total not the margin of North's areas and South's subtotal: %v", ax.Parent)
	}
	w := strings.Join(res.Warnings, "\n")
	if !strings.Contains(w, `"North / All North" reads as the total of its group but is not the sum`) || !strings.Contains(w, "difference 1") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestNestedGroupSubtotalRounded: in a table rounded to base 5
// (input.rounded), a group subtotal within the rounding of its group's
// details is its margin, found "within rounding"; without the base it is
// a warning with the difference, never a refusal.
func TestNestedGroupSubtotalRounded(t *testing.T) {
	rows := [][3]string{{"North", "N1"}, {"North", "N2"}, {"North", "All North"}, {"South", "S1"}, {"South", "S2"}, {"South", "All South"}, {"All regions", "All regions"}}
	vals := [][2]int64{{10, 5}, {5, 5}, {20, 10}, {40, 30}, {25, 20}, {65, 50}, {85, 60}}
	res, err := Infer(nestedRows(rows, vals), Options{RowDims: 2, Wide: true, Rounded: decimal.FromInt(5)})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	if ax.Parent["North\x1fN1"] != "North\x1fAll North" || !strings.Contains(ax.Found["North\x1fAll North"], "within rounding") {
		t.Errorf("rounded: parents %v, found %v, warnings %q", ax.Parent, ax.Found, res.Warnings)
	}
	res, err = Infer(nestedRows(rows, vals), Options{RowDims: 2, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `"North / All North" reads as the total of its group but is not the sum`) || !strings.Contains(w, "difference 5") {
		t.Errorf("not rounded: warnings %q", res.Warnings)
	}
}
