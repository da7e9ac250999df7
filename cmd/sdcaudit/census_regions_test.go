package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

// TestCensusReceivedRegion: a received copy of the Census state table
// (nst-est2019-01) with United States and Ohio withheld in the Census
// column (B5, B45): Ohio is given back by its region (Midwest, row 7, the
// sum of its twelve states: the Census Bureau's regions, not beside them
// in the table), United States by the four regions. `audit` reports Ohio
// exactly disclosed, exit 1. Before the regions were related to their
// states, the only relation was United States = the 51 dotted rows, with
// both unknown: Ohio was reported protected, exit 0.
func TestCensusReceivedRegion(t *testing.T) {
	w, err := corpus.Load(filepath.Join("../../testdata/corpus", "nst-est2019-01.cells"))
	if err != nil {
		t.Fatal(err)
	}
	sheet := w.Sheet("NST01")
	want := map[string]string{"A7": "Midwest", "A45": ".Ohio", "B45": "11536504", "A5": "United States"}
	for i := range sheet.Cells {
		c := &sheet.Cells[i]
		if v, ok := want[c.Ref]; ok && c.Value != v {
			t.Fatalf("%s is %q, want %q", c.Ref, c.Value, v)
		}
		if c.Ref == "B5" || c.Ref == "B45" {
			c.Kind, c.Value = 's', ".."
		}
	}
	path := filepath.Join(t.TempDir(), "received.xlsx")
	if err := w.WriteXLSX(path); err != nil {
		t.Fatal(err)
	}
	code, res, out := runAudit(t, path, "--value", "total")
	if code != 1 {
		t.Errorf("exit %d, want 1: %s", code, out)
	}
	ohio := false
	for _, c := range res.Cells {
		if c.Exact && c.Lo != nil && math.Abs(*c.Lo-11536504) < 1e-6 {
			ohio = true
		}
	}
	if !ohio {
		t.Errorf("Ohio not exactly disclosed: %s", out)
	}
}

// TestCensusReportStructure: the Census regions found appear in the
// report like every margin: report.json's structure block gives each
// region's states and how it was found, and the nation's regions; its
// notes say the regions were related by the Census classification; the
// summary's structure lines name them.
func TestCensusReportStructure(t *testing.T) {
	xlsx := corpusBooks(t)("nst-est2019-01.cells")
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", xlsx, "--out", out, "--quiet", "--value", "total"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("check: exit %d:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "nst-est2019-01.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Structure struct {
			Axes []struct {
				Margins []struct {
					Code  string   `json:"code"`
					Found string   `json:"found"`
					Of    []string `json:"of"`
				} `json:"margins"`
			} `json:"axes"`
			Notes []string `json:"notes"`
		} `json:"structure"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	of := map[string]int{}
	for _, ax := range rep.Structure.Axes {
		for _, m := range ax.Margins {
			found[m.Code], of[m.Code] = m.Found, len(m.Of)
		}
	}
	for code, n := range map[string]int{"Northeast": 9, "Midwest": 12, "South": 17, "West": 13, "United States": 4} {
		if of[code] != n || !strings.Contains(found[code], "Census regions and arithmetic") {
			t.Errorf("margin %s: of %d codes, found %q; want %d, by the Census regions", code, of[code], found[code], n)
		}
	}
	if n := strings.Join(rep.Structure.Notes, "\n"); !strings.Contains(n, `the Census regions "Northeast", "Midwest", "South", "West" are each the sum of their states`) {
		t.Errorf("notes %q", rep.Structure.Notes)
	}
	html, err := os.ReadFile(filepath.Join(out, "summary.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "is the sum of 12 codes (Census regions and arithmetic)") {
		t.Errorf("summary.html does not name the Census regions' margins")
	}
}
