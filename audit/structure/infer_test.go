package structure

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func TestIsTotalLabel(t *testing.T) {
	for s, want := range map[string]bool{
		"Total": true, "Mothers All ages": true, "Fathers All ages [note 3]": true, "All persons": true,
		"Both sexes": true, "All": true, "Total employees": true, "All other services": false,
		"Subtotal": false, "Under 20": false, "Persons": true, "North East": false,
	} {
		if got := IsTotalLabel(s); got != want {
			t.Errorf("IsTotalLabel(%q) = %v, want %v", s, got, want)
		}
	}
}

// counts makes a one-dimensional count table of codes and values.
func counts(dim string, codes []string, n []int64) *audit.Table {
	t := &audit.Table{Name: "t", Dims: []string{dim}, Mode: audit.Aggregate}
	for i, c := range codes {
		t.Cells = append(t.Cells, &audit.Cell{Key: []string{c}, HasN: true, N: n[i]})
	}
	return t
}

// TestLabelledTotalNotAdding: a total by label that is not the sum of
// the others is a warning with the difference and no margin; declared
// (total_label) it stays a margin, with a warning.
func TestLabelledTotalNotAdding(t *testing.T) {
	tab := counts("age", []string{"All ages", "0-15", "16-64", "65+"}, []int64{100, 20, 50, 25})
	res, err := Infer(tab, Options{TotalLabels: []string{"Total"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Structure.Margins || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "difference 5") {
		t.Errorf("margins %v warnings %q", res.Structure.Margins, res.Warnings)
	}
	res, err = Infer(tab, Options{Totals: map[string][]string{"age": {"All ages"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Structure.Margins || len(res.Warnings) != 1 || res.Structure.Axes[0].Found["All ages"] != "configuration" {
		t.Errorf("declared: margins %v warnings %q", res.Structure.Margins, res.Warnings)
	}
}

// TestSubtotalsByArithmetic: a total over groups with their subtotals in
// the same column is found, the subtotals by arithmetic.
func TestSubtotalsByArithmetic(t *testing.T) {
	tab := counts("area", []string{"Total", "NORTH", "a1", "a2", "SOUTH", "b1", "b2", "b3"}, []int64{60, 25, 10, 15, 35, 5, 20, 10})
	res, err := Infer(tab, Options{TotalLabels: []string{"Total"}})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Structure.Axes[0].Parent
	want := map[string]string{"NORTH": "Total", "SOUTH": "Total", "a1": "NORTH", "a2": "NORTH", "b1": "SOUTH", "b2": "SOUTH", "b3": "SOUTH"}
	for c, q := range want {
		if p[c] != q {
			t.Errorf("parent of %s = %q, want %q (warnings %q)", c, p[c], q, res.Warnings)
		}
	}
}

// TestGSSTree: GSS codes give the levels; a county holds its districts
// only.
func TestGSSTree(t *testing.T) {
	codes := []string{"E12000006 East of England", "E10000003 Cambridgeshire", "E07000008 Cambridge", "E07000009 East Cambridgeshire", "E06000031 Peterborough"}
	p := gssTree(codes)
	want := map[string]string{codes[1]: codes[0], codes[2]: codes[1], codes[3]: codes[1], codes[4]: codes[0]}
	for c, q := range want {
		if p[c] != q {
			t.Errorf("parent of %s = %q, want %q", c, p[c], q)
		}
	}
}

// TestNestedRows: rows that are not every combination of two label
// columns are one axis, whose total is found by arithmetic over every
// row even when printed beside one group.
func TestNestedRows(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"reg", "father", "mother"}, Mode: audit.Aggregate}
	rows := [][3]any{{"Joint", "Fathers All ages", []int64{10, 4, 6}}, {"Joint", "Under 20", []int64{3, 1, 2}}, {"Joint", "20+", []int64{5, 2, 3}}, {"Sole", "Not named", []int64{2, 1, 1}}}
	for _, r := range rows {
		for j, m := range []string{"Mothers All ages", "Under 20", "20+"} {
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{r[0].(string), r[1].(string), m}, HasN: true, N: r[2].([]int64)[j]})
		}
	}
	res, err := Infer(tab, Options{TotalLabels: []string{"Total"}, RowDims: 2, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Structure
	if len(st.Axes) != 2 || len(st.Axes[0].Dims) != 2 {
		t.Fatalf("axes %+v", st.Axes)
	}
	if p := st.Axes[0].Parent["Sole\x1fNot named"]; p != "Joint\x1fFathers All ages" {
		t.Errorf("parent of the sole row %q", p)
	}
	if st.Axes[1].Parent["20+"] != "Mothers All ages" {
		t.Errorf("mothers' total not found: %+v", st.Axes[1])
	}
}

// TestSecondTotal: a second labelled total equal to the first is its
// margin (published beside a withheld first, it gives it away).
func TestSecondTotal(t *testing.T) {
	tab := counts("sex", []string{"Persons", "Male", "Female", "Total"}, []int64{30, 10, 20, 30})
	res, err := Infer(tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Structure.Axes[0].Parent
	if p["Male"] != "Persons" || p["Persons"] != "Total" {
		t.Errorf("parents %v, warnings %q", p, res.Warnings)
	}
}

// TestUpperCaseParents: upper-case codes that are the sum of the codes
// below them are their margins, without a total.
func TestUpperCaseParents(t *testing.T) {
	tab := counts("area", []string{"NORTH", "Leeds", "York", "SOUTH", "Bath", "Bristol"}, []int64{25, 10, 15, 35, 5, 30})
	res, err := Infer(tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Structure.Axes[0].Parent
	if p["Leeds"] != "NORTH" || p["York"] != "NORTH" || p["Bristol"] != "SOUTH" || !res.Structure.Margins {
		t.Errorf("parents %v", p)
	}
}

// TestDerivedDifferenceSigned: Balance = Exports − Imports on every line
// and negative somewhere: Balance may be negative (Axis.Signed) and the
// difference is the relation Exports = Imports + Balance; no area is
// signed, and the parts of no sum of non-negative parts are balances
// (issue 24, item 2).
func TestDerivedDifferenceSigned(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"area", "flow"}, Mode: audit.Aggregate}
	for _, r := range []struct {
		a    string
		i, e int64
	}{{"North", 10, 7}, {"South", 4, 9}, {"East", 6, 6}} {
		for _, f := range []struct {
			k string
			v int64
		}{{"Imports", r.i}, {"Exports", r.e}, {"Balance", r.e - r.i}} {
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{r.a, f.k}, HasTotal: true, Total: decimal.FromInt(f.v)})
		}
	}
	res, err := Infer(tab, Options{RowDims: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Structure
	flow := st.Axes[1]
	if _, ok := flow.Signed["Balance"]; !ok || len(flow.Signed) != 1 || len(st.Axes[0].Signed) != 0 {
		t.Errorf("signed: area %v, flow %v", st.Axes[0].Signed, flow.Signed)
	}
	if flow.Parent["Balance"] != "Exports" || flow.Parent["Imports"] != "Exports" || !st.Margins {
		t.Errorf("want Exports = Imports + Balance: %+v", flow)
	}
	if !st.IsSigned([]string{"North", "Balance"}) || st.IsSigned([]string{"North", "Imports"}) {
		t.Errorf("IsSigned wrong")
	}
	// the negative balance withheld: no negative value left, nothing is
	// signed, and a balance is still no part of a sum
	for _, c := range tab.Cells {
		if c.Key[1] == "Balance" && c.Total.Sign() < 0 {
			c.HasTotal = false
		}
	}
	res, err = Infer(tab, Options{RowDims: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Structure.Margins {
		t.Errorf("a balance read as a part of a margin: %+v", res.Structure.Axes)
	}
}

// TestNegativeValuesSigned: negative values that no difference explains
// sign the codes of the axis where they fall in the fewest codes.
func TestNegativeValuesSigned(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"area", "item"}, Mode: audit.Aggregate}
	for _, a := range []string{"North", "South", "East"} {
		for k, it := range []string{"Sales", "Stocks", "Change in stocks"} {
			v := int64(10 + k)
			if it == "Change in stocks" && a != "East" {
				v = -3
			}
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{a, it}, HasTotal: true, Total: decimal.FromInt(v)})
		}
	}
	res, err := Infer(tab, Options{RowDims: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Structure
	if len(st.Axes[0].Signed) != 0 || len(st.Axes[1].Signed) != 1 || st.Axes[1].Signed["Change in stocks"] == "" {
		t.Errorf("signed: area %v, item %v", st.Axes[0].Signed, st.Axes[1].Signed)
	}
}

// TestRoundedTotalMargin: with the rounding base confirmed
// (input.rounded), a labelled total within (n+1)·B/2 of its n parts is a
// margin "within rounding"; a miss beyond the rounding is not; without
// the base it is unconfirmed (no margin, the audit cannot confirm).
func TestRoundedTotalMargin(t *testing.T) {
	tab := counts("age", []string{"All ages", "0-15", "16-64", "65+"}, []int64{96, 20, 50, 25})
	res, err := Infer(tab, Options{Rounded: decimal.FromInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	if !res.Structure.Margins || ax.Found["All ages"] != "label, within rounding" || ax.Parent["0-15"] != "All ages" {
		t.Errorf("found %v, parents %v, warnings %q", ax.Found, ax.Parent, res.Warnings)
	}
	// 98 − 95 = 3 > (3+1)·1/2
	tab = counts("age", []string{"All ages", "0-15", "16-64", "65+"}, []int64{98, 20, 50, 25})
	if res, err = Infer(tab, Options{Rounded: decimal.FromInt(1)}); err != nil {
		t.Fatal(err)
	}
	if res.Structure.Margins {
		t.Errorf("a total 3 off its parts read as a margin within the rounding of base 1")
	}
	tab = counts("age", []string{"All ages", "0-15", "16-64", "65+"}, []int64{96, 20, 50, 25})
	if res, err = Infer(tab, Options{}); err != nil {
		t.Fatal(err)
	}
	if res.Structure.Margins || len(res.Structure.Unconfirmed) != 1 || !strings.Contains(res.Warnings[0], "input.rounded: 1") {
		t.Errorf("unconfirmed %q, warnings %q", res.Structure.Unconfirmed, res.Warnings)
	}
}

// TestRoundedTotalWarning: a labelled total off by no more than the
// rounding of its parts says that the table looks rounded.
func TestRoundedTotalWarning(t *testing.T) {
	tab := counts("age", []string{"All ages", "0-15", "16-64", "65+"}, []int64{96, 20, 50, 25})
	res, err := Infer(tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Structure.Margins || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "difference 1, within the rounding of 3 parts") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestBlockWorkBound: the search for subtotals stops at its work bound
// and says so; the structure found is the same at any load.
func TestBlockWorkBound(t *testing.T) {
	codes := []string{"Total"}
	n := []int64{0}
	for i := range 400 {
		codes = append(codes, fmt.Sprintf("c%03d", i))
		v := int64(i%7 + 1)
		if i == 0 {
			v = 1_000_000 // no block below it ever exceeds it
		}
		n = append(n, v)
		n[0] += v
	}
	n[0]++ // the total does not add up: subtotals are searched
	res, err := Infer(counts("k", codes, n), Options{TotalLabels: []string{"Total"}, MaxBlockWork: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Structure.Notes, func(s string) bool { return strings.Contains(s, "work bound") }) {
		t.Errorf("notes %q", res.Structure.Notes)
	}
}

// TestRatioLabel: percentages, rates and shares are no parts of a
// margin; words that merely contain "ratio" or "rate" are.
func TestRatioLabel(t *testing.T) {
	for code, want := range map[string]bool{
		"Percentage to/from the EU": true, "Employment rate": true, "Share of total": true, "CV (%)": true,
		"Sole registration": false, "Joint registration": false, "Corporate": false, "Separated": false, "Migration": false,
	} {
		if got := ratioLabel(code); got != want {
			t.Errorf("ratioLabel(%q) = %v, want %v", code, got, want)
		}
	}
}
