package structure

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// indentedTable is a one-column hierarchy shown by indentation: rows in
// order ("  Food": two leading spaces, one level), each with its values
// in the columns 2019, 2020 and Total (their sum: other margins found).
func indentedTable(rows []string, vals [][2]int64) (*audit.Table, Options) {
	t := &audit.Table{Name: "t", Dims: []string{"industry", "year"}, Mode: audit.Aggregate}
	ind := map[string]int{}
	for i, r := range rows {
		code := strings.TrimLeft(r, " ")
		if n := len(r) - len(code); n > 0 {
			ind[code] = n
		}
		for j, y := range []string{"2019", "2020", "Total"} {
			v := vals[i][0] + vals[i][1]
			if j < 2 {
				v = vals[i][j]
			}
			t.Cells = append(t.Cells, &audit.Cell{Key: []string{code, y}, HasN: true, N: v})
		}
	}
	return t, Options{RowDims: 1, Wide: true, Indent: map[string]map[string]int{"industry": ind}}
}

// TestIndentTree: a hierarchy in one column proposed by indentation and
// confirmed by arithmetic, parents before or after their children, also
// where the columns have their margin (Total) and where the contiguous
// runs of blockTree are ambiguous (a zero row closing a run) or wrong (a
// coincidental sum); a parent that does not add up is a warning with the
// difference, and no relation. Before, indentation was not read: the
// zero row and the coincidental sum left no margins (or wrong ones).
func TestIndentTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []string
		vals [][2]int64
		want map[string]string
		warn string
	}{
		{"parents first", []string{"All industries", "  Manufacturing", "    Food", "    Textiles", "  Services", "    Retail", "    Transport", "    Other services"},
			[][2]int64{{100, 110}, {40, 44}, {25, 30}, {15, 14}, {60, 66}, {30, 33}, {30, 33}, {0, 0}},
			map[string]string{"Manufacturing": "All industries", "Services": "All industries", "Food": "Manufacturing", "Textiles": "Manufacturing", "Retail": "Services", "Transport": "Services", "Other services": "Services"}, ""},
		{"parents last", []string{"    Food", "    Textiles", "  Manufacturing", "    Retail", "    Transport", "  Services", "All industries"},
			[][2]int64{{25, 30}, {15, 14}, {40, 44}, {30, 33}, {30, 33}, {60, 66}, {100, 110}},
			map[string]string{"Manufacturing": "All industries", "Services": "All industries", "Food": "Manufacturing", "Textiles": "Manufacturing", "Retail": "Services", "Transport": "Services"}, ""},
		// "Textiles" equals "Wool" + "Cotton" (a coincidence the runs
		// would read as a subtotal): indentation says they are siblings
		{"coincidental sum", []string{"Manufacturing", "  Textiles", "  Wool", "  Cotton", "Services", "  Retail", "  Transport"},
			[][2]int64{{40, 48}, {20, 24}, {12, 14}, {8, 10}, {60, 66}, {30, 33}, {30, 33}},
			map[string]string{"Textiles": "Manufacturing", "Wool": "Manufacturing", "Cotton": "Manufacturing", "Retail": "Services", "Transport": "Services"}, ""},
	} {
		tab, opt := indentedTable(tc.rows, tc.vals)
		res, err := Infer(tab, opt)
		if err != nil {
			t.Fatal(err)
		}
		ax := res.Structure.Axes[0]
		p := ax.Parent
		for c, q := range tc.want {
			if p[c] != q {
				t.Errorf("%s: parent of %q = %q, want %q (parents %v, warnings %q)", tc.name, c, p[c], q, p, res.Warnings)
			}
			if !strings.HasPrefix(ax.Found[q], "indentation and arithmetic") {
				t.Errorf("%s: %q found by %q, want indentation and arithmetic", tc.name, q, ax.Found[q])
			}
		}
		if len(p) != len(tc.want) {
			t.Errorf("%s: parents %v, want %v", tc.name, p, tc.want)
		}
		if got := fmt.Sprint(res.Warnings); tc.warn == "" && len(res.Warnings) > 0 || tc.warn != "" && !strings.Contains(got, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.name, res.Warnings, tc.warn)
		}
		// the columns' margin too
		if res.Structure.Axes[1].Parent["2019"] != "Total" {
			t.Errorf("%s: the Total column is not the margin of 2019: %v", tc.name, res.Structure.Axes[1].Parent)
		}
	}
}

// TestIndentTreeLies: a parent the indentation proposes that a complete
// line contradicts means the indentation is not trusted at all: no
// relation by indentation, the warnings (the difference, the column not
// used), and the structure unconfirmed (the interval audit calls no
// suppressed cell protected). Before, the other parents were kept as
// margins beside the rejected one (review finding F2: with a false
// margin accepted, every withheld cell read "protected").
func TestIndentTreeLies(t *testing.T) {
	tab, opt := indentedTable([]string{"All industries", "  Manufacturing", "    Food", "    Textiles", "  Services", "    Retail", "    Transport"},
		[][2]int64{{100, 110}, {40, 44}, {25, 30}, {5, 14}, {60, 66}, {30, 33}, {30, 33}})
	res, err := Infer(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	for q, f := range ax.Found {
		if strings.HasPrefix(f, "indentation") {
			t.Errorf("%q found by %q", q, f)
		}
	}
	w := fmt.Sprint(res.Warnings)
	for _, want := range []string{`industry: "Manufacturing" is above 2 codes by its indentation but is not their sum (difference 10 at year=2019)`, "the indentation of the column is not used"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q, want %q", res.Warnings, want)
		}
	}
	if len(res.Structure.Unconfirmed) == 0 {
		t.Errorf("structure not unconfirmed (parents %v)", ax.Parent)
	}
}

// TestIndentTreeReceived: a received table (no line complete): a parent
// whose published parts never exceed it, even one part alone (Owner
// occupied 63 over Owned outright 60 and a withheld mortgage), is its
// margin by indentation. Before, partial() wanted two published parts on
// a line: Owner occupied was refused and the mortgage cell had no
// relation ("[0, unbounded] protected", review finding F1, where 63 - 60
// gives it back).
func TestIndentTreeReceived(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"tenure", "col"}, Mode: audit.Aggregate}
	rows := []string{"All households", "  Owner occupied", "    Owned outright", "    Buying with mortgage", "  Rented", "    Social rented", "    Private rented", "    Housing association", "    Other rented"}
	vals := []int64{74, 63, 60, -1, 11, 5, -1, -1, 2}
	ind := map[string]int{}
	for i, r := range rows {
		code := strings.TrimLeft(r, " ")
		if n := len(r) - len(code); n > 0 {
			ind[code] = n
		}
		c := &audit.Cell{Key: []string{code, "Households"}, HasN: true, N: vals[i]}
		if vals[i] < 0 {
			c.HasN, c.N = false, 0
		}
		tab.Cells = append(tab.Cells, c)
	}
	res, err := Infer(tab, Options{RowDims: 1, Wide: true, Indent: map[string]map[string]int{"tenure": ind}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Owner occupied": "All households", "Rented": "All households", "Owned outright": "Owner occupied", "Buying with mortgage": "Owner occupied",
		"Social rented": "Rented", "Private rented": "Rented", "Housing association": "Rented", "Other rented": "Rented"}
	wantParents(t, res, want)
	if len(res.Structure.Unconfirmed) > 0 || len(res.Warnings) > 0 {
		t.Errorf("unconfirmed %v, warnings %q", res.Structure.Unconfirmed, res.Warnings)
	}
}

// TestIndentTreePartOfColumn: indentation confirmed for one block only
// (MANUFACTURING's parts indented, SERVICES' not) is not used: the
// other finders run, and case finds SERVICES = Retail + Transport, with
// a warning. Before, the indent tree alone was kept and SERVICES had no
// parts (review finding F3: Retail/Men = 61 - 60 given back).
func TestIndentTreePartOfColumn(t *testing.T) {
	tab, opt := indentedTable([]string{"MANUFACTURING", "  Food", "  Textiles", "SERVICES", "Retail", "Transport"},
		[][2]int64{{40, 44}, {39, 30}, {1, 14}, {61, 66}, {1, 33}, {60, 33}})
	res, err := Infer(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Food": "MANUFACTURING", "Textiles": "MANUFACTURING", "Retail": "SERVICES", "Transport": "SERVICES"}
	wantParents(t, res, want)
	if w := fmt.Sprint(res.Warnings); !strings.Contains(w, "confirms for only part of the column") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestIndentTreeCase: without indentation, upper-case codes over
// mixed-case ones propose the tree (a hint: one that does not add up is
// no warning and no relation).
func TestIndentTreeCase(t *testing.T) {
	tab, opt := indentedTable([]string{"MANUFACTURING", "Food", "Textiles", "SERVICES", "Retail", "Transport", "Other"},
		[][2]int64{{40, 44}, {25, 30}, {15, 14}, {60, 66}, {30, 33}, {30, 33}, {0, 0}})
	opt.Indent = nil
	res, err := Infer(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Food": "MANUFACTURING", "Textiles": "MANUFACTURING", "Retail": "SERVICES", "Transport": "SERVICES", "Other": "SERVICES"}
	wantParents(t, res, want)
}

// TestIndentTreeReceivedExceeds: in a received table, a parent whose
// published parts exceed it (Owned outright 70 under Owner occupied 63)
// shows the indentation lies: no relation by indentation, the warning
// says so, the structure is unconfirmed. Before, it read as merely
// unconfirmable ("no line ... has all of them published").
func TestIndentTreeReceivedExceeds(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"tenure", "col"}, Mode: audit.Aggregate}
	rows := []string{"All households", "  Owner occupied", "    Owned outright", "    Buying with mortgage", "  Rented", "    Social rented", "    Other rented"}
	vals := []int64{74, 63, 70, -1, 11, -1, 2}
	ind := map[string]int{}
	for i, r := range rows {
		code := strings.TrimLeft(r, " ")
		if n := len(r) - len(code); n > 0 {
			ind[code] = n
		}
		c := &audit.Cell{Key: []string{code, "Households"}, HasN: vals[i] >= 0, N: max(vals[i], 0)}
		tab.Cells = append(tab.Cells, c)
	}
	res, err := Infer(tab, Options{RowDims: 1, Wide: true, Indent: map[string]map[string]int{"tenure": ind}})
	if err != nil {
		t.Fatal(err)
	}
	for q, f := range res.Structure.Axes[0].Found {
		if strings.HasPrefix(f, "indentation") {
			t.Errorf("%q found by %q", q, f)
		}
	}
	if w := fmt.Sprint(res.Warnings); !strings.Contains(w, `"Owner occupied" is above 2 codes by its indentation but its published parts exceed it`) || !strings.Contains(w, "the indentation of the column is not used") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if len(res.Structure.Unconfirmed) == 0 {
		t.Error("structure not unconfirmed")
	}
}

// TestIndentTreeTotalFlushWithGroups: a labelled total printed flush with
// the groups it adds up ("All industries" over "Manufacturing" and
// "Services", neither indented under it) is a total of the axis beside
// the indentation tree, not a code the tree leaves out: the groups are
// found by indentation, the total by its label. Before, the tree was
// dropped as accounting for only part of the column (a warning), and the
// groups were found by the runs of arithmetic alone.
func TestIndentTreeTotalFlushWithGroups(t *testing.T) {
	tab, opt := indentedTable([]string{"All industries", "Manufacturing", "  Food", "  Textiles", "Services", "  Retail", "  Transport"},
		[][2]int64{{100, 110}, {40, 44}, {25, 30}, {15, 14}, {60, 66}, {30, 33}, {30, 33}})
	res, err := Infer(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	want := map[string]string{"Food": "Manufacturing", "Textiles": "Manufacturing", "Retail": "Services", "Transport": "Services", "Manufacturing": "All industries", "Services": "All industries"}
	for c, q := range want {
		if ax.Parent[c] != q {
			t.Errorf("parent of %q = %q, want %q (parents %v)", c, ax.Parent[c], q, ax.Parent)
		}
	}
	for q, how := range map[string]string{"Manufacturing": indentHow, "Services": indentHow, "All industries": "label and arithmetic"} {
		if ax.Found[q] != how {
			t.Errorf("%q found by %q, want %q", q, ax.Found[q], how)
		}
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestIndentTreeDeclaredTotal: a parent the configuration names as a
// total (a total label) is found by "configuration and arithmetic": the
// configuration is why it is a margin, the indentation which codes it
// adds up. Before, "indentation and arithmetic".
func TestIndentTreeDeclaredTotal(t *testing.T) {
	tab, opt := indentedTable([]string{"  Food", "  Textiles", "Total"}, [][2]int64{{25, 30}, {15, 14}, {40, 44}})
	opt.TotalLabels = []string{"Total"}
	res, err := Infer(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	if ax.Parent["Food"] != "Total" || ax.Found["Total"] != "configuration and arithmetic" {
		t.Errorf("parents %v, found %v; want Total by configuration and arithmetic", ax.Parent, ax.Found)
	}
}

// TestIndentTreeWithheldSubtotal: a received table whose subtotal row is
// withheld on every line ("  Owner occupied" marked in each column): the
// indentation places it (the other parents confirm the indentation), and
// the labelled total is the sum of the groups, not of every row. Before,
// the subtotal was refused ("no line publishes it"), the tree was not
// used, and the total was taken as the sum of all seven rows (the audit
// stopped: "published cells contradict the margins"). A column whose
// only parents are withheld ones has nothing confirming its indentation:
// no tree.
func TestIndentTreeWithheldSubtotal(t *testing.T) {
	rows := []string{"All households", "  Owner occupied", "    Owned outright", "    Buying with mortgage", "  Rented", "    Social rented", "    Private rented"}
	// -1: withheld
	vals := [][2]int64{{74, 80}, {-1, -1}, {60, 61}, {3, 4}, {11, 15}, {5, -1}, {6, -1}}
	table := func(rows []string, vals [][2]int64) (*audit.Table, Options) {
		tab := &audit.Table{Name: "t", Dims: []string{"tenure", "col"}, Mode: audit.Aggregate}
		ind := map[string]int{}
		for i, r := range rows {
			code := strings.TrimLeft(r, " ")
			if n := len(r) - len(code); n > 0 {
				ind[code] = n
			}
			for j := range 2 {
				tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{code, fmt.Sprint(2019 + j)}, HasN: vals[i][j] >= 0, N: max(vals[i][j], 0)})
			}
		}
		return tab, Options{RowDims: 1, Wide: true, TotalLabels: []string{"All households"}, Indent: map[string]map[string]int{"tenure": ind}}
	}
	tab, opt := table(rows, vals)
	res, err := Infer(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Structure.Axes[0].Parent
	want := map[string]string{"Owner occupied": "All households", "Rented": "All households", "Owned outright": "Owner occupied", "Buying with mortgage": "Owner occupied", "Social rented": "Rented", "Private rented": "Rented"}
	wantParents(t, res, want)
	if len(p) != len(want) || len(res.Structure.Unconfirmed) > 0 {
		t.Errorf("parents %v, unconfirmed %q", p, res.Structure.Unconfirmed)
	}
	if f := res.Structure.Axes[0].Found["Owner occupied"]; !strings.Contains(f, "withheld") {
		t.Errorf("Owner occupied found %q", f)
	}

	// only the withheld subtotal under the total: nothing confirms the
	// indentation
	tab, opt = table(rows[:4], vals[:4])
	if res, err = Infer(tab, opt); err != nil {
		t.Fatal(err)
	}
	if f := res.Structure.Axes[0].Found["Owner occupied"]; f != "" {
		t.Errorf("alone: Owner occupied found %q (parents %v)", f, res.Structure.Axes[0].Parent)
	}
}

// TestFlatWithheldSubtotal: a flat table (no indentation) whose subtotal
// row is withheld on every line: the layout places it over the rows below
// it up to the next subtotal found, as the labelled total is then the sum
// of the rows left on every complete line; a warning says so. Before, the
// total was taken as the sum of every row ("published cells contradict
// the margins").
func TestFlatWithheldSubtotal(t *testing.T) {
	rows := []string{"Total", "North", "Ayr", "Bute", "South", "Essex", "Fife", "Gwent"}
	vals := [][2]int64{{100, 120}, {-1, -1}, {10, 20}, {30, 30}, {60, 70}, {25, 30}, {20, 25}, {15, 15}}
	tab := withheldColumnTable(rows, vals)
	res, err := Infer(tab, Options{RowDims: 1, Wide: true, TotalLabels: []string{"Total"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"North": "Total", "South": "Total", "Ayr": "North", "Bute": "North", "Essex": "South", "Fife": "South", "Gwent": "South"}
	wantParents(t, res, want)
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `"North" withheld on every line: read as the subtotal of the rows right below it by the layout`) {
		t.Errorf("warnings %q", res.Warnings)
	}
}
