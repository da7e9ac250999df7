package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A seeded generator of tables with breakdowns of one total (issue 24):
// the label column gives "All people" by sex (two or three codes) and by
// age (three to five bands, often with a band nested in it, "Aged 40+"
// above or below its parts; either breakdown first); the header gives Total by
// region (flat), or by region and by area (breakdowns in both axes).
// The values are sums of hidden counts over the full cross (sex x age x
// region x area), so a true cross always exists. The relations are
// written from the generated layout (cgTable.rels), never from the
// tool's; gonum's simplex attacks every withheld cell of the safe table.

// cgTable is a generated table: its CSV text, hand relations, whether the
// columns have two breakdowns, and the CSV line of a primary cell.
type cgTable struct {
	text, rels string
	both, band bool
	rows, cols int
	// the layout over the hidden cross: each row's sexes and leaves, each
	// column's regions and areas, and the hidden dimensions' sizes
	rl, cl         []cgLine
	ns, nl, ng, nu int
}

// cgLine is a row (sexes and leaves it sums) or a column (regions and
// areas) of a generated table.
type cgLine struct {
	label      string
	sex, leaf  []int
	region, ar []int
}

// cgGen draws one table from rng; with sparse, half the hidden counts
// are zero (structural zeros, which the cross's non-negativity turns
// into bounds).
func cgGen(rng *rand.Rand, sparse ...bool) cgTable {
	sexes := []string{"Men", "Women", "Other"}[:2+rng.IntN(2)]
	nl := 3 + rng.IntN(3)
	var leaves []string
	lo := 0
	for i := 0; i < nl; i++ {
		hi := lo + 10 + rng.IntN(15)
		if i == nl-1 {
			leaves = append(leaves, fmt.Sprintf("Aged %d+", lo))
		} else {
			leaves = append(leaves, fmt.Sprintf("Aged %d-%d", lo, hi))
		}
		lo = hi + 1
	}
	band := -1 // the first leaf of the nested band, which covers the rest
	if rng.IntN(10) < 7 {
		band = 1 + rng.IntN(nl-2)
	}
	regions := []string{"North", "South", "East", "West"}[:2+rng.IntN(3)]
	both := rng.IntN(2) == 0
	areas := []string{""}
	if both {
		regions = regions[:min(len(regions), 3)]
		areas = []string{"Urban", "Rural"}
	}
	// the hidden counts, sex x leaf x region x area: mostly 5 to 44,
	// some small; the third sex, one leaf in one region and one hidden
	// cell small throughout (primaries)
	smallLeaf, smallRegion := rng.IntN(nl), rng.IntN(len(regions))
	x := make([][][][]int, len(sexes))
	for s := range x {
		x[s] = make([][][]int, nl)
		for a := range x[s] {
			x[s][a] = make([][]int, len(regions))
			for g := range x[s][a] {
				x[s][a][g] = make([]int, len(areas))
				for u := range areas {
					if len(sparse) > 0 && sparse[0] && rng.IntN(2) == 0 {
						x[s][a][g][u] = 0
					} else if rng.IntN(6) == 0 || s == 2 || a == smallLeaf && g == smallRegion {
						x[s][a][g][u] = rng.IntN(3)
					} else {
						x[s][a][g][u] = 5 + rng.IntN(40)
					}
				}
			}
		}
	}
	// a row: which sexes and leaves it sums; a column: regions, areas
	type line = cgLine
	all := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	rows := []line{{label: "All people", sex: all(len(sexes)), leaf: all(nl)}}
	var sexRows, ageRows []line
	for s, name := range sexes {
		sexRows = append(sexRows, line{label: name, sex: []int{s}, leaf: all(nl)})
	}
	after := rng.IntN(2) == 0 // the band below its parts
	for a, name := range leaves {
		if a == band && !after {
			ageRows = append(ageRows, line{label: fmt.Sprintf("Aged %s+", strings.TrimPrefix(strings.Split(name, "-")[0], "Aged ")), sex: all(len(sexes)), leaf: all(nl)[band:]})
		}
		ageRows = append(ageRows, line{label: name, sex: all(len(sexes)), leaf: []int{a}})
	}
	if band >= 0 && after {
		ageRows = append(ageRows, line{label: fmt.Sprintf("Aged %s+", strings.TrimPrefix(strings.Split(leaves[band], "-")[0], "Aged ")), sex: all(len(sexes)), leaf: all(nl)[band:]})
	}
	ageFirst := rng.IntN(3) == 0
	if ageFirst {
		rows = append(append(rows, ageRows...), sexRows...)
	} else {
		rows = append(append(rows, sexRows...), ageRows...)
	}
	var cols []line
	for g, name := range regions {
		cols = append(cols, line{label: name, region: []int{g}, ar: all(len(areas))})
	}
	if both {
		for u, name := range areas {
			cols = append(cols, line{label: name, region: all(len(regions)), ar: []int{u}})
		}
	}
	cols = append(cols, line{label: "Total", region: all(len(regions)), ar: all(len(areas))})
	var b strings.Builder
	b.WriteString("Group")
	for _, c := range cols {
		b.WriteString("," + c.label)
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString(r.label)
		for _, c := range cols {
			v := 0
			for _, s := range r.sex {
				for _, a := range r.leaf {
					for _, g := range c.region {
						for _, u := range c.ar {
							v += x[s][a][g][u]
						}
					}
				}
			}
			b.WriteString("," + strconv.Itoa(v))
		}
		b.WriteString("\n")
	}
	// the relations, CSV lines and columns 1-based
	line0 := func(label string) int {
		for i, r := range rows {
			if r.label == label {
				return i + 2
			}
		}
		panic(label)
	}
	nums := func(from, to int) string {
		var q []string
		for i := from; i <= to; i++ {
			q = append(q, strconv.Itoa(i))
		}
		return strings.Join(q, " ")
	}
	first := func(ls []line) int { return line0(ls[0].label) }
	var rels []string
	rels = append(rels, fmt.Sprintf("R 2 = %s", nums(first(sexRows), first(sexRows)+len(sexRows)-1)))
	a0 := first(ageRows)
	if band < 0 {
		rels = append(rels, fmt.Sprintf("R 2 = %s", nums(a0, a0+nl-1)))
	} else if !after {
		rels = append(rels, fmt.Sprintf("R 2 = %s", nums(a0, a0+band)))
		rels = append(rels, fmt.Sprintf("R %d = %s", a0+band, nums(a0+band+1, a0+nl)))
	} else {
		rels = append(rels, fmt.Sprintf("R 2 = %s %d", nums(a0, a0+band-1), a0+nl))
		rels = append(rels, fmt.Sprintf("R %d = %s", a0+nl, nums(a0+band, a0+nl-1)))
	}
	tot := len(cols) + 1
	rels = append(rels, fmt.Sprintf("C %d = %s", tot, nums(2, 1+len(regions))))
	if both {
		rels = append(rels, fmt.Sprintf("C %d = %s", tot, nums(2+len(regions), 1+len(regions)+len(areas))))
	}
	return cgTable{text: b.String(), rels: strings.Join(rels, "\n"), both: both, band: band >= 0, rows: len(rows) + 1, cols: tot,
		rl: rows, cl: cols, ns: len(sexes), nl: nl, ng: len(regions), nu: len(areas)}
}

// cgSeeds is how many generated tables the test checks: 40, 12 under
// -short or the race detector (CROSSGEN_SEEDS sets it for a longer local
// run).
func cgSeeds() int {
	if n, err := strconv.Atoi(os.Getenv("CROSSGEN_SEEDS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() || raceEnabled {
		return 12
	}
	return 40
}

// TestCrossedGeneratedTables: check on generated tables with breakdowns
// (a nested band in the age breakdown, breakdowns in both axes), the
// safe table attacked over the hand relations: no withheld cell is
// pinned to within 1, and every audited interval is the intruder's
// (one axis crossed: the cover's relations are the table's) or holds it
// (both axes: each block's interval holds the true one), never called
// protected wider than the intruder's. A received copy with one primary
// withheld alone is audited: exactly disclosed, exit 1.
func TestCrossedGeneratedTables(t *testing.T) {
	stats := map[string]int{}
	for seed := range cgSeeds() {
		tb := cgGen(rand.New(rand.NewPCG(uint64(seed), 24)))
		t.Run(strconv.Itoa(seed), func(t *testing.T) {
			path := rvWrite(t, fmt.Sprintf("gen%d.csv", seed), tb.text)
			orig, safe, rep := crossedRun(t, path, "--value", "count", "--config", noTimeLimit(t, ""))
			h, _ := relsHand(t, path, tb.rels, len(orig), len(orig[0]))
			withheld := h.attackSafe(t, orig, safe)
			stats["withheld"] += len(withheld)
			if len(withheld) == len(h.cells) {
				stats["all withheld"]++
			}
			for _, c := range rep.Cells {
				if c.Undetermined {
					stats["undetermined"]++
				}
				if c.Protected {
					stats["protected"]++
				}
			}
			if tb.both {
				stats["both"]++
			}
			if tb.band {
				stats["band"]++
			}
			for _, c := range rep.Cells {
				a := withheld[cellAt(t, orig, c.Key)]
				if a == nil {
					t.Errorf("audited cell %v is published", c.Key)
					continue
				}
				if tb.both {
					rvWithin(t, fmt.Sprint(c.Key), c.Lo, c.Hi, a)
					if c.Protected {
						t.Errorf("cell %v called protected with breakdowns in both axes", c.Key)
					}
					continue
				}
				sameInterval(t, fmt.Sprint(c.Key), c.Lo, c.Hi, c.Approximate, a)
				if c.Protected && a.hi-a.lo < 1-1e-9 {
					t.Errorf("cell %v called protected; the intruder pins it to [%g, %g]", c.Key, a.lo, a.hi)
				}
			}
			if len(rep.Cells) != len(withheld) {
				t.Errorf("%d cells audited, %d withheld", len(rep.Cells), len(withheld))
			}
			if t.Failed() {
				t.Logf("table:\n%s\nrelations:\n%s\nsafe: %q", tb.text, tb.rels, safe)
				return
			}
			// one primary withheld alone: the intruder gives it back
			var one *pos
			for p := range withheld {
				if safe[p.row-1][p.col-1] == "x" && (one == nil || less(p, *one)) {
					q := p
					one = &q
				}
			}
			if one == nil {
				return
			}
			recv := readCSVFile(t, path)
			recv[one.row-1][one.col-1] = "x"
			var b strings.Builder
			for _, r := range recv {
				b.WriteString(strings.Join(r, ",") + "\n")
			}
			code, _, res := rvAudit(t, fmt.Sprintf("recv%d", seed), tb.text, b.String(), tb.rels)
			if code != 1 || len(res.Cells) != 1 || !res.Cells[0].Exact {
				t.Errorf("one cell %v withheld alone: exit %d, cells %+v; want exit 1, exactly disclosed", *one, code, res.Cells)
			}
		})
	}
	t.Logf("%d tables: %v", cgSeeds(), stats)
}
