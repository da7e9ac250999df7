package structure

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// columnTable is a one-column hierarchy without labels, codes or marks:
// rows in order, each with its values in the columns 2019 and 2020.
func columnTable(rows []string, vals [][2]int64) *audit.Table {
	t := &audit.Table{Name: "t", Dims: []string{"area", "year"}, Mode: audit.Aggregate}
	for i, r := range rows {
		for j := range 2 {
			t.Cells = append(t.Cells, &audit.Cell{Key: []string{r, fmt.Sprint(2019 + j)}, HasN: true, N: vals[i][j]})
		}
	}
	return t
}

// withheldColumnTable is columnTable with each value -1 withheld: no
// count published in that cell.
func withheldColumnTable(rows []string, vals [][2]int64) *audit.Table {
	tab := columnTable(rows, vals)
	for _, c := range tab.Cells {
		if c.N < 0 {
			c.HasN, c.N = false, 0
		}
	}
	return tab
}

// wantParents fails for each row of want whose parent in the first
// axis of res is not the one given.
func wantParents(t *testing.T, res *Result, want map[string]string) {
	t.Helper()
	p := res.Structure.Axes[0].Parent
	for c, q := range want {
		if p[c] != q {
			t.Errorf("parent of %q = %q, want %q (parents %v, warnings %q)", c, p[c], q, p, res.Warnings)
		}
	}
}

// TestBlockTree: a hierarchy in one column found by arithmetic alone:
// each row that is the sum of the run of rows right below it is their
// margin, level by level, up to the table's total (at the top, or at the
// bottom: the sum of all the others). Before, nothing was found ("no
// margins").
func TestBlockTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []string
		vals [][2]int64
		want map[string]string
	}{
		{"two levels", []string{"Nation", "Northeast", "a", "b", "c", "Midwest", "d", "e", "South", "f", "g"},
			[][2]int64{{99, 109}, {30, 33}, {10, 11}, {12, 13}, {8, 9}, {29, 31}, {14, 15}, {15, 16}, {40, 45}, {25, 30}, {15, 15}},
			map[string]string{"a": "Northeast", "c": "Northeast", "d": "Midwest", "e": "Midwest", "f": "South", "Northeast": "Nation", "Midwest": "Nation", "South": "Nation"}},
		{"three levels", []string{"Britain", "England", "North", "n1", "n2", "South", "s1", "s2", "Wales", "East", "e1", "e2", "West", "w1", "w2"},
			[][2]int64{{101, 110}, {71, 77}, {31, 33}, {11, 11}, {20, 22}, {40, 44}, {15, 14}, {25, 30}, {30, 33}, {12, 13}, {5, 6}, {7, 7}, {18, 20}, {9, 9}, {9, 11}},
			map[string]string{"n1": "North", "s2": "South", "e1": "East", "w2": "West", "North": "England", "South": "England", "East": "Wales", "West": "Wales", "England": "Britain", "Wales": "Britain"}},
		{"total last", []string{"Northeast", "a", "b", "Midwest", "d", "e", "Other", "Nation"},
			[][2]int64{{22, 24}, {10, 11}, {12, 13}, {29, 31}, {14, 15}, {15, 16}, {3, 4}, {54, 59}},
			map[string]string{"a": "Northeast", "e": "Midwest", "Northeast": "Nation", "Midwest": "Nation", "Other": "Nation"}},
	} {
		res, err := Infer(columnTable(tc.rows, tc.vals), Options{RowDims: 1, Wide: true})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Structure.Axes[0].Parent
		for c, q := range tc.want {
			if p[c] != q {
				t.Errorf("%s: parent of %q = %q, want %q (parents %v, warnings %q)", tc.name, c, p[c], q, p, res.Warnings)
			}
		}
		if len(p) != len(tc.rows)-1 {
			t.Errorf("%s: %d parents, want %d: %v", tc.name, len(p), len(tc.rows)-1, p)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("%s: warnings %q", tc.name, res.Warnings)
		}
	}
}

// TestBlockTreeAmbiguous: a run followed by a row that is zero on every
// line may end before it or after it: no hierarchy, and a warning naming
// the rows. Runs without a row that is the sum of all the others (two
// separate blocks) are no margins either, with a note.
func TestBlockTreeAmbiguous(t *testing.T) {
	rows := []string{"Nation", "Northeast", "a", "b", "z", "Midwest", "d", "e"}
	vals := [][2]int64{{51, 55}, {22, 24}, {10, 11}, {12, 13}, {0, 0}, {29, 31}, {14, 15}, {15, 16}}
	res, err := Infer(columnTable(rows, vals), Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Structure.Axes[0].Parent; len(p) > 0 {
		t.Errorf("ambiguous: parents %v", p)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `"Northeast" is the sum of the rows below it up to "b", and also with "z" (zero on every line): the hierarchy is ambiguous`) {
		t.Errorf("ambiguous: warnings %q", res.Warnings)
	}

	for _, zero := range []bool{false, true} {
		rows = []string{"Northeast", "a", "b", "Midwest", "d", "e", "Other"}
		vals = [][2]int64{{22, 24}, {10, 11}, {12, 13}, {29, 31}, {14, 15}, {15, 16}, {3, 4}}
		if zero {
			// a zero row after a run: no warning where no tree holds
			rows = append(rows[:3:3], append([]string{"z"}, rows[3:]...)...)
			vals = append(vals[:3:3], append([][2]int64{{0, 0}}, vals[3:]...)...)
		}
		res, err = Infer(columnTable(rows, vals), Options{RowDims: 1, Wide: true})
		if err != nil {
			t.Fatal(err)
		}
		if p := res.Structure.Axes[0].Parent; len(p) > 0 || len(res.Warnings) > 0 {
			t.Errorf("no total (zero row %v): parents %v, warnings %q", zero, p, res.Warnings)
		}
		if n := strings.Join(res.Structure.Notes, "\n"); !strings.Contains(n, "no row is the sum of all the others") {
			t.Errorf("no total (zero row %v): notes %q", zero, res.Structure.Notes)
		}
	}
}

// TestBlockTreeFlatLevels: hierarchies printed flat in one column (no
// labels but the total's, no codes, no indentation), three and four
// levels, subtotals above their parts or below them, the total first or
// last, labelled or not: every level is found, innermost first. Before,
// a labelled total was taken as the sum of the rows left after one pass
// (a declared one kept over every row: "published cells contradict the
// margins"), subtotals below their parts were never found, and a total
// took the subtotals of a group printed after the others (Nation = B +
// A, A's own subtotals lost: no tree).
func TestBlockTreeFlatLevels(t *testing.T) {
	// Nation = A + B; A = A1 + A2; A1 = a, b; A2 = c, d; B = e, f, g
	v := map[string][2]int64{"Nation": {100, 120}, "North": {40, 50}, "Northeast": {15, 22}, "Ayr": {10, 20}, "Bute": {5, 2}, "Northwest": {25, 28}, "Cork": {20, 20}, "Derry": {5, 8},
		"South": {60, 70}, "Essex": {25, 30}, "Fife": {20, 25}, "Gwent": {15, 15}}
	want := map[string]string{"North": "Nation", "South": "Nation", "Northeast": "North", "Northwest": "North", "Ayr": "Northeast", "Bute": "Northeast", "Cork": "Northwest", "Derry": "Northwest", "Essex": "South", "Fife": "South", "Gwent": "South"}
	for _, tc := range []struct {
		name  string
		rows  []string
		total string // the total's label
		opt   Options
	}{
		{"above, deep group last", []string{"Nation", "South", "Essex", "Fife", "Gwent", "North", "Northeast", "Ayr", "Bute", "Northwest", "Cork", "Derry"}, "Nation", Options{}},
		{"below, total last", []string{"Ayr", "Bute", "Northeast", "Cork", "Derry", "Northwest", "North", "Essex", "Fife", "Gwent", "South", "Nation"}, "Nation", Options{}},
		{"below, total first", []string{"Nation", "Ayr", "Bute", "Northeast", "Cork", "Derry", "Northwest", "North", "Essex", "Fife", "Gwent", "South"}, "Nation", Options{}},
		{"labelled, above", []string{"Total", "North", "Northeast", "Ayr", "Bute", "Northwest", "Cork", "Derry", "South", "Essex", "Fife", "Gwent"}, "Total", Options{}},
		{"declared, below", []string{"Total", "Ayr", "Bute", "Northeast", "Cork", "Derry", "Northwest", "North", "Essex", "Fife", "Gwent", "South"}, "Total", Options{TotalLabels: []string{"Total"}}},
		{"declared, below, total last", []string{"Ayr", "Bute", "Northeast", "Cork", "Derry", "Northwest", "North", "Essex", "Fife", "Gwent", "South", "Total"}, "Total", Options{TotalLabels: []string{"Total"}}},
	} {
		vals := make([][2]int64, len(tc.rows))
		for i, r := range tc.rows {
			if r == tc.total {
				r = "Nation"
			}
			vals[i] = v[r]
		}
		opt := tc.opt
		opt.RowDims, opt.Wide = 1, true
		res, err := Infer(columnTable(tc.rows, vals), opt)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Structure.Axes[0].Parent
		for c, q := range want {
			if q == "Nation" {
				q = tc.total
			}
			if p[c] != q {
				t.Errorf("%s: parent of %q = %q, want %q (parents %v, warnings %q)", tc.name, c, p[c], q, p, res.Warnings)
			}
		}
		if len(p) != len(want) || len(res.Warnings) > 0 || len(res.Structure.Unconfirmed) > 0 {
			t.Errorf("%s: parents %v, warnings %q, unconfirmed %q", tc.name, p, res.Warnings, res.Structure.Unconfirmed)
		}
	}
}

// TestBlockTreeFlatAmbiguous: rows that add up both as subtotals above
// their parts (r1 = r2 + r3) and as subtotals below them (r5 = r3 + r4),
// each tree closing under the total: no hierarchy is used, a warning says
// why, and the total (or the margins found) are unconfirmed, so that the
// audit calls no withheld cell protected.
func TestBlockTreeFlatAmbiguous(t *testing.T) {
	rows := []string{"r1", "r2", "r3", "r4", "r5"}
	vals := [][2]int64{{5, 7}, {2, 3}, {3, 4}, {2, 3}, {5, 7}}
	for _, total := range []string{"Total", "All areas"} {
		for _, declared := range []bool{false, true} {
			opt := Options{RowDims: 1, Wide: true}
			if declared {
				opt.TotalLabels = []string{total}
			}
			res, err := Infer(columnTable(append([]string{total}, rows...), append([][2]int64{{12, 17}}, vals...)), opt)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s (declared %v)", total, declared)
			p := res.Structure.Axes[0].Parent
			if p["r2"] != "" || p["r3"] != "" || p["r4"] != "" {
				t.Errorf("%s: parents %v", what, p)
			}
			if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "above their parts") || !strings.Contains(w, "ambiguous") {
				t.Errorf("%s: warnings %q", what, res.Warnings)
			}
			if len(res.Structure.Unconfirmed) == 0 {
				t.Errorf("%s: nothing unconfirmed", what)
			}
		}
	}
}

// TestRepeatedRowOneMargin: a row printed twice (Options.Repeats, the
// reader's WideLayout.Repeats) takes no part in the searches and is then
// the margin of the row it repeats, in that row's place: the grand total
// at the bottom is the margin of the one at the top; a repeated subtotal
// stands between its row and the row's margin. A copy that differs is no
// relation, with a warning, and unconfirmed. Before, the copy was a row
// like the others: the total was not the sum of the rest.
func TestRepeatedRowOneMargin(t *testing.T) {
	rows := []string{"Total", "North", "Ayr", "Bute", "South", "Essex", "Fife", "North (row 9)", "Total (row 10)"}
	vals := [][2]int64{{100, 120}, {40, 50}, {10, 20}, {30, 30}, {60, 70}, {25, 30}, {35, 40}, {40, 50}, {100, 120}}
	opt := Options{RowDims: 1, Wide: true, TotalLabels: []string{"Total"}, Repeats: map[string]map[string]string{"area": {"Total (row 10)": "Total", "North (row 9)": "North"}}}
	res, err := Infer(columnTable(rows, vals), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Total": "Total (row 10)", "North": "North (row 9)", "North (row 9)": "Total", "South": "Total", "Ayr": "North", "Essex": "South"}
	wantParents(t, res, want)
	if len(res.Warnings) > 0 || len(res.Structure.Unconfirmed) > 0 {
		t.Errorf("warnings %q, unconfirmed %q", res.Warnings, res.Structure.Unconfirmed)
	}
	vals[8] = [2]int64{101, 120}
	if res, err = Infer(columnTable(rows, vals), opt); err != nil {
		t.Fatal(err)
	}
	if p := res.Structure.Axes[0].Parent; p["Total"] != "" || !strings.Contains(strings.Join(res.Warnings, "\n"), `"Total (row 10)" repeats the row "Total" but differs from it`) || len(res.Structure.Unconfirmed) != 1 {
		t.Errorf("differing copy: parents %v, warnings %q, unconfirmed %q", p, res.Warnings, res.Structure.Unconfirmed)
	}
}

// TestSecondTotalNoLineBoth: two labelled totals ("Total" withheld on
// every line, "All people" published) are one total published twice:
// nothing published tells them apart. Before, the second was "not used
// as a margin" (they "differ"), and the audit called the withheld Total
// and Men cells protected where All people gives them back.
func TestSecondTotalNoLineBoth(t *testing.T) {
	tab := withheldColumnTable([]string{"Total", "Men", "Women", "All people"}, [][2]int64{{-1, -1}, {-1, 98}, {118, 102}, {120, 200}})
	res, err := Infer(tab, Options{RowDims: 1, Wide: true, TotalLabels: []string{"Total"}})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Structure.Axes[0].Parent
	if p["Total"] != "All people" || p["Men"] != "Total" {
		t.Errorf("parents %v, warnings %q", p, res.Warnings)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "read as one total published twice") {
		t.Errorf("warnings %q", res.Warnings)
	}
}
