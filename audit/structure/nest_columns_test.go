package structure

import (
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestNestedColumns: two column dimensions of a crosstab whose second
// header row has its own codes under each code of the first (Census and
// Estimates Base under the April 2010 date, the years under "Population
// Estimate (as of July 1)") are nested: one axis, so that the class rule
// judges each group, not the absent combinations. Before, they were two
// crossed axes and every cell of the US Census Bureau's estimates was a
// class primary with --value count.
func TestNestedColumns(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"area", "date", "estimate"}, Mode: audit.Aggregate}
	cols := [][2]string{{"April 1, 2010", "Census"}, {"April 1, 2010", "Estimates Base"}, {"July 1", "2010"}, {"July 1", "2011"}}
	for i, a := range []string{"California", ".Alameda", ".Alpine"} {
		for j, c := range cols {
			n := []int64{30, 10, 20}[i] + int64(j)*[]int64{2, 1, 1}[i]
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{a, c[0], c[1]}, HasN: true, N: n})
		}
	}
	res, err := Infer(tab, Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Structure
	if len(st.Axes) != 2 || len(st.Axes[1].Dims) != 2 {
		t.Fatalf("axes %+v, want the area and one axis of date > estimate", st.Axes)
	}
	if !strings.Contains(strings.Join(st.Notes, "\n"), "columns nested: date > estimate") {
		t.Errorf("notes %q", st.Notes)
	}
	// crossed column dimensions stay two axes
	tab2 := &audit.Table{Name: "t", Dims: []string{"area", "industry", "destination"}, Mode: audit.Aggregate}
	for _, a := range []string{"North", "South"} {
		for _, i := range []string{"Mining", "Trade"} {
			for _, d := range []string{"EU", "Rest"} {
				tab2.Cells = append(tab2.Cells, &audit.Cell{Key: []string{a, i, d}, HasN: true, N: 5})
			}
		}
	}
	res, err = Infer(tab2, Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Structure.Axes) != 3 {
		t.Errorf("crossed columns: axes %+v", res.Structure.Axes)
	}
}
