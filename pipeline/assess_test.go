package pipeline

import (
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// statuses counts the cells of a table by status.
func statuses(tab *audit.Table) map[audit.Status]int {
	n := map[audit.Status]int{}
	for _, c := range tab.Cells {
		n[c.Status]++
	}
	return n
}

// TestUnassessedCellIsReview: an aggregate table of totals alone (no
// counts, no contributions) leaves every sensitivity rule not applicable;
// its cells are review, not ok, and the finding says what to provide.
// With counts (threshold applies) or with counts and the largest
// contributions (every magnitude rule applies) the cells are assessed.
func TestUnassessedCellIsReview(t *testing.T) {
	const body = "g,h,total,n,top1,top2\na,x,1000,20,100,90\na,y,2000,25,200,150\nb,x,3000,30,300,200\nb,y,4000,40,400,300\n"
	for _, tc := range []struct {
		name, cols string
		review     int
		needs      []string // what the reason asks for
	}{
		{"totals alone", "total: total", 4, []string{"number of contributors", "largest contributions"}},
		{"totals and counts", "total: total, count: n", 0, nil},
		{"totals, counts and contributions", "total: total, count: n, top: [top1, top2]", 0, nil},
		{"counts alone", "count: n", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := auditText(t, body, "columns: {dims: [g, h], "+tc.cols+"}\nsuppression: {secondary: false}\n")
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			for _, c := range tab.Cells {
				var f *audit.Finding
				for i := range c.AllFindings() {
					if c.AllFindings()[i].Rule == unassessedRule {
						f = &c.AllFindings()[i]
					}
				}
				if (f != nil) != (c.Status == audit.StatusReview) {
					t.Errorf("cell %v: status %s, unassessed finding %v", c.Key, c.Status, f != nil)
				}
				if f == nil {
					continue
				}
				got++
				for _, w := range tc.needs {
					if !strings.Contains(f.Message(), w) {
						t.Errorf("cell %v: reason %q does not ask for %q", c.Key, f.Message(), w)
					}
				}
			}
			if got != tc.review {
				t.Errorf("%d unassessed cells, want %d (statuses %v)", got, tc.review, statuses(tab))
			}
		})
	}
}

// TestUnassessedNotForMarkedOrOverridden: a cell whose every statistic
// the input already suppressed publishes nothing and is not sent to
// review; a checker's override "safe" still decides an unassessed cell.
func TestUnassessedNotForMarkedOrOverridden(t *testing.T) {
	tab, err := auditText(t, "g,total\na,x\nb,2000\n", "columns: {dims: [g], total: total}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Cells {
		want := audit.StatusReview
		if c.Key[0] == "a" {
			want = audit.StatusOK // "x" is a suppression marker: nothing published
		}
		if c.Status != want {
			t.Errorf("cell %v: %s, want %s", c.Key, c.Status, want)
		}
	}
	tab, err = auditText(t, "g,total\na,1000\nb,2000\n", "columns: {dims: [g], total: total}\nsuppression: {secondary: false}\n"+
		"overrides:\n  - {cell: {g: a}, action: safe, reason: published counts elsewhere, by: J. Smith}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Cells {
		want := audit.StatusReview
		if c.Key[0] == "a" {
			want = audit.StatusOK
		}
		if c.Status != want {
			t.Errorf("with the override, cell %v: %s, want %s", c.Key, c.Status, want)
		}
	}
}
