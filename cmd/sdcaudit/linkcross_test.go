package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A table with two breakdowns of one total ("All people" = Men + Women =
// three age bands) linked by links: with a table of the same groups by
// sector (issue 24). The group's cover does not cross the breakdowns: it
// withheld Aged 0-15 North (2, a primary) with Aged 0-15 South only, and
// All people − Aged 16-64 − Aged 65+ = 120 − 80 − 38 gave it back from the
// safe table while its verdict was only "review".

// linkCrossLong is a long-form table (Group, dim, n) of the six groups
// ("All people", Men, Women, the three age bands), each with its counts
// in the two categories cats and their Total.
func linkCrossLong(dim string, cats [2]string, counts [6][2]int) string {
	var b strings.Builder
	b.WriteString("Group," + dim + ",n\n")
	for i, g := range []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-64", "Aged 65+"} {
		n := counts[i]
		fmt.Fprintf(&b, "%s,%s,%d\n%s,%s,%d\n%s,Total,%d\n", g, cats[0], n[0], g, cats[1], n[1], g, n[0]+n[1])
	}
	return b.String()
}

// linkCrossTwo is the table with the breakdowns (long form, region).
var linkCrossTwo = linkCrossLong("region", [2]string{"North", "South"}, [6][2]int{{120, 200}, {60, 98}, {60, 102}, {2, 50}, {80, 100}, {38, 50}})

// linkCrossSector is the linked table: the same groups by sector, their
// Total column shared with linkCrossTwo's.
var linkCrossSector = linkCrossLong("sector", [2]string{"A", "B"}, [6][2]int{{150, 170}, {70, 88}, {80, 82}, {20, 32}, {90, 90}, {40, 48}})

// linkCrossTableRels are the true relations of one of the two tables,
// written by hand for lines 2-19 (All people, Men, Women, the three age
// bands; North, South, Total) and shifted down by off lines: its two
// breakdowns and its row totals.
func linkCrossTableRels(off int) string {
	var b strings.Builder
	for _, rel := range [][]int{
		{2, 5, 8}, {3, 6, 9}, {4, 7, 10},
		{2, 11, 14, 17}, {3, 12, 15, 18}, {4, 13, 16, 19},
		{4, 2, 3}, {7, 5, 6}, {10, 8, 9}, {13, 11, 12}, {16, 14, 15}, {19, 17, 18},
	} {
		fmt.Fprintf(&b, "R %d =", rel[0]+off)
		for _, l := range rel[1:] {
			fmt.Fprintf(&b, " %d", l+off)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// linkCrossRels are the true relations of both tables as one list of
// lines (linkCrossTwo's lines 2-19, linkCrossSector's body lines after
// them, 20-37), written by hand: each table's two breakdowns and row
// totals, and the shared Total cells equal.
var linkCrossRels = "labelcols 2\n" + linkCrossTableRels(0) + linkCrossTableRels(18) + `R 4 = 22
R 7 = 25
R 10 = 28
R 13 = 31
R 16 = 34
R 19 = 37
`

// TestLinkedCrossedResistsAttack: sdcaudit run protects the linked
// release; the two safe tables, read together, are attacked over the
// true relations (gonum's simplex): no withheld cell is pinned to within
// 1, the primary is withheld, and every withheld cell of the table with
// the breakdowns carries a review finding (neither system the tool
// protects it in holds every relation).
func TestLinkedCrossedResistsAttack(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"two.csv": linkCrossTwo, "sector.csv": linkCrossSector, "rel.yaml": `rules:
  threshold: {min: 3}
  dominance: {enabled: false}
  p_percent: {enabled: false}
suppression: {time_limit: 60m}
tables:
  - {file: two.csv, name: two, columns: {dims: [Group, region], count: n}}
  - {file: sector.csv, name: sector, columns: {dims: [Group, sector], count: n}}
links: [[two, sector]]
`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", filepath.Join(dir, "rel.yaml"), "--out", out, "--quiet"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("run: exit %d: %s", code, stderr.String())
	}
	orig := append(readCSVFile(t, filepath.Join(dir, "two.csv")), readCSVFile(t, filepath.Join(dir, "sector.csv"))[1:]...)
	safe := append(readCSVFile(t, filepath.Join(out, "two.safe.csv")), readCSVFile(t, filepath.Join(out, "sector.safe.csv"))[1:]...)
	h, _ := relsHand(t, "linkcross", linkCrossRels, len(orig), len(orig[0]))
	attacked := h.attackSafe(t, orig, safe, pos{11, 3})

	b, err := os.ReadFile(filepath.Join(out, "two.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Link struct {
			Linked, Exact bool
		} `json:"link"`
		Audit struct {
			Cells []struct {
				Key       map[string]string `json:"key"`
				Lo, Hi    *float64
				Protected bool `json:"protected"`
			} `json:"cells"`
		} `json:"audit"`
		Cells []struct {
			Key      map[string]string `json:"key"`
			Status   string            `json:"status"`
			Findings []struct {
				Status string `json:"status"`
			} `json:"findings"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Link.Linked || !r.Link.Exact {
		t.Fatalf("link %+v: the test does not reach the linked path", r.Link)
	}
	// neither system holds every relation: no withheld cell is called
	// protected, and no interval is wider than the intruder's
	for _, c := range r.Audit.Cells {
		row := slices.IndexFunc(orig[:19], func(l []string) bool { return l[0] == c.Key["Group"] && l[1] == c.Key["region"] })
		a := attacked[pos{row + 1, 3}]
		if a == nil {
			t.Errorf("audited cell %v is published", c.Key)
			continue
		}
		if c.Protected {
			t.Errorf("cell %v called protected", c.Key)
		}
		rvWithin(t, fmt.Sprint(c.Key), c.Lo, c.Hi, a)
	}
	for _, c := range r.Cells {
		if c.Status != "primary" && c.Status != "secondary" {
			continue
		}
		review := false
		for _, f := range c.Findings {
			review = review || f.Status == "review"
		}
		if !review {
			t.Errorf("withheld cell %v has no review finding", c.Key)
		}
	}
}
