package structure

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// censusLike is a table laid out as the Census Bureau's population
// tables, with made-up values: the nation, the four regions, the states
// in alphabetical order with a leading dot, Puerto Rico apart, in two
// year columns. Each state's value in year y is its rank + 10·y; a region
// is the sum of its states as the hand-written classification below
// says (written here, not read from census.go), plus off[region].
func censusLike(off map[string]int64) *audit.Table {
	return censusTable(off, false)
}

// censusDivisions are the Census divisions, written by hand here: each
// region's divisions and their states.
var censusDivisions = map[string][]string{
	"New England":        {"Connecticut", "Maine", "Massachusetts", "New Hampshire", "Rhode Island", "Vermont"},
	"Middle Atlantic":    {"New Jersey", "New York", "Pennsylvania"},
	"East North Central": {"Illinois", "Indiana", "Michigan", "Ohio", "Wisconsin"},
	"West North Central": {"Iowa", "Kansas", "Minnesota", "Missouri", "Nebraska", "North Dakota", "South Dakota"},
	"South Atlantic":     {"Delaware", "District of Columbia", "Florida", "Georgia", "Maryland", "North Carolina", "South Carolina", "Virginia", "West Virginia"},
	"East South Central": {"Alabama", "Kentucky", "Mississippi", "Tennessee"},
	"West South Central": {"Arkansas", "Louisiana", "Oklahoma", "Texas"},
	"Mountain":           {"Arizona", "Colorado", "Idaho", "Montana", "Nevada", "New Mexico", "Utah", "Wyoming"},
	"Pacific":            {"Alaska", "California", "Hawaii", "Oregon", "Washington"},
}

// censusTable is censusLike, with the nine divisions' rows after the
// regions when divisions is set.
func censusTable(off map[string]int64, divisions bool) *audit.Table {
	hand := map[string][]string{
		"Northeast": {"Connecticut", "Maine", "Massachusetts", "New Hampshire", "New Jersey", "New York", "Pennsylvania", "Rhode Island", "Vermont"},
		"Midwest":   {"Illinois", "Indiana", "Iowa", "Kansas", "Michigan", "Minnesota", "Missouri", "Nebraska", "North Dakota", "Ohio", "South Dakota", "Wisconsin"},
		"South":     {"Alabama", "Arkansas", "Delaware", "District of Columbia", "Florida", "Georgia", "Kentucky", "Louisiana", "Maryland", "Mississippi", "North Carolina", "Oklahoma", "South Carolina", "Tennessee", "Texas", "Virginia", "West Virginia"},
		"West":      {"Alaska", "Arizona", "California", "Colorado", "Hawaii", "Idaho", "Montana", "Nevada", "New Mexico", "Oregon", "Utah", "Washington", "Wyoming"},
	}
	var states []string
	for _, ss := range hand {
		states = append(states, ss...)
	}
	slices.Sort(states)
	rank := map[string]int64{}
	for i, s := range states {
		rank[s] = int64(i + 1)
	}
	t := &audit.Table{Name: "t", Dims: []string{"Geographic Area", "year"}, Mode: audit.Aggregate}
	add := func(code string, v func(y int64) int64) {
		for y := int64(0); y < 2; y++ {
			t.Cells = append(t.Cells, &audit.Cell{Key: []string{code, fmt.Sprint(2010 + y)}, HasN: true, N: v(y)})
		}
	}
	regions := []string{"Northeast", "Midwest", "South", "West"}
	region := func(r string, y int64) int64 {
		s := off[r]
		for _, st := range hand[r] {
			s += rank[st] + 10*y
		}
		return s
	}
	add("United States", func(y int64) int64 {
		var s int64
		for _, r := range regions {
			s += region(r, y) - off[r]
		}
		return s
	})
	for _, r := range regions {
		add(r, func(y int64) int64 { return region(r, y) })
	}
	if divisions {
		for _, d := range []string{"New England", "Middle Atlantic", "East North Central", "West North Central", "South Atlantic", "East South Central", "West South Central", "Mountain", "Pacific"} {
			add(d, func(y int64) int64 {
				s := off[d]
				for _, st := range censusDivisions[d] {
					s += rank[st] + 10*y
				}
				return s
			})
		}
	}
	for _, s := range states {
		add("."+s, func(y int64) int64 { return rank[s] + 10*y })
	}
	add("Puerto Rico", func(y int64) int64 { return 7 + y })
	return t
}

// TestCensusRegions: the regions of a Census-like table (not beside their
// states) are each the margin of their states, and the nation the margin
// of the regions; Puerto Rico is in none. Before, only the nation was
// found, as the sum of the dotted states, and the regions were related
// to nothing (an attack on a withheld state used the nation's relation
// only).
func TestCensusRegions(t *testing.T) {
	res, err := Infer(censusLike(nil), Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	want := map[string]string{".Connecticut": "Northeast", ".Vermont": "Northeast", ".Ohio": "Midwest", ".District of Columbia": "South", ".Texas": "South", ".Wyoming": "West", ".Hawaii": "West",
		"Northeast": "United States", "Midwest": "United States", "South": "United States", "West": "United States"}
	for c, p := range want {
		if ax.Parent[c] != p {
			t.Errorf("parent of %q = %q, want %q", c, ax.Parent[c], p)
		}
	}
	if len(ax.Parent) != 51+4 {
		t.Errorf("%d parents, want 55: %v", len(ax.Parent), ax.Parent)
	}
	if _, ok := ax.Parent["Puerto Rico"]; ok {
		t.Errorf("Puerto Rico in a margin")
	}
	if !strings.Contains(ax.Found["South"], "Census regions") || !strings.Contains(ax.Found["United States"], "Census regions") {
		t.Errorf("found %v", ax.Found)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestCensusRegionNotSum: a region one off its states' sum is no margin
// (a warning with the difference); the other regions are, and the nation
// is the margin of them and of the states of the region that is not
// (still a true relation). Two rows naming one state are ambiguous: no
// region is related to its states by the classification, with a warning.
func TestCensusRegionNotSum(t *testing.T) {
	res, err := Infer(censusLike(map[string]int64{"Midwest": 1}), Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	if ax.Parent[".Ohio"] != "United States" || ax.IsMarginCode("Midwest") || ax.Parent["Midwest"] != "" {
		t.Errorf("Midwest: parents %v", ax.Parent)
	}
	if ax.Parent[".Texas"] != "South" || ax.Parent["South"] != "United States" {
		t.Errorf("South: parents %v", ax.Parent)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `"Midwest" is a Census region but is not the sum of its 12 states (difference 1`) {
		t.Errorf("warnings %q", res.Warnings)
	}

	tab := censusLike(nil)
	for _, c := range slices.Clone(tab.Cells) {
		if c.Key[0] == ".Texas" {
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{"Texas", c.Key[1]}, HasN: true, N: c.N})
		}
	}
	res, err = Infer(tab, Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax = res.Structure.Axes[0]
	for c, p := range ax.Parent {
		if strings.Contains(ax.Found[p], "Census") {
			t.Errorf("ambiguous: %q -> %q by %s", c, p, ax.Found[p])
		}
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `".Texas" and "Texas" both name the Census state "texas": ambiguous`) {
		t.Errorf("ambiguous: warnings %q", res.Warnings)
	}
}

// TestCensusDivisions: with the divisions printed too, each division is
// the margin of its states and each region of its divisions; a division
// one off its states' sum is no margin (a warning), its region then the
// margin of its other division and of that division's states.
func TestCensusDivisions(t *testing.T) {
	res, err := Infer(censusTable(nil, true), Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	want := map[string]string{".Connecticut": "New England", ".New York": "Middle Atlantic", ".Texas": "West South Central", ".Hawaii": "Pacific",
		"New England": "Northeast", "Middle Atlantic": "Northeast", "South Atlantic": "South", "East South Central": "South", "West South Central": "South", "Mountain": "West",
		"Northeast": "United States", "West": "United States"}
	for c, p := range want {
		if ax.Parent[c] != p {
			t.Errorf("parent of %q = %q, want %q", c, ax.Parent[c], p)
		}
	}
	if len(ax.Parent) != 51+9+4 || len(res.Warnings) > 0 {
		t.Errorf("%d parents, want 64; warnings %q", len(ax.Parent), res.Warnings)
	}
	if !strings.Contains(ax.Found["Pacific"], "Census divisions") {
		t.Errorf("found %v", ax.Found)
	}

	res, err = Infer(censusTable(map[string]int64{"Mountain": 2}, true), Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax = res.Structure.Axes[0]
	if ax.IsMarginCode("Mountain") || ax.Parent[".Utah"] != "West" || ax.Parent["Pacific"] != "West" || ax.Parent["West"] != "United States" {
		t.Errorf("Mountain off: parents %v", ax.Parent)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `"Mountain" is a Census division but is not the sum of its 8 states (difference 2`) {
		t.Errorf("Mountain off: warnings %q", res.Warnings)
	}
}

// TestCensusNamesWithoutStates: region names in a table without the US
// states ("South", "SOUTH", "West" of some other country) are left to
// the other searches: no Census relation, no warning.
func TestCensusNamesWithoutStates(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"area", "year"}, Mode: audit.Aggregate}
	for i, a := range []string{"South", "SOUTH", "West", "Midwest", "Texas"} {
		for y := range 2 {
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{a, fmt.Sprint(2010 + y)}, HasN: true, N: int64(10*i + y + 1)})
		}
	}
	res, err := Infer(tab, Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) > 0 || len(res.Structure.Axes[0].Parent) > 0 {
		t.Errorf("warnings %q, parents %v", res.Warnings, res.Structure.Axes[0].Parent)
	}
}

// TestCensusLeavesRestToBlocks: a Census-like table whose other rows form
// a hierarchy by arithmetic ("Nation and territories" above the United
// States, "Island areas" = Guam + Virgin Islands + American Samoa, Puerto
// Rico): the regions are related to their states by the classification,
// and blockTree relates the rest. Before, the Census relations stopped
// blockTree: Island areas and the top row were related to nothing, so a
// withheld Guam read [0, unbounded] "protected" while Island areas -
// Virgin Islands - American Samoa gave it back.
func TestCensusLeavesRestToBlocks(t *testing.T) {
	tab := censusLike(nil)
	var us, pr [2]int64
	for _, c := range tab.Cells {
		y := 0
		if c.Key[1] == "2011" {
			y = 1
		}
		switch c.Key[0] {
		case "United States":
			us[y] = c.N
		case "Puerto Rico":
			pr[y] = c.N
		}
	}
	// Puerto Rico last, after the island areas
	tab.Cells = slices.DeleteFunc(tab.Cells, func(c *audit.Cell) bool { return c.Key[0] == "Puerto Rico" })
	add := func(code string, v [2]int64) {
		for y := range 2 {
			tab.Cells = append(tab.Cells, &audit.Cell{Key: []string{code, fmt.Sprint(2010 + y)}, HasN: true, N: v[y]})
		}
	}
	add("Island areas", [2]int64{60, 66})
	add("Guam", [2]int64{31, 34})
	add("Virgin Islands", [2]int64{19, 21})
	add("American Samoa", [2]int64{10, 11})
	add("Puerto Rico", pr)
	top := []*audit.Cell{
		{Key: []string{"Nation and territories", "2010"}, HasN: true, N: us[0] + 60 + pr[0]},
		{Key: []string{"Nation and territories", "2011"}, HasN: true, N: us[1] + 66 + pr[1]},
	}
	tab.Cells = append(top, tab.Cells...)
	res, err := Infer(tab, Options{RowDims: 1, Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Structure.Axes[0]
	want := map[string]string{"Guam": "Island areas", "Virgin Islands": "Island areas", "American Samoa": "Island areas",
		"United States": "Nation and territories", "Island areas": "Nation and territories", "Puerto Rico": "Nation and territories",
		".Ohio": "Midwest", "South": "United States"}
	for c, q := range want {
		if ax.Parent[c] != q {
			t.Errorf("parent of %q = %q, want %q (found %v, notes %q)", c, ax.Parent[c], q, ax.Found, res.Structure.Notes)
		}
	}
	if !strings.Contains(ax.Found["Island areas"], "arithmetic") || !strings.Contains(ax.Found["United States"], "Census regions") {
		t.Errorf("found %v", ax.Found)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings %q", res.Warnings)
	}
}
