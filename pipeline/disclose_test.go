package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/writers"
)

// Cells that disclose though every ratio rule passes (DOMAIN.md, issue 10
// item 6): each case must change the cell's status under the profiles'
// defaults.

func cellByKey(t *testing.T, tab *audit.Table, key string) *audit.Cell {
	t.Helper()
	for _, c := range tab.Cells {
		if strings.Join(c.Key, "/") == key {
			return c
		}
	}
	t.Fatalf("no cell %s", key)
	return nil
}

func findingOf(c *audit.Cell, rule string) (audit.Finding, bool) {
	for _, f := range c.Findings {
		if f.Rule == rule {
			return f, true
		}
	}
	return audit.Finding{}, false
}

// dispersed writes n contributors of group g whose values pass threshold,
// dominance and p%: 100, 101, ..., 100+n-1.
func dispersed(b *strings.Builder, g string, n int) {
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, "%s,%d\n", g, 100+i)
	}
}

// A magnitude cell whose contributions are all zero discloses every
// contributor's value: primary under the default and the acro profile.
func TestAllZeroCellIsPrimary(t *testing.T) {
	var b strings.Builder
	b.WriteString("g,v\n")
	dispersed(&b, "a", 12)
	for i := 0; i < 12; i++ {
		b.WriteString("z,0\n")
	}
	for _, profile := range []string{"default", "acro"} {
		t.Run(profile, func(t *testing.T) {
			tab, err := auditText(t, b.String(), "profile: "+profile+"\nmicrodata: {dims: [g], value: v}\nsuppression: {secondary: false}\n")
			if err != nil {
				t.Fatal(err)
			}
			z := cellByKey(t, tab, "z")
			if z.Status != audit.StatusPrimary {
				t.Fatalf("all-zero cell z: status %s, want primary; findings %+v", z.Status, z.Findings)
			}
			if f, ok := findingOf(z, "all_zero"); !ok || f.Status != audit.Fail {
				t.Fatalf("all-zero cell z: all_zero finding %+v", f)
			}
			if a := cellByKey(t, tab, "a"); a.Status != audit.StatusOK {
				t.Fatalf("dispersed cell a: status %s, want ok; findings %+v", a.Status, a.Findings)
			}
		})
	}
	// configurable off
	tab, err := auditText(t, b.String(), "microdata: {dims: [g], value: v}\nsuppression: {secondary: false}\nrules: {all_zero: {enabled: false}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if z := cellByKey(t, tab, "z"); z.Status != audit.StatusOK {
		t.Fatalf("all_zero disabled: z is %s", z.Status)
	}
	// an aggregate table: count 12, total 0
	tab, err = auditText(t, "g,n,total\na,12,1266\nz,12,0\n", "columns: {dims: [g], count: n, total: total}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	if z := cellByKey(t, tab, "z"); z.Status != audit.StatusPrimary {
		t.Fatalf("aggregate all-zero cell: status %s; findings %+v", z.Status, z.Findings)
	}
}

// Publishing min or max shows one contributor's exact value: primary by
// default, and the default safe table never shows a min or max.
func TestMinMaxPrimaryByDefault(t *testing.T) {
	var b strings.Builder
	b.WriteString("g,v\n")
	dispersed(&b, "a", 20)
	dispersed(&b, "b", 15)
	in := b.String()
	cfg := "microdata: {dims: [g], value: v}\npublish: [count, total, min, max]\nsuppression: {secondary: false}\n"
	tab, err := auditText(t, in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := writers.SafeRows(tab, "x")
	if strings.Join(rows[0], ",") != "g,count,total,min,max" {
		t.Fatalf("header %v", rows[0])
	}
	for _, r := range rows[1:] {
		if r[3] != "x" || r[4] != "x" {
			t.Errorf("the safe table shows min %q and max %q of %s", r[3], r[4], r[0])
		}
	}
	for _, c := range tab.Cells {
		f, ok := findingOf(c, "minmax")
		if c.Status != audit.StatusPrimary || !ok || f.Status != audit.Fail || !strings.Contains(f.Message, "exact value") {
			t.Errorf("cell %v: status %s, minmax finding %+v", c.Key, c.Status, f)
		}
	}
	// configured off: the cells are ok again and min/max are published
	tab, err = auditText(t, in, cfg+"rules: {minmax: {enabled: false}}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Cells {
		if c.Status != audit.StatusOK {
			t.Errorf("minmax disabled: %v is %s", c.Key, c.Status)
		}
	}
	// an aggregate table with a max column
	tab, err = auditText(t, "g,n,total,max\na,20,2190,119\n", "columns: {dims: [g], count: n, total: total, max: max}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Cells[0]; c.Status != audit.StatusPrimary {
		t.Fatalf("aggregate max: status %s; findings %+v", c.Status, c.Findings)
	}
}

// A cell whose records all have a missing value has a missing statistic:
// review, not a published zero. An empty combination (no records) stays an
// empty cell.
func TestAllMissingCellIsReview(t *testing.T) {
	var b strings.Builder
	b.WriteString("g,h,v\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "a,p,%d\n", 100+i)
		fmt.Fprintf(&b, "b,p,%d\n", 100+i)
		b.WriteString("a,q,NA\n")
	}
	tab, err := auditText(t, b.String(), "microdata: {dims: [g, h], value: v}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	aq := cellByKey(t, tab, "a/q")
	if aq.Status != audit.StatusReview {
		t.Fatalf("all-missing cell a/q: status %s, want review; findings %+v", aq.Status, aq.Findings)
	}
	if f, ok := findingOf(aq, "missing"); !ok || f.Status != audit.Review || !strings.Contains(f.Message, "missing") {
		t.Fatalf("a/q missing finding %+v", f)
	}
	// b/q has no records at all: an empty cell, not a missing one
	if bq := cellByKey(t, tab, "b/q"); bq.Status != audit.StatusOK || bq.N != 0 {
		t.Fatalf("empty cell b/q: status %s n %d", bq.Status, bq.N)
	}
	// the margin Total/q holds only missing values too
	if tq := cellByKey(t, tab, "Total/q"); tq.Status != audit.StatusReview {
		t.Fatalf("all-missing margin Total/q: status %s", tq.Status)
	}
	if !tab.Summarize().NeedsPerson() {
		t.Fatal("a table with an all-missing cell must need a person (exit 1)")
	}
}

// An aggregate table whose margins do not add up, or with a total for no
// contributors, cannot be audited: the cells involved are review.
func TestAggregateMarginsMustAddUp(t *testing.T) {
	cfg := "columns: {dims: [year, grant_type], count: n, total: total}\nrules: {threshold: {min: 1}, dominance: {enabled: false}, p_percent: {enabled: false}, class: {enabled: false}}\nsuppression: {secondary: false}\n"
	// 2014: G 1000 + N 1000, Total 5000; 2015 adds up.
	in := "year,grant_type,n,total\n" +
		"2014,G,20,1000\n2014,N,20,1000\n2014,Total,40,5000\n" +
		"2015,G,20,700\n2015,N,20,300\n2015,Total,40,1000\n" +
		"Total,G,40,1700\nTotal,N,40,1300\nTotal,Total,80,6000\n"
	tab, err := auditText(t, in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Bad relations: the row 2014 (G + N = 2000, not 5000) and the row
	// Total (1700 + 1300 = 3000, not 6000). Every column adds up, and so
	// does the row 2015.
	review := map[string]bool{"2014/G": true, "2014/N": true, "2014/Total": true,
		"Total/G": true, "Total/N": true, "Total/Total": true}
	for _, c := range tab.Cells {
		k := strings.Join(c.Key, "/")
		f, ok := findingOf(c, "consistency")
		if !ok {
			t.Fatalf("%s: no consistency finding", k)
		}
		if review[k] {
			if c.Status != audit.StatusReview || f.Status != audit.Review || !strings.Contains(f.Message, "difference") {
				t.Errorf("%s: status %s, finding %+v; want review with the difference", k, c.Status, f)
			}
		} else if c.Status != audit.StatusOK || f.Status != audit.Pass {
			t.Errorf("%s: status %s, finding %+v; want ok", k, c.Status, f)
		}
	}
	f, _ := findingOf(cellByKey(t, tab, "2014/Total"), "consistency")
	if !strings.Contains(f.Message, "3000") {
		t.Errorf("2014/Total: %q does not give the difference 3000", f.Message)
	}
	// counts are checked too
	bad := strings.Replace(in, "2015,Total,40,1000", "2015,Total,41,1000", 1)
	tab, err = auditText(t, bad, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := cellByKey(t, tab, "2015/G"); c.Status != audit.StatusReview {
		t.Errorf("count margin off by one: 2015/G is %s", c.Status)
	}
	// n = 0 with a total
	tab, err = auditText(t, "g,n,total\na,0,5\nb,3,7\n", strings.Replace(cfg, "dims: [year, grant_type]", "dims: [g]", 1))
	if err != nil {
		t.Fatal(err)
	}
	if c := cellByKey(t, tab, "a"); c.Status != audit.StatusReview {
		t.Errorf("n = 0, total 5: status %s; findings %+v", c.Status, c.Findings)
	}
	if c := cellByKey(t, tab, "b"); c.Status != audit.StatusOK {
		t.Errorf("b: status %s; findings %+v", c.Status, c.Findings)
	}
}

// Declared hierarchies are margin relations: a parent code is the sum of
// its children, not a sibling of them under the total.
func TestAggregateHierarchyAddsUp(t *testing.T) {
	cfg := "columns: {dims: [area], count: n, total: total}\nrules: {threshold: {min: 1}, dominance: {enabled: false}, p_percent: {enabled: false}, class: {enabled: false}}\n" +
		"suppression: {secondary: false, hierarchies: {area: {d1: North, d2: North, d3: South}}}\n"
	in := "area,n,total\nd1,2,10\nd2,3,20\nd3,4,40\nNorth,5,30\nSouth,4,40\nTotal,9,70\n"
	tab, err := auditText(t, in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Cells {
		if c.Status != audit.StatusOK {
			t.Errorf("%v: %s %+v", c.Key, c.Status, c.Findings)
		}
	}
	tab, err = auditText(t, strings.Replace(in, "North,5,30", "North,5,31", 1), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"d1", "d2", "North", "South", "Total"} {
		if c := cellByKey(t, tab, k); c.Status != audit.StatusReview {
			t.Errorf("North off by one: %s is %s", k, c.Status)
		}
	}
	if c := cellByKey(t, tab, "d3"); c.Status != audit.StatusOK {
		t.Errorf("d3 is %s", c.Status)
	}
}
