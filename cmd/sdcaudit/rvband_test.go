package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// Adversarial review of the nested bands and the breakdowns in both axes
// (branch nestband): the generated tables (cgGen) attacked over their
// hidden cross (sex x leaf x region x area, every count ≥ 0), the
// intruder who knows the table is the cross's margins. Over the
// published relations alone (relsHand) a block's cells look safe; the
// hidden cross can narrow them further.

// rvHiddenAttack bounds every withheld cell of a generated table's safe
// table over its hidden cross: each body cell is the sum of its hidden
// counts, the published ones known, every hidden count ≥ 0. It returns
// the withheld cells with their intervals.
func rvHiddenAttack(t *testing.T, tb cgTable, orig, safe [][]string) map[pos]*attackCell {
	t.Helper()
	h := handTable{id: "hidden"}
	hid := func(s, a, g, u int) pos { return pos{1000 + ((s*tb.nl+a)*tb.ng+g)*tb.nu + u, 0} }
	known := map[pos]float64{}
	withheld := map[pos]*attackCell{}
	var cells []pos
	for s := 0; s < tb.ns; s++ {
		for a := 0; a < tb.nl; a++ {
			for g := 0; g < tb.ng; g++ {
				for u := 0; u < tb.nu; u++ {
					p := hid(s, a, g, u)
					withheld[p] = &attackCell{at: p}
					cells = append(cells, p)
				}
			}
		}
	}
	var rels [][]relTerm
	for i, r := range tb.rl {
		for j, c := range tb.cl {
			p := pos{i + 2, j + 2}
			v, err := strconv.ParseFloat(orig[p.row-1][p.col-1], 64)
			if err != nil {
				t.Fatal(err)
			}
			if safe[p.row-1][p.col-1] == "x" {
				withheld[p] = &attackCell{at: p, value: v, known: true, need: true}
				cells = append(cells, p)
			} else {
				known[p] = v
			}
			rel := []relTerm{{p, 1}}
			for _, s := range r.sex {
				for _, a := range r.leaf {
					for _, g := range c.region {
						for _, u := range c.ar {
							rel = append(rel, relTerm{hid(s, a, g, u), -1})
						}
					}
				}
			}
			rels = append(rels, rel)
		}
	}
	if err := h.solve(cells, rels, known, withheld, 0); err != nil {
		t.Fatalf("hidden attack: %v", err)
	}
	out := map[pos]*attackCell{}
	for p, c := range withheld {
		if c.need {
			out[p] = c
		}
	}
	return out
}

// rvBandSeeds is how many tables TestRvBandHiddenCross draws per kind
// (RVBAND_SEEDS sets it).
func rvBandSeeds() int {
	if n, err := strconv.Atoi(os.Getenv("RVBAND_SEEDS")); err == nil && n > 0 {
		return n
	}
	return 12
}

// rvBandFrom is the first seed TestRvBandHiddenCross draws (RVBAND_FROM
// sets it, for a longer run in parts: gonum's simplex cycles on the
// hidden cross of a few tables, dense seed 22 among them).
var rvBandFrom, _ = strconv.Atoi(os.Getenv("RVBAND_FROM"))

// TestRvBandHiddenCross: generated tables (dense and sparse hidden
// counts) checked, the safe table attacked over the hidden cross: no
// withheld cell may be pinned to within 1, and a cell called protected
// must have an interval no wider than the intruder's.
func TestRvBandHiddenCross(t *testing.T) {
	stats := map[string]int{}
	for _, sparse := range []bool{false, true} {
		for seed := range rvBandSeeds() {
			seed += rvBandFrom
			tb := cgGen(rand.New(rand.NewPCG(uint64(seed), 24)), sparse)
			t.Run(fmt.Sprintf("%v/%d", sparse, seed), func(t *testing.T) {
				path := rvWrite(t, fmt.Sprintf("gen%d.csv", seed), tb.text)
				orig, safe, rep := crossedRun(t, path, "--value", "count", "--config", noTimeLimit(t, ""))
				w := rvHiddenAttack(t, tb, orig, safe)
				stats["withheld"] += len(w)
				if tb.both {
					stats["both"]++
				}
				for p, c := range w {
					if c.hi-c.lo < 1-1e-9 {
						t.Errorf("withheld cell %v (%v) recoverable over the hidden cross: [%g, %g]", p, c.value, c.lo, c.hi)
					}
				}
				for _, c := range rep.Cells {
					a := w[cellAt(t, orig, c.Key)]
					if a == nil {
						continue
					}
					// a primary's interval must reach 10% of its value
					// either side (the default levels, before any minimum)
					if c.Status == "primary" && (a.lo > 0.9*a.value+1e-9 || a.hi < 1.1*a.value-1e-9) {
						t.Errorf("primary %v (%v) under-protected over the hidden cross: [%g, %g]", c.Key, a.value, a.lo, a.hi)
					}
					if c.Protected {
						stats["protected"]++
						rvWithin(t, fmt.Sprint(c.Key), c.Lo, c.Hi, a)
					}
				}
				if t.Failed() {
					t.Logf("both %v band %v table:\n%s\nsafe: %q", tb.both, tb.band, tb.text, safe)
				}
			})
		}
	}
	t.Logf("%v", stats)
}

// TestRvBandTwoDeep: a band within a band printed depth first, the inner
// band not the last part: "All people" = Men + Women = Aged 0-15 + Aged
// 16+, Aged 16+ = Aged 16-64 + Aged 65+, Aged 16-64 = Aged 16-39 + Aged
// 40-64 (printed 16+, 16-64, 16-39, 40-64, 65+). nestedBands found
// 16-64's parts but not 16+ (its parts are not the rows right below it
// until 16-64's parts are set aside), no cross, "All people"
// unconfirmed, and the safe table withheld "Aged 0-15" North and West
// only: All people − Aged 16+ = 120 − 118 gave the primary (2) back.
// The same with the bands printed below their parts.
func TestRvBandTwoDeep(t *testing.T) {
	text := rvSexAge015 + `Aged 16+,118,150,220,110,598
Aged 16-64,80,100,150,70,400
Aged 16-39,50,60,80,30,220
Aged 40-64,30,40,70,40,180
Aged 65+,38,50,70,40,198
`
	_, w := crossCheck(t, "deep", text, "R 2 = 3 4\nR 2 = 5 6\nR 6 = 7 10\nR 7 = 8 9\nC 6 = 2 3 4 5", "", pos{5, 2})
	if len(w) < 2 {
		t.Errorf("%d cells withheld", len(w))
	}
	after := rvSexAge015 + `Aged 65+,38,50,70,40,198
Aged 16-39,50,60,80,30,220
Aged 40-64,30,40,70,40,180
Aged 16-64,80,100,150,70,400
Aged 16+,118,150,220,110,598
`
	_, w = crossCheck(t, "deepafter", after, "R 2 = 3 4\nR 2 = 5 10\nR 10 = 6 9\nR 9 = 7 8\nC 6 = 2 3 4 5", "", pos{5, 2})
	if len(w) < 2 {
		t.Errorf("%d cells withheld", len(w))
	}
}

// TestRvBandShapes: check on other shapes with bands, each safe table
// attacked over the hand relations (crossCheck): a band in each of two
// breakdowns (Aged 16+; Born abroad = Born EU + Born elsewhere), the
// margins in the middle (All people between the breakdowns, Total
// between the columns), a band whose last part is zero on every line,
// and the band a primary itself.
func TestRvBandShapes(t *testing.T) {
	for _, tc := range []struct {
		name, text, rels string
		primary          pos
	}{
		{"twobands", rvNestedBand + `UK born,100,150,300,140,690
Born abroad,20,50,10,10,90
Born EU,17,30,6,4,57
Born elsewhere,3,20,4,6,33
`, "R 2 = 3 4\nR 2 = 5 6\nR 6 = 7 8\nR 2 = 9 10\nR 10 = 11 12\nC 6 = 2 3 4 5", pos{5, 2}},
		{"middle", `Group,North,South,Total,East,West
Men,60,98,388,160,70
Women,60,102,392,150,80
All people,120,200,780,310,150
Aged 0-15,2,50,182,90,40
Aged 16+,118,150,598,220,110
Aged 16-64,80,100,400,150,70
Aged 65+,38,50,198,70,40
`, "R 4 = 2 3\nR 4 = 5 6\nR 6 = 7 8\nC 4 = 2 3 5 6", pos{5, 2}},
		{"zeropart", rvNestedBand + "Age unknown,0,0,0,0,0\n", "R 2 = 3 4\nR 2 = 5 6 9\nR 6 = 7 8\nC 6 = 2 3 4 5", pos{5, 2}},
		{"smallband", rvHead + `All people,120,200,310,150,780
Men,60,98,160,70,388
Women,60,102,150,80,392
Aged 0-64,117,150,240,110,617
Aged 65+,3,50,70,40,163
Aged 65-74,2,30,40,20,92
Aged 75+,1,20,30,20,71
`, "R 2 = 3 4\nR 2 = 5 6\nR 6 = 7 8\nC 6 = 2 3 4 5", pos{6, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, w := crossCheck(t, tc.name, tc.text, tc.rels, "", tc.primary)
			if len(w) < 2 {
				t.Errorf("%d cells withheld", len(w))
			}
		})
	}
}

// TestRvBandUnconfirmedLeak (open finding, skipped unless RVBAND_OPEN is
// set): where crossed() refuses the breakdowns, "All people" is
// unconfirmed and check still writes a safe table (exit 1, a warning,
// the audit calling no cell protected), but the suppression ignores the
// total's relations, which hold in the published table all the same,
// so primaries come back. Both tables come from cgGen's sparse counts
// (seeds 41 and 33 of TestRvBandHiddenCross with RVBAND_FROM=23
// RVBAND_SEEDS=40) and behave the same on main before this branch.
//   - zeroband: Aged 17+ = Aged 17-36 (zero on every line) + Aged 37+:
//     a band with one nonzero part is no band (blocks), no split; the
//     safe table withholds Women North (53) and Men South, but All
//     people − Men North = 53 − 0 gives it back, and Aged 17+ North
//     = All people − Aged 0-16 = 10.
//   - coincidence: Aged 36-46 = Men + Other on every line (3, 3),
//     so nestedRuns calls the breakdowns nested; All people − Aged 0-15
//     ... gives the withheld cells back (Aged 0-15 North = 1).
func TestRvBandUnconfirmedLeak(t *testing.T) {
	if os.Getenv("RVBAND_OPEN") == "" {
		t.Skip("open finding: an unconfirmed total's relations are not protected against (set RVBAND_OPEN=1)")
	}
	t.Run("zeroband", func(t *testing.T) {
		crossCheck(t, "zeroband", `Group,North,South,Total
All people,53,21,74
Aged 0-16,43,21,64
Aged 17+,10,0,10
Aged 17-36,0,0,0
Aged 37+,10,0,10
Men,0,21,21
Women,53,0,53
`, "R 2 = 3 4\nR 4 = 5 6\nR 2 = 7 8\nC 4 = 2 3", "")
	})
	t.Run("coincidence", func(t *testing.T) {
		crossCheck(t, "coincidence", `Group,North,South,Total
All people,41,43,84
Aged 0-15,1,0,1
Aged 16-35,36,15,51
Aged 36-46,3,3,6
Aged 47+,1,25,26
Aged 36+,4,28,32
Men,1,2,3
Women,38,40,78
Other,2,1,3
`, "R 2 = 3 4 7\nR 7 = 5 6\nR 2 = 8 9 10\nC 4 = 2 3", "")
	})
}
