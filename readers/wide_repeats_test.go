package readers

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWideRepeatedLabelsQualified: a row label repeated under different
// parents by indentation gets a key qualified by its parent's label (its
// parent's own key where that repeats too), parents printed before or
// after their children; the sheet keeps the labels as published, Lead
// their indentation, Qualified the cells, and the layout message says
// so. Before, the keys repeated and the table was refused as a duplicate
// cell.
func TestWideRepeatedLabelsQualified(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // the row keys in order
	}{
		{"parents after", "Industry,North\n  Food,1\n  Other,2\nManufacturing,3\n  Retail,4\n  Other,5\nServices,9\nAll,12\n",
			[]string{"Food", "Manufacturing / Other", "Manufacturing", "Retail", "Services / Other", "Services", "All"}},
		{"repeat under a repeat", "Area,Count\nAll,10\n  North,4\n    Other,4\n  Other,6\n    Other,6\n",
			[]string{"All", "North", "North / Other", "All / Other", "All / Other / Other"}},
		// not indented: the blocks of rows that add up to the row above
		{"blocks", "Industry,North,South\nAll,100,200\nManufacturing,40,90\nFood,30,60\nOther,10,30\nServices,60,110\nRetail,45,70\nOther,15,40\n",
			[]string{"All", "Manufacturing", "Food", "Manufacturing / Other", "Services", "Retail", "Services / Other"}},
	} {
		path := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		rows, lay, _, warn := readDetected(t, path, "", "count")
		var got []string
		for _, r := range rows {
			if len(got) == 0 || got[len(got)-1] != r[0] {
				got = append(got, r[0]) // one cell per column
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: keys %q, want %q", tc.name, got, tc.want)
		}
		for _, q := range lay.Qualified {
			if v := lay.Rows[q.Row-1][q.Col]; v != "Other" {
				t.Errorf("%s: the sheet's label at row %d is %q, want it as published", tc.name, q.Row, v)
			}
			if lead := lay.LabelText(q, "Other"); tc.name != "blocks" && !strings.HasPrefix(lead, "  ") || strings.TrimLeft(lead, " ") != "Other" {
				t.Errorf("%s: row %d printed %q, want it indented as published", tc.name, q.Row, lead)
			}
		}
		if n := strings.Count(tc.text, "Other"); len(lay.Qualified) != n {
			t.Errorf("%s: %d qualified cells %v, want %d", tc.name, len(lay.Qualified), lay.Qualified, n)
		}
		by := "the row they are indented under"
		if tc.name == "blocks" {
			by = "the row whose block of rows they are in by arithmetic"
		}
		if !strings.Contains(strings.Join(warn, "\n"), "repeated row label(s) named by "+by) {
			t.Errorf("%s: layout message:\n%s", tc.name, strings.Join(warn, "\n"))
		}
	}
}

// TestWideRepeatedLabelsRefused: repeats nothing tells apart are refused
// with ErrRepeatedLabel naming the row, the column and the keys to set:
// no indentation, one parent, the top level, tabs mixed with spaces, and
// a qualified label that is another row's label.
func TestWideRepeatedLabelsRefused(t *testing.T) {
	for _, tc := range []struct{ name, text, row, why string }{
		{"no indentation", "Industry,North\nA,3\nOther,1\nB,5\nOther,2\n", "row 5", "not indented"},
		{"one parent", "Industry,North\nA,3\n  Other,1\n  Other,2\n", "row 4", `both are under "A"`},
		{"top level", "Industry,North\nOther,3\n  Food,1\nOther,2\n", "row 4", "top level"},
		{"tabs and spaces", "Industry,North\nA,3\n\tOther,1\nB,5\n  Other,2\n", "row 5", "not indented"},
		{"collision", "Industry,North\nA,3\n  Other,1\nB,5\n  Other,2\nA / Other,1\n", "row 6", `rows 3 ("Other") and 6 ("A / Other") would both be named "A / Other"`},
	} {
		path := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := DetectWide(path, Options{Wide: &WideOptions{Value: "count", TotalLabel: "Total"}})
		var re *Error
		if !errors.Is(err, ErrRepeatedLabel) || !errors.As(err, &re) {
			t.Errorf("%s: %v, want ErrRepeatedLabel", tc.name, err)
			continue
		}
		for _, want := range []string{tc.row, `column "A"`, tc.why, "columns.dims"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", tc.name, err, want)
			}
		}
	}
}

// TestWideRepeatedTotalRow: a row whose labels and values repeat an
// earlier row's, nothing telling the two apart (the grand total printed
// at the top and again at the bottom), is the same row printed twice:
// keyed "Total (row 5)", listed in Repeated and Repeats (for the
// structure inference), named in the layout message; the sheet keeps the
// label as published. A withheld value in one copy is given by the
// other (they agree wherever both publish). Rows whose values differ,
// or that agree only as zeros, are refused as before, naming both rows.
// Before, every such table was refused (exit 3).
func TestWideRepeatedTotalRow(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"published", "Group,North,South\nTotal,120,200\nMen,2,98\nWomen,118,102\nTotal,120,200\n"},
		{"received", "Group,North,South,East\nTotal,120,x,310\nMen,x,98,160\nWomen,x,102,150\nTotal,x,200,310\n"},
	} {
		path := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		rows, lay, _, warn := readDetected(t, path, "", "count")
		var got []string
		for _, r := range rows {
			if len(got) == 0 || got[len(got)-1] != r[0] {
				got = append(got, r[0])
			}
		}
		if want := []string{"Total", "Men", "Women", "Total (row 5)"}; !slices.Equal(got, want) {
			t.Errorf("%s: keys %q, want %q", tc.name, got, want)
		}
		if len(lay.Repeated) != 1 || lay.Repeated[0] != (WideRepeat{Row: 5, Of: 2, Col: 0}) || lay.Rows[4][0] != "Total" {
			t.Errorf("%s: repeated %v, sheet label %q", tc.name, lay.Repeated, lay.Rows[4][0])
		}
		if r := lay.Repeats(); len(r) != 1 || r[0]["Total (row 5)"] != "Total" {
			t.Errorf("%s: Repeats() = %v", tc.name, r)
		}
		if !strings.Contains(strings.Join(warn, "\n"), "read as the same row printed twice (first: row 5 repeats row 2)") {
			t.Errorf("%s: layout message:\n%s", tc.name, strings.Join(warn, "\n"))
		}
	}
	for _, tc := range []struct{ name, text, first, why string }{
		{"differ", "Group,North,South\nTotal,120,200\nMen,2,98\nWomen,118,102\nTotal,121,200\n", "row 2's", "their values differ"},
		{"zeros", "Group,North,South\nA,3,4\nOther,0,0\nB,5,6\nOther,0,0\n", "row 3's", "not indented"},
	} {
		path := filepath.Join(t.TempDir(), "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := DetectWide(path, Options{Wide: &WideOptions{Value: "count", TotalLabel: "Total"}})
		var re *Error
		if !errors.Is(err, ErrRepeatedLabel) || !errors.As(err, &re) || re.Row != 5 {
			t.Errorf("%s: %v, want ErrRepeatedLabel at row 5", tc.name, err)
			continue
		}
		for _, want := range []string{tc.first, `column "A"`, tc.why} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", tc.name, err, want)
			}
		}
	}
}
