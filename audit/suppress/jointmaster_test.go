package suppress

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/lp"
	"gonum.org/v1/gonum/mat"
	glp "gonum.org/v1/gonum/optimize/convex/lp"
	"pgregory.net/rapid"
)

// masterCheck is one master LP seen by testMasterHook, with gonum's
// optimum of the same LP (the oracle's relax: joint_oracle_test.go) and
// the float objective of the cold solve (lp.New + Minimize: the bound of
// before).
type masterCheck struct {
	lb, gonum, cold float64
	coldOK          bool // the cold solve's point met its rows
	feasible        bool // gonum found the LP feasible
}

// gonumMaster solves js's master LP under fx with gonum's simplex: the
// rows master builds (masterLP) with the bounds y ≤ 1 always (the
// relaxation the bound is proven for), from gonum's own phase 1. ok is
// false when gonum finds it infeasible.
func gonumMaster(js *jointSolver, fx fixing) (float64, bool) {
	base := 0.0
	for i := range js.cost {
		if js.cand[i] && fx[i] == 1 {
			base += js.cost[i]
		}
	}
	cs, active, varOf, ok := js.restrictCuts(fx)
	if !ok {
		return 0, false
	}
	if len(cs) == 0 {
		return base, true
	}
	// The dual, max Σ_k u_k − Σ_j v_j s.t. Σ_k a_kj·u_k − v_j + s_j = c_j
	// (u, v, s ≥ 0; a_kj the cut's coefficients scaled to rhs 1): its
	// slack basis is feasible (c ≥ 0), so gonum needs no phase 1. The
	// costs get distinct perturbations of at most 1e-9 of the largest:
	// gonum's simplex cycles on these degenerate LPs otherwise; they move
	// the optimum by at most 1e-9·Σ y ≤ 1e-9·(cells), far below the
	// tests' tolerance.
	na, nk := len(active), len(cs)
	A := mat.NewDense(na, nk+2*na, nil)
	c := make([]float64, na)
	obj := make([]float64, nk+2*na)
	cmax := 1.0
	for _, i := range active {
		cmax = math.Max(cmax, js.cost[i])
	}
	for j, i := range active {
		c[j] = js.cost[i] + 1e-9*cmax*float64(j+1)/float64(na)
		A.Set(j, nk+j, -1)
		A.Set(j, nk+na+j, 1)
		obj[nk+j] = 1
	}
	for k, p := range cs {
		obj[k] = -1
		for m, i := range p.idx {
			A.Set(varOf[i], k, p.coef[m]/p.rhs)
		}
	}
	basic := make([]int, na)
	for j := range basic {
		basic[j] = nk + na + j
	}
	z, _, err := glp.Simplex(obj, A, c, 1e-10, basic)
	if err == glp.ErrUnbounded {
		return 0, false // the dual unbounded: the primal infeasible
	}
	if err != nil {
		panic("gonum: " + err.Error())
	}
	return base - z, true
}

// coldMaster solves js's master LP under fx cold, as master did before
// the proven bound (lp.New's phase 1 and Minimize), or with keepTiny as
// master's cold solve does now (masterOpt), and returns the float
// objective (base included) and whether the point met the rows.
func coldMaster(js *jointSolver, fx fixing, keepTiny bool) (float64, bool) {
	cs, active, varOf, ok := js.restrictCuts(fx)
	if !ok || len(cs) == 0 {
		return math.NaN(), true
	}
	rows, nv, _, costs := js.masterLP(cs, active, varOf)
	if !keepTiny {
		solver, err := lp.New(js.ctx, nv, rows)
		if err != nil {
			return math.NaN(), false
		}
		z, err := solver.Minimize(js.ctx, costs)
		if err != nil || math.IsNaN(z) {
			return math.NaN(), false
		}
		return z + base(js, fx), js.masterPointOK(solver, rows)
	}
	solver, _, err := js.solveMaster(false, cs, active, false, nv, rows, costs)
	if err != nil {
		return math.NaN(), false
	}
	z := base(js, fx)
	for k, c := range costs {
		z += c * solver.Value(k)
	}
	return z, js.masterPointOK(solver, rows)
}

// TestJointMasterBoundAgainstGonum: on seeded small tables, the joint
// search's cut rounds 1..8 at the root and the masters of its
// branch-and-bound each report a bound (master's Lagrangian bound) that
// is at most gonum's optimum of the same LP (the relaxation over
// y ∈ [0,1]: valid) and within 1e-6 of it (tight: not the bound of an
// infeasible point). The same masters solved cold as before (lp.New's
// phase 1 and Minimize, whose objective was the bound) are counted where
// they miss gonum's optimum by more than 1e-6 or end at a point that
// misses a row. The search's reported bound is at most its pattern's cost
// and, on the 2-D tables, the independent oracle's best pattern
// (joint_oracle_test.go; the optimum where proven).
func TestJointMasterBoundAgainstGonum(t *testing.T) {
	type tcase struct {
		seed  uint64
		sizes []int
	}
	cases := []tcase{{1, []int{4, 3, 3}}}
	minMasters := 30
	if !tabletest.RaceEnabled {
		cases = append(cases, tcase{4, []int{6, 5}}, tcase{3, []int{4, 3, 3}}, tcase{1, []int{10, 8}}, tcase{1, []int{4, 4, 3}})
		minMasters = 100
	}
	var masters, coldBad, coldNow, bad int
	testMasterHook = func(js *jointSolver, fx fixing, lb float64, y []float64) {
		g, feas := gonumMaster(js, fx)
		masters++
		if !feas {
			t.Errorf("master %d: gonum finds the LP infeasible, the product a bound %v", masters, lb)
			return
		}
		tolG := math.Max(1, math.Abs(g))
		if lb > g+1e-9*tolG || lb < g-1e-6*tolG {
			bad++
			t.Errorf("master %d: bound %v, gonum's optimum %v", masters, lb, g)
		}
		if c, ok := coldMaster(js, fx, false); !ok || math.IsNaN(c) || math.Abs(c-g) > 1e-6*tolG {
			coldBad++
			t.Logf("master %d: the cold solve of before's objective %v (point meets its rows: %v), gonum %v", masters, c, ok, g)
		}
		if c, ok := coldMaster(js, fx, true); !ok || math.IsNaN(c) || math.Abs(c-g) > 1e-6*tolG {
			coldNow++
			t.Logf("master %d: the cold solve's objective %v (point meets its rows: %v), gonum %v", masters, c, ok, g)
		}
		// The point y meets every cut restricted to the node.
		for _, c := range js.cuts {
			lhs, rhs := 0.0, c.rhs
			for m, i := range c.idx {
				switch fx[i] {
				case 1:
					rhs -= c.coef[m]
				case -1:
					lhs += c.coef[m] * y[i]
				}
			}
			if rhs > js.tol && lhs < rhs-1e-6*c.rhs {
				t.Errorf("master %d: y misses a cut: %v < %v", masters, lhs, rhs)
				break
			}
		}
	}
	defer func() { testMasterHook = nil }()
	for _, tc := range cases {
		tb := tabletest.ScaleTable(tc.seed, tc.sizes, 0.15)
		var o *orTable
		if len(tc.sizes) == 2 {
			o = newOrTable(tb, nil, 0.15)
		}
		res, err := Protect(context.Background(), tb, Options{Joint: JointOptions{Rounds: 8, Nodes: 40}})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Run
		if r.LowerBound == nil || r.PatternCost == nil {
			t.Fatalf("seed %d %v: no bound", tc.seed, tc.sizes)
		}
		if *r.LowerBound > *r.PatternCost {
			t.Errorf("seed %d %v: bound %v above the pattern's cost %v", tc.seed, tc.sizes, *r.LowerBound, *r.PatternCost)
		}
		if o != nil {
			or, ok := solveOracle(o, false, oracleNodes, *r.PatternCost)
			if !ok {
				or, ok = solveOracle(o, true, oracleNodes, *r.PatternCost)
			}
			if ok && *r.LowerBound > or.Best*(1+1e-9) {
				t.Errorf("seed %d %v: bound %v above the oracle's best %v (proven %v)", tc.seed, tc.sizes, *r.LowerBound, or.Best, or.Proven)
			}
		}
	}
	t.Logf("%d masters: %d bounds off gonum's optimum; solved cold as before, %d off or at a point missing a row; cold with lp.Opt.KeepTiny (now), %d", masters, bad, coldBad, coldNow)
	if masters < minMasters {
		t.Errorf("only %d masters", masters)
	}
}

// TestJointMasterColdRegression is a master LP of the joint search on
// ScaleTable(2, 4x4x3, 15%) (241 cuts, 100 cells, 4 cells fixed by the
// branch-and-bound) on which lp.New's phase 1 and Minimize end at a point
// that misses its rows with the objective 6892.7, 2.2 times gonum's
// optimum 3107.57: the bound master reported before, above the optimum,
// so it could fathom the node wrongly. master now checks the point
// (masterPointOK), solves it again warm, and reports the Lagrangian bound
// of its duals.
//
// The cause, found on this case: the point's values are all ≥ 0 but a
// row misses its rhs by 6.08 after 2,154 pivots: the dense tableau
// drifted from the LP. lp's pivot drops entries below 1e-12 (pivot row)
// and 1e-11 (other rows) as rounding noise, while this master's scaled
// coefficients go down to 4.5e-19; with those drops disabled the same
// cold solve ends within 6e-9 of every row (3,221 pivots). Leaving the
// coefficients below 1e-9 out of the master does not cure it (entries of
// that size arise in the pivots). The masters now keep every entry
// (lp.Opt.KeepTiny); the thresholds stay for the interval audit's LPs.
func TestJointMasterColdRegression(t *testing.T) {
	js, fx, mc := loadMasterCase(t, "testdata/joint_master_cold.json")
	// gonum's optimum as stored; recomputed (and the cold solve of
	// before shown) but under the race detector, where the dense LPs
	// take seconds each.
	g := mc.Gonum
	if !tabletest.RaceEnabled {
		g2, feas := gonumMaster(js, fx)
		if !feas || math.Abs(g2-g) > 1e-6*g {
			t.Fatalf("gonum: %v (feasible %v), stored %v", g2, feas, g)
		}
		c0, ok0 := coldMaster(js, fx, false)
		t.Logf("gonum %v; the cold solve of before %v (point meets its rows: %v)", g, c0, ok0)
	}
	lb, y, feasible, err := js.master(fx)
	if err != nil || !feasible {
		t.Fatalf("master: %v feasible %v", err, feasible)
	}
	if lb > g+1e-9*g || lb < g-1e-6*g {
		t.Errorf("master's bound %v, gonum's optimum %v", lb, g)
	}
	if y == nil {
		t.Fatal("no y")
	}
	// The cause (lp's dropped entries, below) is cured by lp.Opt.KeepTiny:
	// master's cold solve met its rows (no second solve).
	if js.badMasters != 0 {
		t.Errorf("master's cold solve missed its rows (%d)", js.badMasters)
	}
}

// loadMasterCase builds a joint solver holding the cut pool of a stored
// master (testdata) and its node's fixings.
func loadMasterCase(t *testing.T, path string) (*jointSolver, fixing, masterCase) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var mc masterCase
	if err := json.Unmarshal(b, &mc); err != nil {
		t.Fatal(err)
	}
	js := &jointSolver{ctx: context.Background(), cost: mc.Cost, cand: mc.Cand, fixed: mc.Fixed, boundedLimit: mc.Bounded}
	for _, c := range mc.Cuts {
		js.cuts = append(js.cuts, cut{idx: c.Idx, coef: c.Coef, rhs: c.Rhs})
	}
	fx := make(fixing, len(mc.Fx))
	copy(fx, mc.Fx)
	return js, fx, mc
}

// masterCase is a stored master LP: the costs, candidates, cells fixed
// before the search, the node's fixings, JointBounded, the cut pool, and
// the optimum found by gonum and by the cold solve when it was stored.
type masterCase struct {
	Cost    []float64
	Cand    []bool
	Fixed   []bool
	Fx      []int8
	Bounded int
	Cuts    []struct {
		Idx  []int
		Coef []float64
		Rhs  float64
	}
	Gonum, Cold float64
}

// exactLagrange is the Lagrangian bound of lagrangeBound's formula in
// exact rationals (math/big: every float64 is a binary rational).
func exactLagrange(js *jointSolver, fx fixing, lam []float64) *big.Rat {
	r := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	lb := new(big.Rat)
	s := map[int]*big.Rat{}
	for i, c := range js.cost {
		if js.cand[i] && fx[i] == 1 {
			lb.Add(lb, r(c))
		}
	}
	for k, l := range lam {
		if !(l > 0) || math.IsInf(l, 1) {
			continue
		}
		c := js.cuts[k]
		lb.Add(lb, new(big.Rat).Mul(r(l), r(c.rhs)))
		for m, i := range c.idx {
			a := new(big.Rat).Mul(r(l), r(c.coef[m]))
			switch fx[i] {
			case 1:
				lb.Sub(lb, a)
			case -1:
				if s[i] == nil {
					s[i] = new(big.Rat)
				}
				s[i].Add(s[i], a)
			}
		}
	}
	for i, v := range s {
		d := new(big.Rat).Sub(r(js.cost[i]), v)
		if d.Sign() < 0 {
			lb.Add(lb, d)
		}
	}
	return lb
}

// TestLagrangeBoundRapid: on random cut pools over at most 7 cells (with
// coefficients, costs and multipliers over many magnitudes) and random
// fixings, lagrangeBound is at most the exact rational value of its
// formula (exactLagrange) and within 1e-9 of it relative to its terms,
// and the exact value is at most the true optimum: the cheapest 0/1
// pattern of the free cells meeting every cut (by enumeration).
func TestLagrangeBoundRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 7).Draw(rt, "n")
		mag := func(label string) float64 {
			m := rapid.Float64Range(0, 1).Draw(rt, label)
			e := rapid.IntRange(-20, 20).Draw(rt, label+"e")
			return math.Ldexp(m, e)
		}
		js := &jointSolver{cost: make([]float64, n), cand: make([]bool, n), fixed: make([]bool, n)}
		for i := range n {
			js.cost[i] = mag("cost")
			js.cand[i] = true
		}
		nc := rapid.IntRange(0, 5).Draw(rt, "cuts")
		for range nc {
			var c cut
			for i := range n {
				if rapid.Bool().Draw(rt, "in") {
					c.idx = append(c.idx, i)
					c.coef = append(c.coef, mag("coef"))
				}
			}
			c.rhs = mag("rhs")
			js.cuts = append(js.cuts, c)
		}
		fx := make(fixing, n)
		for i := range fx {
			fx[i] = int8(rapid.IntRange(-1, 1).Draw(rt, "fx"))
		}
		lam := make([]float64, nc)
		for k := range lam {
			lam[k] = mag("lam")
			if rapid.IntRange(0, 5).Draw(rt, "neg") == 0 {
				lam[k] = -lam[k] // taken as 0
			}
		}
		got := js.lagrangeBound(fx, lam)
		exact := exactLagrange(js, fx, lam)
		gr := new(big.Rat).SetFloat64(got)
		if gr.Cmp(exact) > 0 {
			rt.Fatalf("lagrangeBound %v above the exact value %v", got, exact.FloatString(30))
		}
		ef, _ := exact.Float64()
		scale := 0.0
		for _, c := range js.cost {
			scale += c
		}
		for k, l := range lam {
			if l > 0 {
				scale += l * js.cuts[k].rhs
				for _, a := range js.cuts[k].coef {
					scale += l * a
				}
			}
		}
		if ef-got > 1e-9*scale+1e-300 {
			rt.Fatalf("lagrangeBound %v, exact %v: lower by more than 1e-9 of the terms (%v)", got, ef, scale)
		}
		// The optimum by enumeration of the free cells (exact sums).
		var free []int
		for i, f := range fx {
			if f == -1 {
				free = append(free, i)
			}
		}
		best := (*big.Rat)(nil)
		for mask := 0; mask < 1<<len(free); mask++ {
			y := make([]bool, n)
			for i, f := range fx {
				y[i] = f == 1
			}
			for b, i := range free {
				y[i] = mask>>b&1 == 1
			}
			ok := true
			for _, c := range js.cuts {
				lhs := new(big.Rat)
				for m, i := range c.idx {
					if y[i] {
						lhs.Add(lhs, new(big.Rat).SetFloat64(c.coef[m]))
					}
				}
				if lhs.Cmp(new(big.Rat).SetFloat64(c.rhs)) < 0 {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			cost := new(big.Rat)
			for i := range n {
				if y[i] {
					cost.Add(cost, new(big.Rat).SetFloat64(js.cost[i]))
				}
			}
			if best == nil || cost.Cmp(best) < 0 {
				best = cost
			}
		}
		if best != nil && exact.Cmp(best) > 0 {
			rt.Fatalf("the exact Lagrangian bound %v above the optimum %v", exact.FloatString(20), best.FloatString(20))
		}
		meets, proven := js.allOnesMeets(fx)
		if proven && meets != (best != nil) {
			rt.Fatalf("allOnesMeets %v, a pattern exists: %v", meets, best != nil)
		}
	})
}

// base is the cost of the candidates fx fixes suppressed.
func base(js *jointSolver, fx fixing) float64 {
	z := 0.0
	for i := range js.cost {
		if js.cand[i] && fx[i] == 1 {
			z += js.cost[i]
		}
	}
	return z
}
