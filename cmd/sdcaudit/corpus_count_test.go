package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

// TestCorpusNestedColumnsNoClassFlood: the US Census Bureau's population
// tables read as counts of persons (`check FILE --value count`) have two
// header rows nested, not crossed (Census and Estimates Base under the
// April 2010 date, the years under "Population Estimate (as of July 1)"):
// no cell is a class primary, and the unlabelled totals of the rows
// marked by leading dots (California, the sum of its 58 counties; United
// States, the sum of the 51 states) are found. Before, every cell
// of both tables was a class primary (708 and 684: the absent
// combinations of the two header rows read as empty classes).
func TestCorpusNestedColumnsNoClassFlood(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		margins bool
	}{{"co-est2019-annres-06", true}, {"nst-est2019-01", true}} {
		path, err := corpus.Build(filepath.Join("../../testdata/corpus", tc.name+".cells"), dir)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		if code := run([]string{"check", path, "--value", "count", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 && code != 1 {
			t.Fatalf("%s: exit %d:\n%s", tc.name, code, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, tc.name+".report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Summary struct {
				Cells   int            `json:"cells"`
				Primary int            `json:"primary"`
				ByRule  map[string]int `json:"by_rule"`
			} `json:"summary"`
			Structure struct {
				Margins bool `json:"margins"`
			} `json:"structure"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Summary.ByRule["class"] != 0 || rep.Summary.Primary != 0 {
			t.Errorf("%s: %d of %d cells primary (by rule %v), want none: populations of states and counties", tc.name, rep.Summary.Primary, rep.Summary.Cells, rep.Summary.ByRule)
		}
		if rep.Structure.Margins != tc.margins {
			t.Errorf("%s: margins found %v, want %v", tc.name, rep.Structure.Margins, tc.margins)
		}
	}
}
