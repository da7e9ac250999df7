package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// censusRestRegions are the Census regions and their states, written by
// hand here (not read from census.go).
var censusRestRegions = []struct {
	name   string
	states []string
}{
	{"Northeast", []string{"Connecticut", "Maine", "Massachusetts", "New Hampshire", "Rhode Island", "Vermont", "New Jersey", "New York", "Pennsylvania"}},
	{"Midwest", []string{"Illinois", "Indiana", "Michigan", "Ohio", "Wisconsin", "Iowa", "Kansas", "Minnesota", "Missouri", "Nebraska", "North Dakota", "South Dakota"}},
	{"South", []string{"Delaware", "District of Columbia", "Florida", "Georgia", "Maryland", "North Carolina", "South Carolina", "Virginia", "West Virginia", "Alabama", "Kentucky", "Mississippi", "Tennessee", "Arkansas", "Louisiana", "Oklahoma", "Texas"}},
	{"West", []string{"Arizona", "Colorado", "Idaho", "Montana", "Nevada", "New Mexico", "Utah", "Wyoming", "Alaska", "California", "Hawaii", "Oregon", "Washington"}},
}

// censusRest is a Census-like table (the nation, the four regions, the
// states in alphabetical order with a leading dot) whose other rows form
// a hierarchy by arithmetic: "Nation and territories" (row 2) = United
// States (3) + Island areas (59) + Puerto Rico (63); Island areas = Guam
// (60) + Virgin Islands (61) + American Samoa (62). Guam's 2010 count, 5,
// is a primary. Returned with the structure a person sees, written by
// hand.
func censusRest() (string, handTable) {
	var states []string
	for _, r := range censusRestRegions {
		states = append(states, r.states...)
	}
	slices.Sort(states)
	row := map[string]int{}
	val := map[string][2]int64{}
	for i, s := range states {
		row[s] = 8 + i
		val[s] = [2]int64{1000 + 37*int64(i), 1013 + 41*int64(i)}
	}
	var us [2]int64
	for k, r := range censusRestRegions {
		row[r.name] = 4 + k
		var v [2]int64
		for _, s := range r.states {
			v[0] += val[s][0]
			v[1] += val[s][1]
		}
		val[r.name] = v
		us[0] += v[0]
		us[1] += v[1]
	}
	val["United States"], row["United States"] = us, 3
	islands := map[string][2]int64{"Guam": {5, 34}, "Virgin Islands": {19, 21}, "American Samoa": {12, 13}}
	val["Island areas"] = [2]int64{36, 68}
	val["Puerto Rico"] = [2]int64{3000, 3100}
	val["Nation and territories"] = [2]int64{us[0] + 36 + 3000, us[1] + 68 + 3100}
	order := []string{"Nation and territories", "United States", "Northeast", "Midwest", "South", "West"}
	order = append(order, states...)
	order = append(order, "Island areas", "Guam", "Virgin Islands", "American Samoa", "Puerto Rico")
	for k, c := range []string{"Nation and territories", "Island areas", "Guam", "Virgin Islands", "American Samoa", "Puerto Rico"} {
		row[c] = []int{2, 59, 60, 61, 62, 63}[k]
		if v, ok := islands[c]; ok {
			val[c] = v
		}
	}
	var b strings.Builder
	b.WriteString("Geographic Area,April 2010,July 2011\n")
	for _, c := range order {
		label := c
		if slices.Contains(states, c) {
			label = "." + c
		}
		fmt.Fprintf(&b, "%s,%d,%d\n", label, val[c][0], val[c][1])
	}
	h := handTable{id: "censusRest"}
	for r := 2; r <= 63; r++ {
		for c := 2; c <= 3; c++ {
			h.cells = append(h.cells, pos{r, c})
		}
	}
	sum := func(total string, parts []string, c int) {
		rel := []relTerm{{pos{row[total], c}, 1}}
		for _, p := range parts {
			rel = append(rel, relTerm{pos{row[p], c}, -1})
		}
		h.rels = append(h.rels, rel)
	}
	for c := 2; c <= 3; c++ {
		var regions []string
		for _, r := range censusRestRegions {
			sum(r.name, r.states, c)
			regions = append(regions, r.name)
		}
		sum("United States", regions, c)
		sum("Island areas", []string{"Guam", "Virgin Islands", "American Samoa"}, c)
		sum("Nation and territories", []string{"United States", "Island areas", "Puerto Rico"}, c)
	}
	return b.String(), h
}

// TestCensusRestProtect: the safe table of censusRest withholds Guam's
// 2010 count of 5, and gonum's simplex over the hand structure recovers
// no withheld cell to within 1; the island areas are found by arithmetic
// beside the Census regions. Before, the Census relations stopped the
// search by arithmetic: Guam was withheld alone and Island areas -
// Virgin Islands - American Samoa = 36 - 19 - 12 gave it back.
func TestCensusRestProtect(t *testing.T) {
	text, h := censusRest()
	_, rows, rep, _ := checkCSV(t, text, "--value", "count")
	orig := readCSVText(t, text)
	if len(rows) != len(orig) || orig[59][0] != "Guam" || orig[7][0] != ".Alabama" {
		t.Fatalf("safe table has %d rows, input %d; row 60 %q", len(rows), len(orig), orig[59][0])
	}
	h.attackSafe(t, orig, rows, pos{60, 2})
	margins := reportMargins(t, rep)
	if m := margins["Island areas"]; m.of != "Guam, Virgin Islands, American Samoa" || !strings.Contains(m.found, "arithmetic") {
		t.Errorf("Island areas: %+v (margins %v)", m, margins)
	}
	if m := margins["Nation and territories"]; m.of != "United States, Island areas, Puerto Rico" {
		t.Errorf("Nation and territories: %+v", m)
	}
	if m := margins["South"]; !strings.Contains(m.found, "Census regions") {
		t.Errorf("South: %+v", m)
	}
}

// TestAuditCensusRestDisclosed: a received copy of censusRest with Guam's
// 2010 count withheld alone: `audit` reports it exactly disclosed (36 -
// 19 - 12 = 5), exit 1. Before: [0, unbounded] "protected", exit 0.
func TestAuditCensusRestDisclosed(t *testing.T) {
	text, _ := censusRest()
	text = strings.Replace(text, "\nGuam,5,34\n", "\nGuam,x,34\n", 1)
	path := filepath.Join(t.TempDir(), "received.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, res, out := runAudit(t, path, "--value", "count")
	if code != 1 || res.Exactly != 1 {
		t.Errorf("exit %d, %d exactly disclosed; want 1 and 1:\n%s", code, res.Exactly, out)
	}
	found := false
	for _, c := range res.Cells {
		if c.Key["Geographic Area"] == "Guam" && c.Key["across"] == "April 2010" {
			found = true
			if !c.Exact || c.Protected || c.Lo == nil || c.Hi == nil || math.Abs(*c.Lo-5) > 1e-9 || math.Abs(*c.Hi-5) > 1e-9 {
				t.Errorf("Guam 2010 not reported exactly disclosed at 5:\n%s", out)
			}
		}
	}
	if !found {
		t.Errorf("Guam 2010 not in the audit:\n%s", out)
	}
}
