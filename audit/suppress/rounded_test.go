package suppress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	glp "gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// roundedShare is the protection share of the rounded-table tests: large
// enough that the largest primaries need complements even with the
// rounding intervals.
const roundedShare = 0.3

// roundedCase is one R×C frequency table of the rounded-table tests
// (roundedGrid).
type roundedCase struct {
	seed     uint64
	R, C     int
	base     int64
	additive bool
}

func (rc roundedCase) String() string {
	kind := "independent"
	if rc.additive {
		kind = "additive"
	}
	return fmt.Sprintf("%dx%d/base%d/%s/seed%d", rc.R, rc.C, rc.base, kind, rc.seed)
}

// roundedGrid builds rc's table: an R×C frequency table with every margin
// whose published counts are rounded to rc.base. Additive: the interior
// counts rounded and the margins their sums (a controlled rounding: the
// published table adds up); otherwise every cell, margins included,
// rounded on its own (the margins need not add up). Three interior
// cells are primary, the largest count among them.
func roundedGrid(rc roundedCase) *audit.Table {
	rng := rand.New(rand.NewPCG(rc.seed, 24))
	vals := make([]int64, rc.R*rc.C)
	for i := range vals {
		vals[i] = int64(math.Exp(rng.NormFloat64()*1.1 + 2.6))
	}
	at := func(idx []int) int64 {
		v := vals[idx[0]*rc.C+idx[1]]
		if rc.additive {
			v = tabletest.RoundTo(v, rc.base)
		}
		return v
	}
	tb := tabletest.GridTable([]int{rc.R, rc.C}, at, at)
	if !rc.additive {
		for _, c := range tb.Cells {
			c.N = tabletest.RoundTo(c.N, rc.base)
			c.Total = decimal.FromInt(c.N)
		}
	}
	var interior []*audit.Cell
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") {
			interior = append(interior, c)
		}
	}
	big := interior[0]
	for _, c := range interior {
		if c.N > big.N {
			big = c
		}
	}
	tabletest.MarkPrimary(big)
	nprim := 1
	for _, k := range rng.Perm(len(interior)) {
		if nprim == 3 {
			break
		}
		if interior[k] != big {
			tabletest.MarkPrimary(interior[k])
			nprim++
		}
	}
	return tb
}

// roundedOptions are the options of the rounded-table tests: a frequency
// table, protection share roundedShare (at least 1), rounded to base
// (0: read as exact).
func roundedOptions(base int64) Options {
	return Options{Role: audit.RoleCount, Protection: Protection{Share: roundedShare, Min: 1}, Rounded: float64(base), Workers: 1}
}

// gridPos is the position of cell c of an R×C grid table (R or C: the
// margin).
func gridPos(c *audit.Cell, R, C int) (int, int) {
	at := func(code string, n int) int {
		if code == "Total" {
			return n
		}
		k, _ := strconv.Atoi(code[3:])
		return k
	}
	return at(c.Key[0], R), at(c.Key[1], C)
}

// roundedOracle reports, with gonum's simplex over constraints written out
// here (not the tool's LP), whether every primary of tb (an R×C grid
// table with every margin) is protected when each published count v is
// only known within [max(0, v − base/2), v + base/2]: over the
// non-negative tables whose rows and columns add up to their margins and
// whose published cells lie within their rounding intervals, the primary
// reaches v+U and v−L (U = max(roundedShare·v, 1), L = min(U, v)) and is
// not a point. It returns a description of the first failure.
func roundedOracle(t *testing.T, tb *audit.Table, R, C int, base int64) (bool, string) {
	t.Helper()
	nc := (R + 1) * (C + 1)
	id := func(i, j int) int { return i*(C+1) + j }
	val := make([]float64, nc)
	sup := make([]bool, nc)
	var prim []int
	keys := make([]string, nc)
	for _, c := range tb.Cells {
		i, j := gridPos(c, R, C)
		val[id(i, j)] = float64(c.N)
		keys[id(i, j)] = tabletest.JoinKey(c.Key)
		switch c.Status {
		case audit.StatusPrimary:
			sup[id(i, j)] = true
			prim = append(prim, id(i, j))
		case audit.StatusSecondary:
			sup[id(i, j)] = true
		}
	}
	var pubs []int
	for k := range nc {
		if !sup[k] {
			pubs = append(pubs, k)
		}
	}
	nv := nc + 2*len(pubs)
	var rowsA [][]float64
	var b []float64
	var ind tabletest.Independent
	add := func(row []float64, rhs float64) {
		if ind.Keep(append([]float64(nil), row...), nv) {
			rowsA, b = append(rowsA, row), append(b, rhs)
		}
	}
	for i := 0; i <= R; i++ { // Σ_j y_ij = y_iC
		row := make([]float64, nv)
		for j := 0; j < C; j++ {
			row[id(i, j)] = 1
		}
		row[id(i, C)] = -1
		add(row, 0)
	}
	for j := 0; j <= C; j++ { // Σ_i y_ij = y_Rj
		row := make([]float64, nv)
		for i := 0; i < R; i++ {
			row[id(i, j)] = 1
		}
		row[id(R, j)] = -1
		add(row, 0)
	}
	half := float64(base) / 2
	for k, q := range pubs { // y − u = max(0, v − b/2); y + w = v + b/2
		row := make([]float64, nv)
		row[q], row[nc+2*k] = 1, -1
		add(row, math.Max(0, val[q]-half))
		row = make([]float64, nv)
		row[q], row[nc+2*k+1] = 1, 1
		add(row, val[q]+half)
	}
	A := mat.NewDense(len(rowsA), nv, nil)
	for r, row := range rowsA {
		A.SetRow(r, row)
	}
	solve := func(k int, max bool) float64 {
		c := make([]float64, nv)
		c[k] = 1
		if max {
			c[k] = -1
		}
		f, _, err := glp.Simplex(c, A, b, 1e-10, nil)
		if max && errors.Is(err, glp.ErrUnbounded) {
			return math.Inf(1)
		}
		if err != nil {
			t.Fatalf("gonum: %v", err)
		}
		if max {
			return -f
		}
		return f
	}
	const tol = 1e-6
	for _, p := range prim {
		x := val[p]
		up := math.Max(roundedShare*x, 1)
		low := math.Min(up, x)
		lo, hi := solve(p, false), solve(p, true)
		if hi < x+up-tol || lo > x-low+tol || hi-lo <= tol {
			return false, fmt.Sprintf("%s (published %v, levels +%v −%v): interval [%v, %v]", keys[p], x, up, low, lo, hi)
		}
	}
	return true, ""
}

// secondaryCost is the cost of tb's secondary cells (their published
// counts, the default cost) and their number.
func secondaryCost(tb *audit.Table) (cost float64, n int) {
	for _, c := range tb.Cells {
		if c.Status == audit.StatusSecondary {
			cost += float64(c.N)
			n++
		}
	}
	return cost, n
}

// TestProtectRoundedAgainstGonum (issue 24 item 6): secondary suppression
// on tables already rounded to base 3, 5 and 10 (Options.Rounded). On
// every table, additive (a controlled rounding) or not (each cell
// rounded on its own), every primary of the pattern chosen is protected
// per an independent oracle (roundedOracle: gonum's simplex with the
// published cells as variables within their rounding intervals). On the
// additive tables, whose published values are also a consistent exact
// table, the pattern is never costlier than the pattern chosen when the
// values are read as exact (Rounded 0), and on some tables rounding lets
// the method publish cells it suppressed before: the rounding already
// protects some primaries, and the redundancy pass checks with the
// rounding intervals. (Before the methods knew the rounding, the
// patterns were the exact ones.)
func TestProtectRoundedAgainstGonum(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	ctx := context.Background()
	cheaper, compared := 0, 0
	sumR, sumE := 0.0, 0.0 // the patterns' costs, with the rounding known and read as exact
	// Under the race detector one seed: gonum's simplex (the oracle) and
	// the joint search of the exact runs are most of the test's time.
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	if tabletest.RaceEnabled {
		seeds = seeds[:1]
	}
	for _, base := range []int64{3, 5, 10} {
		for _, size := range [][2]int{{4, 5}, {5, 6}} {
			for _, seed := range seeds {
				for _, additive := range []bool{true, false} {
					rc := roundedCase{seed: seed, R: size[0], C: size[1], base: base, additive: additive}
					tb := roundedGrid(rc)
					res, err := Protect(ctx, tb, roundedOptions(base))
					if err != nil {
						t.Fatalf("%v: %v", rc, err)
					}
					if res.Run.LowerBound != nil || res.Run.Optimal {
						t.Errorf("%v: the joint search's bound (exact published values) reported with the rounding known", rc)
					}
					if len(res.Unprotected) > 0 {
						t.Errorf("%v: %d primaries left unprotected", rc, len(res.Unprotected))
					}
					if ok, why := roundedOracle(t, tb, rc.R, rc.C, base); !ok {
						t.Errorf("%v: the oracle finds a primary unprotected: %s", rc, why)
					}
					if !additive {
						continue
					}
					exact := roundedGrid(rc)
					if _, err := Protect(ctx, exact, roundedOptions(0)); err != nil {
						t.Fatalf("%v read as exact: %v", rc, err)
					}
					cr, nr := secondaryCost(tb)
					ce, ne := secondaryCost(exact)
					compared++
					if cr > ce+1e-9 {
						t.Errorf("%v: with the rounding the pattern costs %v (%d cells), read as exact %v (%d cells)", rc, cr, nr, ce, ne)
					}
					sumR, sumE = sumR+cr, sumE+ce
					if cr < ce-1e-9 {
						cheaper++
					}
				}
			}
		}
	}
	t.Logf("%d additive tables: %d with a cheaper pattern when the rounding is known; cost %v in all (read as exact %v)", compared, cheaper, sumR, sumE)
	if cheaper == 0 {
		t.Errorf("no table where the rounding lets secondary suppression publish more")
	}
}

// TestProtectRoundedSingleton: the contributor of a suppressed singleton
// knows its value whatever the rounding. One row p + s + c = T of a
// magnitude table rounded to base 10, p = 40 and s = 30 primary, s a
// singleton, c = 40 and T = 110 published; protection 30%, so p needs
// [28, 52]. With s within its rounding interval p lies in [25, 55] (the
// rounding alone protects it), but s's contributor, who knows s = 30,
// finds p in [110 − 5 − 30 − 45, 115 − 30 − 35] = [30, 50]: c must be
// suppressed too.
func TestProtectRoundedSingleton(t *testing.T) {
	vals, ns := []int64{40, 30, 40}, []int64{3, 1, 3}
	tb := tabletest.GridTable([]int{3}, func(i []int) int64 { return vals[i[0]] }, func(i []int) int64 { return ns[i[0]] })
	tabletest.MarkPrimary(tabletest.CellAt(t, tb, "d0_0"))
	tabletest.MarkPrimary(tabletest.CellAt(t, tb, "d0_1"))
	opt := Options{Role: audit.RoleTotal, Protection: Protection{Share: 0.3}, Rounded: 10, Workers: 1}
	if _, err := Protect(context.Background(), tb, opt); err != nil {
		t.Fatal(err)
	}
	if c := tabletest.CellAt(t, tb, "d0_2"); c.Status != audit.StatusSecondary {
		t.Errorf("d0_2 is %v, want secondary: the singleton's contributor narrows d0_0 to [30, 50]", c.Status)
	}
}

// TestProtectRoundedMethodsAgainstGonum: the hypercube method
// (Options.Method) and the lp method's own pattern (Tuning.CompareLarge
// off: no other pattern offered) on rounded tables, as in
// TestProtectRoundedAgainstGonum (seeds 1 and 2; under the race detector,
// seed 1 at base 5): every primary protected per the oracle.
func TestProtectRoundedMethodsAgainstGonum(t *testing.T) {
	seeds, bases := []uint64{1, 2}, []int64{3, 5, 10}
	if tabletest.RaceEnabled {
		seeds, bases = seeds[:1], []int64{5}
	}
	for _, base := range bases {
		for _, size := range [][2]int{{4, 5}, {5, 6}} {
			for _, seed := range seeds {
				for _, additive := range []bool{true, false} {
					rc := roundedCase{seed: seed, R: size[0], C: size[1], base: base, additive: additive}
					for _, method := range []string{"hypercube", "lp"} {
						tb := roundedGrid(rc)
						opt := roundedOptions(base)
						opt.Method = method
						if method == "lp" {
							tune := DefaultTuning()
							tune.CompareLarge = false
							opt.Tuning = &tune
						}
						res, err := Protect(context.Background(), tb, opt)
						if err != nil {
							t.Fatalf("%v %s: %v", rc, method, err)
						}
						if len(res.Unprotected) > 0 {
							t.Errorf("%v %s: %d primaries left unprotected", rc, method, len(res.Unprotected))
						}
						if ok, why := roundedOracle(t, tb, rc.R, rc.C, base); !ok {
							t.Errorf("%v %s: the oracle finds a primary unprotected: %s", rc, method, why)
						}
					}
				}
			}
		}
	}
}

// TestProtectRoundedNote: TestProtectRoundedSingleton's row with p the
// only primary: read as exact p = T − s − c is disclosed, but with every
// published value within its rounding p lies in [110 − 5 − 35 − 45,
// 115 − 25 − 35] = [25, 55], beyond its levels [28, 52], so no cell is
// suppressed for it and p says why, once, also when Protect runs again.
func TestProtectRoundedNote(t *testing.T) {
	vals := []int64{40, 30, 40}
	tb := tabletest.GridTable([]int{3}, func(i []int) int64 { return vals[i[0]] }, func([]int) int64 { return 3 })
	p := tabletest.CellAt(t, tb, "d0_0")
	tabletest.MarkPrimary(p)
	opt := Options{Role: audit.RoleTotal, Protection: Protection{Share: 0.3}, Rounded: 10, Workers: 1}
	for range 2 {
		if _, err := Protect(context.Background(), tb, opt); err != nil {
			t.Fatal(err)
		}
	}
	if _, n := secondaryCost(tb); n != 0 {
		t.Errorf("%d secondary cells, want none", n)
	}
	want := roundedNote(10, "")
	if len(p.Notes) != 1 || p.Notes[0] != want {
		t.Errorf("notes %q, want [%q]", p.Notes, want)
	}
}

// TestJointReportRoundedNamesNoBound: a joint search stopped by its
// budget reports its lower bound and says the bound is the one proven so
// far; on a rounded table (Options.Rounded) no bound is reported, and the
// sentence names none.
func TestJointReportRoundedNamesNoBound(t *testing.T) {
	for _, rounded := range []float64{0, 5} {
		pc := 100.0
		out := audit.SuppressionRun{PatternCost: &pc}
		jres := &jointResult{lowerBound: 80, boundOK: true, stopped: errBudget}
		jointReport(&out, candidate{name: "joint"}, jres, &jointSolver{}, Options{Rounded: rounded}, time.Time{})
		names := strings.Contains(out.Stopped, "the bound")
		if !strings.Contains(out.Stopped, "budget") {
			t.Errorf("rounded %v: stopped %q, want the budget named", rounded, out.Stopped)
		}
		if rounded == 0 && (out.LowerBound == nil || !names) {
			t.Errorf("exact values: bound %v, stopped %q: want the bound reported and named", out.LowerBound, out.Stopped)
		}
		if rounded > 0 && (out.LowerBound != nil || out.Gap != nil || names) {
			t.Errorf("rounded: bound %v, stopped %q: want no bound reported or named", out.LowerBound, out.Stopped)
		}
	}
}
