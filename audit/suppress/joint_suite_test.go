package suppress

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
)

// suiteCase is one table of the joint suite: a flat grid (sizes, every
// margin) or, with leaves > 0, a table whose first dimension is a
// hierarchy (leaves grouped under groups parents) and flat the others;
// about share of the interior cells primary (at least one), seeded.
type suiteCase struct {
	name   string
	sizes  []int
	leaves int
	groups int
	share  float64
	seed   uint64
	// heavy: seconds to minutes of protection on a loaded machine; left
	// out under the race detector (tabletest.RaceEnabled).
	heavy bool
}

var jointSuite = []suiteCase{
	{name: "2x2-1", sizes: []int{2, 2}, share: 0.25, seed: 1},
	{name: "2x2-2", sizes: []int{2, 2}, share: 0.5, seed: 2},
	{name: "3x3-diagonal"}, // the case, built by diagonalTable
	{name: "3x3-1", sizes: []int{3, 3}, share: 0.12, seed: 3},
	{name: "3x4-20", sizes: []int{3, 4}, share: 0.2, seed: 4},
	{name: "4x4-10", sizes: []int{4, 4}, share: 0.1, seed: 5},
	{name: "4x5-30", sizes: []int{4, 5}, share: 0.3, seed: 6},
	{name: "5x5-8", sizes: []int{5, 5}, share: 0.08, seed: 7},
	{name: "5x6-50", sizes: []int{5, 6}, share: 0.5, seed: 8},
	{name: "6x6-5", sizes: []int{6, 6}, share: 0.05, seed: 9},
	{name: "8x6-15", sizes: []int{8, 6}, share: 0.15, seed: 10},
	{name: "10x8-2", sizes: []int{10, 8}, share: 0.025, seed: 11},
	{name: "12x10-10", sizes: []int{12, 10}, share: 0.1, seed: 12},
	{name: "15x10-20", sizes: []int{15, 10}, share: 0.2, seed: 13},
	{name: "20x15-5", sizes: []int{20, 15}, share: 0.05, seed: 14},
	{name: "2x2x2-25", sizes: []int{2, 2, 2}, share: 0.25, seed: 20},
	{name: "3x3x2-20", sizes: []int{3, 3, 2}, share: 0.2, seed: 21},
	{name: "4x3x3-10", sizes: []int{4, 3, 3}, share: 0.1, seed: 22},
	{name: "h6/2x4-15", leaves: 6, groups: 2, sizes: []int{4}, share: 0.15, seed: 29},
	// Added with CBC's results (bench/joint_oracle_cbc.sh): seconds to
	// minutes of protection each, left out under the race detector.
	{name: "6x5x4-5", sizes: []int{6, 5, 4}, share: 0.05, seed: 25, heavy: true},
	{name: "8x6x5-3", sizes: []int{8, 6, 5}, share: 0.03, seed: 26, heavy: true},
	{name: "h8/3x5-10", leaves: 8, groups: 3, sizes: []int{5}, share: 0.1, seed: 30, heavy: true},
	{name: "h12/4x6-5", leaves: 12, groups: 4, sizes: []int{6}, share: 0.05, seed: 31, heavy: true},
	{name: "h9/3x3x3-10", leaves: 9, groups: 3, sizes: []int{3, 3}, share: 0.1, seed: 32, heavy: true},
	{name: "h20/5x10-3", leaves: 20, groups: 5, sizes: []int{10}, share: 0.03, seed: 33, heavy: true},
	// Added with CBC's results on the tighter model (writeCBCModel's
	// caps), proven optimal except 25x20-3; the heavy ones take seconds each.
	{name: "9x9-1", sizes: []int{9, 9}, share: 0.01, seed: 40},
	{name: "7x7-40", sizes: []int{7, 7}, share: 0.4, seed: 41},
	{name: "16x12-3", sizes: []int{16, 12}, share: 0.03, seed: 42, heavy: true},
	{name: "3x3x3-30", sizes: []int{3, 3, 3}, share: 0.3, seed: 43},
	{name: "h6/2x3x2-20", leaves: 6, groups: 2, sizes: []int{3, 2}, share: 0.2, seed: 46},
	{name: "h10/3x6-8", leaves: 10, groups: 3, sizes: []int{6}, share: 0.08, seed: 47},
	{name: "4x4x3-15", sizes: []int{4, 4, 3}, share: 0.15, seed: 48, heavy: true},
	{name: "5x3x3-5", sizes: []int{5, 3, 3}, share: 0.05, seed: 49},
	{name: "3x3x4-40", sizes: []int{3, 3, 4}, share: 0.4, seed: 50, heavy: true},
	{name: "5x4x2-10", sizes: []int{5, 4, 2}, share: 0.1, seed: 51},
	{name: "h8/2x3x3-5", leaves: 8, groups: 2, sizes: []int{3, 3}, share: 0.05, seed: 52},
	{name: "30x25-1", sizes: []int{30, 25}, share: 0.01, seed: 17, heavy: true},
	// CBC's best pattern (260) and bound (215) after 240 s, unproven: the
	// ratio is to the best known pattern, the product's when cheaper.
	{name: "25x20-3", sizes: []int{25, 20}, share: 0.03, seed: 16, heavy: true},
}

// jointSuiteOff are tables with a stored oracle result that
// TestJointSuite leaves out because the product fails a check on them
// (none now; h9/3x3x3-10 was here: its joint pattern left the secondary
// cell [a2 b0_1 b1_1] (value 34) exactly disclosed, so the audit needed a
// person; protectBest now publishes such cells, patternOffers.add).
var jointSuiteOff = []suiteCase{}

// jointSuitePending are tables whose oracle result is not stored yet
// (the oracle, gonum's dense simplex in a branch-and-bound, needs minutes
// to hours each on a loaded 2-core machine, and on 4x4x4-5 it stops on a
// singular basis; CBC, bench/joint_oracle_cbc.sh, on the loaded machine:
// 4x4x4-5 best 980, bound 452 in 60 s; 6x4x3-20 has no interior pattern
// and gonum's attack of CBC's pattern with margins fails numerically;
// 40x30-2 and 44x43-1 not past CBC's root in 17 minutes each; the others
// no pattern worth storing; 20x20-50's optimum is 0, the primaries
// alone protected, but gonum's attack of that pattern takes 15 minutes:
// see docs/suppression.md): JOINT_ORACLE=write computes them
// too (see suiteOracleFile); move each to jointSuite once its result is
// in the file.
var jointSuitePending = []suiteCase{
	{name: "20x20-50", sizes: []int{20, 20}, share: 0.5, seed: 15},
	{name: "40x30-2", sizes: []int{40, 30}, share: 0.02, seed: 18},
	{name: "44x43-1", sizes: []int{44, 43}, share: 0.01, seed: 19},
	{name: "5x4x3-15", sizes: []int{5, 4, 3}, share: 0.15, seed: 23},
	{name: "5x5x5-50", sizes: []int{5, 5, 5}, share: 0.5, seed: 24},
	{name: "10x8x6-2", sizes: []int{10, 8, 6}, share: 0.02, seed: 27},
	{name: "12x10x12-1", sizes: []int{12, 10, 12}, share: 0.01, seed: 28},
	{name: "4x4x4-5", sizes: []int{4, 4, 4}, share: 0.05, seed: 44},
	{name: "6x4x3-20", sizes: []int{6, 4, 3}, share: 0.2, seed: 45},
}

// diagonalTable is issue 25's 3x3 case: two primaries on the diagonal
// (100 each), the two other corners of their rectangle 300 each; the
// cheapest pattern suppresses those two corners (cost 600), and each
// primary keeps [0, 400].
func diagonalTable() *audit.Table {
	vals := [][]int64{{100, 300, 150}, {300, 100, 160}, {170, 140, 200}}
	tb := tabletest.GridTable([]int{3, 3}, func(i []int) int64 { return vals[i[0]][i[1]] }, func([]int) int64 { return 3 })
	for _, c := range tb.Cells {
		if c.Key[0] == "d0_0" && c.Key[1] == "d1_0" || c.Key[0] == "d0_1" && c.Key[1] == "d1_1" {
			tabletest.MarkPrimary(c)
		}
	}
	return tb
}

// build draws the case's table and its options.
func (sc suiteCase) build() (*audit.Table, Options) {
	if sc.name == "3x3-diagonal" {
		return diagonalTable(), Options{}
	}
	if sc.leaves > 0 {
		tb, h := tabletest.HierTable(sc.seed, sc.leaves, sc.groups, sc.sizes, sc.share)
		opt := Options{Hierarchies: h}
		ensurePrimary(tb, sc.seed)
		return tb, opt
	}
	rng := rand.New(rand.NewPCG(sc.seed, 25))
	cells := 1
	for _, n := range sc.sizes {
		cells *= n
	}
	vals := make([]int64, cells)
	for i := range vals {
		vals[i] = int64(math.Exp(rng.NormFloat64()*1.1+4)) + 1
	}
	at := func(idx []int) int {
		k := 0
		for d, i := range idx {
			k = k*sc.sizes[d] + i
		}
		return k
	}
	tb := tabletest.GridTable(sc.sizes, func(i []int) int64 { return vals[at(i)] }, func([]int) int64 { return 3 })
	var interior []*audit.Cell
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") {
			interior = append(interior, c)
		}
	}
	np := max(1, int(math.Round(sc.share*float64(len(interior)))))
	for _, k := range rng.Perm(len(interior))[:np] {
		tabletest.MarkPrimary(interior[k])
	}
	return tb, Options{}
}

// suiteProtection is a jointSuite case protected with its own options:
// what Protect changed in the table (snapshot) and its run record.
type suiteProtection struct {
	state tableState
	run   audit.SuppressionRun
	err   error
}

// suiteProtections holds, per case name, the func that protects the case
// once per test binary: TestJointSuite and TestJointNeverWorseThanHypercube
// judge the same default pattern (Protect is deterministic, as
// TestJointDeterministic and TestProtectAuditIdenticalAtAnyWorkers check),
// so it is computed once, not once per test.
var suiteProtections sync.Map

// protected is the case's table, unprotected, with its options, and the
// case's protection (computed once, see suiteProtections); restore puts
// the pattern into the table.
func (sc suiteCase) protected() (*audit.Table, Options, suiteProtection) {
	f, _ := suiteProtections.LoadOrStore(sc.name, sync.OnceValue(func() suiteProtection {
		tb, opt := sc.build()
		res, err := Protect(context.Background(), tb, opt)
		return suiteProtection{state: snapshot(tb), run: res.Run, err: err}
	}))
	tb, opt := sc.build()
	return tb, opt, f.(func() suiteProtection)()
}

// ensurePrimary marks one interior cell primary when the draw gave none.
func ensurePrimary(tb *audit.Table, seed uint64) {
	for _, c := range tb.Cells {
		if c.Status == audit.StatusPrimary {
			return
		}
	}
	rng := rand.New(rand.NewPCG(seed, 26))
	var interior []*audit.Cell
	for _, c := range tb.Cells {
		inner := true
		for d, k := range c.Key {
			inner = inner && k != "Total" && !(d == 0 && k[0] == 'g')
		}
		if inner {
			interior = append(interior, c)
		}
	}
	tabletest.MarkPrimary(interior[rng.IntN(len(interior))])
}

// suiteOracleFile stores the oracle's results of the heavy cases (the
// branch-and-bound over gonum is too slow for every test run);
// TestJointSuite recomputes them all with JOINT_ORACLE=write (the
// documented script: go test ./audit/suppress -run TestJointSuite with
// that variable set computes the cases missing from the file, with
// JOINT_ORACLE_ALL=1 as well every case; about an hour on 2 shared
// cores) and the light ones on every run.
var suiteOracleFile = "testdata/joint_suite_oracle.json"

// oracleLive: cases up to this many cells get their oracle computed in
// every run (and checked against the stored one); under the race detector
// up to oracleLiveRace cells (eight cases): the oracle is the test's own
// single-goroutine code, which the race detector makes ten times slower
// and has nothing to find in, and the four cases of 36 to 49 cells took
// 95% of its time (3x3x2-20 alone 8 s without the race detector, over a
// minute with it); their stored results are still checked against a
// recomputation by every run without the race detector.
const (
	oracleLive     = 50
	oracleLiveRace = 30
)

// liveOracle is whether a case of n cells gets its oracle computed in
// this run (besides JOINT_ORACLE=write's recomputations).
func liveOracle(n int) bool {
	if tabletest.RaceEnabled {
		return n <= oracleLiveRace
	}
	return n <= oracleLive
}

// oracleNodes bounds the oracle's branch-and-bound (oracleNodesLarge
// above 200 cells).
const (
	oracleNodes      = 400
	oracleNodesLarge = 40
	oracleNodesHuge  = 5 // above 300 cells (and 8 root cut rounds): the best known pattern and its bound
)

// TestJointSuite: on the seeded tables of jointSuite (38: 2-D, 3-D,
// hierarchies, 9 to 806 cells, 1% to 50% primaries; under the race
// detector the 27 not marked heavy) the default method's pattern is
// compared with the independent oracles' (joint_oracle_test.go: the
// branch-and-bound over gonum, or CBC's stored result): every pattern
// protects every primary (gonum's attack and the product's audit), no
// total where the oracle's optimum has none, lower_bound ≤ the
// oracle's best (≤ the optimum where proven) and ≤ the pattern's cost,
// geometric mean of cost / the optimum (unproven: the best known
// pattern, the product's or the oracle's) ≤ 1.03, worst ≤ 1.15.
func TestJointSuite(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	if testing.Short() {
		t.Skip("the joint suite: 38 tables with the exact optimum or a bound")
	}
	write := os.Getenv("JOINT_ORACLE") == "write"
	if f := os.Getenv("JOINT_ORACLE_FILE"); f != "" && write {
		suiteOracleFile = f // a second recomputation beside the first (merge the files)
	}
	stored := map[string]jointOracleResult{}
	if b, err := os.ReadFile(suiteOracleFile); err == nil && write {
		_ = json.Unmarshal(b, &stored) // kept for the cases not recomputed
	}
	if !write {
		b, err := os.ReadFile(suiteOracleFile)
		if err != nil {
			t.Fatalf("%v (recompute with JOINT_ORACLE=write)", err)
		}
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
	}
	logSum, worst, nProven, ncases := 0.0, 0.0, 0, 0
	boundLog := 0.0
	// the product's proven gaps: sum and worst, and the tables it proved
	// optimal (Optimal, or a gap of 0)
	gapSum, gapWorst, nOptimal := 0.0, 0.0, 0
	cases := jointSuite
	if write {
		cases = append(slices.Clone(jointSuite), jointSuitePending...)
	}
	for _, sc := range cases {
		if sc.heavy && tabletest.RaceEnabled {
			continue
		}
		if only := os.Getenv("JOINT_SUITE_ONLY"); only != "" && !slices.Contains(strings.Split(only, ","), sc.name) {
			continue // recomputing some cases (the script), never in a plain run
		}
		t0 := time.Now()
		tb, opt, p := sc.protected()
		if p.err != nil {
			t.Fatal(p.err)
		}
		o := newOrTable(tb, opt.Hierarchies, 0.10) // of the table before its pattern
		p.state.restore(tb)
		run := p.run
		tProtect := time.Since(t0) // 0 when TestJointNeverWorseThanHypercube protected it first
		cost, totals := 0.0, 0
		for i, c := range tb.Cells {
			if c.Status == audit.StatusSecondary {
				cost += o.val[i]
				if o.margin[i] {
					totals++
				}
			}
		}
		t0 = time.Now()
		var or jointOracleResult
		_, have := stored[sc.name]
		live := write && (!have || os.Getenv("JOINT_ORACLE_ALL") != "") || liveOracle(len(tb.Cells))
		if live {
			// The product's cost is the oracle's cutoff (it looks for a
			// cheaper pattern; none found in an exhausted tree proves the
			// product's optimal); with totals in the product's pattern the
			// interior search has no cutoff (any interior pattern counts).
			cut := cost
			if totals > 0 {
				cut = math.Inf(1)
			}
			var ok bool
			nodes := oracleNodes
			switch {
			case len(tb.Cells) > 300:
				nodes = oracleNodesHuge
			case len(tb.Cells) > 200:
				nodes = oracleNodesLarge
			}
			or, ok = solveOracle(o, false, nodes, cut)
			or.Interior = ok
			if !ok {
				or, ok = solveOracle(o, true, nodes, cost)
			}
			if !ok {
				t.Fatalf("%s: the oracle finds no pattern", sc.name)
			}
			if st, ok := stored[sc.name]; ok && !write && math.Abs(st.Best-or.Best) > 1e-6*math.Max(1, st.Best) {
				t.Errorf("%s: the stored oracle best %v differs from the recomputed %v", sc.name, st.Best, or.Best)
			}
			stored[sc.name] = or
			if write {
				saveOracle(t, stored)
			}
		} else {
			var ok bool
			if or, ok = stored[sc.name]; !ok {
				t.Fatalf("%s: no stored oracle result (recompute with JOINT_ORACLE=write)", sc.name)
			}
		}
		tOracle := time.Since(t0)
		sup := make([]bool, len(tb.Cells))
		for i, c := range tb.Cells {
			sup[i] = c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary
		}
		if ok, why := oracleProtected(o, sup); !ok {
			t.Errorf("%s: gonum's attack: %s", sc.name, why)
		}
		res, err := Audit(context.Background(), tb, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.NeedsPerson() {
			t.Errorf("%s: audit: %d exact, %d under-protected, %d undetermined", sc.name, res.ExactlyDisclosed, res.UnderProtected, res.Undetermined)
		}
		if or.Interior && totals > 0 {
			t.Errorf("%s: %d totals suppressed, but a pattern of interior cells exists", sc.name, totals)
		}
		if run.LowerBound == nil || run.PatternCost == nil || run.Gap == nil {
			t.Fatalf("%s: no lower bound, cost or gap: %+v", sc.name, run)
		}
		lb := *run.LowerBound
		if math.Abs(*run.PatternCost-cost) > 1e-6*math.Max(1, cost) {
			t.Errorf("%s: pattern_cost %v, the secondary cells' values sum to %v", sc.name, *run.PatternCost, cost)
		}
		if lb > or.Best*(1+1e-9)+1e-9 {
			t.Errorf("%s: lower bound %v above the oracle's best pattern %v", sc.name, lb, or.Best)
		}
		if lb > cost*(1+1e-9)+1e-9 {
			t.Errorf("%s: lower bound %v above the pattern's cost %v", sc.name, lb, cost)
		}
		ref := or.Best
		if !or.Proven {
			// Unproven: the reference is the best known pattern, the
			// product's when the oracle found none cheaper (a weaker
			// oracle pattern must not flatter the mean).
			ref = math.Min(ref, cost)
		}
		ratio := 1.0
		if ref > 0 {
			ratio = cost / ref
		} else if cost > 0 {
			ratio = math.Inf(1)
		}
		if or.Proven {
			nProven++
			if ratio < 1-1e-9 {
				t.Errorf("%s: cost %v below the proven optimum %v: the oracle is wrong", sc.name, cost, ref)
			}
		}
		bestBound := math.Max(lb, or.Bound)
		br := 1.0
		if bestBound > 0 {
			br = cost / bestBound
		}
		boundLog += math.Log(br)
		gapSum += *run.Gap
		gapWorst = math.Max(gapWorst, *run.Gap)
		if run.Optimal || *run.Gap <= 1e-9 {
			nOptimal++
		}
		ncases++
		logSum += math.Log(math.Max(ratio, 1e-9))
		worst = math.Max(worst, ratio)
		np := 0
		for _, c := range tb.Cells {
			if c.Status == audit.StatusPrimary {
				np++
			}
		}
		t.Logf("%-13s %5d cells %4d prim: cost %9.0f (%s) lb %9.0f gap %.3f optimal %v | oracle best %9.0f bound %9.0f proven %v | ratio %.3f, to best bound %.3f (protect %v, oracle %v)%s",
			sc.name, len(tb.Cells), np, cost, run.Chosen, lb, *run.Gap, run.Optimal, or.Best, or.Bound, or.Proven, ratio, br, tProtect.Round(time.Millisecond), tOracle.Round(time.Millisecond), ranOut(run.Stopped))
	}
	n := float64(ncases)
	gm := math.Exp(logSum / n)
	t.Logf("%d tables (%d with a proven optimum): geometric mean cost / oracle best %.4f, worst %.3f; cost / best bound %.4f", ncases, nProven, gm, worst, math.Exp(boundLog/n))
	t.Logf("the product's proven gaps: mean %.4f, worst %.3f; %d tables with a gap of 0 (proven optimal)", gapSum/n, gapWorst, nOptimal)
	if gm > 1.03 {
		t.Errorf("geometric mean %.4f above 1.03", gm)
	}
	if worst > 1.15 {
		t.Errorf("worst ratio %.3f above 1.15", worst)
	}
}

// ranOut is the end of a joint search's stopped text that says which
// budget ran out ("" when none did).
func ranOut(stopped string) string {
	if _, after, ok := strings.Cut(stopped, "what ran out: "); ok {
		return "; ran out: " + after
	}
	if stopped != "" {
		return "; stopped"
	}
	return ""
}

// saveOracle writes the oracle's results (after every case, so that a
// long recomputation keeps what it has done).
func saveOracle(t *testing.T, stored map[string]jointOracleResult) {
	b, _ := json.MarshalIndent(stored, "", " ")
	if err := os.MkdirAll(filepath.Dir(suiteOracleFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(suiteOracleFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkJointSuite protects the suite's tables (those up to maxCells
// cells, JOINT_BENCH_CELLS, default 200) with the default method and, as
// the baseline in the same run, the hypercube method, and reports each
// one's geometric mean of cost / the oracle's stored best and the
// default's geometric mean of cost / lower bound.
func BenchmarkJointSuite(b *testing.B) {
	stored := map[string]jointOracleResult{}
	raw, err := os.ReadFile(suiteOracleFile)
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &stored); err != nil {
		b.Fatal(err)
	}
	maxCells := 200
	if v := os.Getenv("JOINT_BENCH_CELLS"); v != "" {
		fmt.Sscan(v, &maxCells)
	}
	for b.Loop() {
		for _, method := range []string{"lp", "hypercube"} {
			logSum, boundLog, n := 0.0, 0.0, 0
			for _, sc := range jointSuite {
				tb, opt := sc.build()
				or, ok := stored[sc.name]
				if len(tb.Cells) > maxCells || !ok || or.Best <= 0 {
					continue
				}
				opt.Method = method
				run, err := protectRun(context.Background(), tb, opt)
				if err != nil {
					b.Fatal(err)
				}
				cost, _, _ := patternCost(tb)
				ref := or.Best
				if !or.Proven {
					ref = math.Min(ref, cost) // as TestJointSuite: the best known pattern
				}
				logSum += math.Log(cost / ref)
				if run.LowerBound != nil && *run.LowerBound > 0 {
					boundLog += math.Log(cost / *run.LowerBound)
				}
				n++
			}
			b.ReportMetric(math.Exp(logSum/float64(n)), method+"-geomean")
			if method == "lp" {
				b.ReportMetric(math.Exp(boundLog/float64(n)), "lp-cost/bound")
			}
		}
	}
}

// BenchmarkJointLarge3D: 50 x 40 x 10 (23,001 cells) at 1%, 5%, 20% and
// 50% primaries (JOINT_BENCH_SHARES to pick some), the default method
// (lp + hypercube + the joint search's bound) and, the baseline in the
// same run, the hypercube method: cost, lower bound and gap. Also the same
// Protect with the verdicts' audit budgets (lp-verdict-budgets-s) and with
// the exact bounds' bulk phase of before (lp-bulk-before-s,
// approximate-bulk-before): the kept pattern's exact intervals before and
// now (lp-s, approximate), in the same run.
func BenchmarkJointLarge3D(b *testing.B) {
	shares := []float64{0.01, 0.05, 0.20, 0.50}
	if v := os.Getenv("JOINT_BENCH_SHARES"); v != "" {
		shares = nil
		for _, f := range strings.Split(v, ",") {
			var x float64
			fmt.Sscan(f, &x)
			shares = append(shares, x)
		}
	}
	for _, share := range shares {
		b.Run(fmt.Sprintf("share=%v", share), func(b *testing.B) {
			for b.Loop() {
				hc := scaleTable(7, []int{50, 40, 10}, share)
				t0 := time.Now()
				if _, err := Protect(context.Background(), hc, Options{Method: "hypercube"}); err != nil {
					b.Fatal(err)
				}
				th := time.Since(t0)
				tb := scaleTable(7, []int{50, 40, 10}, share)
				t0 = time.Now()
				res, err := Protect(context.Background(), tb, Options{})
				if err != nil {
					b.Fatal(err)
				}
				run := res.Run
				tl := time.Since(t0)
				approx := float64(-1)
				if res.Audit != nil {
					approx = float64(res.Audit.Approximate)
				}
				// The same with the exact bounds' bulk phase of before
				// (intervals.Tuning.BulkSplit, 300,000 iterations): the
				// baseline of the kept pattern's exact intervals.
				tbb := scaleTable(7, []int{50, 40, 10}, share)
				bt := intervals.DefaultTuning()
				bt.BulkSplit, bt.BulkIters = true, 300000
				t0 = time.Now()
				bres, err := Protect(context.Background(), tbb, Options{AuditTuning: &bt})
				if err != nil {
					b.Fatal(err)
				}
				tbd := time.Since(t0)
				b.ReportMetric(tbd.Seconds(), "lp-bulk-before-s")
				b.ReportMetric(float64(bres.Audit.Approximate), "approximate-bulk-before")
				b.ReportMetric(approx, "approximate")
				// The same with the exact bounds' budgets of before the
				// bulk phase: the difference is the time of the kept
				// pattern's exact intervals (the patterns are compared by
				// their verdicts either way).
				tv := scaleTable(7, []int{50, 40, 10}, share)
				t0 = time.Now()
				vres, err := Protect(context.Background(), tv, Options{AuditTuning: verdictTuning()})
				if err != nil {
					b.Fatal(err)
				}
				tvd := time.Since(t0)
				hCost, _, _ := patternCost(hc)
				cost, _, _ := patternCost(tb)
				if vCost, _, _ := patternCost(tv); vCost != cost {
					b.Errorf("share %v: pattern cost %v with the smaller audit budgets, %v with the defaults", share, vCost, cost)
				}
				b.ReportMetric(tvd.Seconds(), "lp-verdict-budgets-s")
				b.ReportMetric(float64(vres.Audit.Approximate), "approximate-at-verdict-budgets")
				b.ReportMetric(hCost, "hypercube-cost")
				b.ReportMetric(cost, "lp-cost")
				if run.LowerBound != nil {
					b.ReportMetric(*run.LowerBound, "lower-bound")
					b.ReportMetric(*run.Gap, "gap")
				}
				b.ReportMetric(th.Seconds(), "hypercube-s")
				b.ReportMetric(tl.Seconds(), "lp-s")
				b.Logf("share %v: hypercube %.0f (%v), default %.0f (%v, chosen %s) lower bound %v gap %v stopped %q", share, hCost, th, cost, tl, run.Chosen, fmtF(run.LowerBound), fmtF(run.Gap), run.Stopped)
			}
		})
	}
}

// suiteFileName is a case's name as a file name.
func suiteFileName(name string) string { return strings.ReplaceAll(name, "/", "_") }

// TestJointOracleCBC is the documented script's Go half
// (bench/joint_oracle_cbc.sh), never part of a plain run: with
// JOINT_ORACLE=lp it writes every case's compact model (writeCBCModel;
// the same orTable as the branch-and-bound: relations, levels,
// candidates) to JOINT_ORACLE_DIR as NAME-interior.lp and
// NAME-margins.lp; with JOINT_ORACLE=cbc it reads CBC's logs and
// solutions from that directory (NAME-interior.log/.sol, and
// NAME-margins.* when the interior model is infeasible), attacks each
// pattern with gonum, checks it against the branch-and-bound's stored
// result where that is not CBC's own (both proven: the same optimum;
// else each best ≥ the other's bound) and, with JOINT_ORACLE_STORE=1,
// stores CBC's result (source "cbc") in testdata/joint_suite_oracle.json.
// JOINT_SUITE_ONLY=a,b limits it to some cases.
func TestJointOracleCBC(t *testing.T) {
	mode := os.Getenv("JOINT_ORACLE")
	if mode != "lp" && mode != "cbc" {
		t.Skip("the CBC oracle's script only (bench/joint_oracle_cbc.sh)")
	}
	dir := os.Getenv("JOINT_ORACLE_DIR")
	if dir == "" {
		t.Fatal("JOINT_ORACLE_DIR not set")
	}
	stored := map[string]jointOracleResult{}
	if b, err := os.ReadFile(suiteOracleFile); err == nil {
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
	}
	changed := false
	all := append(append(slices.Clone(jointSuite), jointSuiteOff...), jointSuitePending...)
	for _, sc := range all {
		if only := os.Getenv("JOINT_SUITE_ONLY"); only != "" && !slices.Contains(strings.Split(only, ","), sc.name) {
			continue
		}
		tb, opt := sc.build()
		o := newOrTable(tb, opt.Hierarchies, 0.10)
		base := filepath.Join(dir, suiteFileName(sc.name))
		zero := make([]bool, o.n)
		for _, p := range o.prim {
			zero[p] = true
		}
		if mode == "lp" {
			// The primaries alone protected (gonum's attack): the optimum
			// is 0, no model to solve.
			// (JOINT_ORACLE_ZERO=0 skips this check: the attacks that
			// succeed are slow on large tables with many primaries.)
			os.Remove(base + ".zero")
			if os.Getenv("JOINT_ORACLE_ZERO") != "0" {
				if ok, _ := oracleProtected(o, zero); ok {
					if err := os.WriteFile(base+".zero", nil, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
			}
			for _, margins := range []bool{false, true} {
				suffix := "-interior.lp"
				if margins {
					suffix = "-margins.lp"
				}
				f, err := os.Create(base + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := writeCBCModel(f, o, margins); err != nil {
					t.Fatal(err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		var res jointOracleResult
		if _, err := os.Stat(base + ".zero"); err == nil {
			if ok, why := oracleProtected(o, zero); !ok {
				t.Errorf("%s: %s", sc.name, why)
				continue
			}
			res = jointOracleResult{Proven: true, Interior: true, Source: "zero"}
		} else if res, err = cbcCase(o, base); err != nil {
			t.Errorf("%s: %v", sc.name, err)
			continue
		}
		t.Logf("%-13s %5d cells %4d prim: CBC best %9.0f bound %9.0f proven %v interior %v totals %d", sc.name, len(tb.Cells), len(o.prim), res.Best, res.Bound, res.Proven, res.Interior, res.Totals)
		if st, ok := stored[sc.name]; ok && st.Source != "cbc" {
			tol := 1e-6 * math.Max(1, st.Best)
			if st.Interior != res.Interior {
				t.Errorf("%s: interior pattern exists: branch-and-bound %v, CBC %v", sc.name, st.Interior, res.Interior)
			}
			if st.Proven && res.Proven && math.Abs(st.Best-res.Best) > tol {
				t.Errorf("%s: proven optima differ: branch-and-bound %v, CBC %v", sc.name, st.Best, res.Best)
			}
			if res.Best < st.Bound-tol || st.Best < res.Bound-tol {
				t.Errorf("%s: branch-and-bound best %v bound %v, CBC best %v bound %v: inconsistent", sc.name, st.Best, st.Bound, res.Best, res.Bound)
			}
			t.Logf("%-13s branch-and-bound best %9.0f bound %9.0f proven %v: agrees", sc.name, st.Best, st.Bound, st.Proven)
		}
		if os.Getenv("JOINT_ORACLE_STORE") == "1" {
			if st, ok := stored[sc.name]; ok && st.Source != "cbc" && st.Source != "zero" && !res.Proven {
				// Keep the better of the two: the cheaper pattern, the
				// higher bound.
				if st.Best <= res.Best {
					st.Bound = math.Max(st.Bound, res.Bound)
					st.Source = "bb+cbc" // the branch-and-bound's pattern, CBC's bound if higher
					res = st
				} else {
					res.Bound = math.Max(res.Bound, st.Bound)
				}
				res.Proven = res.Bound >= res.Best-1e-9
			}
			stored[sc.name] = res
			changed = true
		}
	}
	if changed {
		saveOracle(t, stored)
	}
}

// cbcCase reads CBC's runs of a case (base-interior.*, and
// base-margins.* when no interior pattern exists).
func cbcCase(o *orTable, base string) (jointOracleResult, error) {
	in, err := readCBC(base+"-interior.log", base+"-interior.sol")
	if err != nil {
		return jointOracleResult{}, err
	}
	var mg *cbcRun
	if in.status == "infeasible" {
		m, err := readCBC(base+"-margins.log", base+"-margins.sol")
		if err != nil {
			return jointOracleResult{}, err
		}
		mg = &m
	}
	return cbcResult(o, &in, mg)
}

// TestReadCBC: the script's reading of CBC 2.10's output (no CBC
// needed): the 3x3 case solved (the two corners, 600, proven,
// attacked by gonum), a pattern that does not protect (refused), an
// objective that is not the cells' cost (refused), the presolve's
// infeasibility, a run stopped without a pattern (bound only: refused).
func TestReadCBC(t *testing.T) {
	tb, opt := suiteCase{name: "3x3-diagonal"}.build()
	o := newOrTable(tb, opt.Hierarchies, 0.10)
	dir := t.TempDir()
	write := func(name, log, sol string) string {
		base := filepath.Join(dir, name)
		if err := os.WriteFile(base+".log", []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(base+".sol", []byte(sol), 0o644); err != nil {
			t.Fatal(err)
		}
		return base
	}
	optimal := "Cbc0001I Search completed\n\nResult - Optimal solution found\n\nObjective value:                600.00000000\nEnumerated nodes:               0\n"
	read := func(base string) cbcRun {
		r, err := readCBC(base+".log", base+".sol")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// y1 and y4: the corners [d0_0 d1_1] and [d0_1 d1_0] (300 each).
	good := write("good", optimal, "Optimal - objective value 600.00000000\n      0 y1                     1                     300\n      1 y2                     0                     150\n      2 y4                     1                     300\n      7 f0_0                  10                       0\n")
	r := read(good)
	res, err := cbcResult(o, &r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best != 600 || res.Bound != 600 || !res.Proven || !res.Interior || !slices.Equal(res.Cells, []int{1, 4}) || res.Source != "cbc" {
		t.Errorf("solved: %+v", res)
	}
	// y1 alone: the second primary's rectangle is open.
	bad := write("bad", strings.Replace(optimal, "600.", "300.", 1), "Optimal - objective value 300.00000000\n      0 y1                     1                     300\n")
	r = read(bad)
	if _, err := cbcResult(o, &r, nil); err == nil || !strings.Contains(err.Error(), "gonum") {
		t.Errorf("an unprotected pattern: %v", err)
	}
	wrong := write("wrong", strings.Replace(optimal, "600.", "500.", 1), "Optimal - objective value 500.00000000\n      0 y1                     1                     300\n      2 y4                     1                     300\n")
	r = read(wrong)
	if _, err := cbcResult(o, &r, nil); err == nil || !strings.Contains(err.Error(), "objective") {
		t.Errorf("the objective is not the cells' cost: %v", err)
	}
	inf := write("inf", "integerTolerance was changed from 1e-07 to 1e-09\nProblem is infeasible - 0.00 seconds\n", "Infeasible - objective value 0.00000000\n")
	if r := read(inf); r.status != "infeasible" {
		t.Errorf("presolve infeasible: %+v", r)
	}
	if _, err := cbcResult(o, &cbcRun{status: "infeasible"}, nil); err == nil {
		t.Error("no interior pattern and no model with margins: no error")
	}
	none := write("none", "Result - Stopped on time limit\n\nLower bound:                    279.700\n", "Stopped on time (no integer solution - continuous used) - objective value 279.70000000\n")
	r = read(none)
	if r.status != "none" || r.lowerBound != 279.7 {
		t.Errorf("stopped without a pattern: %+v", r)
	}
	if _, err := cbcResult(o, &r, nil); err == nil {
		t.Error("stopped without a pattern: no error")
	}
	// Stopped with a pattern: unproven, the bound rounded up.
	stopped := write("stopped", "Result - Stopped on time limit\n\nObjective value:                600.00000000\nLower bound:                    529.811\nGap:                            0.13\n", "Stopped on time - objective value 600.00000000\n      0 y1                     1                     300\n      2 y4                     1                     300\n")
	r = read(stopped)
	res, err = cbcResult(o, &r, nil)
	if err != nil || res.Proven || res.Bound != 530 || res.Best != 600 {
		t.Errorf("stopped: %+v, %v", res, err)
	}
}

// TestWriteCBCModelCaps: the compact model's flow caps (writeCBCModel).
// The level cap applies only to the interior model of a flat 2-D table
// (a capped flow on a table that is not a network could cut off
// patterns and make CBC "prove" a wrong optimum): on the 3x3
// case each flow is capped at the level (10 for the primaries of 100);
// with margins the cap is the big M; a 2-D table with a hierarchy and a
// 3-D table are not flat2D.
func TestWriteCBCModelCaps(t *testing.T) {
	model := func(sc suiteCase, margins bool) (*orTable, string) {
		tb, opt := sc.build()
		o := newOrTable(tb, opt.Hierarchies, 0.10)
		var sb strings.Builder
		if _, err := writeCBCModel(&sb, o, margins); err != nil {
			t.Fatal(err)
		}
		return o, sb.String()
	}
	o, lp := model(suiteCase{name: "3x3-diagonal"}, false)
	if !o.flat2D {
		t.Fatal("3x3: not flat2D")
	}
	// y1: [d0_0 d1_1], 300; the level of primary 0 (100) is 10.
	for _, want := range []string{" up0_1: f0_1 - 10 y1 <= 0\n", " lo0_1: f0_1 + 10 y1 >= 0\n", " -10 <= f0_5 <= 10\n"} {
		if !strings.Contains(lp, want) {
			t.Errorf("3x3 interior model: no %q", want)
		}
	}
	_, lp = model(suiteCase{name: "3x3-diagonal"}, true)
	if !strings.Contains(lp, " up0_1: f0_1 - 6480 y1 <= 0\n") || strings.Contains(lp, " up0_1: f0_1 - 10 y1") {
		t.Error("3x3 model with margins: the level cap applied, or not the big M (the sum of every cell, 6480)")
	}
	for _, sc := range []suiteCase{
		{name: "h6/2x4-15", leaves: 6, groups: 2, sizes: []int{4}, share: 0.15, seed: 29},
		{name: "2x2x2-25", sizes: []int{2, 2, 2}, share: 0.25, seed: 20},
	} {
		if o, _ := model(sc, false); o.flat2D {
			t.Errorf("%s: flat2D", sc.name)
		}
	}
	if o, _ := model(suiteCase{name: "4x4-10", sizes: []int{4, 4}, share: 0.1, seed: 5}, false); !o.flat2D {
		t.Error("4x4: not flat2D")
	}
}
