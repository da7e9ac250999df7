package intervals

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestAnnotateFiguresSized: the interval audit's finding of a suppressed
// cell holds its figures in an array of their number (kept to the end of
// the run for every suppressed cell: at a million cells appending the
// "approximate" or "undetermined" flag to six figures doubled it to
// twelve), and the figures are those of before, in their order.
func TestAnnotateFiguresSized(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"a"}}
	var res audit.Intervals
	for _, c := range []audit.Interval{
		{Key: []string{"x"}, Lo: 1, Hi: 9, Protected: true, Upper: 1, Lower: 1},
		{Key: []string{"y"}, Lo: 2, Hi: 8, Protected: true, Approximate: true, Upper: 1, Lower: 1},
		{Key: []string{"z"}, Lo: 3, Hi: 7, Undetermined: true, Upper: 1, Lower: 1},
	} {
		tab.Cells = append(tab.Cells, &audit.Cell{Key: c.Key, Status: audit.StatusPrimary})
		res.Add(c)
	}
	Annotate(tab, &res)
	want := [][]string{
		{"lo", "hi", "exact", "protected", "upper_level", "lower_level"},
		{"lo", "hi", "exact", "protected", "upper_level", "lower_level", "approximate"},
		{"lo", "hi", "exact", "protected", "upper_level", "lower_level", "undetermined"},
	}
	for k, c := range tab.Cells {
		if len(c.Findings) != 1 {
			t.Fatalf("cell %v: %d findings, want 1", c.Key, len(c.Findings))
		}
		figs := c.Findings[0].FigureList()
		if cap(figs) != len(figs) {
			t.Errorf("cell %v: %d figures in an array of %d", c.Key, len(figs), cap(figs))
		}
		if len(figs) != len(want[k]) {
			t.Fatalf("cell %v: figures %v, want %v", c.Key, figs, want[k])
		}
		for j, f := range figs {
			if f.Name != want[k][j] {
				t.Errorf("cell %v: figure %d is %q, want %q", c.Key, j, f.Name, want[k][j])
			}
		}
	}
}
