package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

// The independent attack on the corpus (issue 24, "Done means"): the
// relations of every corpus table with margins are written here by hand
// from the structure a person sees (testdata/corpus/manifest.yaml), not
// taken from the tool's structure inference or its suppression code; an
// intruder's interval for every withheld cell is computed with gonum's
// simplex.

// pos is a body cell: sheet row and column number (1-based).
type pos struct{ row, col int }

// relTerm is one cell of a relation with its coefficient.
type relTerm struct {
	at   pos
	coef float64
}

// handTable is a corpus table's structure written by hand: the body cells
// the relations cover, the relations (Σ coef·x = 0 each), and the cells
// that may be negative (balances: exports − imports).
type handTable struct {
	id     string
	cells  []pos
	rels   [][]relTerm
	signed map[pos]bool
	// labels are cells whose published text the hand structure assumes
	// (checked against the transcription, so that a layout written wrongly
	// here fails instead of attacking the wrong cells).
	labels map[string]string
	// half is half the base the published values are rounded to (0.5 for
	// £ million integers), used only where exact published values admit no
	// table (the relations of rounded tables do not add up exactly).
	half float64
	// base is the input.rounded of the rounded runs ("" for 1: the
	// ITIS tables' £1 million).
	base string
}

// roundedConfig is the input.rounded the rounded runs of h give.
func (h handTable) roundedConfig() string {
	if h.base != "" {
		return "input:\n  rounded: " + h.base + "\n"
	}
	return "input:\n  rounded: 1\n"
}

// gridSpec describes the common layout of the ITIS tables: blocks of rows
// per area (Imports, Exports, Balance when flows), columns per industry
// (and destinations EU, Rest of world, Total within each industry).
type gridSpec struct {
	id         string
	firstRow   int
	areas      int
	areaMargin bool // the last area is the sum of the others
	flows      bool // rows per area: Imports, Exports, Balance = Exports − Imports
	col0       string
	industries int
	indMargin  bool // the last industry is the sum of the others
	inner      int  // columns per industry: 1, or 3 (EU, Rest of world, Total = EU + Rest of world)
	labels     map[string]string
}

func (g gridSpec) hand() handTable {
	h := handTable{id: g.id, signed: map[pos]bool{}, labels: g.labels, half: 0.5}
	nf := 1
	if g.flows {
		nf = 3
	}
	c0, _ := excelize.ColumnNameToNumber(g.col0)
	row := func(a, f int) int { return g.firstRow + a*nf + f }
	col := func(i, d int) int { return c0 + i*g.inner + d }
	var rows, cols []int
	for a := 0; a < g.areas; a++ {
		for f := 0; f < nf; f++ {
			rows = append(rows, row(a, f))
		}
	}
	for i := 0; i < g.industries; i++ {
		for d := 0; d < g.inner; d++ {
			cols = append(cols, col(i, d))
		}
	}
	for _, r := range rows {
		for _, c := range cols {
			h.cells = append(h.cells, pos{r, c})
		}
	}
	sum := func(total pos, parts []pos) {
		rel := []relTerm{{total, 1}}
		for _, p := range parts {
			rel = append(rel, relTerm{p, -1})
		}
		h.rels = append(h.rels, rel)
	}
	// the destination margin, per row and industry
	if g.inner == 3 {
		for _, r := range rows {
			for i := 0; i < g.industries; i++ {
				sum(pos{r, col(i, 2)}, []pos{{r, col(i, 0)}, {r, col(i, 1)}})
			}
		}
	}
	// the industry margin, per row and destination
	if g.indMargin {
		for _, r := range rows {
			for d := 0; d < g.inner; d++ {
				var parts []pos
				for i := 0; i < g.industries-1; i++ {
					parts = append(parts, pos{r, col(i, d)})
				}
				sum(pos{r, col(g.industries-1, d)}, parts)
			}
		}
	}
	// the area margin, per flow and column
	if g.areaMargin {
		for f := 0; f < nf; f++ {
			for _, c := range cols {
				var parts []pos
				for a := 0; a < g.areas-1; a++ {
					parts = append(parts, pos{row(a, f), c})
				}
				sum(pos{row(g.areas-1, f), c}, parts)
			}
		}
	}
	// Balance = Exports − Imports, per area and column; balances may be
	// negative
	if g.flows {
		for a := 0; a < g.areas; a++ {
			for _, c := range cols {
				h.rels = append(h.rels, []relTerm{{pos{row(a, 2), c}, 1}, {pos{row(a, 1), c}, -1}, {pos{row(a, 0), c}, 1}})
				h.signed[pos{row(a, 2), c}] = true
			}
		}
	}
	return h
}

// corpusHand is the hand-written structure of every corpus table with
// margins (manifest.yaml), keyed by table id.
func corpusHand() map[string]handTable {
	flows := func(first int, col string, extra map[string]string) map[string]string {
		m := map[string]string{col + strconv.Itoa(first): "Imports", col + strconv.Itoa(first+1): "Exports", col + strconv.Itoa(first+2): "Balance"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	specs := []gridSpec{
		{id: "itis2018-t1", firstRow: 4, areas: 13, areaMargin: true, flows: true, col0: "C", industries: 15, indMargin: true, inner: 1,
			labels: flows(4, "B", map[string]string{"A4": "North East", "A40": "United Kingdom", "C3": "Primary and utilities", "Q3": "All industries"})},
		{id: "itis2018-t2", firstRow: 5, areas: 13, areaMargin: true, flows: true, col0: "C", industries: 15, indMargin: true, inner: 3,
			labels: flows(5, "B", map[string]string{"A5": "North East", "A41": "UK", "C3": "Primary and utilities", "AS3": "All industries", "C4": "EU", "D4": "Rest of world", "AU4": "Total"})},
		{id: "itis2018-t3", firstRow: 4, areas: 40, flows: true, col0: "D", industries: 12, indMargin: true, inner: 1,
			labels: flows(4, "C", map[string]string{"A4": "UKC1", "O3": "All Industries"})},
		{id: "itis2018-t4", firstRow: 5, areas: 40, flows: true, col0: "D", industries: 4, indMargin: true, inner: 3,
			labels: flows(5, "C", map[string]string{"A5": "UKC1", "D3": "Production (A-F)", "M3": "All industries", "D4": "EU", "O4": "Total"})},
		{id: "itis2018-t5", firstRow: 4, areas: 168, flows: true, col0: "E", industries: 1, inner: 3,
			labels: flows(4, "D", map[string]string{"A4": "UKC11", "E3": "EU", "F3": "Rest of world", "G3": "Total"})},
		{id: "itis2018-t6", firstRow: 4, areas: 15, flows: true, col0: "C", industries: 12, indMargin: true, inner: 1,
			labels: flows(4, "B", map[string]string{"A4": "Aberdeen City Region", "N3": "All industries"})},
		{id: "itis2018-t8", firstRow: 5, areas: 13, areaMargin: true, col0: "B", industries: 3, indMargin: true, inner: 3,
			labels: map[string]string{"A5": "North East", "A17": "UK", "B3": "Personal travel-related", "H3": "Total travel-related", "B4": "EU", "J4": "Total"}},
	}
	out := map[string]handTable{}
	for _, s := range specs {
		out[s.id] = s.hand()
	}

	// Construction Table 8: "Total Output" (row 8) is the sum of the eleven
	// sectors below it, in the output column B only (the other columns
	// are standard errors and shares of it, not additive).
	con := handTable{id: "construction-aug2020-t8", signed: map[pos]bool{},
		labels: map[string]string{"A8": "Total Output", "A9": "Public housing new", "A19": "Private non-housing repair and maintenance", "B7": "Output (£M current prices)"}}
	rel := []relTerm{{pos{8, 2}, 1}}
	con.cells = append(con.cells, pos{8, 2})
	for r := 9; r <= 19; r++ {
		rel = append(rel, relTerm{pos{r, 2}, -1})
		con.cells = append(con.cells, pos{r, 2})
	}
	con.rels = [][]relTerm{rel}
	out[con.id] = con

	// Balance of payments Table E: per section (Exports rows 8-14, Total
	// 16; Imports 19-25, Total 27; Balances 30-36, Total 38) the Total is
	// the sum of the seven items; Balances = Exports − Imports row by row
	// (negative); 2019 (column E) is the sum of 2019 Q1-Q4 (I-L). 2018
	// (D) has no relation: 2018 Q1 is not shown.
	bop := handTable{id: "bop2020q1-te", signed: map[pos]bool{},
		labels: map[string]string{"B7": " Exports", "B18": " Imports", "B29": " Balances", "B16": " Total", "B27": " Total", "B38": " Total",
			"E4": "2019", "I5": "  Q1", "L5": "  Q4"}}
	sections := [][2]int{{8, 16}, {19, 27}, {30, 38}}
	for c := 4; c <= 13; c++ {
		for s, sec := range sections {
			rel := []relTerm{{pos{sec[1], c}, 1}}
			for r := sec[0]; r < sec[0]+7; r++ {
				rel = append(rel, relTerm{pos{r, c}, -1})
			}
			bop.rels = append(bop.rels, rel)
			for r := sec[0]; r < sec[0]+7; r++ {
				bop.cells = append(bop.cells, pos{r, c})
			}
			bop.cells = append(bop.cells, pos{sec[1], c})
			if s == 2 {
				for r := sec[0]; r < sec[0]+7; r++ {
					bop.signed[pos{r, c}] = true
				}
				bop.signed[pos{sec[1], c}] = true
			}
		}
		for k := 0; k < 8; k++ {
			ex, im, bal := sections[0][0]+k, sections[1][0]+k, sections[2][0]+k
			if k == 7 {
				ex, im, bal = sections[0][1], sections[1][1], sections[2][1]
			}
			bop.rels = append(bop.rels, []relTerm{{pos{bal, c}, 1}, {pos{ex, c}, -1}, {pos{im, c}, 1}})
		}
	}
	for _, sec := range sections {
		for r := sec[0]; r <= sec[1]; r++ {
			if r == sec[0]+7 {
				continue // the blank row before the Total
			}
			bop.rels = append(bop.rels, []relTerm{{pos{r, 5}, 1}, {pos{r, 9}, -1}, {pos{r, 10}, -1}, {pos{r, 11}, -1}, {pos{r, 12}, -1}})
		}
	}
	out[bop.id] = bop

	// US Census Bureau population estimates (nst-est2019-01,
	// st-est00int-01): United States (row 5) is the sum of the four
	// regions (rows 6-9) and of the 51 states and District of Columbia
	// (rows 10-60, alphabetical, a leading dot each); each region is the
	// sum of its states (the Census Bureau's regions, not beside them in
	// the table); Puerto Rico (row 62) is in no total. Every column
	// (Census, Estimates Base, the years) holds these relations.
	for _, us := range []struct{ id, lastCol string }{{"census-nst-est2019-01", "M"}, {"census-st-est00int-01", "N"}} {
		out[us.id] = censusStates(us.id, us.lastCol)
	}

	// US Census Bureau county estimates for California: California (row
	// 5, unlabelled) is the sum of its 58 counties (rows 6-63, a leading
	// dot each) in every column B-M.
	co := handTable{id: "census-co-est2019-annres-06", signed: map[pos]bool{},
		labels: map[string]string{"A5": "California", "A6": ".Alameda County, California", "A63": ".Yuba County, California", "B4": "Census", "M4": "2019"}}
	for c := 2; c <= 13; c++ {
		rel := []relTerm{{pos{5, c}, 1}}
		co.cells = append(co.cells, pos{5, c})
		for r := 6; r <= 63; r++ {
			rel = append(rel, relTerm{pos{r, c}, -1})
			co.cells = append(co.cells, pos{r, c})
		}
		co.rels = append(co.rels, rel)
	}
	out[co.id] = co

	// ABS Labour Force Table 21 (abs-6202021, sheet Data1): quarterly
	// hours worked in columns B-H, one row per quarter (rows 11-158);
	// by the series descriptions in row 1, the total B is Market C +
	// Non-market F, C is Agriculture, Forestry and Fishing D + Rest of
	// Market E, F is Education and Training G + Rest of Non-market H, on
	// every row. The values carry 11 significant digits (4 decimals in
	// the millions): the relations hold within 0.0001.
	abs := handTable{id: "abs-6202021-data1", signed: map[pos]bool{}, half: 0.00005, base: "0.0001",
		labels: map[string]string{"B1": "Quarterly hours worked in all jobs ;", "C1": "Quarterly hours worked in all jobs ;  Market ;",
			"D1": "Quarterly hours worked in all jobs ;  > Agriculture, Forestry and Fishing ;", "E1": "Quarterly hours worked in all jobs ;  > Rest of Market ;",
			"F1": "Quarterly hours worked in all jobs ;  Non-market ;", "G1": "Quarterly hours worked in all jobs ;  > Education and Training ;",
			"H1": "Quarterly hours worked in all jobs ;  > Rest of Non-market ;", "A2": "Unit", "A10": "Series ID", "A11": "31017", "A158": "44440"}}
	for r := 11; r <= 158; r++ {
		for c := 2; c <= 8; c++ {
			abs.cells = append(abs.cells, pos{r, c})
		}
		abs.rels = append(abs.rels,
			[]relTerm{{pos{r, 2}, 1}, {pos{r, 3}, -1}, {pos{r, 6}, -1}},
			[]relTerm{{pos{r, 3}, 1}, {pos{r, 4}, -1}, {pos{r, 5}, -1}},
			[]relTerm{{pos{r, 6}, 1}, {pos{r, 7}, -1}, {pos{r, 8}, -1}})
	}
	out[abs.id] = abs

	// ASHE 2014 Table 9.9a: the number of jobs (column C, thousands,
	// rounded) adds up along the area hierarchy in column A: United
	// Kingdom (row 6) = Great Britain (7) + Northern Ireland (653); Great
	// Britain = England and Wales (8) + Scotland (593); England and Wales
	// = England (9) + Wales / Cymru (552); England = the nine regions;
	// each region, Wales and Scotland = its constituencies (the rows
	// below it up to the next region). The other columns (medians, means,
	// percentiles of hours and their changes) are not additive.
	ashe := handTable{id: "ashe2014-t99a", signed: map[pos]bool{}, half: 0.5,
		labels: map[string]string{"A6": "United Kingdom", "A7": "Great Britain", "A8": "England and Wales", "A9": "England",
			"A10": "North East", "A552": "Wales / Cymru", "A593": "Scotland", "A653": "Northern Ireland", "B11": "E14000554", "C3": "Number"}}
	regions := []int{10, 40, 116, 171, 218, 278, 334, 393, 467, 552, 593, 653}
	jobs := func(rows ...int) []relTerm {
		rel := []relTerm{{pos{rows[0], 3}, 1}}
		for _, r := range rows[1:] {
			rel = append(rel, relTerm{pos{r, 3}, -1})
		}
		return rel
	}
	ashe.rels = append(ashe.rels, jobs(6, 7, 653), jobs(7, 8, 593), jobs(8, 9, 552), jobs(append([]int{9}, regions[:9]...)...))
	for i, r := range regions[:len(regions)-1] {
		rows := []int{r}
		for k := r + 1; k < regions[i+1]; k++ {
			rows = append(rows, k)
		}
		ashe.rels = append(ashe.rels, jobs(rows...))
	}
	for r := 6; r <= 653; r++ {
		ashe.cells = append(ashe.cells, pos{r, 3})
	}
	out[ashe.id] = ashe
	return out
}

// censusStates is the hand structure of the US Census Bureau's state
// population tables: rows as published, columns B to lastCol.
func censusStates(id, lastCol string) handTable {
	states := []string{"Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
		"District of Columbia", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky",
		"Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana",
		"Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota",
		"Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee",
		"Texas", "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming"}
	regions := []struct {
		name    string
		row     int
		members []string
	}{
		{"Northeast", 6, []string{"Connecticut", "Maine", "Massachusetts", "New Hampshire", "Rhode Island", "Vermont", "New Jersey", "New York", "Pennsylvania"}},
		{"Midwest", 7, []string{"Illinois", "Indiana", "Michigan", "Ohio", "Wisconsin", "Iowa", "Kansas", "Minnesota", "Missouri", "Nebraska", "North Dakota", "South Dakota"}},
		{"South", 8, []string{"Delaware", "District of Columbia", "Florida", "Georgia", "Maryland", "North Carolina", "South Carolina", "Virginia", "West Virginia", "Alabama", "Kentucky", "Mississippi", "Tennessee", "Arkansas", "Louisiana", "Oklahoma", "Texas"}},
		{"West", 9, []string{"Arizona", "Colorado", "Idaho", "Montana", "Nevada", "New Mexico", "Utah", "Wyoming", "Alaska", "California", "Hawaii", "Oregon", "Washington"}},
	}
	h := handTable{id: id, signed: map[pos]bool{}, labels: map[string]string{"A5": "United States", "A62": "Puerto Rico"}}
	row := map[string]int{}
	for i, s := range states {
		row[s] = 10 + i
		h.labels["A"+strconv.Itoa(10+i)] = "." + s
	}
	for _, g := range regions {
		h.labels["A"+strconv.Itoa(g.row)] = g.name
	}
	last, _ := excelize.ColumnNameToNumber(lastCol)
	for c := 2; c <= last; c++ {
		for r := 5; r <= 60; r++ {
			h.cells = append(h.cells, pos{r, c})
		}
		us := []relTerm{{pos{5, c}, 1}}
		all := []relTerm{{pos{5, c}, 1}}
		for _, g := range regions {
			us = append(us, relTerm{pos{g.row, c}, -1})
			rel := []relTerm{{pos{g.row, c}, 1}}
			for _, m := range g.members {
				rel = append(rel, relTerm{pos{row[m], c}, -1})
			}
			h.rels = append(h.rels, rel)
		}
		for _, s := range states {
			all = append(all, relTerm{pos{row[s], c}, -1})
		}
		h.rels = append(h.rels, us, all)
	}
	return h
}

// checkLabels fails when a label the hand structure assumes is not the
// transcription's.
func (h handTable) checkLabels(t *testing.T, w *corpus.Workbook, sheet string) {
	t.Helper()
	for ref, want := range h.labels {
		if got, _ := w.Value(sheet, ref); got != want {
			t.Fatalf("%s: hand structure assumes %s = %q, the transcription has %q", h.id, ref, want, got)
		}
	}
}

// safeGrid reads a safe table written in the input's layout: sheet row ->
// column number -> text. The CSV starts at the sheet's first non-empty
// row (first).
func safeGrid(t *testing.T, path string, first int) map[int]map[int]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	out := map[int]map[int]string{}
	for {
		rec, err := r.Read()
		if err != nil {
			break
		}
		line, _ := r.FieldPos(0)
		row := map[int]string{}
		for j, v := range rec {
			row[j+1] = v
		}
		out[line-1+first] = row
	}
	return out
}

// safeCell sorts body cell p (ref) that the safe table shows as text and
// the input holds as orig (of kind), its status st, unless a marker:
// withheld by the tool ("x") as a primary or secondary (its value known
// to the test, needed), or a review cell (published once the checker
// agrees: known to the intruder); or published, as in the input.
func safeCell(t *testing.T, ref string, p pos, orig string, kind byte, text, st string, known map[pos]float64, withheld map[pos]*attackCell) {
	t.Helper()
	if text == "x" {
		v, err := strconv.ParseFloat(orig, 64)
		if err != nil || kind != 'n' {
			t.Fatalf("%s: the safe table withholds %q, published as %q", ref, text, orig)
		}
		switch st {
		case "review":
			known[p] = v // published once the checker agrees
		case "primary", "secondary":
			withheld[p] = &attackCell{at: p, status: st, value: v, known: true, need: true}
		default:
			t.Fatalf("%s: withheld in the safe table with status %q", ref, st)
		}
		return
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || text != orig {
		t.Fatalf("%s: the safe table publishes %q, the input %q", ref, text, orig)
	}
	if st == "primary" || st == "secondary" {
		t.Fatalf("%s: a %s cell published as %q", ref, st, text)
	}
	known[p] = v
}

// firstRow is the first sheet row holding a cell.
func firstRow(w *corpus.Workbook, sheet string) int {
	first := math.MaxInt
	for _, c := range w.Sheet(sheet).Cells {
		_, r, _ := excelize.CellNameToCoordinates(c.Ref)
		first = min(first, r)
	}
	return first
}

// oneSpace is a label with its spaces collapsed, as the reader gives a
// header cell ("Quarterly hours worked in all jobs ;  Market ;").
func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// reportStatus maps every body cell of a report to its status, by the
// cell's sheet row and its column dimensions' codes read from the header
// rows (a merged header cell covers the columns to its right).
func reportStatus(t *testing.T, path string, w *corpus.Workbook, tb corpus.Table) (map[pos]string, toolAudit) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Cells []struct {
			Key    map[string]string `json:"key"`
			Row    int               `json:"row"`
			Status string            `json:"status"`
		} `json:"cells"`
		Structure struct {
			Margins bool `json:"margins"`
		} `json:"structure"`
		Audit struct {
			Cells []struct {
				Key       map[string]string `json:"key"`
				Exact     bool              `json:"exact"`
				Protected bool              `json:"protected"`
			} `json:"cells"`
		} `json:"audit"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	c0, _ := excelize.ColumnNameToNumber(tb.Body.Columns[0])
	c1, _ := excelize.ColumnNameToNumber(tb.Body.Columns[1])
	// header codes per column, outermost first
	codes := map[int][]string{}
	// own: the names read down as the cells stand (no cell spanning its
	// blank neighbours), for a one-dimension header whose names are
	// split over rows ("Number" / "of jobsb" / "(thousand)")
	own := map[int]string{}
	for hi, hr := range tb.Header {
		last := ""
		for c := c0; c <= c1; c++ {
			ref, _ := excelize.CoordinatesToCellName(c, hr)
			v := mergedCell(w, tb.Sheet, ref)
			if raw, _ := w.Value(tb.Sheet, ref); raw != "" {
				own[c] = strings.TrimSpace(own[c] + " " + strings.TrimSpace(raw))
			}
			if v == "" && hi < len(tb.Header)-1 {
				v = last
			}
			last = v
			codes[c] = append(codes[c], oneSpace(v))
		}
	}
	out := map[pos]string{}
	at := map[string]pos{}
	for _, c := range rep.Cells {
		var across []string
		if v, ok := c.Key["across"]; ok {
			across = []string{v}
		}
		for i := 1; ; i++ {
			v, ok := c.Key["across"+strconv.Itoa(i)]
			if !ok {
				break
			}
			across = append(across, v)
		}
		found := 0
		for col, cs := range codes {
			if len(cs) < len(across) {
				continue
			}
			tail := cs[len(cs)-len(across):]
			match := true
			for i := range across {
				if oneSpace(across[i]) != tail[i] {
					match = false
				}
			}
			if !match && len(across) == 1 {
				var parts []string
				for _, v := range cs {
					if v != "" {
						parts = append(parts, v)
					}
				}
				match = strings.Join(parts, " ") == oneSpace(across[0])
			}
			if !match && len(across) == 1 {
				// a name repeated in other columns is told apart by its column
				name, _ := excelize.ColumnNumberToName(col)
				a := strings.TrimSuffix(strings.TrimSpace(across[0]), " (column "+name+")")
				match = own[col] == a
			}
			if match {
				out[pos{c.Row, col}] = c.Status
				at[keyText(c.Key)] = pos{c.Row, col}
				found++
			}
		}
		if found != 1 {
			t.Fatalf("report cell at row %d %v matches %d columns of the header", c.Row, across, found)
		}
	}
	ta := toolAudit{margins: rep.Structure.Margins, verdict: map[pos]string{}}
	for _, c := range rep.Audit.Cells {
		p, ok := at[keyText(c.Key)]
		if !ok {
			t.Fatalf("audit cell %v is no cell of the report", c.Key)
		}
		switch {
		case c.Exact:
			ta.verdict[p] = "exact"
		case c.Protected:
			ta.verdict[p] = "protected"
		default:
			ta.verdict[p] = "under-protected"
		}
	}
	return out, ta
}

// mergedCell is the transcribed value of a cell, or of the merged range
// over it (a header cell merged down over the header rows).
func mergedCell(w *corpus.Workbook, sheet, ref string) string {
	if v, _ := w.Value(sheet, ref); v != "" {
		return v
	}
	c, r, _ := excelize.CellNameToCoordinates(ref)
	for _, m := range w.Sheet(sheet).Merges {
		a, b, _ := strings.Cut(m, ":")
		c1, r1, _ := excelize.CellNameToCoordinates(a)
		c2, r2, _ := excelize.CellNameToCoordinates(b)
		if r >= r1 && r <= r2 && c >= c1 && c <= c2 {
			v, _ := w.Value(sheet, a)
			return v
		}
	}
	return ""
}

// toolAudit is what check's report says of the withheld cells: whether
// margins were found, and the interval audit's verdict per cell.
type toolAudit struct {
	margins bool
	verdict map[pos]string
}

func keyText(k map[string]string) string {
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + "=" + strings.TrimSpace(k[n]) + "\x1f")
	}
	return b.String()
}

// attackSafe reads h's cells from a safe table's rows beside the input's
// (orig): a cell "x" is withheld, any other must equal the input and is
// known. Each cell of mustWithhold must be withheld. gonum's simplex over
// h (attack) then bounds every withheld cell, and one known to within 1
// is an error. It returns the withheld cells with their intervals.
func (h handTable) attackSafe(t *testing.T, orig, rows [][]string, mustWithhold ...pos) map[pos]*attackCell {
	t.Helper()
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	for _, p := range h.cells {
		v, err := strconv.ParseFloat(orig[p.row-1][p.col-1], 64)
		if err != nil {
			t.Fatal(err)
		}
		switch s := rows[p.row-1][p.col-1]; s {
		case "x":
			withheld[p] = &attackCell{at: p, value: v, known: true, need: true}
		default:
			if s != orig[p.row-1][p.col-1] {
				t.Fatalf("safe cell %v is %q, input %q", p, s, orig[p.row-1][p.col-1])
			}
			known[p] = v
		}
	}
	for _, p := range mustWithhold {
		if withheld[p] == nil {
			t.Fatalf("the count at %v (%s) is published: %q", p, orig[p.row-1][p.col-1], rows)
		}
	}
	h.attack(t, known, withheld)
	for p, c := range withheld {
		if c.hi-c.lo < 1-1e-9 {
			t.Errorf("withheld cell %v (%v) recoverable from the safe table: [%g, %g]", p, c.value, c.lo, c.hi)
		}
	}
	return withheld
}

// attackReceived attacks a received copy (rows) of a table (orig) over h:
// a cell "x" is withheld, with orig's value as its truth; every other cell
// is known at orig's value. It returns the withheld cells with their
// intervals (attack).
func (h handTable) attackReceived(t *testing.T, orig, rows [][]string) map[pos]*attackCell {
	t.Helper()
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	for _, p := range h.cells {
		v, err := strconv.ParseFloat(orig[p.row-1][p.col-1], 64)
		if err != nil {
			t.Fatalf("%s %v: %v", h.id, p, err)
		}
		if rows[p.row-1][p.col-1] == "x" {
			withheld[p] = &attackCell{at: p, value: v, known: true, need: true}
		} else {
			known[p] = v
		}
	}
	h.attack(t, known, withheld)
	return withheld
}

// attackCell is one withheld cell the attack computes an interval for.
type attackCell struct {
	at      pos
	status  string  // "primary", "secondary", "marked" (a marker in the input), "other"
	value   float64 // the true value when the test knows it (primary, secondary)
	known   bool
	lo, hi  float64
	need    bool // its interval is checked
	local   bool // solved over a relaxation around it (maxComponent)
	rounded bool // the exact published values admit no table: solved within the rounding
}

// attack computes the interval of every withheld cell of a table: known
// holds the published values (every cell not withheld), withheld the
// others. The LP is solved per connected component of the withheld cells
// (relations with a withheld cell link them; published cells are
// constants), with gonum's simplex: x ≥ 0 except the signed cells.
func (h handTable) attack(t *testing.T, known map[pos]float64, withheld map[pos]*attackCell) {
	t.Helper()
	// relations with a withheld cell; components by union-find
	parent := map[pos]pos{}
	var find func(p pos) pos
	find = func(p pos) pos {
		if q, ok := parent[p]; ok && q != p {
			r := find(q)
			parent[p] = r
			return r
		}
		return p
	}
	var rels [][]relTerm
	for _, rel := range h.rels {
		var first *pos
		for _, tm := range rel {
			if withheld[tm.at] == nil {
				continue
			}
			if _, ok := parent[tm.at]; !ok {
				parent[tm.at] = tm.at
			}
			if first == nil {
				a := tm.at
				first = &a
			} else {
				parent[find(tm.at)] = find(*first)
			}
		}
		if first != nil {
			rels = append(rels, rel)
		}
	}
	comps := map[pos][]pos{}
	for p := range withheld {
		comps[find(p)] = append(comps[find(p)], p)
	}
	relsOf := map[pos][][]relTerm{}
	for _, rel := range rels {
		for _, tm := range rel {
			if withheld[tm.at] != nil {
				r := find(tm.at)
				relsOf[r] = append(relsOf[r], rel)
				break
			}
		}
	}
	roots := make([]pos, 0, len(comps))
	for r := range comps {
		roots = append(roots, r)
	}
	sort.Slice(roots, func(i, j int) bool { return less(roots[i], roots[j]) })
	for _, r := range roots {
		cells := comps[r]
		need := false
		for _, c := range cells {
			need = need || withheld[c].need
		}
		if !need {
			continue
		}
		sort.Slice(cells, func(i, j int) bool { return less(cells[i], cells[j]) })
		if len(cells) > maxComponent {
			h.attackLocal(t, cells, relsOf[r], known, withheld)
			continue
		}
		if err := h.solve(cells, relsOf[r], known, withheld, 0); err != nil {
			if !errors.Is(err, lp.ErrInfeasible) || h.half == 0 {
				t.Fatalf("%s: component of %v: %v", h.id, cells, err)
			}
			// rounded table: each relation holds within the rounding of
			// its published cells
			if err := h.solve(cells, relsOf[r], known, withheld, h.half); err != nil {
				t.Fatalf("%s: component of %v within the rounding: %v", h.id, cells, err)
			}
			for _, c := range cells {
				withheld[c].rounded = true
			}
		}
	}
}

// maxComponent bounds the withheld cells of one LP (gonum's simplex is
// dense): a larger component is attacked around each cell checked, over
// the withheld cells within two relations of it, the relations with a
// withheld cell outside dropped. That LP is a relaxation: its interval
// holds the true one, so a cell it finds exact or too narrow is so
// (a failure stands), and one it finds wide enough is not confirmed
// (counted as local).
const maxComponent = 60

func (h handTable) attackLocal(t *testing.T, cells []pos, rels [][]relTerm, known map[pos]float64, withheld map[pos]*attackCell) {
	t.Helper()
	relsAt := map[pos][]int{}
	for k, rel := range rels {
		for _, tm := range rel {
			if withheld[tm.at] != nil {
				relsAt[tm.at] = append(relsAt[tm.at], k)
			}
		}
	}
	for _, c := range cells {
		if !withheld[c].need {
			continue
		}
		in := map[pos]bool{c: true}
		frontier := []pos{c}
		for depth := 0; depth < 1; depth++ {
			var next []pos
			for _, p := range frontier {
				for _, k := range relsAt[p] {
					for _, tm := range rels[k] {
						if withheld[tm.at] != nil && !in[tm.at] {
							in[tm.at] = true
							next = append(next, tm.at)
						}
					}
				}
			}
			frontier = next
		}
		var local []pos
		for p := range in {
			local = append(local, p)
		}
		sort.Slice(local, func(i, j int) bool { return less(local[i], local[j]) })
		var lrels [][]relTerm
		for _, rel := range rels {
			inside, touches := true, false
			for _, tm := range rel {
				if withheld[tm.at] != nil {
					touches = touches || in[tm.at]
					inside = inside && in[tm.at]
				}
			}
			if touches && inside {
				lrels = append(lrels, rel)
			}
		}
		// only c's interval
		saved := map[pos]bool{}
		for _, p := range local {
			saved[p] = withheld[p].need
			withheld[p].need = p == c
		}
		err := h.solve(local, lrels, known, withheld, 0)
		if errors.Is(err, lp.ErrInfeasible) && h.half > 0 {
			err = h.solve(local, lrels, known, withheld, h.half)
			withheld[c].rounded = true
		}
		for _, p := range local {
			withheld[p].need = saved[p]
		}
		if err != nil {
			t.Fatalf("%s: around %v: %v", h.id, c, err)
		}
		withheld[c].local = true
	}
}

func less(a, b pos) bool { return a.row < b.row || a.row == b.row && a.col < b.col }

// solve sets lo and hi of every cell of one component: min and max of the
// cell subject to the component's relations (each within ±half per
// published cell when half > 0), x ≥ 0 for cells not signed. The LP is
// written in gonum's standard form (A x = b, x ≥ 0): a signed cell is
// p − n, a relation within the rounding gets a variable s ∈ [0, 2w] for its
// error; rows that depend on others are dropped (gonum wants full row
// rank), and an inconsistent one is ErrInfeasible.
func (h handTable) solve(cells []pos, rels [][]relTerm, known map[pos]float64, withheld map[pos]*attackCell, half float64) error {
	col := map[pos]int{}
	neg := map[pos]int{}
	nv := 0
	for _, c := range cells {
		col[c] = nv
		nv++
		if h.signed[c] {
			neg[c] = nv
			nv++
		}
	}
	type eq struct {
		a   map[int]float64
		rhs float64
	}
	var eqs []eq
	for _, rel := range rels {
		e := eq{a: map[int]float64{}}
		pub := 0
		for _, tm := range rel {
			if j, ok := col[tm.at]; ok {
				e.a[j] += tm.coef
				if k, ok := neg[tm.at]; ok {
					e.a[k] -= tm.coef
				}
				continue
			}
			v, ok := known[tm.at]
			if !ok {
				return fmt.Errorf("relation cell %v neither published nor withheld", tm.at)
			}
			e.rhs -= tm.coef * v
			pub++
		}
		if w := half * float64(pub); w > 0 {
			s, t := nv, nv+1
			nv += 2
			e.a[s] = -1
			e.rhs -= w
			eqs = append(eqs, eq{a: map[int]float64{s: 1, t: 1}, rhs: 2 * w})
		}
		eqs = append(eqs, e)
	}
	// independent rows only
	scale := 1.0
	for _, e := range eqs {
		scale = math.Max(scale, math.Abs(e.rhs))
	}
	var basis [][]float64 // reduced rows, each with its pivot column and rhs last
	var pivots []int
	var A [][]float64
	var b []float64
	for _, e := range eqs {
		row := make([]float64, nv+1)
		for j, v := range e.a {
			row[j] = v
		}
		row[nv] = e.rhs
		r := append([]float64(nil), row...)
		for k, br := range basis {
			if f := r[pivots[k]]; f != 0 {
				for j := range r {
					r[j] -= f * br[j]
				}
			}
		}
		p, big := -1, 1e-9
		for j := 0; j < nv; j++ {
			if math.Abs(r[j]) > big {
				p, big = j, math.Abs(r[j])
			}
		}
		if p < 0 {
			if math.Abs(r[nv]) > 1e-7*scale {
				return lp.ErrInfeasible
			}
			continue
		}
		f := r[p]
		for j := range r {
			r[j] /= f
		}
		for k := range basis {
			if g := basis[k][p]; g != 0 {
				for j := range basis[k] {
					basis[k][j] -= g * r[j]
				}
			}
		}
		basis, pivots = append(basis, r), append(pivots, p)
		if e.rhs < 0 { // gonum's phase 1 is steadier with b ≥ 0
			for j := range row {
				row[j] = -row[j]
			}
		}
		A, b = append(A, row[:nv]), append(b, row[nv])
	}
	if len(A) == 0 {
		for _, c := range cells {
			withheld[c].lo, withheld[c].hi = 0, math.Inf(1)
			if h.signed[c] {
				withheld[c].lo = math.Inf(-1)
			}
		}
		return nil
	}
	// big M: one artificial column per row, the artificials the first
	// basis (a = b ≥ 0), so that gonum's simplex starts feasible (its own
	// search for a first basis fails on some of these degenerate LPs)
	m := len(A)
	am := mat.NewDense(m, nv+m, nil)
	basisIdx := make([]int, m)
	for i, r := range A {
		for j, v := range r {
			am.Set(i, j, v)
		}
		am.Set(i, nv+i, 1)
		basisIdx[i] = nv + i
	}
	const bigM = 1e4
	solveOne := func(obj []float64) (float64, error) {
		c := make([]float64, nv+m)
		copy(c, obj)
		for i := 0; i < m; i++ {
			c[nv+i] = bigM
		}
		v, x, err := lp.Simplex(c, am, b, 1e-9, basisIdx)
		if err != nil {
			return 0, err
		}
		for i := 0; i < m; i++ {
			if x[nv+i] > 1e-7*scale {
				return 0, lp.ErrInfeasible
			}
		}
		return v, nil
	}
	for _, c := range cells {
		if !withheld[c].need {
			continue
		}
		obj := make([]float64, nv)
		obj[col[c]] = 1
		if k, ok := neg[c]; ok {
			obj[k] = -1
		}
		lo, err := solveOne(obj)
		switch {
		case errors.Is(err, lp.ErrUnbounded):
			lo = math.Inf(-1)
		case err != nil:
			return err
		}
		for j := range obj {
			obj[j] = -obj[j]
		}
		hi, err := solveOne(obj)
		switch {
		case errors.Is(err, lp.ErrUnbounded):
			hi = math.Inf(1)
		case err != nil:
			return err
		default:
			hi = -hi
		}
		withheld[c].lo, withheld[c].hi = lo, hi
	}
	return nil
}

// corpusRaceTables are the corpus tables the attack tests cover under the
// race detector (raceEnabled): one with a Balance row and margins found
// exactly (t6), one rounded with margins both ways (t8), the balance of
// payments (signed section, exact), construction (no margins found) and
// the California counties (an unlabelled total found by arithmetic) and
// the ABS time series (margins by the series descriptions, within the
// rounding); without it, all of them (about 5 s).
var corpusRaceTables = map[string]bool{"itis2018-t6": true, "itis2018-t8": true, "bop2020q1-te": true, "construction-aug2020-t8": true, "census-co-est2019-annres-06": true, "abs-6202021-data1": true}

// corpusAttackable are the corpus tables with margins that the attack
// covers (the others are in corpusKnown until `check` protects them).
func corpusAttackable(t *testing.T) ([]corpus.Table, map[string]handTable) {
	tables, err := corpus.Manifest("../../testdata/corpus/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hand := corpusHand()
	var out []corpus.Table
	for _, tb := range tables {
		if tb.Refuse != "" {
			continue
		}
		if _, ok := hand[tb.ID]; !ok {
			t.Fatalf("corpus table %s has no hand-written structure for the attack", tb.ID)
		}
		if raceEnabled && !corpusRaceTables[tb.ID] {
			continue
		}
		out = append(out, tb)
	}
	return out, hand
}

// TestCorpusAttack: on every corpus table with margins, `check` (default
// secondary suppression) writes a safe table; an independent LP over the
// relations written by hand attacks it. Every cell withheld by the tool
// as review is taken as published (what the checker publishes once they
// agree: the intruder's best case). Every primary cell's interval must
// reach x − L and x + U (L = U = 10% of x, docs/suppression.md), every
// cell suppressed in the input (its value unknown) must have an interval
// at least U + L wide around its midpoint, and no withheld cell is
// exactly disclosed.
func TestCorpusAttack(t *testing.T) {
	tables, hand := corpusAttackable(t)
	dir := t.TempDir()
	built := map[string]string{}
	loaded := map[string]*corpus.Workbook{}
	for _, tb := range tables {
		cells := filepath.Join("../../testdata/corpus", tb.File)
		if _, ok := built[tb.File]; !ok {
			p, err := corpus.Build(cells, dir)
			if err != nil {
				t.Fatal(err)
			}
			built[tb.File] = p
			if loaded[tb.File], err = corpus.Load(cells); err != nil {
				t.Fatal(err)
			}
		}
		variants := []string{""}
		if attackRounded[tb.ID] {
			variants = append(variants, "rounded")
		}
		for _, variant := range variants {
			name := tb.ID
			if variant != "" {
				name += "/" + variant
			}
			t.Run(name, func(t *testing.T) {
				attackTable(t, tb, loaded[tb.File], hand[tb.ID], built[tb.File], variant == "rounded")
			})
		}
	}
}

// attackRounded are the corpus tables also attacked after `check` with
// input.rounded: 1 (the ITIS tables are rounded to £1 million, note 3 of
// each sheet): their labelled totals are then margins within the
// rounding, and the audit takes each published value as [v − 0.5,
// v + 0.5]. The small ones only: the rounded audit is one LP over the
// whole table.
//
// The ABS time series too, with input.rounded: 0.0001 (its base, the
// fourth decimal of its values in the millions): its margins, found by
// the series descriptions, are then confirmed within the rounding.
var attackRounded = map[string]bool{"itis2018-t6": true, "itis2018-t8": true, "abs-6202021-data1": true}

func attackTable(t *testing.T, tb corpus.Table, w *corpus.Workbook, h handTable, xlsx string, rounded bool) {
	{
		{
			if want := corpusKnown[tb.ID]; want != "" {
				t.Fatalf("check stops on this table: %s (corpusKnown)", want)
			}
			h.checkLabels(t, w, tb.Sheet)
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			args := append([]string{"check", xlsx, "--out", out, "--quiet"}, tb.Flags...)
			if rounded {
				cfg := filepath.Join(t.TempDir(), "rounded.yaml")
				if err := os.WriteFile(cfg, []byte(h.roundedConfig()), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", cfg)
			}
			code := run(args, &stdout, &stderr)
			if code != 0 && code != 1 {
				t.Fatalf("check: exit %d:\n%s", code, stderr.String())
			}
			name := strings.TrimSuffix(tb.File, ".cells")
			safe := safeGrid(t, filepath.Join(out, name+".safe.csv"), firstRow(w, tb.Sheet))
			status, ta := reportStatus(t, filepath.Join(out, name+".report.json"), w, tb)
			known := map[pos]float64{}
			withheld := map[pos]*attackCell{}
			counts := map[string]int{}
			for _, p := range h.cells {
				ref, _ := excelize.CoordinatesToCellName(p.col, p.row)
				orig, kind := w.Value(tb.Sheet, ref)
				text := safe[p.row][p.col]
				st := status[p]
				switch {
				case text == ".." || text == "x" && orig == "..":
					withheld[p] = &attackCell{at: p, status: "marked"}
				case text == "n/a" || text == "x" && orig == "n/a":
					withheld[p] = &attackCell{at: p, status: "other"}
				default:
					safeCell(t, ref, p, orig, kind, text, st, known, withheld)
				}
				if c := withheld[p]; c != nil {
					counts[c.status]++
				}
			}
			for _, c := range withheld {
				// the tool's primaries and secondaries; a cell suppressed
				// in the input where the tool's audit calls it protected
				c.need = c.status == "primary" || c.status == "secondary" || c.status == "marked" && ta.margins && ta.verdict[c.at] == "protected"
			}
			if !ta.margins && code == 0 {
				t.Errorf("no margins found, and check exits 0")
			}
			h.attack(t, known, withheld)
			nrounded, checked, local := 0, 0, 0
			for _, p := range h.cells {
				c := withheld[p]
				if c == nil || !c.need {
					continue
				}
				checked++
				if c.local {
					local++
				}
				if c.rounded {
					nrounded++
				}
				ref, _ := excelize.CoordinatesToCellName(p.col, p.row)
				tol := 1e-6 * math.Max(1, math.Max(math.Abs(c.lo), math.Abs(c.hi)))
				exact := c.hi-c.lo <= tol
				switch c.status {
				case "primary":
					u := 0.1 * math.Abs(c.value)
					l := math.Min(u, math.Max(c.value, 0))
					if h.signed[p] {
						l = u
					}
					if exact || c.hi < c.value+u-tol || c.lo > c.value-l+tol {
						t.Errorf("%s: primary %v has interval [%v, %v], needs [%v, %v]", ref, c.value, c.lo, c.hi, c.value-l, c.value+u)
					}
				case "marked":
					if !ta.margins {
						// the tool found no margins and says it cannot
						// confirm the pattern: its intervals are not claims
						continue
					}
					mid := (c.lo + c.hi) / 2
					u := 0.1 * math.Abs(mid)
					l := math.Min(u, math.Max(mid, 0))
					if h.signed[p] {
						l = u
					}
					if exact || !math.IsInf(c.hi, 1) && !math.IsInf(c.lo, -1) && c.hi-c.lo < u+l-tol {
						t.Errorf("%s: suppressed in the input, called protected by check's audit; the attack's interval [%v, %v] is narrower than %v around its midpoint", ref, c.lo, c.hi, u+l)
					}
				case "secondary":
					if exact {
						t.Errorf("%s: secondary %v exactly disclosed", ref, c.value)
					}
				}
			}
			t.Logf("%d cells: withheld %v, margins found %v, %d intervals checked (%d over a relaxation around the cell: a pass there does not confirm), %d solved within the rounding", len(h.cells), counts, ta.margins, checked, local, nrounded)
		}
	}
}

// TestCorpusReceivedRecoverable: a received copy of every corpus table
// with margins with ONE more suppression that its margin gives back (a
// cell hidden alone in a relation of the hand structure whose other cells
// are published and add up exactly) is reported exactly disclosed by
// `sdcaudit audit FILE --sheet S --value total`, exit 1. Where the table
// is rounded and the relation the cell is hidden in is a total that adds
// up only within the rounding, or the margins that delimit it are
// confirmed only within the rounding (ASHE 9.9a: Great Britain hidden,
// United Kingdom = Great Britain + Northern Ireland exactly, but the
// rows below Great Britain add up to it within the rounding only), the
// audit is run with input.rounded: 1 and must call the cell
// under-protected (known to within the rounding of its row), exit 1.
func TestCorpusReceivedRecoverable(t *testing.T) {
	tables, hand := corpusAttackable(t)
	for _, tb := range tables {
		t.Run(tb.ID, func(t *testing.T) {
			w, err := corpus.Load(filepath.Join("../../testdata/corpus", tb.File))
			if err != nil {
				t.Fatal(err)
			}
			h := hand[tb.ID]
			value := func(p pos) (float64, bool) {
				ref, _ := excelize.CoordinatesToCellName(p.col, p.row)
				v, kind := w.Value(tb.Sheet, ref)
				if kind != 'n' {
					return 0, false
				}
				f, err := strconv.ParseFloat(v, 64)
				return f, err == nil
			}
			// a relation wholly published, without signed cells, exact if
			// any is; else one within the rounding
			var hide pos
			var hidden float64
			exact, found := false, false
			for _, pass := range []bool{true, false} {
				for _, rel := range h.rels {
					if found || len(rel) < 3 {
						continue
					}
					sum, ok := 0.0, true
					var part pos
					partV := 0.0
					for _, tm := range rel {
						v, pub := value(tm.at)
						if !pub || h.signed[tm.at] {
							ok = false
							break
						}
						sum += tm.coef * v
						if tm.coef < 0 && v > 0 && partV == 0 {
							part, partV = tm.at, v
						}
					}
					if !ok || partV == 0 || pass && math.Abs(sum) > 1e-9 {
						continue
					}
					hide, hidden, exact, found = part, partV, pass, true
				}
			}
			if !found {
				t.Fatalf("no relation of %s is wholly published", tb.ID)
			}
			ref, _ := excelize.CoordinatesToCellName(hide.col, hide.row)
			sheet := w.Sheet(tb.Sheet)
			for i := range sheet.Cells {
				if sheet.Cells[i].Ref == ref {
					sheet.Cells[i].Kind, sheet.Cells[i].Value = 's', ".."
				}
			}
			path := filepath.Join(t.TempDir(), "received.xlsx")
			if err := w.WriteXLSX(path); err != nil {
				t.Fatal(err)
			}
			type result = auditResult
			audit := func(rounded bool) (int, result) {
				args := []string{"audit", path, "--sheet", tb.Sheet, "--value", "total", "--json"}
				if rounded {
					cfg := filepath.Join(t.TempDir(), "rounded.yaml")
					if err := os.WriteFile(cfg, []byte(h.roundedConfig()), 0o644); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--config", cfg)
				}
				var stdout, stderr bytes.Buffer
				code := run(args, &stdout, &stderr)
				var res result
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
				}
				return code, res
			}
			// the hidden cell exactly disclosed: at its value, or (a
			// rounded table, whose other relations add up only within the
			// rounding) within the rounding of the relation's cells
			slack := h.half * float64(len(h.rels[0])+1)
			disclosed := func(res result) (exactHit, narrowHit bool) {
				for _, c := range res.Cells {
					if c.Lo == nil || c.Hi == nil || *c.Lo > hidden+slack+1e-9 || *c.Hi < hidden-slack-1e-9 {
						continue
					}
					if c.Exact && math.Abs(*c.Lo-hidden) <= slack+1e-9 {
						exactHit = true
					}
					if !c.Protected && *c.Hi-*c.Lo <= 2*slack+1e-9 {
						narrowHit = true
					}
				}
				return
			}
			code, res := audit(false)
			if code != 1 {
				t.Fatalf("audit of the copy with %s (%v) hidden: exit %d, want 1", ref, hidden, code)
			}
			exactHit, _ := disclosed(res)
			switch {
			case exactHit:
			case h.half > 0:
				// the relation is a total within the rounding, not
				// confirmed: with the base confirmed the cell is known to
				// within the rounding of its row
				code, res = audit(true)
				if _, narrow := disclosed(res); code != 1 || !narrow {
					t.Errorf("%s (%v) hidden alone in a published relation, input.rounded: 1: exit %d, not reported known within the rounding: %+v", ref, hidden, code, res)
				}
			default:
				t.Errorf("%s (%v) hidden alone in a published relation: not reported exactly disclosed: %+v", ref, hidden, res)
			}
			t.Logf("%s = %v hidden; relation exact in the published figures %v; exactly disclosed %d", ref, hidden, exact, res.Exactly)
		})
	}
}
