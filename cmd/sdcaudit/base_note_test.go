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

// TestPopulationNoteUnderHeader: a population note between the column
// labels and the body ("Base: all workers" alone on its line) describes
// what the table counts; it was read as a section row, an outer row
// dimension "section" with that one code. It is a note of the table,
// listed in the layout, with the table read as without it, detected or
// with the keys given; sections below it are still sections.
func TestPopulationNoteUnderHeader(t *testing.T) {
	for _, base := range []string{"Base: all workers", "Universe: workers aged 16+"} {
		for _, tc := range []struct {
			name, body, dims string
			args             []string
		}{
			{"detected", "North,12,8,20\nSouth,11,13,24\nTotal,23,21,44\n", "Area,across", nil},
			{"keys given", "North,12,8,20\nSouth,11,13,24\nTotal,23,21,44\n", "Area,Sex", []string{"--dims", "Area", "--across", "Sex"}},
			{"sections below", "Manual\nNorth,12,8,20\nSouth,11,13,24\nTotal,23,21,44\nOffice\nNorth,2,8,10\nSouth,11,3,14\nTotal,13,11,24\n", "section,Area,across", nil},
		} {
			text := "Table 1: injuries by area 2019\nArea,Men,Women,Total\n" + base + "\n" + tc.body
			_, rows, rep, _ := checkCSV(t, text, append([]string{"--value", "count"}, tc.args...)...)
			st, _ := rep["structure"].(map[string]any)
			axes, _ := st["axes"].([]any)
			var dims []string
			for _, a := range axes {
				for _, d := range a.(map[string]any)["dims"].([]any) {
					dims = append(dims, d.(string))
				}
			}
			if strings.Join(dims, ",") != tc.dims {
				t.Errorf("%q %s: dimensions %q, want %s", base, tc.name, dims, tc.dims)
			}
			for _, c := range rep["cells"].([]any) {
				k, _ := c.(map[string]any)["key"].(map[string]any)
				for _, v := range k {
					if v == base {
						t.Errorf("%q %s: a cell's code is the note: %v", base, tc.name, k)
					}
				}
			}
			layout, _ := json.Marshal(st["layout"])
			if !strings.Contains(string(layout), `population note row 3`) {
				t.Errorf("%q %s: layout %s, want the note listed", base, tc.name, layout)
			}
			if r := rows[2]; len(r) < 1 || r[0] != base {
				t.Errorf("%q %s: row 3 of the safe table %q, want the note kept", base, tc.name, r)
			}
		}
	}
}
