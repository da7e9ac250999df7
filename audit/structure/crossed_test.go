package structure

import (
	"slices"
	"strings"
	"testing"
)

// TestCrossedBreakdowns: one labelled total with two or three breakdowns
// in one label column (All people = Men + Women = three age bands, and a
// third by region of birth) is recorded with every breakdown
// (Axis.Breakdowns), the first in Parent, found by label and arithmetic,
// with a note and without a warning; a received copy with cells withheld
// (no figure) gives the same. Before (issue 24), "All people" was "not
// the sum of the other 5 codes": no margin on the axis at all.
func TestCrossedBreakdowns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rows     []string
		vals     [][2]int64
		withheld []int // rows whose first cell has no figure
		want     [][]string
	}{
		{"two", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 50}}, nil,
			[][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+"}}},
		{"two, withheld", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 50}}, []int{3},
			[][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+"}}},
		{"three, total last", []string{"Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+", "UK born", "Not UK born", "Total"},
			[][2]int64{{60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 50}, {100, 150}, {20, 50}, {120, 200}}, nil,
			[][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+"}, {"UK born", "Not UK born"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := columnTable(tc.rows, tc.vals)
			for _, r := range tc.withheld {
				tab.Cells[2*r].HasN = false
			}
			res, err := Infer(tab, Options{RowDims: 1, Wide: true})
			if err != nil {
				t.Fatal(err)
			}
			ax := res.Structure.Axes[0]
			total := "All people"
			if !slices.Contains(tc.rows, total) {
				total = "Total"
			}
			if b := ax.Breakdowns[total]; !slices.EqualFunc(b, tc.want, slices.Equal) {
				t.Fatalf("breakdowns %q, want %q; warnings %q", ax.Breakdowns, tc.want, res.Warnings)
			}
			for _, c := range tc.want[0] {
				if ax.Parent[c] != total {
					t.Errorf("%s adds up into %q, want %q", c, ax.Parent[c], total)
				}
			}
			if len(ax.Parent) != len(tc.want[0]) || ax.Found[total] != "label and arithmetic" {
				t.Errorf("parents %v, found %q", ax.Parent, ax.Found[total])
			}
			if len(res.Warnings) != 0 || len(res.Structure.Unconfirmed) != 0 || !res.Structure.Margins {
				t.Errorf("warnings %q, unconfirmed %q, margins %v", res.Warnings, res.Structure.Unconfirmed, res.Structure.Margins)
			}
			if !slices.ContainsFunc(res.Structure.Notes, func(n string) bool {
				return strings.Contains(n, "breakdowns of one total") && strings.Contains(n, "label and arithmetic")
			}) {
				t.Errorf("no note of the breakdowns: %q", res.Structure.Notes)
			}
			if a, c := res.Structure.Crossed(); a == nil || c != total {
				t.Errorf("Crossed() = %v, %q", a, c)
			}
		})
	}
}

// TestCrossedNotAddingUp: the runs do not all add up (an age band off by
// one on one line), or a code is left over (a row that is in neither
// breakdown): no breakdowns, and the total is not a margin, with the
// warning as before.
func TestCrossedNotAddingUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []string
		vals [][2]int64
	}{
		{"off by one", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 51}}},
		{"left over", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+", "Households"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 50}, {50, 80}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Infer(columnTable(tc.rows, tc.vals), Options{RowDims: 1, Wide: true})
			if err != nil {
				t.Fatal(err)
			}
			ax := res.Structure.Axes[0]
			if len(ax.Breakdowns) != 0 || len(ax.Parent) != 0 {
				t.Errorf("breakdowns %q, parents %v: want none", ax.Breakdowns, ax.Parent)
			}
			if a, _ := res.Structure.Crossed(); a != nil {
				t.Errorf("Crossed() found an axis")
			}
			if !slices.ContainsFunc(res.Warnings, func(w string) bool {
				return strings.Contains(w, `"All people" reads as a total but is not the sum`)
			}) {
				t.Errorf("no warning: %q", res.Warnings)
			}
		})
	}
}
