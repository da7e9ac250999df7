package readers

import (
	"slices"
	"testing"
)

// TestWideUncoded: ASHE 9.9a's code column B is blank on the rows above
// constituency level: those rows' labels (United Kingdom ... Northern
// Ireland, 16 of them, in sheet order) are the uncoded rows of column A's
// dimension; a table without a code column has none.
func TestWideUncoded(t *testing.T) {
	tables, paths, _ := buildCorpus(t)
	for _, tb := range tables {
		if tb.ID != "ashe2014-t99a" && tb.ID != "itis2018-t1" {
			continue
		}
		d, err := DetectWide(paths[tb.File], Options{Sheet: tb.Sheet, Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
		if err != nil {
			t.Fatal(err)
		}
		srcs, err := Open(paths[tb.File], Options{Sheet: tb.Sheet, Wide: &WideOptions{Dims: d.Dims, Across: d.Across, Value: d.Value, TotalLabel: "Total"}})
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := As[WideSource](srcs[0])
		got := ws.Layout().Uncoded()
		if tb.ID == "itis2018-t1" {
			if got != nil {
				t.Errorf("%s: uncoded %v, want none", tb.ID, got)
			}
			continue
		}
		want := []string{"United Kingdom", "Great Britain", "England and Wales", "England", "North East", "North West", "Yorkshire and The Humber",
			"East Midlands", "West Midlands", "South West", "East", "London", "South East", "Wales / Cymru", "Scotland", "Northern Ireland"}
		if len(got) != 1 || !slices.Equal(got[0], want) {
			t.Errorf("%s: uncoded %v, want {0: %v}", tb.ID, got, want)
		}
	}
}
