package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Two breakdowns of one total in one label column (issue 24): "All
// people" = Men + Women = the age bands. The tool protects and audits
// the table through a cover with the breakdowns crossed; these tests
// attack its outputs with gonum's simplex over the relations written by
// hand (both breakdowns, the row totals, non-negativity: relsHand, attack).

// crossedRun runs check on a CSV and returns its rows, the safe table's
// rows and the report's interval audit.
func crossedRun(t *testing.T, path string, args ...string) (orig, safe [][]string, rep crossedAudit) {
	t.Helper()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"check", path, "--out", dir, "--quiet"}, args...), &stdout, &stderr)
	if code != 0 && code != 1 {
		t.Fatalf("check %s: exit %d: %s", path, code, stderr.String())
	}
	base := strings.TrimSuffix(filepath.Base(path), ".csv")
	orig = readCSVFile(t, path)
	safe = readCSVFile(t, filepath.Join(dir, base+".safe.csv"))
	b, err := os.ReadFile(filepath.Join(dir, base+".report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Audit     crossedAudit `json:"audit"`
		Structure struct {
			Axes []struct {
				Breakdowns []json.RawMessage `json:"breakdowns"`
			} `json:"axes"`
		} `json:"structure"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Structure.Axes) == 0 || len(r.Structure.Axes[0].Breakdowns) != 1 {
		t.Errorf("%s: report.json structure lists no breakdowns of the label column", path)
	}
	return orig, safe, r.Audit
}

// crossedAudit is report.json's interval audit.
type crossedAudit struct {
	Cells []struct {
		Key          map[string]string `json:"key"`
		Lo           *float64          `json:"lo"`
		Hi           *float64          `json:"hi"`
		Exact        bool              `json:"exact"`
		Protected    bool              `json:"protected"`
		Approximate  bool              `json:"approximate"`
		Undetermined bool              `json:"undetermined"`
		Status       string            `json:"status"`
	} `json:"cells"`
}

// noTimeLimit writes a configuration whose suppression time limit no run
// of these tests reaches (the verdicts must not depend on the machine's
// speed: -race runs are several times slower), with more, and returns
// its path.
func noTimeLimit(t *testing.T, more string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nolimit.yaml")
	if err := os.WriteFile(path, []byte("suppression: {time_limit: 60m}\n"+more), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cellAt finds the body cell of an audit key in a wide CSV with one label
// column and one column dimension ("across").
func cellAt(t *testing.T, rows [][]string, key map[string]string) pos {
	t.Helper()
	p := pos{-1, -1}
	for r := 2; r <= len(rows); r++ {
		if rows[r-1][0] == key[rows[0][0]] {
			p.row = r
		}
	}
	p.col = acrossCol(rows, key)
	if p.row < 0 || p.col < 0 {
		t.Fatalf("audit key %v is no cell of the table", key)
	}
	return p
}

// acrossCol is the column of an audit key's "across" label in the header
// of a wide CSV with one label column (the last so labelled), -1 if none.
func acrossCol(rows [][]string, key map[string]string) int {
	col := -1
	for c := 2; c <= len(rows[0]); c++ {
		if rows[0][c-1] == key["across"] {
			col = c
		}
	}
	return col
}

// sameInterval compares the tool's interval with the attack's: equal,
// or, when the tool's is an inner bound (approximate: a large
// component), within it.
func sameInterval(t *testing.T, what string, lo, hi *float64, approximate bool, a *attackCell) {
	t.Helper()
	tol := 1e-6 * math.Max(1, math.Abs(a.value))
	if approximate {
		if lo == nil || *lo < a.lo-tol || hi != nil && *hi > a.hi+tol {
			t.Errorf("%s: the tool's inner interval [%v, %v] is not within the attack's [%g, %g]", what, ptr(lo), ptr(hi), a.lo, a.hi)
		}
		return
	}
	if lo == nil || math.Abs(*lo-a.lo) > tol || hi == nil && !math.IsInf(a.hi, 1) || hi != nil && math.Abs(*hi-a.hi) > tol {
		t.Errorf("%s: the tool's interval [%v, %v] is not the attack's [%g, %g]", what, ptr(lo), ptr(hi), a.lo, a.hi)
	}
}

func ptr(p *float64) string {
	if p == nil {
		return "unbounded"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// crossedAgainstHand checks a safe table against the hand relations: no
// withheld cell is pinned to within 1 (attackSafe), each cell of
// mustWithhold is withheld, and the tool's audit gives every withheld
// cell the attack's interval and calls it protected. It returns the
// number of cells withheld.
func crossedAgainstHand(t *testing.T, path, rels string, mustWithhold ...pos) int {
	t.Helper()
	orig, safe, rep := crossedRun(t, path, "--value", "count", "--config", noTimeLimit(t, ""))
	h, _ := relsHand(t, filepath.Base(path), rels, len(orig), len(orig[0]))
	withheld := h.attackSafe(t, orig, safe, mustWithhold...)
	t.Logf("%s: %d of %d cells withheld", filepath.Base(path), len(withheld), len(h.cells))
	seen := map[pos]bool{}
	for _, c := range rep.Cells {
		p := cellAt(t, orig, c.Key)
		a := withheld[p]
		if a == nil {
			t.Errorf("audited cell %v is published in the safe table", c.Key)
			continue
		}
		seen[p] = true
		sameInterval(t, fmt.Sprint(c.Key), c.Lo, c.Hi, c.Approximate, a)
		if !c.Protected || c.Exact || c.Undetermined {
			t.Errorf("cell %v: protected %v, exact %v", c.Key, c.Protected, c.Exact)
		}
	}
	if len(seen) != len(withheld) {
		t.Errorf("%d cells audited, %d withheld", len(seen), len(withheld))
	}
	return len(withheld)
}

// TestCrossedCheckTwo: the UK-style table with "All people" = Men +
// Women = three age bands. "Aged 0-15" North (2) is primary; the safe
// table must not give it back. Before, only "Aged 0-15" North and West
// were withheld and All people − 16-64 − 65+ = 120 − 80 − 38 = 2 gave
// it back (the label column had no margin at all).
func TestCrossedCheckTwo(t *testing.T) {
	n := crossedAgainstHand(t, filepath.Join("testdata", "crossed", "two.csv"), "R 2 = 3 4\nR 2 = 5 6 7\nC 6 = 2 3 4 5", pos{5, 2})
	if n <= 2 {
		t.Errorf("%d cells withheld, want more than the 2 withheld before", n)
	}
}

// TestCrossedAuditReceived: a received copy of two.csv with only "Aged
// 0-15" North and West withheld: both are exactly disclosed through the
// age bands (120 − 80 − 38 = 2, 150 − 70 − 40 = 40), exit 1, and the
// attack over the hand relations agrees. Before: both "protected"
// through the totals of Men and Women, which they are not in, exit 0.
func TestCrossedAuditReceived(t *testing.T) {
	path := filepath.Join("testdata", "crossed", "two-recv.csv")
	rr := readCSVFile(t, path)
	or := readCSVFile(t, filepath.Join("testdata", "crossed", "two.csv"))
	h, _ := relsHand(t, "two-recv", "R 2 = 3 4\nR 2 = 5 6 7\nC 6 = 2 3 4 5", len(rr), len(rr[0]))
	withheld := h.attackReceived(t, or, rr)
	var stdout, stderr bytes.Buffer
	code := run([]string{"audit", path, "--value", "count", "--json"}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1 (exactly disclosed)\n%s%s", code, stdout.String(), stderr.String())
	}
	var res auditResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if res.Exactly != 2 || len(res.Cells) != 2 {
		t.Errorf("%d exactly disclosed of %d cells, want 2 of 2: %s", res.Exactly, len(res.Cells), stdout.String())
	}
	for _, c := range res.Cells {
		a := withheld[cellAt(t, rr, c.Key)]
		if a == nil {
			t.Fatalf("audited cell %v is published", c.Key)
		}
		sameInterval(t, fmt.Sprint(c.Key), c.Lo, c.Hi, false, a)
		if !c.Exact || c.Protected || a.hi-a.lo > 1e-9 {
			t.Errorf("cell %v: exact %v, protected %v; attack [%g, %g]", c.Key, c.Exact, c.Protected, a.lo, a.hi)
		}
	}
}

// crossedTable writes a wide table of counts with one total row and
// breakdowns (each a list of row labels) over ncols areas and a Total
// column: the counts are those of a hidden cross of the breakdowns
// (deterministic, small enough that some cells are primary), so every
// breakdown adds up to the total. It returns the path and the hand
// relations in relsHand's notation.
func crossedTable(t *testing.T, name string, breakdowns [][]string, ncols int, seed, sparse uint64) (string, string) {
	t.Helper()
	inner := 1
	for _, b := range breakdowns {
		inner *= len(b)
	}
	nrows := 1
	for _, b := range breakdowns {
		nrows += len(b)
	}
	body := make([][]int64, nrows)
	for r := range body {
		body[r] = make([]int64, ncols+1)
	}
	x := seed
	for c := 0; c < ncols; c++ {
		for k := 0; k < inner; k++ {
			x = x*6364136223846793005 + 1442695040888963407
			v := int64(x>>33) % 9
			if (x>>20)%sparse != 0 {
				v = 0
			}
			body[0][c] += v
			off, rest := 1, k
			for _, b := range breakdowns {
				body[off+rest%len(b)][c] += v
				rest /= len(b)
				off += len(b)
			}
		}
	}
	for r := range body {
		for c := 0; c < ncols; c++ {
			body[r][ncols] += body[r][c]
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	header := []string{"Group"}
	for c := 0; c < ncols; c++ {
		header = append(header, fmt.Sprintf("Area %02d", c+1))
	}
	_ = w.Write(append(header, "Total"))
	labels := []string{"All people"}
	for _, b := range breakdowns {
		labels = append(labels, b...)
	}
	for r, l := range labels {
		line := []string{l}
		for _, v := range body[r] {
			line = append(line, strconv.FormatInt(v, 10))
		}
		_ = w.Write(line)
	}
	w.Flush()
	path := filepath.Join(t.TempDir(), name+".csv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var rels []string
	row := 3
	for _, b := range breakdowns {
		var of []string
		for range b {
			of = append(of, strconv.Itoa(row))
			row++
		}
		rels = append(rels, "R 2 = "+strings.Join(of, " "))
	}
	var cols []string
	for c := 0; c < ncols; c++ {
		cols = append(cols, strconv.Itoa(c+2))
	}
	rels = append(rels, fmt.Sprintf("C %d = %s", ncols+2, strings.Join(cols, " ")))
	return path, strings.Join(rels, "\n")
}

// TestCrossedCheckThree: three breakdowns (sex, age, country of birth),
// and a larger table of four breakdowns over 30 areas (many primaries,
// several components: the concurrent paths, under -race): no withheld
// cell of the safe tables is recoverable by the attack over the hand
// relations, and the tool's intervals are the attack's.
func TestCrossedCheckThree(t *testing.T) {
	sex := []string{"Men", "Women"}
	age := []string{"Aged 0-15", "Aged 16-64", "Aged 65+"}
	birth := []string{"UK born", "Born abroad"}
	tenure := []string{"Owners", "Private renters", "Social renters", "Other tenure"}
	for _, tc := range []struct {
		name  string
		bd    [][]string
		ncols int
		seed  uint64
		// sparse: one hidden cell in sparse is not zero
		sparse uint64
	}{
		{"three", [][]string{sex, age, birth}, 8, 7, 1},
		{"four-wide", [][]string{sex, age, birth, tenure}, 10, 11, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, rels := crossedTable(t, tc.name, tc.bd, tc.ncols, tc.seed, tc.sparse)
			if n := crossedAgainstHand(t, path, rels); n < 3 {
				t.Errorf("%d cells withheld: the table should have primaries to protect", n)
			}
		})
	}
}

// TestCrossedCheckLong3D: a long table of three dimensions (Group x Area
// x Year, each with its total) whose Group gives "All people" three
// breakdowns (sex, age, country of birth): no withheld cell of the safe
// table is recoverable by gonum's simplex over the relations written by
// hand (the three breakdowns on every (Area, Year), the Area total on
// every (Group, Year), the Year total on every (Group, Area),
// non-negativity), and the tool's intervals are the attack's.
func TestCrossedCheckLong3D(t *testing.T) {
	t.Parallel()
	bd := [][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+"}, {"UK born", "Born abroad"}}
	areas := []string{"North", "South", "East", "West", "Total"}
	years := []string{"2019", "2020", "2021", "Total"}
	groups := []string{"All people"}
	for _, b := range bd {
		groups = append(groups, b...)
	}
	// the hidden cross, per finest (area, year)
	val := map[[3]string]int64{}
	x := uint64(5)
	for _, a := range areas[:len(areas)-1] {
		for _, y := range years[:len(years)-1] {
			for k := 0; k < 12; k++ {
				x = x*6364136223846793005 + 1442695040888963407
				v := int64(x>>33)%9 + 1
				codes := []string{"All people", bd[0][k%2], bd[1][(k/2)%3], bd[2][k/6]}
				for _, g := range codes {
					for _, aa := range []string{a, "Total"} {
						for _, yy := range []string{y, "Total"} {
							val[[3]string{g, aa, yy}] += v
						}
					}
				}
			}
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"Group", "Area", "Year", "count"})
	row := map[[3]string]int{}
	for _, g := range groups {
		for _, a := range areas {
			for _, y := range years {
				row[[3]string{g, a, y}] = len(row) + 2
				_ = w.Write([]string{g, a, y, strconv.FormatInt(val[[3]string{g, a, y}], 10)})
			}
		}
	}
	w.Flush()
	dir := t.TempDir()
	path := filepath.Join(dir, "long3.csv")
	cfg := noTimeLimit(t, "columns:\n  dims: [Group, Area, Year]\n  count: count\n")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h := handTable{id: "long3"}
	at := func(g, a, y string) pos { return pos{row[[3]string{g, a, y}], 4} }
	for _, g := range groups {
		for _, a := range areas {
			for _, y := range years {
				h.cells = append(h.cells, at(g, a, y))
			}
		}
	}
	for _, a := range areas {
		for _, y := range years {
			for _, b := range bd {
				rel := []relTerm{{at("All people", a, y), 1}}
				for _, g := range b {
					rel = append(rel, relTerm{at(g, a, y), -1})
				}
				h.rels = append(h.rels, rel)
			}
		}
	}
	for _, g := range groups {
		for _, y := range years {
			rel := []relTerm{{at(g, "Total", y), 1}}
			for _, a := range areas[:len(areas)-1] {
				rel = append(rel, relTerm{at(g, a, y), -1})
			}
			h.rels = append(h.rels, rel)
		}
		for _, a := range areas {
			rel := []relTerm{{at(g, a, "Total"), 1}}
			for _, y := range years[:len(years)-1] {
				rel = append(rel, relTerm{at(g, a, y), -1})
			}
			h.rels = append(h.rels, rel)
		}
	}
	orig, safe, rep := crossedRun(t, path, "--config", cfg)
	withheld := h.attackSafe(t, orig, safe)
	t.Logf("%d of %d cells withheld", len(withheld), len(h.cells))
	if len(withheld) < 3 {
		t.Errorf("%d cells withheld: the table should have primaries to protect", len(withheld))
	}
	for _, c := range rep.Cells {
		a := withheld[at(c.Key["Group"], c.Key["Area"], c.Key["Year"])]
		if a == nil {
			t.Errorf("audited cell %v is published", c.Key)
			continue
		}
		sameInterval(t, fmt.Sprint(c.Key), c.Lo, c.Hi, c.Approximate, a)
		if !c.Protected || c.Exact || c.Undetermined {
			t.Errorf("cell %v: protected %v, exact %v", c.Key, c.Protected, c.Exact)
		}
	}
	if len(rep.Cells) != len(withheld) {
		t.Errorf("%d cells audited, %d withheld", len(rep.Cells), len(withheld))
	}
}
