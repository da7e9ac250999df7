package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
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
	var stdout, stderr bytes.Buffer
	code := run([]string{"audit", path, "--value", "total", "--json"}, &stdout, &stderr)
	var res auditResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
	if code != 1 {
		t.Errorf("exit %d, want 1: %s", code, stdout.String())
	}
	ohio := false
	for _, c := range res.Cells {
		if c.Exact && c.Lo != nil && math.Abs(*c.Lo-11536504) < 1e-6 {
			ohio = true
		}
	}
	if !ohio {
		t.Errorf("Ohio not exactly disclosed: %s", stdout.String())
	}
}
