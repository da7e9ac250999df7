package link

import (
	"context"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// crossedTable is two.csv of cmd/sdcaudit/testdata/crossed as the
// structure inference reads it: "All people" = Men + Women = the three
// age bands (Axis.Breakdowns), "Total" the margin of the regions. Aged
// 0-15 North (2) is primary when primary is set; the cells of withheld
// have no figure (a received table).
func crossedTable(primary bool, withheld ...[2]string) *audit.Table {
	groups := []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+"}
	areas := []string{"North", "South", "East", "West", "Total"}
	vals := [][]int64{{120, 200, 310, 150, 780}, {60, 98, 160, 70, 388}, {60, 102, 150, 80, 392}, {2, 50, 90, 40, 182}, {80, 100, 150, 70, 400}, {38, 50, 70, 40, 198}}
	t := &audit.Table{Name: "two", Mode: audit.Aggregate, Dims: []string{"Group", "across"}, TotalLabel: "Total"}
	for i, g := range groups {
		for j, a := range areas {
			c := &audit.Cell{Key: []string{g, a}, N: vals[i][j], HasN: true, Status: audit.StatusOK}
			for _, w := range withheld {
				if w == [2]string{g, a} {
					c.N, c.HasN = 0, false
				}
			}
			if primary && g == "Aged 0-15" && a == "North" {
				c.Status = audit.StatusPrimary
			}
			t.Cells = append(t.Cells, c)
		}
	}
	group := audit.Axis{Dims: []int{0}, Names: []string{"Group"}, Codes: groups,
		Parent:     map[string]string{"Men": "All people", "Women": "All people"},
		Found:      map[string]string{"All people": "label and arithmetic"},
		Breakdowns: map[string][][]string{"All people": {{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+"}}}}
	across := audit.Axis{Dims: []int{1}, Names: []string{"across"}, Codes: areas,
		Parent: map[string]string{"North": "Total", "South": "Total", "East": "Total", "West": "Total"},
		Found:  map[string]string{"Total": "configuration and arithmetic"}}
	t.Structure = &audit.Structure{Axes: []audit.Axis{group, across}, Margins: true}
	return t
}

func cellOf(t *audit.Table, g, a string) *audit.Cell {
	for _, c := range t.Cells {
		if c.Key[0] == g && c.Key[1] == a {
			return c
		}
	}
	return nil
}

// TestProtectCrossed: the primary Aged 0-15 North is protected through
// the cross (the age bands and All people give it back unless a second
// cell of the age bands in North is withheld, and one of All people,
// Men, Women is not needed); its interval comes back once per table cell,
// in the table's terms; the All people cells, in both views, get one
// status. Received with Aged 0-15 North and West withheld, the audit
// alone finds both exact.
func TestProtectCrossed(t *testing.T) {
	tab := crossedTable(true)
	opt := suppress.Options{Role: audit.RoleCount, Protection: suppress.Protection{Share: 0.1, Min: 1}}
	res, reason, err := ProtectCrossed(context.Background(), tab, opt, true, nil, 0)
	if err != nil || reason != "" {
		t.Fatalf("reason %q, err %v", reason, err)
	}
	north := 0
	for _, g := range []string{"Aged 0-15", "Aged 16-64", "Aged 65+"} {
		if s := cellOf(tab, g, "North").Status; s == audit.StatusPrimary || s == audit.StatusSecondary {
			north++
		}
	}
	if north < 2 {
		t.Errorf("%d age bands withheld in North: the primary is given back by All people - the others", north)
	}
	seen := map[string]bool{}
	for _, r := range res.Cells {
		k := strings.Join(r.Key, "/")
		if seen[k] {
			t.Errorf("cell %s audited twice", k)
		}
		seen[k] = true
		if c := cellOf(tab, r.Key[0], r.Key[1]); c == nil || c.Status != r.Status {
			t.Errorf("interval of %v: status %q, cell %v", r.Key, r.Status, c)
		}
		if !r.Protected || r.Exact {
			t.Errorf("%v: [%g, %g] protected %v", r.Key, r.Lo, r.Hi, r.Protected)
		}
	}
	if !seen["Aged 0-15/North"] {
		t.Errorf("the primary has no interval: %+v", res.Cells)
	}
	for _, c := range tab.Cells {
		for _, f := range c.EachFinding() {
			if m := f.Message(); strings.Contains(m, "Group (1)") || strings.Contains(m, "Group (2)") {
				t.Errorf("cell %v: a finding in the cover's terms: %q", c.Key, m)
			}
		}
	}

	recv := crossedTable(false, [2]string{"Aged 0-15", "North"}, [2]string{"Aged 0-15", "West"})
	res, reason, err = ProtectCrossed(context.Background(), recv, opt, false, nil, 0)
	if err != nil || reason != "" {
		t.Fatalf("received: reason %q, err %v", reason, err)
	}
	if res.ExactlyDisclosed != 2 || len(res.Cells) != 2 {
		t.Errorf("received: %d exactly disclosed of %d: %+v", res.ExactlyDisclosed, len(res.Cells), res.Cells)
	}
	for _, r := range res.Cells {
		want := map[string]float64{"North": 2, "West": 40}[r.Key[1]]
		if !r.Exact || r.Lo != want {
			t.Errorf("received %v: [%g, %g] exact %v, want %g", r.Key, r.Lo, r.Hi, r.Exact, want)
		}
	}
}

// TestProtectCrossedNoCover: breakdowns that do not add up in the cells
// (a structure a caller got wrong) build no cover: a reason, nothing
// changed; CrossedApart then names the total unconfirmed (the audit
// leaves its cells to a person) with a warning and a review finding on
// each withheld cell.
func TestProtectCrossedNoCover(t *testing.T) {
	tab := crossedTable(true)
	cellOf(tab, "Aged 65+", "South").N = 51
	opt := suppress.Options{Role: audit.RoleCount, Protection: suppress.Protection{Share: 0.1, Min: 1}}
	res, reason, err := ProtectCrossed(context.Background(), tab, opt, true, nil, 0)
	if err != nil || reason == "" || res != nil {
		t.Fatalf("reason %q, err %v, res %v: want a reason", reason, err, res)
	}
	for _, c := range tab.Cells {
		if c.Status == audit.StatusSecondary || len(c.Findings) > 0 || len(c.Notes) > 0 {
			t.Errorf("cell %v changed: %q, %d findings", c.Key, c.Status, len(c.Findings))
		}
	}
	CrossedApart(tab, reason)
	if len(tab.Structure.Unconfirmed) != 1 || tab.Structure.Unconfirmed[0] != "Group=All people" {
		t.Errorf("unconfirmed %q", tab.Structure.Unconfirmed)
	}
	if len(tab.Warnings) != 1 || !strings.Contains(tab.Warnings[0], "not protected through them") {
		t.Errorf("warnings %q", tab.Warnings)
	}
	if f := cellOf(tab, "Aged 0-15", "North").Findings; len(f) != 1 || f[0].Outcome != audit.Review {
		t.Errorf("the primary's findings %v, want one review", f)
	}
}
