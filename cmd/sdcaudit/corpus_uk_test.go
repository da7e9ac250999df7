package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

// TestCorpusPublishedDisclosure: NIHE table 3.5 (testdata/corpus,
// nihe_tempaccom.cells) as published gives back most of its '*' cells:
// its Total column and Total row are published in full. `check` refuses
// the sheet (the snapshot label split over column A, naming row 6 and
// columns.dims); input.range B2:J9 reads the first block (header B2:J3,
// accommodation types B4:B9, length of stay C-I, Total J). `audit` of that
// block must give every '*' cell the interval an independent LP (gonum's
// simplex over the relations written here by hand: each row's Total is
// the sum of its seven bands, the Total row the sum of the five types in
// every column, cells ≥ 0) finds, and call exactly disclosed exactly the
// cells whose interval is a point. Before the header merged down over
// rows 2-3 was read as one column dimension, the block read as two
// identical ones (across1 x across2), and the audit called nine of the
// eleven cells the LP pins down protected (Leased property, 2 to <3
// Years: [0, 4] "protected", given back as 4 by the published totals).
func TestCorpusPublishedDisclosure(t *testing.T) {
	cells := filepath.Join("../../testdata/corpus", "nihe_tempaccom.cells")
	w, err := corpus.Load(cells)
	if err != nil {
		t.Fatal(err)
	}
	const sheet = "Sheet1"
	h := handTable{id: "nihe-tempaccom-t35 block 1", signed: map[pos]bool{},
		labels: map[string]string{"B4": `Hotel\B&B`, "B8": "Voluntary sector hostels", "B9": "Total",
			"C2": "< 6 Months", "I2": "5 Years +", "J2": "Total"}}
	h.checkLabels(t, w, sheet)
	const r0, r1, c0, c1 = 4, 9, 3, 10 // rows 4-9 (row 9 the Total), columns C-J (J the Total)
	for r := r0; r <= r1; r++ {
		rel := []relTerm{{pos{r, c1}, 1}}
		for c := c0; c < c1; c++ {
			rel = append(rel, relTerm{pos{r, c}, -1})
		}
		h.rels = append(h.rels, rel)
	}
	for c := c0; c <= c1; c++ {
		rel := []relTerm{{pos{r1, c}, 1}}
		for r := r0; r < r1; r++ {
			rel = append(rel, relTerm{pos{r, c}, -1})
		}
		h.rels = append(h.rels, rel)
	}
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			p := pos{r, c}
			h.cells = append(h.cells, p)
			ref, _ := excelize.CoordinatesToCellName(c, r)
			v, kind := w.Value(sheet, ref)
			switch {
			case kind == 'n':
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				known[p] = f
			case v == "*":
				withheld[p] = &attackCell{at: p, status: "marked", need: true}
			default:
				t.Fatalf("%s holds %q", ref, v)
			}
		}
	}
	h.attack(t, known, withheld)

	xlsx, err := corpus.Build(cells, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "range.yaml")
	if err := os.WriteFile(cfg, []byte("input:\n  range: B2:J9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"audit", xlsx, "--sheet", sheet, "--value", "total", "--config", cfg, "--json"}, &stdout, &stderr)
	var res struct {
		Cells []struct {
			Key       map[string]string `json:"key"`
			Lo        *float64          `json:"lo"`
			Hi        *float64          `json:"hi"`
			Exact     bool              `json:"exact"`
			Protected bool              `json:"protected"`
		} `json:"cells"`
		Exactly int `json:"exactly_disclosed"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
	rowOf, colOf := map[string]int{}, map[string]int{}
	for r := r0; r <= r1; r++ {
		v, _ := w.Value(sheet, "B"+strconv.Itoa(r))
		rowOf[v] = r
	}
	for c := c0; c <= c1; c++ {
		ref, _ := excelize.CoordinatesToCellName(c, 2)
		v, _ := w.Value(sheet, ref)
		colOf[v] = c
	}
	if len(res.Cells) != len(withheld) {
		t.Fatalf("audit reports %d suppressed cells, the block has %d '*' cells:\n%s", len(res.Cells), len(withheld), stdout.String())
	}
	exact := 0
	for _, c := range res.Cells {
		if len(c.Key) != 2 {
			t.Errorf("audit cell key %v: want the accommodation type and one column dimension", c.Key)
		}
		r, col := rowOf[c.Key["column B"]], colOf[c.Key["across"]]
		if col == 0 {
			col = colOf[c.Key["across1"]]
		}
		a := withheld[pos{r, col}]
		if a == nil || c.Lo == nil || c.Hi == nil {
			t.Fatalf("audit cell %v (lo %v, hi %v) is no '*' cell of the block", c.Key, c.Lo, c.Hi)
		}
		ref, _ := excelize.CoordinatesToCellName(col, r)
		pinned := a.hi-a.lo <= 1e-6
		if pinned {
			exact++
		}
		if math.Abs(*c.Lo-a.lo) > 1e-6 || math.Abs(*c.Hi-a.hi) > 1e-6 || c.Exact != pinned || pinned && c.Protected {
			t.Errorf("%s %v: audit [%v, %v] exact %v protected %v; the LP over the published totals gives [%v, %v]", ref, c.Key, *c.Lo, *c.Hi, c.Exact, c.Protected, a.lo, a.hi)
		}
	}
	if exact == 0 || res.Exactly != exact || code != 1 {
		t.Errorf("audit: exit %d, %d exactly disclosed; the LP pins %d cells (want exit 1)", code, res.Exactly, exact)
	}
	t.Logf("%d '*' cells in the first block, %d exactly disclosed by the published totals", len(withheld), exact)
}
