package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Three layouts of real published tables that were misread (issue 24):
// flat hierarchies in one column (no indentation, no codes), a received
// indented table whose subtotal rows are withheld, and a grand total
// printed twice. Each is checked against the independent attack (gonum's
// simplex over relations written by hand: relsHand, attack).

// flatAt is the body cell of an audit key in a wide CSV with one label
// column: the row whose label, without its indentation, is the key's
// (a row printed twice, keyed "LABEL (row N)", is row N), and the
// column of its "across" label.
func flatAt(t *testing.T, rows [][]string, key map[string]string) pos {
	t.Helper()
	p := pos{-1, -1}
	label := key[rows[0][0]]
	for r := len(rows); r >= 2; r-- {
		lab := strings.TrimSpace(rows[r-1][0])
		if label == fmt.Sprintf("%s (row %d)", lab, r) {
			p.row = r
			break
		}
		if lab == label {
			p.row = r // the first row so labelled
		}
	}
	p.col = acrossCol(rows, key)
	if p.row < 0 || p.col < 0 {
		t.Fatalf("audit key %v is no cell of the table", key)
	}
	return p
}

// flatCheck runs check on a wide CSV text and attacks its safe table over
// the hand relations rels: no withheld cell may be pinned to within 1,
// and each of mustWithhold is withheld. It returns the safe rows and the
// report.
func flatCheck(t *testing.T, text, rels string, mustWithhold ...pos) ([][]string, map[string]any) {
	t.Helper()
	path := rvWrite(t, "flat.csv", text)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", path, "--out", out, "--quiet", "--value", "count", "--config", noTimeLimit(t, "")}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("check: exit %d: %s", code, stderr.String())
	}
	orig := readCSVFile(t, path)
	safe := readCSVFile(t, filepath.Join(out, "flat.safe.csv"))
	h, _ := relsHand(t, "flat", rels, len(orig), len(orig[0]))
	h.attackSafe(t, orig, safe, mustWithhold...)
	return safe, readJSONFile(t, filepath.Join(out, "flat.report.json"))
}

// flatAudit audits a received copy (withheld cells "x") of the table orig
// and compares every withheld cell's interval with the attack's over the
// hand relations: equal (the intruder's exact interval), or, not exact,
// no cell called protected on an interval wider than the intruder's or
// one the intruder pins to within 1. It returns the exit code and the
// tool's result.
func flatAudit(t *testing.T, orig, recv, rels string, exact ...bool) (int, auditResult) {
	t.Helper()
	path := rvWrite(t, "recv.csv", recv)
	rr := readCSVFile(t, path)
	h, _ := relsHand(t, "recv", rels, len(rr), len(rr[0]))
	withheld := h.attackReceived(t, readCSVFile(t, rvWrite(t, "orig.csv", orig)), rr)
	var stdout, stderr bytes.Buffer
	code := run([]string{"audit", path, "--value", "count", "--json"}, &stdout, &stderr)
	var res auditResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("exit %d: %v: %s%s", code, err, stdout.String(), stderr.String())
	}
	for _, c := range res.Cells {
		a := withheld[flatAt(t, rr, c.Key)]
		if a == nil {
			t.Errorf("audited cell %v is published", c.Key)
			continue
		}
		switch {
		case len(exact) == 0 || exact[0]:
			sameInterval(t, fmt.Sprint(c.Key), c.Lo, c.Hi, false, a)
		case res.NoMargins:
			// no margins found (coincidental sums among the rows
			// left): the audit says a person must confirm (exit 1)
			if code != 1 {
				t.Errorf("no margins: exit %d, want 1", code)
			}
		case c.Protected:
			rvWithin(t, fmt.Sprint(c.Key), c.Lo, c.Hi, a)
			if a.hi-a.lo < 1-1e-9 {
				t.Errorf("cell %v called protected; the intruder pins it to [%g, %g]", c.Key, a.lo, a.hi)
			}
		}
	}
	if len(res.Cells) != len(withheld) {
		t.Errorf("%d cells audited, %d withheld", len(res.Cells), len(withheld))
	}
	return code, res
}

// flatHead is the header of the tables below.
const flatHead = "Area,North,South,East,West\n"

// withholdCell is the CSV text with its cell at p withheld ("x").
func withholdCell(text string, p pos) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	cells := strings.Split(lines[p.row-1], ",")
	cells[p.col-1] = "x"
	lines[p.row-1] = strings.Join(cells, ",")
	return strings.Join(lines, "\n") + "\n"
}

// seedRange is how many generated tables a test runs (n, nRace under
// -race, or the environment variable nEnv) and its first seed (1, or
// the environment variable seedEnv).
func seedRange(n, nRace int, nEnv, seedEnv string) (int, int) {
	if raceEnabled {
		n = nRace
	}
	if s := os.Getenv(nEnv); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed0 := 1
	if s := os.Getenv(seedEnv); s != "" {
		seed0, _ = strconv.Atoi(s)
	}
	return n, seed0
}

// TestFlatLevelsProtected: flat tables of three and four levels (Total,
// groups, subgroups, items), subtotals above their parts or below them,
// the total first or last: every level is found, the safe table protects
// the primary (Ayr North, 2) through the subtotals, and the audit of a
// received copy gives the intruder's exact intervals (exit 1: a withheld
// item is given back). Before, the total was taken as the sum of every
// row ("published cells contradict the margins", exit 3), or no tree was
// found and nothing was withheld but the primary.
func TestFlatLevelsProtected(t *testing.T) {
	// the groups and items with each subtotal below its parts
	const flatBelow = `Ayr,2,20,15,25
Bute,13,2,1,2
Northeast,15,22,16,27
Cork,20,20,10,10
Derry,5,8,9,8
Northwest,25,28,19,18
North,40,50,35,45
Essex,25,30,2,30
Fife,20,25,33,15
Gwent,15,15,20,20
South,60,70,55,65
`
	for _, tc := range []struct {
		name, text, rels string
		primary          pos
	}{
		// Total; North = Northeast + Northwest, each of two items; South of three
		{"above, deep group last", flatHead + `Total,100,120,90,110
South,60,70,55,65
Essex,25,30,2,30
Fife,20,25,33,15
Gwent,15,15,20,20
North,40,50,35,45
Northeast,15,22,16,27
Ayr,2,20,15,25
Bute,13,2,1,2
Northwest,25,28,19,18
Cork,20,20,10,10
Derry,5,8,9,8
`, "R 2 = 3 7\nR 3 = 4 5 6\nR 7 = 8 11\nR 8 = 9 10\nR 11 = 12 13", pos{9, 2}},
		{"below, total first", flatHead + "Total,100,120,90,110\n" + flatBelow, "R 2 = 9 13\nR 5 = 3 4\nR 8 = 6 7\nR 9 = 5 8\nR 13 = 10 11 12", pos{3, 2}},
		{"below, unlabelled total last", flatHead + flatBelow + "Britain,100,120,90,110\n", "R 13 = 8 12\nR 4 = 2 3\nR 7 = 5 6\nR 8 = 4 7\nR 12 = 9 10 11", pos{2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			safe, _ := flatCheck(t, tc.text, tc.rels, tc.primary)
			// the received copy: the safe table's pattern, and the
			// primary's subtotal published (a careless release)
			code, res := flatAudit(t, tc.text, rvFlatRecv(tc.text, safe), tc.rels)
			if code != 0 {
				t.Errorf("audit of the safe table: exit %d, want 0 (%d exactly disclosed)", code, res.Exactly)
			}
			// withhold the primary alone: its subtotal gives it back
			if code, res := flatAudit(t, tc.text, withholdCell(tc.text, tc.primary), tc.rels); code != 1 || res.Exactly != 1 {
				t.Errorf("audit of the primary alone withheld: exit %d, %d exactly disclosed; want 1, 1", code, res.Exactly)
			}
		})
	}
}

// TestIndentWithheldSubtotalAudit: a received indented table whose
// subtotal row ("  Owner occupied") is withheld in every column, and two
// items elsewhere: the indentation places the subtotal, the audit gives
// the intruder's exact intervals and exits 1 (All households less Rented
// gives Owner occupied back). The same table flat (no indentation) is
// read by its layout: the withheld row heads the rows below it. Before,
// "All households" was taken as the sum of every row: exit 3, "published
// cells contradict the margins".
func TestIndentWithheldSubtotalAudit(t *testing.T) {
	orig := `Tenure,North,South,East,West
All households,100,120,90,110
  Owner occupied,40,50,35,45
    Owned outright,10,20,15,25
    Buying with mortgage,30,30,20,20
  Rented,60,70,55,65
    Social rented,25,30,2,30
    Private rented,20,25,33,15
    Other rented,15,15,20,20
`
	recv := `Tenure,North,South,East,West
All households,100,120,90,110
  Owner occupied,x,x,x,x
    Owned outright,10,20,15,25
    Buying with mortgage,30,30,20,20
  Rented,60,70,55,65
    Social rented,25,30,x,30
    Private rented,20,25,33,15
    Other rented,15,15,x,20
`
	rels := "R 2 = 3 6\nR 3 = 4 5\nR 6 = 7 8 9"
	flat := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			out = append(out, strings.TrimLeft(l, " "))
		}
		return strings.Join(out, "\n")
	}
	for _, tc := range []struct{ name, orig, recv string }{{"indented", orig, recv}, {"flat", flat(orig), flat(recv)}} {
		code, res := flatAudit(t, tc.orig, tc.recv, rels)
		if code != 1 || res.Exactly != 4 {
			t.Errorf("%s: exit %d, %d exactly disclosed; want 1, 4 (Owner occupied in each column)", tc.name, code, res.Exactly)
		}
	}
	// check of the original: the safe table protects the primary (Social
	// rented East, 2) through the subtotals
	flatCheck(t, orig, rels, pos{7, 4})
}

// TestRepeatedTotalRow: the grand total printed at the top and again at
// the bottom ("Total" twice, or "Total" and "All people") with the same
// values is one margin published twice: the safe table withholds both
// copies of a cell or neither, no primary is recoverable, and the audit
// of a received copy knows the identity (the top Total withheld in North
// is given back by the bottom one, and Men North by Total less Women:
// exit 1). Two copies that differ are refused naming both rows (exit 3).
// Before, a label printed twice was refused (exit 3).
func TestRepeatedTotalRow(t *testing.T) {
	for _, last := range []string{"Total", "All people"} {
		text := flatHead + "Total,120,200,310,150\nMen,2,98,160,70\nWomen,118,102,150,80\n" + last + ",120,200,310,150\n"
		rels := "R 2 = 3 4\nR 5 = 2"
		safe, _ := flatCheck(t, text, rels, pos{3, 2})
		for c := 1; c < len(safe[0]); c++ {
			if (safe[1][c] == "x") != (safe[4][c] == "x") {
				t.Errorf("%s: column %d: the two totals %q and %q, want both withheld or neither", last, c+1, safe[1][c], safe[4][c])
			}
		}
		recv := flatHead + "Total,x,200,310,150\nMen,x,98,160,70\nWomen,118,102,150,80\n" + last + ",120,200,x,150\n"
		if code, res := flatAudit(t, text, recv, rels); code != 1 || res.Exactly != 3 {
			t.Errorf("%s: received: exit %d, %d exactly disclosed; want 1, 3", last, code, res.Exactly)
		}
	}
	path := rvWrite(t, "differ.csv", flatHead+"Total,120,200,310,150\nMen,2,98,160,70\nWomen,118,102,150,80\nTotal,121,200,310,150\n")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"audit", path, "--value", "count"}, &stdout, &stderr); code != 3 || !strings.Contains(stderr.String(), "row 5") || !strings.Contains(stderr.String(), "row 2's") || !strings.Contains(stderr.String(), "values differ") {
		t.Errorf("differing totals: exit %d, %s", code, stderr.String())
	}
}

// flatGen is a random flat table of three or four levels: the total,
// groups, sometimes subgroups, items; subtotals above their parts or
// below them; the total labelled or not, first or last.
type flatGen struct {
	text, rels string
	parts      map[string][]string // each margin's parts, as a person reads them
	item       pos                 // an item whose subtotal gives it back when it alone is withheld
}

// flatRow is a row of a generated flat table: its label, its values
// and, for a margin, the indices of the rows it is the sum of, printed
// below them or above.
type flatRow struct {
	label string
	vals  []int
	kids  []int
	below bool
}

// flatSum is the sum of the rows kids, column by column (ncol columns).
func flatSum(rows []flatRow, kids []int, ncol int) []int {
	v := make([]int, ncol)
	for _, k := range kids {
		for j := range v {
			v[j] += rows[k].vals[j]
		}
	}
	return v
}

// flatOrder is the order in which the rows of a generated flat table are
// printed: each margin of top (and the margins within) before its parts
// or after them (below), the total (the last row) first or last.
func flatOrder(rows []flatRow, top []int, totalLast bool) []int {
	var order []int
	var emit func(i int)
	emit = func(i int) {
		if len(rows[i].kids) > 0 && !rows[i].below {
			order = append(order, i)
		}
		for _, k := range rows[i].kids {
			emit(k)
		}
		if len(rows[i].kids) == 0 || rows[i].below {
			order = append(order, i)
		}
	}
	for _, k := range top {
		emit(k)
	}
	if totalLast {
		return append(order, len(rows)-1)
	}
	return append([]int{len(rows) - 1}, order...)
}

// flatText prints the rows of a generated flat table in order as CSV
// text under the header "Area" and cols, and returns it with each row's
// line in it.
func flatText(cols []string, rows []flatRow, order []int) (string, map[int]int) {
	line := map[int]int{} // row index -> CSV line
	var b strings.Builder
	b.WriteString("Area," + strings.Join(cols, ",") + "\n")
	for n, i := range order {
		line[i] = n + 2
		vs := make([]string, len(cols))
		for j, v := range rows[i].vals {
			vs[j] = fmt.Sprint(v)
		}
		b.WriteString(rows[i].label + "," + strings.Join(vs, ",") + "\n")
	}
	return b.String(), line
}

// flatRels is the true relations of a generated flat table ("R line =
// lines", one a margin) and each margin's parts by label, as a person
// reads them.
func flatRels(rows []flatRow, line map[int]int) (string, map[string][]string) {
	parts := map[string][]string{}
	var rels []string
	for i, r := range rows {
		if len(r.kids) == 0 {
			continue
		}
		rel := fmt.Sprintf("R %d =", line[i])
		for _, k := range r.kids {
			rel += fmt.Sprintf(" %d", line[k])
			parts[r.label] = append(parts[r.label], rows[k].label)
		}
		rels = append(rels, rel)
	}
	return strings.Join(rels, "\n"), parts
}

func genFlat(rng *rand.Rand) flatGen {
	cols := []string{"North", "South", "East", "West"}[:2+rng.IntN(3)]
	below := rng.IntN(2) == 0
	total := []string{"Total", "Britain"}[rng.IntN(2)]
	totalLast := rng.IntN(2) == 0
	var g flatGen
	var rows []flatRow
	items := 0
	leaf := func() int {
		items++
		v := make([]int, len(cols))
		for j := range v {
			v[j] = rng.IntN(40)
			if rng.IntN(6) == 0 {
				v[j] = 1 + rng.IntN(3) // a small count: a primary
			}
		}
		v[rng.IntN(len(v))] += 5 // not zero on every line
		rows = append(rows, flatRow{label: fmt.Sprintf("Item %02d", items), vals: v})
		return len(rows) - 1
	}
	var node func(label string, depth int) int
	node = func(label string, depth int) int {
		var kids []int
		n := 2 + rng.IntN(2)
		for k := range n {
			if depth > 0 {
				kids = append(kids, node(fmt.Sprintf("%s%c", label, 'a'+k), depth-1))
			} else {
				kids = append(kids, leaf())
			}
		}
		rows = append(rows, flatRow{label: label, vals: flatSum(rows, kids, len(cols)), kids: kids, below: below})
		return len(rows) - 1
	}
	var groups []int
	for k := range 2 + rng.IntN(2) {
		groups = append(groups, node([]string{"Alpha", "Beta", "Gamma", "Delta"}[k], rng.IntN(3)/2))
	}
	rows = append(rows, flatRow{label: total, vals: flatSum(rows, groups, len(cols)), kids: groups})
	// the order printed: each margin after its parts (below) or before
	text, line := flatText(cols, rows, flatOrder(rows, groups, totalLast))
	g.text = text
	g.rels, g.parts = flatRels(rows, line)
	for i, r := range rows {
		if len(r.kids) == 0 {
			g.item = pos{line[i], 2}
			break
		}
	}
	return g
}

// TestFlatGeneratedTables: random flat tables of three and four levels
// (genFlat): check finds every margin as generated (or says the layout is
// ambiguous and leaves it unconfirmed), and no withheld cell of its safe
// table is recoverable by the attack over the generated relations; the
// audit of the safe table as received calls no cell protected that the
// intruder pins, nor on a wider interval than the intruder's; an item
// withheld alone in a received copy is given back by its subtotal (exit
// 1, the intruder's exact interval). FLATGEN_N and FLATGEN_SEED run
// other seeds (300 were run when it was written).
func TestFlatGeneratedTables(t *testing.T) {
	n, seed0 := seedRange(40, 12, "FLATGEN_N", "FLATGEN_SEED")
	stats := map[string]int{}
	for i := range n {
		seed := uint64(seed0 + i)
		g := genFlat(rand.New(rand.NewPCG(seed, 24)))
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			safe, rep := flatCheck(t, g.text, g.rels)
			got := reportMarginParts(t, rep)
			if strings.Contains(reportWarnings(rep), "ambiguous") {
				stats["ambiguous"]++
				if st, _ := rep["structure"].(map[string]any); st["unconfirmed"] == nil {
					t.Errorf("ambiguous, nothing unconfirmed:\n%s", g.text)
				}
			} else {
				for q, parts := range g.parts {
					if !slices.Equal(got[q], parts) {
						t.Errorf("margin %q of %q, want %q\n%s%s", q, got[q], parts, g.text, reportWarnings(rep))
					}
				}
			}
			code, res := flatAudit(t, g.text, rvFlatRecv(g.text, safe), g.rels, false)
			stats[fmt.Sprintf("safe-exit%d", code)]++
			if res.NoMargins {
				stats["safe-nomargins"]++
			}
			// (or no margins, exit 1: a withheld cell lets a coincidental
			// sum stand on the lines left, and no tree holds)
			code, res = flatAudit(t, g.text, withholdCell(g.text, g.item), g.rels, false)
			if code != 1 || res.Exactly != 1 && !res.NoMargins {
				t.Errorf("one item withheld: exit %d, %d exactly disclosed; want 1, 1\n%s", code, res.Exactly, g.text)
			}
			if res.NoMargins {
				stats["item-nomargins"]++
			}
		})
	}
	t.Logf("stats %v", stats)
}
