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
	const sheet = niheSheet
	h, known, withheld := niheBlock1(t, w)
	h.attack(t, known, withheld)

	xlsx, err := corpus.Build(cells, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := niheRange(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"audit", xlsx, "--sheet", sheet, "--value", "total", "--config", cfg, "--json"}, &stdout, &stderr)
	var res auditResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
	rowOf, colOf := map[string]int{}, map[string]int{}
	for r := niheR0; r <= niheR1; r++ {
		v, _ := w.Value(sheet, "B"+strconv.Itoa(r))
		rowOf[v] = r
	}
	for c := niheC0; c <= niheC1; c++ {
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

const niheSheet = "Sheet1"

// niheBlock1 is the first block of NIHE table 3.5 written by hand: rows
// 4-9 (accommodation types, row 9 their Total), columns C-J (length of
// stay, J the Total); every row's J is the sum of C-I, row 9 the sum of
// rows 4-8 in every column. known holds the published numbers, withheld
// the '*' cells.
func niheBlock1(t *testing.T, w *corpus.Workbook) (handTable, map[pos]float64, map[pos]*attackCell) {
	t.Helper()
	const sheet = niheSheet
	h := handTable{id: "nihe-tempaccom-t35 block 1", signed: map[pos]bool{},
		labels: map[string]string{"B4": `Hotel\B&B`, "B8": "Voluntary sector hostels", "B9": "Total",
			"C2": "< 6 Months", "I2": "5 Years +", "J2": "Total"}}
	h.checkLabels(t, w, sheet)
	for r := niheR0; r <= niheR1; r++ {
		rel := []relTerm{{pos{r, niheC1}, 1}}
		for c := niheC0; c < niheC1; c++ {
			rel = append(rel, relTerm{pos{r, c}, -1})
		}
		h.rels = append(h.rels, rel)
	}
	for c := niheC0; c <= niheC1; c++ {
		rel := []relTerm{{pos{niheR1, c}, 1}}
		for r := niheR0; r < niheR1; r++ {
			rel = append(rel, relTerm{pos{r, c}, -1})
		}
		h.rels = append(h.rels, rel)
	}
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	for r := niheR0; r <= niheR1; r++ {
		for c := niheC0; c <= niheC1; c++ {
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
	return h, known, withheld
}

// the first block: rows 4-9 (row 9 the Total), columns C-J (J the Total)
const niheR0, niheR1, niheC0, niheC1 = 4, 9, 3, 10

// niheRange reads the first block: its header (rows 2-3) and body.
func niheRange(t *testing.T) string {
	cfg := filepath.Join(t.TempDir(), "range.yaml")
	if err := os.WriteFile(cfg, []byte("input:\n  range: B2:J9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestCorpusPublishedCheckAttack: `check` of NIHE table 3.5's first block
// as counts (input.range B2:J9, --value count) writes a safe table; the
// independent LP over the block's totals written by hand (niheBlock1)
// attacks it as TestCorpusAttack attacks the readable tables: every cell
// the tool withholds for review is taken as published, every primary's
// interval must reach x − 10% and x + 10%, no secondary is exactly
// disclosed, and a '*' cell of the input that check's audit calls
// protected has an interval at least 20% of its midpoint wide. The '*'
// cells the published totals give back are not protected by check (it
// cannot hide a published total from the reader): its audit must not
// call any of them protected.
func TestCorpusPublishedCheckAttack(t *testing.T) {
	cells := filepath.Join("../../testdata/corpus", "nihe_tempaccom.cells")
	w, err := corpus.Load(cells)
	if err != nil {
		t.Fatal(err)
	}
	h, _, _ := niheBlock1(t, w)
	xlsx, err := corpus.Build(cells, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", xlsx, "--out", out, "--quiet", "--sheet", niheSheet, "--value", "count", "--config", niheRange(t)}, &stdout, &stderr)
	if code != 0 && code != 1 {
		t.Fatalf("check: exit %d:\n%s", code, stderr.String())
	}
	tb := corpus.Table{ID: h.id, File: "nihe_tempaccom.cells", Sheet: niheSheet, Header: []int{2, 3}}
	tb.Body.Rows, tb.Body.Columns = []int{niheR0, niheR1}, []string{"C", "J"}
	// the safe table is the range B2:J9: its first line is row 2, its
	// first field column B
	safe := map[int]map[int]string{}
	for r, row := range safeGrid(t, filepath.Join(out, "nihe_tempaccom.safe.csv"), 2) {
		safe[r] = map[int]string{}
		for c, v := range row {
			safe[r][c+1] = v
		}
	}
	if got := safe[4][2]; got != `Hotel\B&B` {
		t.Fatalf("the safe table's B4 is %q", got)
	}
	status, ta := reportStatus(t, filepath.Join(out, "nihe_tempaccom.report.json"), w, tb)
	if !ta.margins {
		t.Fatalf("check found no margins in the block")
	}
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	counts := map[string]int{}
	for _, p := range h.cells {
		ref, _ := excelize.CoordinatesToCellName(p.col, p.row)
		orig, kind := w.Value(niheSheet, ref)
		text, st := safe[p.row][p.col], status[p]
		switch {
		case orig == "*":
			if text != "*" && text != "x" {
				t.Fatalf("%s: suppressed in the input, the safe table publishes %q", ref, text)
			}
			withheld[p] = &attackCell{at: p, status: "marked"}
		default:
			safeCell(t, ref, p, orig, kind, text, st, known, withheld)
		}
		counts[withheld[p].statusOr("published")]++
	}
	for _, c := range withheld {
		if c.status == "marked" {
			c.need = true // every '*' cell: its interval is compared with the tool's verdict
		}
	}
	h.attack(t, known, withheld)
	pinned := 0
	for _, p := range h.cells {
		c := withheld[p]
		if c == nil {
			continue
		}
		ref, _ := excelize.CoordinatesToCellName(p.col, p.row)
		tol := 1e-6 * math.Max(1, math.Max(math.Abs(c.lo), math.Abs(c.hi)))
		exact := c.hi-c.lo <= tol
		switch c.status {
		case "primary":
			u := 0.1 * c.value
			if exact || c.hi < c.value+u-tol || c.lo > c.value-u+tol {
				t.Errorf("%s: primary %v has interval [%v, %v], needs [%v, %v]", ref, c.value, c.lo, c.hi, c.value-u, c.value+u)
			}
		case "secondary":
			if exact {
				t.Errorf("%s: secondary %v exactly disclosed", ref, c.value)
			}
		case "marked":
			mid := (c.lo + c.hi) / 2
			if ta.verdict[p] == "protected" && (exact || !math.IsInf(c.hi, 1) && c.hi-c.lo < 0.2*mid-tol) {
				t.Errorf("%s: suppressed in the input, called protected by check's audit; the attack's interval [%v, %v] is narrower than %v", ref, c.lo, c.hi, 0.2*mid)
			}
			if exact && (ta.verdict[p] != "exact" || status[p] != "review") {
				t.Errorf("%s: given back exactly by the published totals ([%v, %v]); check says %q, its audit %q (want review, exact)", ref, c.lo, c.hi, status[p], ta.verdict[p])
			}
			if exact {
				pinned++
			}
		}
	}
	if pinned == 0 || counts["primary"] == 0 {
		t.Errorf("%d primary cells, %d input cells given back: the block no longer tests what it did", counts["primary"], pinned)
	}
	t.Logf("%d cells: %v; %d '*' cells given back by the published totals, called exact by check's audit; exit %d", len(h.cells), counts, pinned, code)
}

func (c *attackCell) statusOr(s string) string {
	if c == nil {
		return s
	}
	return c.status
}
