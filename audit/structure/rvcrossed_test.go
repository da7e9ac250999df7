package structure

import (
	"slices"
	"testing"
)

// TestRvCrossedRefused (review of issue 24's crossed breakdowns): where
// the runs found are not a cross, or a labelled total has a breakdown the
// inference cannot place, no cross is recorded and the total is
// unconfirmed (the audit then calls no suppressed cell protected); a row
// of zeros after the last breakdown joins it.
func TestRvCrossedRefused(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rows        []string
		vals        [][2]int64
		want        [][]string // the breakdowns recorded, or none
		unconfirmed bool
	}{
		// X = C0 + C1, every third code from the third: nested (the
		// strided search began only from starts below its stride)
		{"stride from 2", []string{"All people", "X", "Y", "A0", "B0", "C0", "A1", "B1", "C1"},
			[][2]int64{{36, 43}, {16, 18}, {20, 25}, {1, 2}, {3, 4}, {5, 6}, {7, 9}, {9, 10}, {11, 12}}, nil, true},
		// Men = Men aged 0-15 + Men aged 16+ (a run of the second)
		{"nested runs", []string{"All people", "Men", "Women", "Men aged 0-15", "Men aged 16+", "Women aged 0-15", "Women aged 16+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 40}, {58, 58}, {30, 50}, {30, 52}}, nil, true},
		// a nested band: All = Men + Women = 0-15 + 16+, 16+ = 16-64 +
		// 65+: the second breakdown with its band (once unconfirmed)
		{"nested band", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16+", "Aged 16-64", "Aged 65+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {118, 150}, {80, 100}, {38, 50}},
			[][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16+", "Aged 16-64", "Aged 65+"}}, false},
		// two levels of bands: 16+ = 16-64 + 65+, 65+ = 65-74 + 75+
		{"two levels", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16+", "Aged 16-64", "Aged 65+", "Aged 65-74", "Aged 75+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {118, 150}, {80, 100}, {38, 50}, {30, 20}, {8, 30}},
			[][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16+", "Aged 16-64", "Aged 65+", "Aged 65-74", "Aged 75+"}}, false},
		// the band below its parts
		{"band after", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+", "Aged 16+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 50}, {118, 150}},
			[][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+", "Aged 16+"}}, false},
		// the band in the first breakdown
		{"band first", []string{"All people", "Aged 0-15", "Aged 16+", "Aged 16-64", "Aged 65+", "Men", "Women"},
			[][2]int64{{120, 200}, {2, 50}, {118, 150}, {80, 100}, {38, 50}, {60, 98}, {60, 102}},
			[][]string{{"Aged 0-15", "Aged 16+", "Aged 16-64", "Aged 65+"}, {"Men", "Women"}}, false},
		// the band's parts are labelled with the other breakdown's
		// codes (Men aged 16+): cells of the cross, not finer bands;
		// arithmetic cannot tell, no cross
		{"band across", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16+", "Men aged 16+", "Women aged 16+"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {118, 150}, {58, 58}, {60, 92}}, nil, true},
		{"zero row", []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+", "Age unknown"},
			[][2]int64{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 50}, {0, 0}},
			[][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+", "Age unknown"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Infer(columnTable(tc.rows, tc.vals), Options{RowDims: 1, Wide: true})
			if err != nil {
				t.Fatal(err)
			}
			ax := res.Structure.Axes[0]
			if b := ax.Breakdowns["All people"]; !slices.EqualFunc(b, tc.want, slices.Equal) {
				t.Errorf("breakdowns %q, want %q", b, tc.want)
			}
			for _, r := range tc.want {
				for _, c := range r {
					// a band's part adds up into its band, the first
					// breakdown's other codes into the total
					want := ""
					switch {
					case (c == "Aged 16-64" || c == "Aged 65+") && slices.Contains(tc.rows, "Aged 16+"):
						want = "Aged 16+"
					case c == "Aged 65-74" || c == "Aged 75+":
						want = "Aged 65+"
					case slices.Contains(tc.want[0], c):
						want = "All people"
					}
					if ax.Parent[c] != want {
						t.Errorf("parent of %q is %q, want %q", c, ax.Parent[c], want)
					}
				}
			}
			if got := slices.Contains(res.Structure.Unconfirmed, "area=All people"); got != tc.unconfirmed {
				t.Errorf("unconfirmed %q, want All people unconfirmed %v; warnings %q", res.Structure.Unconfirmed, tc.unconfirmed, res.Warnings)
			}
		})
	}
}
