package link

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// handTable is an aggregate frequency table of the given cells (key
// codes, then the count), with the structure structure.Infer would give
// when parents is set (dimension -> code -> parent), else none.
func handTable(name string, dims []string, rows [][]string, parents map[string]map[string]string) *audit.Table {
	t := &audit.Table{Name: name, Mode: audit.Aggregate, Dims: dims, TotalLabel: "Total"}
	for _, r := range rows {
		n, _ := strconv.ParseInt(r[len(r)-1], 10, 64)
		t.Cells = append(t.Cells, &audit.Cell{Key: r[:len(r)-1], N: n, HasN: true, Status: audit.StatusOK})
	}
	t.Structure = &audit.Structure{}
	for d, dim := range dims {
		ax := audit.Axis{Dims: []int{d}, Names: []string{dim}, Parent: map[string]string{}, Found: map[string]string{}}
		for _, c := range t.Cells {
			if !slices.Contains(ax.Codes, c.Key[d]) {
				ax.Codes = append(ax.Codes, c.Key[d])
			}
		}
		for c, p := range parents[dim] {
			ax.Parent[c] = p
			ax.Found[p] = "arithmetic"
			t.Structure.Margins = true
		}
		t.Structure.Axes = append(t.Structure.Axes, ax)
	}
	return t
}

// TestLinksInferredMarginsDisagree: a margin one member's structure found
// (P = F + M in bysex) and another member's did not (bysexage lists the
// same codes but found nothing) is a margin of the cover for both when it
// adds up in both (the union of the relations that hold), with a warning
// on the member that did not find it; when it does not add up there, the
// group is not exact (Protect changes nothing and says why, naming the
// cell; the pipeline then protects the members apart, their primaries to
// review).
func TestLinksInferredMarginsDisagree(t *testing.T) {
	sexes := map[string]map[string]string{"sex": {"F": "P", "M": "P"}, "region": {"N": "All", "S": "All"}}
	a := func() *audit.Table {
		return handTable("bysex", []string{"region", "sex"}, [][]string{
			{"N", "F", "30"}, {"N", "M", "3"}, {"N", "P", "33"},
			{"S", "F", "25"}, {"S", "M", "28"}, {"S", "P", "53"},
			{"All", "F", "55"}, {"All", "M", "31"}, {"All", "P", "86"}}, sexes)
	}
	b := func(young, old, p string) *audit.Table {
		return handTable("bysexage", []string{"sex", "age"}, [][]string{
			{"F", "young", "20"}, {"F", "old", "35"}, {"F", "All ages", "55"},
			{"M", "young", "16"}, {"M", "old", "15"}, {"M", "All ages", "31"},
			{"P", "young", young}, {"P", "old", old}, {"P", "All ages", p}}, map[string]map[string]string{"age": {"young": "All ages", "old": "All ages"}})
	}
	opt := suppress.Options{Role: audit.RoleCount, Protection: suppress.Protection{Share: 0.1, Min: 1}}
	for _, c := range []struct {
		young, old, p string
		exact         bool
	}{{"36", "50", "86", true}, {"36", "50", "87", false}, {"37", "49", "86", false}} {
		members := []*audit.Table{a(), b(c.young, c.old, c.p)}
		members[0].Cells[1].Status = audit.StatusPrimary // N, M = 3
		group := []Member{{Table: members[0], Options: opt, Secondary: true}, {Table: members[1], Options: opt, Secondary: true}}
		if c.exact {
			// the cells agree: P is the cover's total of sex for both
			cover, codes, reason := buildCellCover(group, "count", DefaultMaxCells, "the cover table")
			if reason != "" {
				t.Fatalf("P = %s+%s (%s): %s", c.young, c.old, c.p, reason)
			}
			if got := codes.code("sex", "P"); got != "Total" {
				t.Errorf("sex P is %q in the cover, want the total", got)
			}
			if len(cover.Cells) != 3*3*3 {
				t.Errorf("cover of %d cells, want 27", len(cover.Cells))
			}
		}
		reason, err := Protect(context.Background(), group, Options{})
		if err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(members[1].Warnings, func(w string) bool {
			return strings.Contains(w, `sex "P" is a margin in table bysex`)
		})
		if c.exact {
			if reason != "" || !warned {
				t.Errorf("P = %s+%s (%s): reason %q, warned %v: %q", c.young, c.old, c.p, reason, warned, members[1].Warnings)
			}
			// N, M = 3 is protected: its row N (30 + 3 = 33) needs a
			// second suppressed cell
			if members[0].Cells[0].Status != audit.StatusSecondary && members[0].Cells[2].Status != audit.StatusSecondary {
				t.Errorf("no complement of N, M in its row")
			}
			if a := members[0].Audit; a == nil || a.ExactlyDisclosed+a.UnderProtected > 0 {
				t.Errorf("the audit of bysex: %+v", a)
			}
			continue
		}
		if reason == "" || !strings.Contains(reason, "sex=P") || warned {
			t.Errorf("P = %s+%s (%s): reason %q, warned %v", c.young, c.old, c.p, reason, warned)
		}
		if members[0].Audit != nil || slices.ContainsFunc(members[0].Cells, func(c *audit.Cell) bool { return c.Status == audit.StatusSecondary }) {
			t.Errorf("P = %s+%s (%s): not exact, yet the members were changed", c.young, c.old, c.p)
		}
	}
}

// TestLinksInferredMarginsRefused: margins the cover cannot carry make
// the group not exact, with the reason, and leave the members unchanged:
// two members giving one code different parents (S adds up into North in
// one table, into South in the other), and nested rows with margins (two
// dimensions read as one axis).
func TestLinksInferredMarginsRefused(t *testing.T) {
	opt := suppress.Options{Role: audit.RoleCount, Protection: suppress.Protection{Share: 0.1, Min: 1}}
	rows := [][]string{{"a", "x", "5"}, {"a", "y", "7"}, {"a", "All", "12"}, {"b", "x", "4"}, {"b", "y", "9"}, {"b", "All", "13"}, {"T", "x", "9"}, {"T", "y", "16"}, {"T", "All", "25"}}
	one := handTable("one", []string{"area", "kind"}, rows, map[string]map[string]string{"area": {"a": "T", "b": "T"}, "kind": {"x": "All", "y": "All"}})
	two := handTable("two", []string{"area", "kind"}, rows, map[string]map[string]string{"area": {"a": "b", "b": "T"}, "kind": {"x": "All", "y": "All"}})
	reason, err := Protect(context.Background(), []Member{{Table: one, Options: opt, Secondary: true}, {Table: two, Options: opt, Secondary: true}}, Options{})
	if err != nil || !strings.Contains(reason, `area "a" adds up into "T" in table one but into "b" in table two`) {
		t.Errorf("different parents: reason %q, err %v", reason, err)
	}
	nested := handTable("nested", []string{"group", "detail"}, [][]string{{"g1", "d1", "3"}, {"g1", "d2", "4"}, {"g1", "all", "7"}}, nil)
	nested.Structure.Axes = []audit.Axis{{Dims: []int{0, 1}, Names: []string{"group", "detail"}, Codes: []string{"g1\x1fd1", "g1\x1fd2", "g1\x1fall"}, Parent: map[string]string{"g1\x1fd1": "g1\x1fall", "g1\x1fd2": "g1\x1fall"}}}
	other := handTable("other", []string{"group"}, [][]string{{"g1", "7"}}, nil)
	reason, err = Protect(context.Background(), []Member{{Table: nested, Options: opt, Secondary: true}, {Table: other, Options: opt, Secondary: true}}, Options{})
	if err != nil || !strings.Contains(reason, "table nested has nested rows with margins (group / detail)") {
		t.Errorf("nested rows: reason %q, err %v", reason, err)
	}
	for _, tb := range []*audit.Table{one, two, nested, other} {
		if tb.Audit != nil || len(tb.Warnings) > 0 {
			t.Errorf("%s changed: audit %v, warnings %q", tb.Name, tb.Audit, tb.Warnings)
		}
	}
}
