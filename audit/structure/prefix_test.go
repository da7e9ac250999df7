package structure

import "testing"

// TestPrefixTree: a year above its quarters by the start of their codes
// ("2019" and "2019 Q1" ... "2019 Q4", as the ONS balance of payments
// reads its period down two header rows): the year that is the sum of
// its quarters is their margin; a year whose quarters are not all shown
// ("2018" above "2018 Q2" ... "2018 Q4") is not, and nothing is a part of
// it. Before, no margin was found: no code is labelled a total and none
// is the sum of all the others.
func TestPrefixTree(t *testing.T) {
	codes := []string{"2018", "2019", "2018 Q2", "2018 Q3", "2018 Q4", "2019 Q1", "2019 Q2", "2019 Q3", "2019 Q4"}
	tab := counts("period", codes, []int64{40, 46, 10, 11, 12, 10, 11, 12, 13})
	res, err := Infer(tab, Options{Wide: true, RowDims: 1})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	for _, c := range []string{"2019 Q1", "2019 Q2", "2019 Q3", "2019 Q4"} {
		if ax.Parent[c] != "2019" {
			t.Errorf("parent of %s = %q, want 2019 (%+v)", c, ax.Parent[c], ax.Parent)
		}
	}
	for _, c := range []string{"2018", "2019", "2018 Q2", "2018 Q3", "2018 Q4"} {
		if p, ok := ax.Parent[c]; ok {
			t.Errorf("%s has parent %q, want none", c, p)
		}
	}
	if ax.Found["2019"] != "code prefix and arithmetic" {
		t.Errorf("2019 found %q", ax.Found["2019"])
	}
	// three levels: a quarter above its months, the year above its
	// quarters (not above the months)
	codes = []string{"2019", "2019 Q1", "2019 Q2", "2019 Q1 Jan", "2019 Q1 Feb", "2019 Q1 Mar"}
	tab = counts("period", codes, []int64{21, 6, 15, 1, 2, 3})
	if res, err = Infer(tab, Options{Wide: true, RowDims: 1}); err != nil {
		t.Fatal(err)
	}
	ax = res.Structure.Axes[0]
	want := map[string]string{"2019 Q1": "2019", "2019 Q2": "2019", "2019 Q1 Jan": "2019 Q1", "2019 Q1 Feb": "2019 Q1", "2019 Q1 Mar": "2019 Q1"}
	for c, p := range want {
		if ax.Parent[c] != p {
			t.Errorf("three levels: parent of %s = %q, want %q (%+v)", c, ax.Parent[c], p, ax.Parent)
		}
	}
	// codes that continue another's but do not add up to it: no margin
	codes = []string{"North", "North East", "North West", "South"}
	tab = counts("area", codes, []int64{30, 10, 11, 5})
	if res, err = Infer(tab, Options{Wide: true, RowDims: 1}); err != nil {
		t.Fatal(err)
	}
	if len(res.Structure.Axes[0].Parent) != 0 {
		t.Errorf("a margin found where none adds up: %+v", res.Structure.Axes[0].Parent)
	}
}
