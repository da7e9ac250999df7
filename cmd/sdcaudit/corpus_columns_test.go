package main

import (
	"bytes"
	"encoding/json"
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
