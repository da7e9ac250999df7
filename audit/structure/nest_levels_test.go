package structure

import (
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// threeLevels is a wide table of nested rows Country > Region > Area with
// a subtotal row in each region and each country, and a grand total row,
// in columns a and b.
func threeLevels(vals map[string][2]int64) (*audit.Table, []string) {
	rows := [][3]string{
		{"England", "North", "N1"}, {"England", "North", "N2"}, {"England", "North", "All North"},
		{"England", "South", "S1"}, {"England", "South", "S2"}, {"England", "South", "All South"},
		{"England", "All England", "All England"},
		{"Wales", "East", "E1"}, {"Wales", "East", "E2"}, {"Wales", "East", "All East"},
		{"Wales", "West", "W1"}, {"Wales", "West", "W2"}, {"Wales", "West", "Total West"},
		{"Wales", "Wales total", ""},
		{"Total", "Total", "Total"},
	}
	tab := &audit.Table{Name: "t", Dims: []string{"Country", "Region", "Area", "across"}, Mode: audit.Aggregate}
	var codes []string
	for _, r := range rows {
		code := r[0] + "\x1f" + r[1] + "\x1f" + r[2]
		codes = append(codes, code)
		v := vals[r[2]]
		if r[2] == "" || r[2] == r[1] || r[2] == "Total" {
			v = vals[r[1]]
		}
		for j, c := range []string{"a", "b"} {
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{r[0], r[1], r[2], c}, HasN: true, N: v[j]})
		}
	}
	return tab, codes
}

var threeVals = map[string][2]int64{
	"N1": {12, 8}, "N2": {1, 1}, "All North": {13, 9}, "S1": {40, 30}, "S2": {25, 20}, "All South": {65, 50}, "All England": {78, 59},
	"E1": {5, 4}, "E2": {6, 2}, "All East": {11, 6}, "W1": {7, 3}, "W2": {8, 1}, "Total West": {15, 4}, "Wales total": {26, 10},
	"Total": {104, 69},
}

// TestNestedSubtotalsEveryLevel: with three nested label columns, the
// subtotals of every level are margins confirmed by arithmetic: each
// region's of its areas, each country's ("All England", "Wales total"
// with its Area blank) of its regions' subtotals, and the grand total of
// the countries'. Before, only the regions' subtotals were found: the
// countries' subtotals were read as details of groups of their own, and
// the grand total was not the sum of the roots (no margin of it).
func TestNestedSubtotalsEveryLevel(t *testing.T) {
	tab, codes := threeLevels(threeVals)
	res, err := Infer(tab, Options{RowDims: 3, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	if len(ax.Dims) != 3 {
		t.Fatalf("axes %+v", res.Structure.Axes)
	}
	want := map[int]int{0: 2, 1: 2, 3: 5, 4: 5, 2: 6, 5: 6, 7: 9, 8: 9, 10: 12, 11: 12, 9: 13, 12: 13, 6: 14, 13: 14}
	for c, p := range want {
		if got := ax.Parent[codes[c]]; got != codes[p] {
			t.Errorf("parent of %q is %q, want %q", audit.CodeText(codes[c]), audit.CodeText(got), audit.CodeText(codes[p]))
		}
	}
	if len(ax.Parent) != len(want) {
		t.Errorf("%d parents, want %d: %v", len(ax.Parent), len(want), ax.Parent)
	}
	if f := ax.Found[codes[6]]; !strings.Contains(f, "subtotal of its group's subtotals") {
		t.Errorf("All England found %q", f)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestNestedSubtotalOuterNotSum: a country's subtotal one off the sum of
// its regions' subtotals is a warning with the difference and no margin;
// the regions' subtotals are still margins of their areas, and the grand
// total the margin of England's subtotal and Wales's regions' subtotals.
func TestNestedSubtotalOuterNotSum(t *testing.T) {
	vals := map[string][2]int64{}
	for k, v := range threeVals {
		vals[k] = v
	}
	vals["Wales total"] = [2]int64{27, 10}
	tab, codes := threeLevels(vals)
	res, err := Infer(tab, Options{RowDims: 3, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	if ax.IsMarginCode(codes[13]) || ax.Parent[codes[13]] != "" {
		t.Errorf("Wales total used: parents %v", ax.Parent)
	}
	if ax.Parent[codes[7]] != codes[9] || ax.Parent[codes[9]] != codes[14] || ax.Parent[codes[12]] != codes[14] || ax.Parent[codes[6]] != codes[14] {
		t.Errorf("parents %v", ax.Parent)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `"Wales / Wales total / " reads as the total of its group but is not the sum`) || !strings.Contains(w, "difference 1") {
		t.Errorf("warnings %q", res.Warnings)
	}
}
