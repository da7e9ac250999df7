package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBaseLineIsNoHeader: a "Base: all workers" line above the column
// labels describes the population the table counts; it was taken for a
// header row, so the column dimension was named "Base: all workers" and
// the number beside it (the base's size, withheld as a value outside the
// table) was joined into a column code, "1234 Total", shown in the
// report and summary.html. The line is a title line: the column
// dimension has the default name, its codes are the column labels, and
// the number is withheld and listed, never shown.
func TestBaseLineIsNoHeader(t *testing.T) {
	for _, base := range []string{"Base: all workers", "Unweighted base - all workers", "Universe: workers aged 16+"} {
		text := "Table 1: injuries by area 2019\n" + base + ",,,1234\nArea,Men,Women,Total\nNorth,12,8,20\nSouth,11,13,24\nTotal,23,21,44\n"
		_, rows, rep, out := checkCSV(t, text, "--value", "count")
		st, _ := rep["structure"].(map[string]any)
		axes, _ := st["axes"].([]any)
		var dims, codes []string
		for _, a := range axes {
			m := a.(map[string]any)
			for _, d := range m["dims"].([]any) {
				dims = append(dims, d.(string))
			}
			ms, _ := m["margins"].([]any)
			for _, mg := range ms {
				codes = append(codes, mg.(map[string]any)["code"].(string))
			}
		}
		if strings.Join(dims, ",") != "Area,across" || strings.Join(codes, ",") != "Total,Total" {
			t.Errorf("%q: dimensions %q with margins %q, want Area and across, each with its Total", base, dims, codes)
		}
		layout, _ := json.Marshal(st["layout"])
		if !strings.Contains(string(layout), "header row 3 ") || !strings.Contains(string(layout), "titles rows 1-2") {
			t.Errorf("%q: layout %s, want header row 3 and the base line among the titles", base, layout)
		}
		if r := rows[1]; len(r) < 4 || r[0] != base || r[3] != "x" {
			t.Errorf("%q: row 2 of the safe table %q, want the line kept and its number withheld", base, r)
		}
		if un, _ := st["unaudited"].([]any); len(un) != 1 || un[0] != `D2 (row "`+base+`")` {
			t.Errorf("%q: structure.unaudited %q, want D2", base, un)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.html"))
		if err != nil || strings.Contains(string(b), "1234") {
			t.Errorf("%q: summary.html shows the withheld base (or is missing: %v)", base, err)
		}
	}
}

// TestHeaderNumberNoPartOfCode: a number in a header row that labels no
// column (withheld as a value outside the table) was still joined into
// the code of the column below it ("1234 Total"), which the report's
// margins and summary.html show: the withheld value was published there.
// It is no part of the code.
func TestHeaderNumberNoPartOfCode(t *testing.T) {
	text := "Table 1: injuries by area 2019\nRespondents in 2019,,,1234\nArea,Men,Women,Total\nNorth,12,8,20\nSouth,11,13,24\nTotal,23,21,44\n"
	_, rows, rep, out := checkCSV(t, text, "--value", "count")
	if r := rows[1]; len(r) < 4 || r[3] != "x" {
		t.Errorf("row 2: %q, want its 1234 withheld", r)
	}
	for _, c := range rep["cells"].([]any) {
		k, _ := c.(map[string]any)["key"].(map[string]any)
		for _, v := range k {
			if strings.Contains(v.(string), "1234") {
				t.Errorf("a cell's code holds the withheld value: %v", k)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.html"))
	if err != nil || strings.Contains(string(b), "1234") {
		t.Errorf("summary.html shows the withheld value (or is missing: %v)", err)
	}
}
