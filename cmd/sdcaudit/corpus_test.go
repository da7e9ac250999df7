package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

// corpusKnown are corpus tables that `check` reads but cannot yet audit to
// the end, with the error it gives. Empty since the Balance rows
// (Exports − Imports, negative) are found as differences and their
// suppressed cells have no lower bound 0 (issue 24).
var corpusKnown = map[string]string{}

// corpusRaceHeavy are corpus tables TestCheckCorpus leaves to the run
// without the race detector: ASHE 9.9a (9,720 cells) takes 1.4 s
// without it and 15 s with it; the readers' TestCorpusTablesRead reads
// it under the race detector too.
var corpusRaceHeavy = map[string]bool{"ashe2014-t99a": true}

// TestCheckCorpus: `sdcaudit check FILE --sheet S --value KIND` reads
// every readable table of testdata/corpus (exit 0 or 1, a report with the
// layout detected), and refuses the others naming the sheet and the row
// (exit 2); a refused table with a range in the manifest is read with
// --range.
func TestCheckCorpus(t *testing.T) {
	tables, err := corpus.Manifest("../../testdata/corpus/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	book := corpusBooks(t)
	for _, tb := range tables {
		path := book(tb.File)
		if raceEnabled && corpusRaceHeavy[tb.ID] {
			continue // about 15 s under the race detector; run without it
		}
		t.Run(tb.ID, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"check", path, "--out", out, "--quiet"}
			if tb.Refuse != "" {
				args = append(args, "--sheet", tb.Sheet, "--value", "total")
			} else {
				args = append(args, tb.Flags...)
			}
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			switch {
			case tb.Refuse != "":
				if code != 2 || !strings.Contains(stderr.String(), `sheet "`+tb.Sheet+`", row `) {
					t.Fatalf("exit %d, want 2 naming the sheet and row:\n%s", code, stderr.String())
				}
				if tb.Range != "" {
					// the input.range the refusal names reads it
					stderr.Reset()
					if code := run(append(args, "--range", tb.Range), &stdout, &stderr); code != 0 && code != 1 {
						t.Fatalf("with --range %s: exit %d:\n%s", tb.Range, code, stderr.String())
					}
				}
			case corpusKnown[tb.ID] != "":
				if !strings.Contains(stderr.String(), corpusKnown[tb.ID]) {
					t.Fatalf("exit %d, want the known %q:\n%s", code, corpusKnown[tb.ID], stderr.String())
				}
			default:
				if code != 0 && code != 1 {
					t.Fatalf("exit %d:\n%s", code, stderr.String())
				}
				b, err := os.ReadFile(filepath.Join(out, "itis2018.report.json"))
				if tb.File != "itis2018.cells" {
					b, err = os.ReadFile(filepath.Join(out, strings.TrimSuffix(tb.File, ".cells")+".report.json"))
				}
				if err != nil {
					t.Fatal(err)
				}
				var rep struct {
					Input struct {
						Layout struct{ Value string } `json:"layout"`
					} `json:"input"`
					Cells []struct {
						Findings []struct {
							Rule   string `json:"rule"`
							Values struct {
								Suppressed []string `json:"suppressed_in_input"`
							} `json:"values"`
						} `json:"findings"`
					} `json:"cells"`
				}
				if err := json.Unmarshal(b, &rep); err != nil {
					t.Fatal(err)
				}
				if rep.Input.Layout.Value != tb.Value {
					t.Errorf("report's input.layout.value %q, want %q", rep.Input.Layout.Value, tb.Value)
				}
				// every marker of the published body is a cell suppressed
				// in the input, and no other cell is
				suppressed := 0
				for _, c := range rep.Cells {
					for _, f := range c.Findings {
						if f.Rule == "missing" && len(f.Values.Suppressed) > 0 {
							suppressed++
						}
					}
				}
				if want := markerCells(t, tb); suppressed != want {
					t.Errorf("%d cells suppressed in the input, the published body has %d markers", suppressed, want)
				}
			}
		})
	}
}

// corpusBooks returns a function giving the workbook built from a corpus
// .cells file, each built once per test.
func corpusBooks(t *testing.T) func(file string) string {
	dir := t.TempDir()
	built := map[string]string{}
	return func(file string) string {
		path, ok := built[file]
		if !ok {
			var err error
			if path, err = corpus.Build(filepath.Join("../../testdata/corpus", file), dir); err != nil {
				t.Fatal(err)
			}
			built[file] = path
		}
		return path
	}
}

// markerCells counts the markers in a corpus table's body as published.
func markerCells(t *testing.T, tb corpus.Table) int {
	w, err := corpus.Load(filepath.Join("../../testdata/corpus", tb.File))
	if err != nil {
		t.Fatal(err)
	}
	markers := map[string]bool{}
	for _, m := range configs.DefaultMarkers {
		markers[m] = true
	}
	c0, _ := excelize.ColumnNameToNumber(tb.Body.Columns[0])
	c1, _ := excelize.ColumnNameToNumber(tb.Body.Columns[1])
	n := 0
	for r := tb.Body.Rows[0]; r <= tb.Body.Rows[1]; r++ {
		for c := c0; c <= c1; c++ {
			ref, _ := excelize.CoordinatesToCellName(c, r)
			if v, kind := w.Value(tb.Sheet, ref); kind == 's' && markers[strings.TrimSpace(v)] {
				n++
			}
		}
	}
	return n
}
