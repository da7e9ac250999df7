package structure

import (
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// absCodes are ABS series descriptions as the reader gives them (the
// published double spaces collapsed): a total, two parts, each with two
// parts marked by '>'.
var absCodes = []string{
	"Hours worked ;", "Hours worked ; Market ;", "Hours worked ; > Agriculture ;", "Hours worked ; > Rest of Market ;",
	"Hours worked ; Non-market ;", "Hours worked ; > Education ;", "Hours worked ; > Rest of Non-market ;",
}

// absTable is a time series of the seven series over periods: values by
// period, in absCodes order.
func absTable(t *testing.T, rows map[string][7]string) *audit.Table {
	t.Helper()
	tab := &audit.Table{Name: "Data1", Dims: []string{"period", "series"}, Mode: audit.Aggregate}
	for _, p := range []string{"1984-12", "1985-03"} {
		for i, c := range absCodes {
			v, err := decimal.Parse(rows[p][i])
			if err != nil {
				t.Fatal(err)
			}
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{p, c}, HasTotal: true, Total: v})
		}
	}
	return tab
}

// TestABSTree: the parent of each ABS series by its description, the
// nearest coarser series of the same data item above it; codes that are
// not all ABS descriptions, or of several data items side by side
// without a total, give no tree.
func TestABSTree(t *testing.T) {
	p := absTree(absCodes)
	want := map[string]string{
		absCodes[1]: absCodes[0], absCodes[2]: absCodes[1], absCodes[3]: absCodes[1],
		absCodes[4]: absCodes[0], absCodes[5]: absCodes[4], absCodes[6]: absCodes[4],
	}
	if len(p) != len(want) {
		t.Fatalf("tree %v", p)
	}
	for c, q := range want {
		if p[c] != q {
			t.Errorf("parent of %q = %q, want %q", c, p[c], q)
		}
	}
	if p := absTree([]string{"Employed ; Persons ;", "Employed ; Males ;", "Employed ; Females ;"}); p != nil {
		t.Errorf("siblings without their total: %v", p)
	}
	if p := absTree([]string{"Employed ;", "Unemployed ; Males ;", "Unemployed ; Females ;"}); p != nil {
		t.Errorf("another data item is no part: %v", p)
	}
	if p := absTree([]string{"Total", "North ;", "South ;"}); p != nil {
		t.Errorf("not ABS descriptions: %v", p)
	}
	// parts begin with the parent's: Persons ; Australia is below Persons
	// only
	p = absTree([]string{"Employed ; Males ;", "Employed ; Persons ;", "Employed ; Persons ; Victoria ;"})
	if len(p) != 1 || p["Employed ; Persons ; Victoria ;"] != "Employed ; Persons ;" {
		t.Errorf("tree %v", p)
	}
}

// TestABSMarginsWithinRounding: the margins of an ABS time series, whose
// published values add up only within their rounding (11 significant
// digits: 0.0001 on values in the millions), are a warning with the
// difference proposing input.rounded (0.0001, or 0.00001 where every
// figure has five decimals) when it is not set, and
// margins found within rounding when it is; a margin off by more than
// the rounding stays a warning with its difference.
func TestABSMarginsWithinRounding(t *testing.T) {
	rows := map[string][7]string{
		"1984-12": {"2923556.4817", "2359941.3795", "230750.80609", "2129190.5734", "563615.10223", "180923.77228", "382691.32994"},
		"1985-03": {"2938241.6313", "2372081.0826", "225044.59618", "2147036.4864", "566160.54863", "185567.39882", "380593.14981"},
	}
	res, err := Infer(absTable(t, rows), Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Structure.Margins || len(res.Warnings) != 3 {
		t.Fatalf("not rounded: margins %v, warnings %q", res.Structure.Margins, res.Warnings)
	}
	for _, w := range res.Warnings {
		if !strings.Contains(w, "by its ABS series descriptions but is not their sum (difference ") || !strings.Contains(w, "say so with input.rounded: 0.000") {
			t.Errorf("warning %q", w)
		}
	}
	res, err = Infer(absTable(t, rows), Options{RowDims: 1, Wide: true, Rounded: decimal.Scaled(1, 4)})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[1]
	if !res.Structure.Margins || len(res.Warnings) != 0 || len(ax.Parent) != 6 || ax.Found[absCodes[0]] != "ABS series descriptions, within rounding" || ax.Parent[absCodes[5]] != absCodes[4] {
		t.Fatalf("rounded 0.0001: margins %v parents %v found %v warnings %q", res.Structure.Margins, ax.Parent, ax.Found, res.Warnings)
	}
	// Market off by 1 in 1985-03: not its parts' sum even rounded (nor
	// the total theirs); Non-market is still confirmed
	r := rows["1985-03"]
	r[1] = "2372082.0826"
	rows["1985-03"] = r
	res, err = Infer(absTable(t, rows), Options{RowDims: 1, Wide: true, Rounded: decimal.Scaled(1, 4)})
	if err != nil {
		t.Fatal(err)
	}
	ax = res.Structure.Axes[1]
	if _, ok := ax.Parent[absCodes[2]]; ok || ax.Parent[absCodes[5]] != absCodes[4] || len(res.Warnings) != 2 || !strings.Contains(strings.Join(res.Warnings, "\n"), `"Hours worked ; Market ;" is above 2 codes by its ABS series descriptions but is not their sum (difference 1.00002 at period=1985-03`) {
		t.Fatalf("Market off by 1: parents %v warnings %q", ax.Parent, res.Warnings)
	}
}
