package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusDeclaredMarginProvenance: bop2020q1's " Total" rows are the
// margins of their section's items because the configuration names them
// (the default total label "Total"); the indentation only says which rows
// they add up. report.json's margin and its note say "configuration and
// arithmetic". Before, they said "indentation and arithmetic": indentTree
// took over the provenance of a declared total.
func TestCorpusDeclaredMarginProvenance(t *testing.T) {
	path := corpusBooks(t)("bop2020q1.cells")
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", path, "--out", out, "--quiet", "--sheet", "Table E", "--value", "total"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	rep := readJSONFile(t, filepath.Join(out, "bop2020q1.report.json"))
	st, _ := rep["structure"].(map[string]any)
	axes, _ := st["axes"].([]any)
	found := ""
	for _, a := range axes {
		am, _ := a.(map[string]any)
		if fmt.Sprint(am["dims"]) != "[column B]" {
			continue
		}
		ms, _ := am["margins"].([]any)
		for _, m := range ms {
			mm, _ := m.(map[string]any)
			if mm["code"] == "Total" {
				found, _ = mm["found"].(string)
			}
		}
	}
	if found != "configuration and arithmetic" {
		t.Errorf("the margin Total of column B found by %q, want configuration and arithmetic (axes %v)", found, axes)
	}
	notes := fmt.Sprint(st["notes"])
	if !strings.Contains(notes, `column B: "Total" is the margin of 7 codes (configuration and arithmetic)`) {
		t.Errorf("notes:\n%s", notes)
	}
}
