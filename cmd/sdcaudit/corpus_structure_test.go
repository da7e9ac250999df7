package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

// corpusMarginGaps are the margins a person sees in a corpus table that
// the structure inference does not find, with why; the test fails if one
// is found (then this list is out of date) as much as if another is
// missed. Keyed by table id, then "code/first part".
var corpusMarginGaps = map[string]map[string]string{}

// corpusRoundingBase is input.rounded for a table's rounded run (1 unless
// given: the ITIS tables are rounded to £1 million).
var corpusRoundingBase = map[string]string{"abs-6202021-data1": "0.0001"}

// personMargin is one margin of manifest.yaml: code is the sum of parts
// ("rest", "dotted" or a list), exactly or within the rounding.
type personMargin struct {
	code    string
	of      any
	rounded bool
	key     string // code/first part, for corpusMarginGaps
}

// personMargins reads the margins a person sees in a corpus table from its
// manifest dimensions: margins, derived codes (Balance = Exports -
// Imports is the margin Exports of Imports and Balance) and relations.
func personMargins(t *testing.T, tb corpus.Table) []personMargin {
	t.Helper()
	dims, _ := tb.Structure["dimensions"].([]any)
	var out []personMargin
	var book *corpus.Workbook
	column := ""
	add := func(m map[string]any) {
		check, _ := m["check"].(string)
		pm := personMargin{code: oneSpace(fmt.Sprint(m["code"])), of: m["of"], rounded: strings.HasPrefix(check, "rounded")}
		if of, ok := pm.of.(string); ok && strings.HasPrefix(of, "rows ") {
			// "rows 11-39": the labels of those rows in the dimension's
			// column, as published
			var r1, r2 int
			if _, err := fmt.Sscanf(of, "rows %d-%d", &r1, &r2); err != nil || column == "" {
				t.Fatalf("%s: margin %v: want of: \"rows N-M\" in a dimension with a column", tb.ID, m)
			}
			if book == nil {
				var err error
				if book, err = corpus.Load(filepath.Join("../../testdata/corpus", tb.File)); err != nil {
					t.Fatal(err)
				}
			}
			var parts []any
			for r := r1; r <= r2; r++ {
				v, _ := book.Value(tb.Sheet, fmt.Sprintf("%s%d", column, r))
				parts = append(parts, v)
			}
			pm.of = parts
		}
		first := fmt.Sprint(pm.of)
		if l, ok := pm.of.([]any); ok && len(l) > 0 {
			first = oneSpace(fmt.Sprint(l[0]))
		}
		pm.key = pm.code + "/" + first
		out = append(out, pm)
	}
	for _, d := range dims {
		dm, ok := d.(map[string]any)
		if !ok {
			t.Fatalf("%s: a dimension is not a mapping: %v", tb.ID, d)
		}
		column, _ = dm["column"].(string)
		for _, key := range []string{"margins", "relations"} {
			ms, _ := dm[key].([]any)
			for _, m := range ms {
				mm, ok := m.(map[string]any)
				if !ok {
					t.Fatalf("%s: a margin is not a mapping: %v", tb.ID, m)
				}
				add(mm)
			}
		}
		ds, _ := dm["derived"].([]any)
		for _, m := range ds {
			mm := m.(map[string]any)
			is, _, _ := strings.Cut(fmt.Sprint(mm["is"]), ",")
			a, b, ok := strings.Cut(is, " - ")
			if !ok {
				t.Fatalf("%s: derived %v is not a difference", tb.ID, mm)
			}
			// D = A - B: A is the margin of B and D, within the rounding
			// where the table is rounded
			add(map[string]any{"code": strings.TrimSpace(a), "of": []any{strings.TrimSpace(b), mm["code"]}, "check": "rounded"})
		}
	}
	return out
}

// toolStructure is the structure block of a report and every code of each
// dimension its cells hold.
type toolStructure struct {
	Margins bool
	Axes    []struct {
		Dims    []string `json:"dims"`
		Margins []struct {
			Code string   `json:"code"`
			Of   []string `json:"of"`
		} `json:"margins"`
	}
	codes map[string]map[string]bool // dimension -> codes of its cells
}

func checkStructure(t *testing.T, xlsx string, tb corpus.Table, base string) toolStructure {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	// the structure is found before any suppression: the secondary
	// suppression and its audit, most of check's time, are left out
	// (TestCorpusAttack runs them on the same tables)
	conf := "suppression:\n  secondary: false\n  audit: false\n"
	if base != "" {
		conf += "input:\n  rounded: " + base + "\n"
	}
	cfg := filepath.Join(t.TempDir(), "structure.yaml")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"check", xlsx, "--out", out, "--quiet"}, tb.Flags...), "--config", cfg)
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("check: exit %d:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, strings.TrimSuffix(tb.File, ".cells")+".report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Structure struct {
			Margins bool            `json:"margins"`
			Axes    json.RawMessage `json:"axes"`
		} `json:"structure"`
		Cells []struct {
			Key map[string]string `json:"key"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	st := toolStructure{Margins: rep.Structure.Margins, codes: map[string]map[string]bool{}}
	if err := json.Unmarshal(rep.Structure.Axes, &st.Axes); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Cells {
		for d, v := range c.Key {
			if st.codes[d] == nil {
				st.codes[d] = map[string]bool{}
			}
			st.codes[d][oneSpace(v)] = true
		}
	}
	return st
}

// TestCorpusStructureFound: the margins `check` finds in every readable
// corpus table (report.json's structure block) are the margins a person
// sees (manifest.yaml: margins, derived rows, relations), part for part:
// those that add up exactly found by the plain `check FILE` with the
// table's flags; with input.rounded (the table's base) those that add up
// within the rounding too; none found that a person does not see; the
// known gaps (corpusMarginGaps) not found; a margin of the dotted codes may
// be found through the margins between (United States of the regions,
// each of its states). Under the race detector the attack's tables
// (corpusRaceTables) and the state table.
func TestCorpusStructureFound(t *testing.T) {
	tables, err := corpus.Manifest("../../testdata/corpus/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	book := corpusBooks(t)
	for _, tb := range tables {
		if tb.Refuse != "" || raceEnabled && !corpusRaceTables[tb.ID] && tb.ID != "census-nst-est2019-01" {
			continue
		}
		xlsx := book(tb.File)
		t.Run(tb.ID, func(t *testing.T) {
			want := personMargins(t, tb)
			gaps := corpusMarginGaps[tb.ID]
			rounded := false
			for _, m := range want {
				rounded = rounded || m.rounded
			}
			runs := []string{""}
			if rounded {
				base := corpusRoundingBase[tb.ID]
				if base == "" {
					base = "1"
				}
				runs = append(runs, base)
			}
			for _, base := range runs {
				st := checkStructure(t, xlsx, tb, base)
				where := "check " + strings.Join(tb.Flags, " ")
				if base != "" {
					where += ", input.rounded: " + base
				}
				// the tool's margins: code -> parts, and the codes of the
				// margin's axis
				type found struct {
					parts []string
					axis  map[string]bool
				}
				tool := map[string]found{}
				leaves := func(tool map[string]found, code string) []string {
					var out []string
					var walk func(c string, depth int)
					walk = func(c string, depth int) {
						f, ok := tool[c]
						if !ok || depth > 8 {
							out = append(out, c)
							return
						}
						for _, p := range f.parts {
							walk(p, depth+1)
						}
					}
					walk(code, 0)
					sort.Strings(out)
					return out
				}
				for _, ax := range st.Axes {
					axis := map[string]bool{}
					for _, d := range ax.Dims {
						for c := range st.codes[d] {
							axis[c] = true
						}
					}
					for _, m := range ax.Margins {
						parts := make([]string, len(m.Of))
						for i, p := range m.Of {
							parts[i] = oneSpace(p)
						}
						sort.Strings(parts)
						tool[oneSpace(m.Code)] = found{parts, axis}
					}
				}
				seen := map[string]bool{}
				for _, m := range want {
					f, ok := tool[m.code]
					var parts []string
					if ok {
						switch of := m.of.(type) {
						case []any:
							for _, p := range of {
								parts = append(parts, oneSpace(fmt.Sprint(p)))
							}
						case string:
							for c := range f.axis {
								switch {
								case c == m.code:
								case of == "rest", of == "dotted" && strings.HasPrefix(c, ".") && !strings.HasPrefix(c, ".."):
									parts = append(parts, c)
								}
							}
						}
						sort.Strings(parts)
						ok = slices.Equal(parts, f.parts)
					}
					if !ok && m.of == "dotted" && len(f.parts) > 0 {
						// the margin of the dotted codes through the
						// margins between (United States of the Census
						// regions, each of its states): its leaves
						ok = slices.Equal(parts, leaves(tool, m.code))
					}
					if ok {
						seen[m.code] = true
					}
					switch reason := gaps[m.key]; {
					case reason != "" && ok:
						t.Errorf("%s: %s of %v is found: a known gap (%s) no longer is; take it off corpusMarginGaps", where, m.code, m.of, reason)
					case reason != "":
					case !ok && (base != "" || !m.rounded):
						t.Errorf("%s: the margin %s of %v a person sees is not found (found: %v)", where, m.code, m.of, tool[m.code].parts)
					}
				}
				for code, f := range tool {
					if !seen[code] {
						t.Errorf("%s: margin %s of %v found, which a person does not see in the table", where, code, f.parts)
					}
				}
			}
		})
	}
}
