package structure

import (
	"testing"
)

// TestDotTree: rows marked as sub-parts by a leading dot (".Alabama"),
// none labelled a total, with undotted rows beside them that are not
// their sum (regions, Puerto Rico): the one undotted row that is the sum
// of every dotted row on every line is their margin (the US Census
// Bureau's state and county tables). Before, no margin was found: United
// States is not the sum of all the other rows.
func TestDotTree(t *testing.T) {
	codes := []string{"United States", "East", "West", ".Alabama", ".Alaska", ".Arizona", "Puerto Rico"}
	tab := counts("area", codes, []int64{60, 25, 35, 10, 15, 35, 7})
	res, err := Infer(tab, Options{Wide: true, RowDims: 1})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	for _, c := range []string{".Alabama", ".Alaska", ".Arizona"} {
		if ax.Parent[c] != "United States" {
			t.Errorf("parent of %s = %q, want United States (%+v)", c, ax.Parent[c], ax)
		}
	}
	for _, c := range []string{"East", "West", "Puerto Rico"} {
		if p, ok := ax.Parent[c]; ok {
			t.Errorf("%s has parent %q, want none", c, p)
		}
	}
	// dotted rows whose sum no undotted row is: no margin
	tab = counts("area", codes, []int64{61, 25, 35, 10, 15, 35, 7})
	if res, err = Infer(tab, Options{Wide: true, RowDims: 1}); err != nil {
		t.Fatal(err)
	}
	if len(res.Structure.Axes[0].Parent) != 0 {
		t.Errorf("a margin found where none adds up: %+v", res.Structure.Axes[0].Parent)
	}
}
