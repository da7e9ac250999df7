package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

// receivedAudit writes the corpus workbook file with the cells refs of
// sheet replaced by the marker "..", and runs `audit` on it with args.
func receivedAudit(t *testing.T, file, sheet string, refs []string, args ...string) (int, map[string]any) {
	t.Helper()
	w, err := corpus.Load(filepath.Join("../../testdata/corpus", file))
	if err != nil {
		t.Fatal(err)
	}
	sh := w.Sheet(sheet)
	hidden := 0
	for i := range sh.Cells {
		for _, r := range refs {
			if sh.Cells[i].Ref == r {
				sh.Cells[i].Kind, sh.Cells[i].Value = 's', ".."
				hidden++
			}
		}
	}
	if hidden != len(refs) {
		t.Fatalf("%s: %d of cells %v found", file, hidden, refs)
	}
	path := filepath.Join(t.TempDir(), "received.xlsx")
	if err := w.WriteXLSX(path); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"audit", path, "--sheet", sheet, "--json"}, args...), &stdout, &stderr)
	var res map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
	return code, res
}

// TestCorpusReceivedStatisticColumn: construction output Table 8
// received with a standard error (C9) or a coefficient of variation (D9)
// withheld: no margin bounds them (the Total Output row adds up in the
// output column only), but the statistics beside them give them back
// (CV = 100 · SE / output), which the interval audit does not model: the
// cell is undetermined, not protected, exit 1. With the output B9
// withheld too, B9 is exactly disclosed by Total Output.
func TestCorpusReceivedStatisticColumn(t *testing.T) {
	for _, tc := range []struct {
		refs    []string
		exactly float64
	}{{[]string{"C9"}, 0}, {[]string{"D9"}, 0}, {[]string{"B9", "D9"}, 1}} {
		code, res := receivedAudit(t, "construction_aug2020.cells", "Table 8", tc.refs, "--value", "total")
		if code != 1 {
			t.Errorf("%v withheld: exit %d, want 1: %v", tc.refs, code, res)
		}
		if res["no_margins"] == true || res["exactly_disclosed"] != tc.exactly || res["undetermined"] != 1.0 {
			t.Errorf("%v withheld: no_margins %v, exactly disclosed %v (want %v), undetermined %v (want 1): %v", tc.refs, res["no_margins"], res["exactly_disclosed"], tc.exactly, res["undetermined"], res)
		}
		cells, _ := res["cells"].([]any)
		for _, c := range cells {
			if m := c.(map[string]any); m["protected"] == true {
				t.Errorf("%v withheld: a cell called protected: %v", tc.refs, m)
			}
		}
	}
}

// TestStatisticMarkersReview: a crosstab of jobs and median hours by
// area read as published (`--value median`, as ASHE 9.9a is), its Total
// row the sum of the areas in the jobs column, a median published as "x":
// no margin bounds the median, and the interval audit does not model
// what the statistics beside it give away, so it is review by the
// interval audit, never ok. Before, the audit called it protected ([0,
// unbounded]) and it was ok (ASHE's 774 "x" cells with input.rounded: 1).
func TestStatisticMarkersReview(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jobs.csv")
	body := "Area,Number of jobs,Median hours\nTotal,60,37.5\nNorth,25,x\nSouth,20,37.0\nWest,15,36.5\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", path, "--value", "median", "--out", out, "--quiet"}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("check: exit %d, want 1:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "jobs.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Structure struct {
			Margins bool `json:"margins"`
		} `json:"structure"`
		Cells []struct {
			Key      map[string]string `json:"key"`
			Status   string            `json:"status"`
			Findings []struct {
				Rule   string `json:"rule"`
				Status string `json:"status"`
			} `json:"findings"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Structure.Margins {
		t.Errorf("the Total row of the jobs column not found")
	}
	seen := false
	for _, c := range rep.Cells {
		median := false
		for _, v := range c.Key {
			median = median || v == "Median hours"
		}
		if c.Key["Area"] != "North" || !median {
			continue
		}
		seen = true
		audited := false
		for _, f := range c.Findings {
			audited = audited || f.Rule == "interval_audit" && f.Status == "review"
		}
		if c.Status != "review" || !audited {
			t.Errorf("North's median (x): status %s, findings %+v; want review by interval_audit", c.Status, c.Findings)
		}
	}
	if !seen {
		t.Errorf("North's median cell not in the report: %s", b)
	}
}
