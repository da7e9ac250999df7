package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// relsHand is a table's structure written by hand in the reviewer's
// notation (one relation a line, CSV lines and columns 1-based, the header
// line 1): "R 4 = 2 3" is line 4 = line 2 + line 3 in every value column,
// "C 4 = 5 6" column 4 = column 5 + column 6 on every body line;
// "labelcols n" says the first n columns are labels (1 unless told).
func relsHand(t *testing.T, id, rels string, nrows, ncols int) (handTable, int) {
	t.Helper()
	h := handTable{id: id}
	labels := 1
	type rel struct {
		row  bool
		a    int
		of   []int
		line string
	}
	var rs []rel
	for _, line := range strings.Split(strings.TrimSpace(rels), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "labelcols" {
			labels, _ = strconv.Atoi(f[1])
			continue
		}
		if len(f) < 4 || f[2] != "=" || f[0] != "R" && f[0] != "C" {
			t.Fatalf("bad relation %q", line)
		}
		r := rel{row: f[0] == "R", line: line}
		r.a, _ = strconv.Atoi(f[1])
		for _, s := range f[3:] {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("bad relation %q", line)
			}
			r.of = append(r.of, n)
		}
		rs = append(rs, r)
	}
	for row := 2; row <= nrows; row++ {
		for col := labels + 1; col <= ncols; col++ {
			h.cells = append(h.cells, pos{row, col})
		}
	}
	for _, r := range rs {
		if r.row {
			for col := labels + 1; col <= ncols; col++ {
				terms := []relTerm{{pos{r.a, col}, 1}}
				for _, o := range r.of {
					terms = append(terms, relTerm{pos{o, col}, -1})
				}
				h.rels = append(h.rels, terms)
			}
			continue
		}
		for row := 2; row <= nrows; row++ {
			terms := []relTerm{{pos{row, r.a}, 1}}
			for _, o := range r.of {
				terms = append(terms, relTerm{pos{row, o}, -1})
			}
			h.rels = append(h.rels, terms)
		}
	}
	return h, labels
}

// readCSVFile reads a CSV file of testdata.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// auditVerdict is one withheld cell of a received table: the audit's
// verdict and the independent attack's interval.
type auditVerdict struct {
	at                 pos
	exact, protected   bool
	attackLo, attackHi float64
}

// auditAgainstHand runs `audit --json` on the received table recv (in
// testdata/nestfix), whose true values are in orig, and attacks every
// withheld cell with gonum's simplex over the hand structure rels: a cell
// the audit reports protected must not be pinned to within 1 by the
// attack. It returns the exit code and the verdicts by position.
func auditAgainstHand(t *testing.T, recv, orig, rels string, args ...string) (int, map[pos]*auditVerdict, auditResult) {
	t.Helper()
	path := filepath.Join("testdata", "nestfix", recv)
	rr := readCSVFile(t, path)
	or := readCSVFile(t, filepath.Join("testdata", "nestfix", orig))
	h, labels := relsHand(t, recv, rels, len(rr), len(rr[0]))
	withheld := h.attackReceived(t, or, rr)
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"audit", path, "--json"}, args...), &stdout, &stderr)
	var res auditResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
	out := map[pos]*auditVerdict{}
	for _, c := range res.Cells {
		p := pos{col: -1}
		for r := 2; r <= len(rr); r++ {
			match := true
			for j := range labels {
				if v, ok := c.Key[rr[0][j]]; ok && v != rr[r-1][j] {
					match = false
				}
			}
			if match {
				p.row = r
				break
			}
		}
		for j := labels; j < len(rr[0]); j++ {
			if rr[0][j] == c.Key["across"] {
				p.col = j + 1
			}
		}
		a := withheld[p]
		if a == nil {
			t.Fatalf("audited cell %v (%v) is not withheld in %s", c.Key, p, recv)
		}
		out[p] = &auditVerdict{at: p, exact: c.Exact, protected: c.Protected, attackLo: a.lo, attackHi: a.hi}
		if c.Protected && a.hi-a.lo < 1-1e-9 {
			t.Errorf("%s: cell %v (true %g) reported protected, but the attack over the hand structure pins it to [%g, %g]\n%s", recv, c.Key, a.value, a.lo, a.hi, stdout.String())
		}
	}
	if len(out) != len(withheld) {
		t.Errorf("%s: %d cells audited, %d withheld", recv, len(out), len(withheld))
	}
	return code, out, res
}

// TestAuditStackedBreakdowns: an unlabelled total (People) above two
// breakdowns of it (Men, Women; three age bands), with People and Men
// withheld in North: the age bands give People (120), then Men = 120 -
// 118 = 2. The audit must not call either protected. Before, the search
// in one column made People the margin of all five rows (People = 2 ×
// People): both reported protected, exit 0 (and `check` of the original
// exited 3, "published cells contradict the margins").
func TestAuditStackedBreakdowns(t *testing.T) {
	code, v, _ := auditAgainstHand(t, "stacked3-recv.csv", "stacked3.csv", "R 2 = 3 4\nR 2 = 5 6 7", "--value", "count")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if c := v[pos{3, 2}]; c == nil || c.protected || c.attackHi-c.attackLo > 1e-9 {
		t.Errorf("Men/North: %+v, want not protected and pinned by the attack", c)
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", filepath.Join("testdata", "nestfix", "stacked3.csv"), "--value", "count", "--out", dir, "--quiet"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Errorf("check stacked3.csv: exit %d: %s", code, stderr.String())
	}
}

// nestedRecvRels is the structure of n8/n9 written by hand: Workers =
// Employees + Self-employed on every line; in each column All North = N1
// + N2, All South = S1 + S2, All Midlands = M1 + M2, All England = All
// North + All South + All Midlands, All East = E1 + E2, All Wales = All
// East, Total = All England + All Wales.
const nestedRecvRels = `labelcols 3
C 4 = 5 6
R 4 = 2 3
R 7 = 5 6
R 10 = 8 9
R 11 = 4 7 10
R 14 = 12 13
R 15 = 14
R 16 = 11 15`

// TestAuditNestedSubgroupWithheld: a received nested table that
// withholds a whole subgroup (N1, N2 and All North in every column): All
// England - All South - All Midlands gives All North exactly. The audit
// must report it exactly disclosed. Before, All England's parts were
// N1, N2 and All North together (the subtotal, unconfirmed, counted
// beside its own parts): all nine cells reported protected, exit 0.
func TestAuditNestedSubgroupWithheld(t *testing.T) {
	for _, tc := range []struct{ recv, orig string }{{"n9-recv.csv", "n9-orig.csv"}, {"n8-recv.csv", "n8-orig.csv"}} {
		code, v, res := auditAgainstHand(t, tc.recv, tc.orig, nestedRecvRels, "--value", "count")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", tc.recv, code)
		}
		for col := 4; col <= 6; col++ {
			if c := v[pos{4, col}]; c == nil || !c.exact || c.attackHi-c.attackLo > 1e-9 {
				t.Errorf("%s: All North, column %d: %+v, want exactly disclosed (and pinned by the attack)", tc.recv, col, c)
			}
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), "arithmetic cannot confirm") {
			t.Errorf("%s: no warning that All North is taken by its label: %q", tc.recv, res.Warnings)
		}
	}
}

// relsFile reads a structure written by hand (the reviewer's, in the
// notation of relsHand) from testdata/nestfix.
func relsFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "nestfix", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAuditCensusIncompleteRegion: received Census tables, the nation,
// the four regions and the states, Delaware's births withheld (2): in
// c11 the table has no row for the District of Columbia, in c10 it is
// spelled "Washington, D.C.". South minus its other states gives
// Delaware exactly; the audit must say so (exit 1). Before, South was
// related to nothing unless every state was named as in the Bureau's
// list, with no warning: Delaware reported "[0, unbounded] protected",
// exit 0.
func TestAuditCensusIncompleteRegion(t *testing.T) {
	for _, tc := range []struct{ recv, orig, rels string }{
		{"c11-recv-50states.csv", "c5-50states-noDC.csv", "c5.rels"},
		{"c10-recv-dc-variant.csv", "c4-dc-variant-nodots.csv", "c4.rels"},
	} {
		code, v, _ := auditAgainstHand(t, tc.recv, tc.orig, relsFile(t, tc.rels), "--value", "count")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", tc.recv, code)
		}
		if c := v[pos{14, 2}]; c == nil || !c.exact || c.attackHi-c.attackLo > 1e-9 {
			t.Errorf("%s: Delaware births %+v, want exactly disclosed", tc.recv, c)
		}
	}
}

// checkAgainstHand runs `check` on a table of testdata/nestfix and
// attacks its safe table with gonum's simplex over the hand structure
// rels: no withheld cell may be pinned to within 1. It returns the
// report.
func checkAgainstHand(t *testing.T, name, rels string, args ...string) map[string]any {
	t.Helper()
	path := filepath.Join("testdata", "nestfix", name)
	orig := readCSVFile(t, path)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"check", path, "--out", out, "--quiet"}, args...), &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
	}
	base := strings.TrimSuffix(name, ".csv")
	safe := readCSVFile(t, filepath.Join(out, base+".safe.csv"))
	h, _ := relsHand(t, name, rels, len(orig), len(orig[0]))
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	for _, p := range h.cells {
		tv, err := strconv.ParseFloat(orig[p.row-1][p.col-1], 64)
		if err != nil {
			t.Fatalf("%s %v: %v", name, p, err)
		}
		if safe[p.row-1][p.col-1] == "x" {
			withheld[p] = &attackCell{at: p, value: tv, known: true, need: true}
		} else {
			known[p] = tv
		}
	}
	if len(withheld) == 0 {
		t.Fatalf("%s: nothing withheld", name)
	}
	h.attack(t, known, withheld)
	for p, c := range withheld {
		if c.hi-c.lo < 1-1e-9 {
			t.Errorf("%s: withheld cell %v (%s, true %g) recoverable from the safe table: [%g, %g]", name, p, orig[p.row-1][0], c.value, c.lo, c.hi)
		}
	}
	var rep map[string]any
	b, err := os.ReadFile(filepath.Join(out, base+".report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestCheckCensusDivisionsWithoutRegion: the nation, the Northeast and
// Midwest with their divisions, then the divisions of the South and the
// West with no region row (c13): every division is the margin of its
// states, and no withheld cell of the safe table is recoverable. Before,
// the divisions of a region without a row were related to nothing:
// Delaware and Wyoming were recoverable.
func TestCheckCensusDivisionsWithoutRegion(t *testing.T) {
	checkAgainstHand(t, "c13-mixed-regions-divisions.csv", relsFile(t, "c13.rels"), "--value", "count")
}

// reportMarginParts are the margins of a report's first axis: code -> parts.
func reportMarginParts(t *testing.T, rep map[string]any) map[string][]string {
	t.Helper()
	st, _ := rep["structure"].(map[string]any)
	axes, _ := st["axes"].([]any)
	if len(axes) == 0 {
		t.Fatalf("no axes in report structure: %v", st)
	}
	out := map[string][]string{}
	ms, _ := axes[0].(map[string]any)["margins"].([]any)
	for _, m := range ms {
		mm := m.(map[string]any)
		of, _ := mm["of"].([]any)
		var s []string
		for _, o := range of {
			s = append(s, o.(string))
		}
		out[mm["code"].(string)] = s
	}
	return out
}

// TestCheckCensusTotalAndPuertoRico: a labelled "Total", the regions, the
// states and Puerto Rico last (c9): Total is the sum of the four regions,
// Puerto Rico is outside (no state). Before, the labelled total was
// taken as the sum of the regions and Puerto Rico, "not the sum ... kept
// as a margin", and the total and the regions were withheld in every
// column.
func TestCheckCensusTotalAndPuertoRico(t *testing.T) {
	path := filepath.Join("testdata", "nestfix", "c9-total.csv")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", path, "--out", out, "--quiet", "--value", "count"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "c9-total.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	m := reportMarginParts(t, rep)
	if got := strings.Join(m["Total"], ", "); got != "Northeast, Midwest, South, West" {
		t.Errorf("Total is the margin of %q, want the four regions", got)
	}
	if w := reportWarnings(rep); strings.Contains(w, "not the sum") {
		t.Errorf("warnings:\n%s", w)
	}
	safe := readCSVFile(t, filepath.Join(out, "c9-total.safe.csv"))
	for _, r := range safe[1:6] {
		if slices.Contains(r[1:], "x") {
			t.Errorf("%s withheld in the safe table: %q", r[0], r)
		}
	}
}
