package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Linked aggregate tables whose margins are found only by inference
// (issue 24): "All regions" and "All ages" (labels that are not the
// configured total label), an unlabelled column P that is F + M, and GSS
// area codes in one column (K04 England and Wales > E92 England > E12
// regions, W92 Wales). The tables are generated from one population so
// that their shared cells agree.

var (
	infRegions = []string{"North", "South", "East"}
	infAges    = []string{"0-15", "16-64", "65+"}
	infSexes   = []string{"F", "M"}
	// infCounts[region][age][sex]
	infCounts = [3][3][2]int{
		{{20, 22}, {40, 38}, {15, 12}},
		{{18, 16}, {35, 37}, {14, 11}},
		{{12, 2}, {25, 3}, {3, 1}},
	}
	infAreas = []string{"K04000001", "E92000001", "E12000001", "E12000002", "W92000004"}
)

// infPeople lists the population: region, age, sex and area of each.
func infPeople() [][4]string {
	var out [][4]string
	i := 0
	for r, reg := range infRegions {
		for a, age := range infAges {
			for s, sex := range infSexes {
				for range infCounts[r][a][s] {
					area := []string{"E12000001", "E12000002"}[i%2]
					if reg == "East" && (sex == "M" || i%4 == 0) {
						area = "W92000004"
					}
					out = append(out, [4]string{reg, age, sex, area})
					i++
				}
			}
		}
	}
	return out
}

// infTables writes the linked tables as CSV and returns their jobs
// (secondary suppression by method):
// region x age ("All regions", "All ages"), region x sex ("All regions",
// P unlabelled), area x sex (GSS hierarchy, P unlabelled).
func infTables(t *testing.T, dir, method string) []Job {
	t.Helper()
	people := infPeople()
	count := func(match func(p [4]string) bool) int {
		n := 0
		for _, p := range people {
			if match(p) {
				n++
			}
		}
		return n
	}
	type spec struct {
		name   string
		dims   [2]string
		codes  [2][]string
		totals [2]string // code of the margin (kept in the list)
		of     [2]int    // field of a person
	}
	areaOf := func(p [4]string, code string) bool {
		switch code {
		case "K04000001":
			return true
		case "E92000001":
			return p[3] != "W92000004"
		}
		return p[3] == code
	}
	specs := []spec{
		{"byage", [2]string{"region", "age"}, [2][]string{append(slices.Clone(infRegions), "All regions"), append(slices.Clone(infAges), "All ages")}, [2]string{"All regions", "All ages"}, [2]int{0, 1}},
		{"bysex", [2]string{"region", "sex"}, [2][]string{append(slices.Clone(infRegions), "All regions"), {"F", "M", "P"}}, [2]string{"All regions", "P"}, [2]int{0, 2}},
		{"byarea", [2]string{"area", "sex"}, [2][]string{infAreas, {"F", "M", "P"}}, [2]string{"", "P"}, [2]int{3, 2}},
	}
	var jobs []Job
	for _, sp := range specs {
		var b strings.Builder
		fmt.Fprintf(&b, "%s,%s,n\n", sp.dims[0], sp.dims[1])
		for _, c0 := range sp.codes[0] {
			for _, c1 := range sp.codes[1] {
				n := count(func(p [4]string) bool {
					for d, c := range [2]string{c0, c1} {
						switch {
						case c == sp.totals[d]:
						case sp.of[d] == 3:
							if !areaOf(p, c) {
								return false
							}
						case p[sp.of[d]] != c:
							return false
						}
					}
					return true
				})
				fmt.Fprintf(&b, "%s,%s,%d\n", c0, c1, n)
			}
		}
		p := filepath.Join(dir, sp.name+".csv")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		s := settings(t, fmt.Sprintf("columns: {dims: [%s, %s], count: n}\nrules: {class: {enabled: false}}\nsuppression: {time_limit: null, method: %s}\n", sp.dims[0], sp.dims[1], method))
		jobs = append(jobs, Job{Path: p, Name: sp.name, Settings: s})
	}
	return jobs
}

// infGlobal is the key of a cell across the three tables, written by hand:
// the margins of every dimension dropped.
func infGlobal(t *audit.Table, c *audit.Cell) string {
	var parts []string
	for d, v := range c.Key {
		switch v {
		case "All regions", "All ages", "P", "K04000001":
			continue
		}
		parts = append(parts, t.Dims[d]+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// infLeaves are the population's finest cells: region x age x sex x the
// areas that hold people (E12000001, E12000002, W92000004).
func infLeaves() [][4]string {
	var out [][4]string
	for _, r := range infRegions {
		for _, a := range infAges {
			for _, s := range infSexes {
				for _, ar := range []string{"E12000001", "E12000002", "W92000004"} {
					out = append(out, [4]string{r, a, s, ar})
				}
			}
		}
	}
	return out
}

// infUnder lists the finest cells that a table cell adds up, written by
// hand from the layout: a margin code covers every code of its dimension
// (K04 every area, E92 the two English regions).
func infUnder(t *audit.Table, c *audit.Cell) []int {
	var out []int
	for i, leaf := range infLeaves() {
		in := true
		for d, v := range c.Key {
			switch t.Dims[d] {
			case "region":
				in = in && (v == "All regions" || v == leaf[0])
			case "age":
				in = in && (v == "All ages" || v == leaf[1])
			case "sex":
				in = in && (v == "P" || v == leaf[2])
			case "area":
				in = in && (v == "K04000001" || v == leaf[3] || v == "E92000001" && leaf[3] != "W92000004")
			}
		}
		if in {
			out = append(out, i)
		}
	}
	return out
}

// lpBounds is an intruder's interval of the cells in want (each a set of
// finest cells): the finest cells are n non-negative unknowns, each
// published cell an equality (the sum of its finest cells is its value);
// gonum's simplex, independent of audit/suppress. hi is +Inf when
// unbounded.
func lpBounds(t *testing.T, n int, published [][]int, values []*big.Rat, want [][]int) [][2]float64 {
	t.Helper()
	var rows [][]*big.Rat
	for p, cells := range published {
		row := make([]*big.Rat, n+1)
		for i := range row {
			row[i] = new(big.Rat)
		}
		for _, l := range cells {
			row[l].SetInt64(1)
		}
		row[n].Set(values[p])
		rows = append(rows, row)
	}
	rows = reduceRows(t, rows, n)
	// a finest cell in no published cell is free: gonum wants no zero
	// column, so it leaves the LP and a cell holding it is unbounded
	free := make([]bool, n)
	for j := range free {
		free[j] = !slices.ContainsFunc(rows, func(row []*big.Rat) bool { return row[j].Sign() != 0 })
	}
	r0 := len(rows)
	var used []int // LP column -> finest cell
	at := make([]int, n)
	for j := range n {
		at[j] = -1
		if !free[j] {
			at[j] = len(used)
			used = append(used, j)
		}
	}
	nv := len(used)
	cols := nv + r0
	A := mat.NewDense(r0, cols, nil)
	b := make([]float64, r0)
	basis := make([]int, 0, r0)
	for r, row := range rows {
		sign := 1.0
		if row[n].Sign() < 0 {
			sign = -1
		}
		for v, j := range used {
			f, _ := row[j].Float64()
			A.Set(r, v, sign*f)
		}
		f, _ := row[n].Float64()
		b[r] = sign * f
		A.Set(r, nv+r, 1)
		basis = append(basis, nv+r)
	}
	const bigM = 1e6
	out := make([][2]float64, len(want))
	for w, cells := range want {
		if slices.ContainsFunc(cells, func(l int) bool { return free[l] }) {
			out[w][1] = math.Inf(1)
		}
		for side, maximise := range []bool{false, true} {
			if maximise && math.IsInf(out[w][1], 1) {
				continue
			}
			c := make([]float64, cols)
			for _, l := range cells {
				if at[l] < 0 {
					continue // free: 0 at the minimum
				}
				c[at[l]] = 1
				if maximise {
					c[at[l]] = -1
				}
			}
			for r := 0; r < r0; r++ {
				c[nv+r] = bigM
			}
			_, xs, err := lp.Simplex(c, A, b, 1e-10, basis)
			if maximise && errors.Is(err, lp.ErrUnbounded) {
				out[w][side] = math.Inf(1)
				continue
			}
			if err != nil {
				t.Fatalf("gonum: %v", err)
			}
			for r := 0; r < r0; r++ {
				if xs[nv+r] > 1e-9 {
					t.Fatalf("gonum: artificial variable %d at %g", r, xs[nv+r])
				}
			}
			for _, l := range cells {
				if at[l] >= 0 {
					out[w][side] += xs[at[l]]
				}
			}
		}
	}
	return out
}

// TestLinksInferredMarginsResistAttack: two and three aggregate tables
// linked by links: whose margins are found only by inference (labels
// other than the total label, an unlabelled sum, a GSS hierarchy) are
// protected together on a cover that carries those margins. An intruder
// who knows that every published cell is the sum of the population's
// finest cells under it (written by hand here, not the tool's relations)
// minimises and maximises every withheld cell with gonum's simplex: every
// primary's interval reaches its protection (10%, at least 1) on both
// sides, no secondary is exact, and the tool's own audit intervals agree.
// Before the cover carried the inferred margins, the primaries of the two
// tables were exactly recoverable and called protected.
func TestLinksInferredMarginsResistAttack(t *testing.T) {
	// the lp method takes about 17 s on the 3-table cover (240 cells, 2
	// shared cores): the hypercube method keeps the test cheap there
	for _, c := range []struct {
		n      int
		method string
	}{{2, "lp"}, {2, "hypercube"}, {3, "hypercube"}} {
		t.Run(fmt.Sprint(c.n, " tables, ", c.method), func(t *testing.T) {
			dir := t.TempDir()
			jobs := infTables(t, dir, c.method)[:c.n]
			inferredAttack(t, dir, jobs)
		})
	}
}

func inferredAttack(t *testing.T, dir string, jobs []Job) {
	res, err := Run(context.Background(), jobs, Options{Out: filepath.Join(dir, "out"), Workers: 2, Log: zerolog.Nop(), Link: LinkOn, Links: [][]string{jobNames(jobs)}})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Summary.LinkGroups; len(g) != 1 || !g[0].Exact {
		t.Fatalf("link groups %+v", g)
	}
	type withheld struct {
		name  string
		x     float64
		st    audit.Status
		under []int
		tool  *audit.Interval
	}
	var published [][]int
	var values []*big.Rat
	var hidden []withheld
	status := map[string]audit.Status{}
	primaries := 0
	for _, tb := range res.Tables {
		if tb.Structure == nil || !tb.Structure.Margins {
			t.Fatalf("%s: no margins inferred", tb.Name)
		}
		tool := map[string]*audit.Interval{}
		if tb.Audit != nil {
			for i, r := range tb.Audit.Cells {
				tool[strings.Join(r.Key, "\x00")] = &tb.Audit.Cells[i]
			}
		}
		for _, c := range tb.Cells {
			g := infGlobal(tb, c)
			st := c.Status
			if st == audit.StatusReview {
				st = audit.StatusOK
			}
			if prev, ok := status[g]; ok && prev != st {
				t.Errorf("cell %s: %s in one table, %s in %s", g, prev, st, tb.Name)
			}
			status[g] = st
			under := infUnder(tb, c)
			switch st {
			case audit.StatusPrimary, audit.StatusSecondary:
				if st == audit.StatusPrimary {
					primaries++
				}
				hidden = append(hidden, withheld{tb.Name + " " + tb.KeyString(c.Key), float64(c.N), st, under, tool[strings.Join(c.Key, "\x00")]})
			default:
				published = append(published, under)
				values = append(values, big.NewRat(c.N, 1))
			}
		}
	}
	if primaries < 2 {
		t.Fatalf("the tables test too little: %d primaries", primaries)
	}
	want := make([][]int, len(hidden))
	for i, h := range hidden {
		want[i] = h.under
	}
	bounds := lpBounds(t, len(infLeaves()), published, values, want)
	for i, h := range hidden {
		lo, hi := bounds[i][0], bounds[i][1]
		if h.tool == nil {
			t.Errorf("%s (%s): no interval in the tool's audit", h.name, h.st)
		} else if !h.tool.Approximate && !h.tool.Undetermined && (math.Abs(h.tool.Lo-lo) > 1e-6 || math.IsInf(hi, 1) != math.IsInf(h.tool.Hi, 1) || !math.IsInf(hi, 1) && math.Abs(h.tool.Hi-hi) > 1e-6) {
			t.Errorf("%s (%s): the tool's interval [%g, %g], the intruder's [%g, %g]", h.name, h.st, h.tool.Lo, h.tool.Hi, lo, hi)
		}
		if h.st == audit.StatusSecondary {
			if hi-lo < 1e-6 {
				t.Errorf("%s = %g (secondary): exactly disclosed, [%g, %g]", h.name, h.x, lo, hi)
			}
			continue
		}
		u := math.Max(0.1*h.x, 1)
		if hi < h.x+u-1e-6 || lo > h.x-math.Min(u, h.x)+1e-6 {
			t.Errorf("%s = %g (primary, the tool says protected: %v): the intruder's interval is [%g, %g]", h.name, h.x, h.tool != nil && h.tool.Protected, lo, hi)
		}
	}
}
