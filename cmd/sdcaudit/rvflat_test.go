package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Adversarial review of the flat hierarchies (branch flat3): tables
// written by hand whose true relations are given, checked and audited
// against the attack over those relations (flatCheck, flatAudit).

// rvFlatRecv is the received copy of text with the safe table's
// withheld cells marked "x".
func rvFlatRecv(text string, safe [][]string) string {
	recv := strings.Split(strings.TrimSpace(text), "\n")
	for r := 1; r < len(recv); r++ {
		cells := strings.Split(recv[r], ",")
		for c := 1; c < len(cells); c++ {
			if safe[r][c] == "x" {
				cells[c] = "x"
			}
		}
		recv[r] = strings.Join(cells, ",")
	}
	return strings.Join(recv, "\n") + "\n"
}

// TestRvFlatCheckHeld: check's safe table, attacked over the true
// relations, for two layouts that could mislead it: an item that is by
// chance the sum of the two items after it inside a group (Ayr = Bute +
// Cork in every column, all four Ayr..Dee parts of North), and the total
// column printed first and last ("Total", "All"). The audit of the safe
// table as received calls no cell protected that the intruder pins.
func TestRvFlatCheckHeld(t *testing.T) {
	for _, tc := range []struct {
		name, text, rels string
		primary          pos
	}{
		// Total = North + South; North = Ayr+Bute+Cork+Dee (above), Ayr = Bute + Cork by chance
		{"coincidence in group", flatHead + `Total,100,120,90,110
North,40,50,35,45
Ayr,15,20,10,20
Bute,2,12,4,9
Cork,13,8,6,11
Dee,10,10,15,5
South,60,70,55,65
Essex,25,30,2,30
Fife,20,25,33,15
Gwent,15,15,20,20
`, "R 2 = 3 8\nR 3 = 4 5 6 7\nR 8 = 9 10 11", pos{5, 2}},
		// columns: Total first and last
		{"total column twice", "Area,Total,North,South,All\nTotal,100,40,60,100\nAyr,22,2,20,22\nBute,78,38,40,78\n",
			"R 2 = 3 4\nC 2 = 3 4\nC 5 = 2", pos{3, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			safe, _ := flatCheck(t, tc.text, tc.rels, tc.primary)
			flatAudit(t, tc.text, rvFlatRecv(tc.text, safe), tc.rels, false)
		})
	}
}

// TestRvFlatReceivedHeld: received copies whose withheld cells test the
// new readings (a total column printed twice, one copy withheld; "Total"
// and "All people" with the second withheld on every line; a subtotal
// withheld on every line beside withheld items; a run of items withheld
// on every line under a published subtotal): the audit gives the
// intruder's exact intervals over the true relations. Two subtotals
// withheld on every line, the second over three items (Gwent could be a
// top-level row: the total adds up either way), is ambiguous: no cell
// called protected (exact false).
func TestRvFlatReceivedHeld(t *testing.T) {
	twoTot := flatHead + "Total,120,200,310,150\nMen,2,98,160,70\nWomen,118,102,150,80\nTotal,120,200,310,150\n"
	grp := flatHead + `Total,100,120,90,110
North,40,50,35,45
Ayr,2,20,15,25
Bute,38,30,20,20
South,60,70,55,65
Essex,25,30,2,30
Fife,20,25,33,15
Gwent,15,15,20,20
`
	grpRels := "R 2 = 3 6\nR 3 = 4 5\nR 6 = 7 8 9"
	for _, tc := range []struct {
		name, orig, recv, rels string
		exact                  bool
	}{
		{"total column twice, one copy withheld", "Area,Total,North,South,All\nTotal,100,40,60,100\nAyr,22,2,20,22\nBute,78,38,40,78\n",
			"Area,Total,North,South,All\nTotal,100,40,60,100\nAyr,x,x,20,22\nBute,78,x,x,78\n", "R 2 = 3 4\nC 2 = 3 4\nC 5 = 2", true},
		{"total column twice, both withheld in a row", "Area,Total,North,South,All\nTotal,100,40,60,100\nAyr,22,2,20,22\nBute,78,38,40,78\n",
			"Area,Total,North,South,All\nTotal,100,40,60,100\nAyr,x,x,x,x\nBute,78,x,x,78\n", "R 2 = 3 4\nC 2 = 3 4\nC 5 = 2", true},
		{"all people withheld on every line", twoTot,
			flatHead + "Total,120,200,310,150\nMen,x,98,160,70\nWomen,x,102,150,80\nAll people,x,x,x,x\n", "R 2 = 3 4\nR 5 = 2", true},
		{"subtotal withheld beside withheld items", grp,
			flatHead + "Total,100,120,90,110\nNorth,x,x,x,x\nAyr,x,20,15,25\nBute,x,30,20,20\nSouth,60,70,55,65\nEssex,25,30,x,30\nFife,20,25,x,15\nGwent,15,15,20,20\n", grpRels, true},
		{"both subtotals withheld", grp,
			flatHead + "Total,100,120,90,110\nNorth,x,x,x,x\nAyr,x,20,15,25\nBute,x,30,20,20\nSouth,x,x,x,x\nEssex,25,30,x,30\nFife,20,25,x,15\nGwent,15,15,20,20\n", grpRels, false},
		{"items run withheld", grp,
			flatHead + "Total,100,120,90,110\nNorth,40,50,35,45\nAyr,x,x,x,x\nBute,x,x,x,x\nSouth,60,70,55,65\nEssex,25,30,x,30\nFife,20,25,x,15\nGwent,15,15,20,20\n", grpRels, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flatAudit(t, tc.orig, tc.recv, tc.rels, tc.exact)
		})
	}
}

// rvFlatGen is a random flat table whose subtotals sit above their parts
// in some groups and below in others, with items at the top level beside
// the groups, zero rows, and coincidences (an item the sum of the two
// items after it, or before it). It returns the CSV text and the true
// relations.
func rvFlatGen(rng *rand.Rand) (string, string) {
	cols := []string{"North", "South", "East", "West"}[:2+rng.IntN(3)]
	var rows []flatRow
	items := 0
	mixed := rng.IntN(2) == 0 && os.Getenv("RVFLAT_MIXED") != "0"
	below0 := rng.IntN(2) == 0
	leaf := func() int {
		items++
		v := make([]int, len(cols))
		zero := rng.IntN(8) == 0
		for j := range v {
			if zero {
				continue
			}
			v[j] = rng.IntN(30)
			if rng.IntN(6) == 0 {
				v[j] = 1 + rng.IntN(3)
			}
		}
		rows = append(rows, flatRow{label: fmt.Sprintf("Item %02d", items), vals: v})
		return len(rows) - 1
	}
	var node func(label string, depth int) int
	node = func(label string, depth int) int {
		var kids []int
		n := 2 + rng.IntN(3)
		for k := range n {
			if depth > 0 && rng.IntN(3) != 0 {
				kids = append(kids, node(fmt.Sprintf("%s%c", label, 'a'+k), depth-1))
			} else {
				kids = append(kids, leaf())
			}
		}
		// a coincidence: the first leaf the sum of the next two leaves
		if len(kids) >= 3 && rng.IntN(3) == 0 && len(rows[kids[0]].kids) == 0 && len(rows[kids[1]].kids) == 0 && len(rows[kids[2]].kids) == 0 {
			k0 := kids[0]
			if rng.IntN(2) == 0 {
				k0 = kids[2]
				kids[0], kids[2] = kids[2], kids[0]
			}
			for j := range cols {
				rows[k0].vals[j] = rows[kids[1]].vals[j] + rows[kids[2]].vals[j]
			}
			kids[0], kids[2] = kids[2], kids[0]
			if k0 != kids[0] {
				kids[0], kids[2] = kids[2], kids[0]
			}
		}
		b := below0
		if mixed {
			b = rng.IntN(2) == 0
		}
		rows = append(rows, flatRow{label: label, vals: flatSum(rows, kids, len(cols)), kids: kids, below: b})
		return len(rows) - 1
	}
	var top []int
	for k := range 2 + rng.IntN(3) {
		if k > 0 && rng.IntN(4) == 0 {
			top = append(top, leaf())
			continue
		}
		top = append(top, node([]string{"Alpha", "Beta", "Gamma", "Delta", "Omega"}[k], rng.IntN(3)))
	}
	rows = append(rows, flatRow{label: []string{"Total", "Britain", "All areas"}[rng.IntN(3)], vals: flatSum(rows, top, len(cols)), kids: top})
	text, line := flatText(cols, rows, flatOrder(rows, top, rng.IntN(2) == 0))
	rels, _ := flatRels(rows, line)
	return text, rels
}

// rvFlatCheckRun runs check with the given workers and returns the exit
// code, the safe table's bytes and the report's bytes.
func rvFlatCheckRun(t *testing.T, path string, workers string) (int, []byte, []byte, string) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", path, "--out", out, "--quiet", "--value", "count", "--workers", workers, "--config", noTimeLimit(t, "")}, &stdout, &stderr)
	safe, _ := os.ReadFile(filepath.Join(out, "flat.safe.csv"))
	rep, _ := os.ReadFile(filepath.Join(out, "flat.report.json"))
	return code, safe, rep, stderr.String()
}

// TestRvFlatGenerated: random flat tables (rvFlatGen) whose subtotals
// sit above their parts in some groups and below in others, with items
// at the top level beside the groups, zero rows and coincidental sums:
// check gives the same bytes with --workers 1 and 3; where it finds
// margins, no withheld cell of its safe table is recoverable over the
// true relations, and the audit of the safe table as received calls no
// cell protected that the intruder pins; where it finds none it says
// secondary suppression was not applied; a refusal (exit 3) says the
// margins are contradicted. RVFLAT_N, RVFLAT_SEED, RVFLAT_MIXED=0 run
// other seeds (400 were run, 1-400, both with and without mixing).
func TestRvFlatGenerated(t *testing.T) {
	n, seed0 := seedRange(30, 8, "RVFLAT_N", "RVFLAT_SEED")
	stats := map[string]int{}
	for i := range n {
		seed := uint64(seed0 + i)
		text, rels := rvFlatGen(rand.New(rand.NewPCG(seed, 77)))
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rvFlatRecvAttack(t, rand.New(rand.NewPCG(seed, 78)), text, rels, stats)
			path := rvWrite(t, "flat.csv", text)
			code, safe1, rep1, errs := rvFlatCheckRun(t, path, "1")
			code3, safe3, rep3, _ := rvFlatCheckRun(t, path, "3")
			if code != code3 || !bytes.Equal(safe1, safe3) || !bytes.Equal(rep1, rep3) {
				t.Errorf("workers 1 and 3 differ: exit %d %d\n%s", code, code3, text)
			}
			stats[fmt.Sprintf("check-exit%d", code)]++
			if code != 0 && code != 1 {
				// refused (a wrong structure the arithmetic contradicts)
				if !strings.Contains(errs, "contradict") {
					t.Errorf("check exit %d: %s\n%s", code, errs, text)
				}
				return
			}
			if bytes.Contains(rep1, []byte(`"margins":false`)) {
				// no margins found: primaries alone, with a warning
				stats["check-nomargins"]++
				if !bytes.Contains(rep1, []byte("secondary suppression was not applied")) {
					t.Errorf("no margins and no warning")
				}
				return
			}
			orig := readCSVFile(t, path)
			safe := readCSVFile(t, rvWrite(t, "safe.csv", string(safe1)))
			h, _ := relsHand(t, "flat", rels, len(orig), len(orig[0]))
			h.attackSafe(t, orig, safe)
			if t.Failed() {
				t.Logf("rels\n%s\n%s\nsafe %v\n%s", rels, text, safe, rep1)
				return
			}
			acode, res := flatAudit(t, text, rvFlatRecv(text, safe), rels, false)
			stats[fmt.Sprintf("audit-exit%d", acode)]++
			if res.NoMargins {
				stats["audit-nomargins"]++
			}
			if t.Failed() {
				t.Logf("rels\n%s\n%s\nsafe %v", rels, text, safe)
			}
		})
	}
	t.Logf("stats %v", stats)
}

// TestRvFlatLayoutRunExtent: a subtotal withheld on every line of a
// received flat table heads "the run of rows right below it up to the
// next row that heads a run", kept where the labelled total then adds up.
// But the total adds up whatever the run's extent (the withheld subtotal
// is a free unknown: Total = Alpha + Elgin + Beta with Alpha = Ayr + Bute
// is, on the published cells, the same equation as Total = Alpha + Beta
// with Alpha = Ayr + Bute + Elgin), so the extent is the layout's guess.
// TRUE structure (rows 2-9): Total = Alpha + Elgin + Beta (Elgin a top
// level item printed after Alpha's parts), Alpha = Ayr + Bute, Beta = Cork
// + Dee. The tool reads Alpha = Ayr + Bute + Elgin. In North the intruder
// pins Alpha to Ayr + Bute = 15 + 25 = 40, while the tool, reading Elgin
// (withheld) into it, calls Alpha North protected on [40, 75]; in South it
// reports Alpha "exactly disclosed" as 60 (Ayr + Bute + Elgin), the true
// value being 50. The audit must not call Alpha North protected: a run
// of three or more rows under a withheld row is now ambiguous (warning,
// unconfirmed, no cell called protected). The same under an unlabelled
// total printed last.
func TestRvFlatLayoutRunExtent(t *testing.T) {
	rows := []string{"Alpha,40,50,35,45", "Ayr,15,20,15,25", "Bute,25,30,20,20", "Elgin,5,10,10,10", "Beta,55,60,45,55", "Cork,30,30,25,30", "Dee,25,30,20,25"}
	recvRows := []string{"Alpha,x,x,x,x", "Ayr,15,20,15,25", "Bute,25,30,20,20", "Elgin,x,10,10,10", "Beta,x,60,45,55", "Cork,x,30,25,30", "Dee,25,30,20,25"}
	for _, tc := range []struct{ name, top, bottom, rels string }{
		{"labelled total first", "Total,100,120,90,110\n", "", "R 2 = 3 6 7\nR 3 = 4 5\nR 7 = 8 9"},
		// the same under an unlabelled total printed last (line 9)
		{"unlabelled total last", "", "Britain,100,120,90,110\n", "R 9 = 2 5 6\nR 2 = 3 4\nR 6 = 7 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := flatHead + tc.top + strings.Join(rows, "\n") + "\n" + tc.bottom
			recv := flatHead + tc.top + strings.Join(recvRows, "\n") + "\n" + tc.bottom
			_, res := flatAudit(t, orig, recv, tc.rels, false)
			for _, c := range res.Cells {
				if c.Protected {
					t.Logf("%v [%v, %v] called protected", c.Key, ptr(c.Lo), ptr(c.Hi))
				}
			}
			if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "ambiguous") {
				t.Errorf("no warning that the run's extent is ambiguous: %s", w)
			}
		})
	}
}

// rvFlatRecvAttack audits a received copy of text with one or two of its
// subtotals withheld on every line and a few other cells withheld: no cell
// called protected that the intruder pins over the true relations rels.
func rvFlatRecvAttack(t *testing.T, rng *rand.Rand, text, rels string, stats map[string]int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var heads []int
	for _, r := range strings.Split(rels, "\n") {
		n, _ := strconv.Atoi(strings.Fields(r)[1])
		heads = append(heads, n)
	}
	ncol := len(strings.Split(lines[0], ","))
	withhold := map[pos]bool{}
	for range 1 + rng.IntN(2) {
		h := heads[rng.IntN(len(heads)-1)] // not the total (the last relation)
		for c := 2; c <= ncol; c++ {
			withhold[pos{h, c}] = true
		}
	}
	for range 2 + rng.IntN(4) {
		withhold[pos{2 + rng.IntN(len(lines)-1), 2 + rng.IntN(ncol-1)}] = true
	}
	for r := 2; r <= len(lines); r++ {
		cells := strings.Split(lines[r-1], ",")
		for c := 2; c <= ncol; c++ {
			if withhold[pos{r, c}] {
				cells[c-1] = "x"
			}
		}
		lines[r-1] = strings.Join(cells, ",")
	}
	code, res := flatAudit(t, text, strings.Join(lines, "\n")+"\n", rels, false)
	stats[fmt.Sprintf("recv-exit%d", code)]++
	if res.NoMargins {
		stats["recv-nomargins"]++
	}
	if t.Failed() {
		t.Logf("rels\n%s\n%s\nreceived\n%s\n%v", rels, text, strings.Join(lines, "\n"), res.Warnings)
	}
}

// TestRvFlatNoCompleteLine: a received flat table in which a subtotal is
// withheld on every line and every other column lacks one more cell, so
// no line is complete. TRUE structure (lines 2-9, the total last, or the
// same with "All areas"): Total = Alpha + Item 05 + Item 06, Alpha =
// Items 01-04. The intruder pins Alpha North to Total less Items 05 and
// 06 (78 - 24 = 54) and so Item 03 North to 54 - 46 = 8 (and Alpha South
// to 67, Item 01 South to 16). The tool took the total as the sum of
// every row (no line to contradict it, no warning) and called all four
// withheld cells protected, Item 03 North on [0, 8] (exit 0). Now the total is unconfirmed (a warning names Alpha): no
// cell called protected.
func TestRvFlatNoCompleteLine(t *testing.T) {
	for _, total := range []string{"Total", "All areas"} {
		body := "Item 01,14,16\nItem 02,12,11\nItem 03,8,15\nItem 04,20,25\nItem 05,13,10\nItem 06,11,12\n" + total + ",78,89\n"
		orig := "Area,North,South\nAlpha,54,67\n" + body
		recv := "Area,North,South\nAlpha,x,x\n" + strings.Replace(strings.Replace(body, "Item 01,14,16", "Item 01,14,x", 1), "Item 03,8", "Item 03,x", 1)
		code, res := flatAudit(t, orig, recv, "R 9 = 2 7 8\nR 2 = 3 4 5 6", false)
		if code == 0 {
			t.Errorf("%s: exit 0: %v", total, res.Warnings)
		}
	}
}

// TestRvFlatWithheldRunHead: a received flat table, subtotals below their
// parts (TestRvFlatGenerated seed 57), whose two innermost-last subtotals
// Betab and Beta are withheld on every line. TRUE structure (lines 2-21):
// All areas = Alpha + Beta + Item 14 (Item 14 a top-level item printed
// after Beta), Beta = Item 10 + Betab, Betab = Items 11-13, Alpha =
// Alphaa + Alphab + Item 09, Alphaa = Items 01-04, Alphab = Items 05-08.
// The layout rule "a row right below a run of two or more rows withheld
// on every line heads that run" (withheldRuns) reads Item 14 = Betab +
// Beta, and All areas is then the sum of the rows left on every complete
// line, but so it is under the true structure: subtotals of the rows
// above them, withheld, leave the leaves, so the check confirms nothing.
// The intruder pins Betab North to 1 + 23 + 16 = 40 and Beta North to 53;
// the tool called both protected on [0, 13] (Item 14's value). Now a run
// with two rows or more on its other side (not margins, published) is not
// placed by the layout (withheldRuns): no cell called protected.
func TestRvFlatWithheldRunHead(t *testing.T) {
	lines := []string{"All areas,182,177", "Item 01,24,24", "Item 02,23,0", "Item 03,1,24", "Item 04,19,5", "Alphaa,67,53",
		"Item 05,20,28", "Item 06,0,0", "Item 07,10,10", "Item 08,0,0", "Alphab,30,38", "Item 09,19,26", "Alpha,116,117",
		"Item 10,13,12", "Item 11,1,1", "Item 12,23,25", "Item 13,16,22", "Betab,40,48", "Beta,53,60", "Item 14,13,0"}
	orig := "Area,North,South\n" + strings.Join(lines, "\n") + "\n"
	recv := strings.NewReplacer("Item 03,1,", "Item 03,x,", "Item 08,0,", "Item 08,x,", "Item 09,19,", "Item 09,x,",
		"Betab,40,48", "Betab,x,x", "Beta,53,60", "Beta,x,x").Replace(orig)
	rels := "R 7 = 3 4 5 6\nR 12 = 8 9 10 11\nR 14 = 7 12 13\nR 19 = 16 17 18\nR 20 = 15 19\nR 2 = 14 20 21"
	flatAudit(t, orig, recv, rels, false)
}
