package suppress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// The joint method chooses the secondary cells for every primary together:
// the Fischetti-Salazar model (binary y_i: cell i suppressed; minimise
// Σ cost_i·y_i so that for every primary p and side the intruder's LP
// reaches p's level) solved by cut generation over its LP relaxation.
//
// The intruder's LP for pattern y and the upper side of p,
//
//	max f_p  s.t.  Σ_i coef(r,i)·f_i = 0 for every relation r,
//	               −x_i·y_i ≤ f_i ≤ ∞·y_i,
//
// (f = the deviation from the true table x; the lower side maximises
// −f_p) has the dual min Σ_i β_i·x_i·y_i (+ ∞·α_i·y_i) over γ (one per
// relation) with α_i − β_i = [i = p] − (Mᵀγ)_i, α, β ≥ 0. Any γ gives the
// capacity cut
//
//	Σ_i c_i·y_i ≥ level,  c_i = level when α_i > 0, else min(level, β_i·x_i),
//
// which every protected pattern satisfies (weak duality: if a cell with
// α_i > 0 is suppressed its term alone reaches the level; otherwise every
// such cell is published, f_i ≤ 0 there, and the intruder's maximum is at
// most Σ β_i·x_i·y_i). A pattern that leaves p short gives, from the dual
// optimum of its intruder LP, a cut it violates. So the LP relaxation of
// the cuts found is a relaxation of the problem: its optimum is a proven
// lower bound on the cost of every protected pattern of the candidate
// cells (lowerBound).
//
// Integer patterns come from rounding the LP optimum and repairing it
// (adding the cells of violated cuts, cheapest per unit of coefficient),
// dropping cells while every intruder LP still reaches its level, and,
// where the work budget allows, a depth-first branch-and-bound over the
// relaxation (branching on the most fractional cell, pruning by the best
// verified cost). Every pattern it offers is then checked by the interval
// audit (with each suppressed singleton published in turn) before it can
// be kept. All work is counted in simplex pivots and LPs (JointOptions),
// never in wall time; the user's time limit and ctx only stop it early,
// keeping the best verified pattern.

// JointOptions are the tuning knobs of the joint method (Options.Joint);
// zero values take the defaults.
type JointOptions struct {
	// Off disables the joint method (the lp method and the hypercube
	// method still run, the cheaper verified pattern is kept).
	Off bool
	// MaxCells is the largest table the joint method searches for a
	// pattern on (default 2500 cells); larger tables get the lower bound
	// only (the root's cut loop, within BoundWork).
	MaxCells int
	// Work bounds the whole joint search in simplex work: the sum over
	// its LPs of pivots × tableau entries, in units of 10^6 (default
	// 30,000, some 10-60 s on one core). The cut rounds, heuristics and
	// branch-and-bound stop when it is spent, keeping the best pattern
	// and bound found. A count, never a clock: the same input stops at
	// the same point on any machine.
	Work float64
	// BoundWork is Work for the bound-only search of larger tables
	// (default 10,000).
	BoundWork float64
	// BoundStall stops the bound-only search when the last 3 cut rounds
	// raised the bound by less than this fraction of it (default 0.02;
	// negative: never, only BoundWork stops it). On large tables the
	// bound creeps up by a percent a round while each round's master
	// costs more than the last: see docs/suppression.md.
	BoundStall float64
	// ColdMaster solves each master LP of the bound-only search from
	// scratch (lp.New's phase 1), as before; by default each starts
	// from the last master's y raised onto the new cuts, with the slack
	// basis (lp.NewBasis; see warmStart): the same LP, a quarter of the
	// pivots on the 1 M-record 50x40x10 file (docs/suppression.md).
	ColdMaster bool
	// MaxTableau bounds one LP's dense tableau (rows × columns; default
	// 4,000,000 entries): the search stops before a larger one.
	MaxTableau int
	// Nodes bounds the branch-and-bound nodes (default 400).
	Nodes int
	// Rounds bounds the cut rounds at the root (default 60).
	Rounds int
	// Rounding adds, with each capacity cut separated, its Chvátal-Gomory
	// rounding that the LP point violates most (roundedCut): a stronger
	// relaxation, proven valid. Off by default: on small tables whose
	// search runs out of nodes it raises the bound (the 4x5 count tables
	// of TestJointRoundingRaisesBound: root bound 131 to 157, 94 to 125,
	// 72 to 92, two of them proven optimal within 400 nodes), but each
	// rounded cut makes the masters larger, and on others the work
	// budget runs out sooner (the suite's h8/3x5-10 lost its proof of
	// optimality, its bound 1,969 down to 1,329; 30x25-1 kept a pattern
	// of 215 instead of 118, its bound 114 to 115).
	Rounding bool
}

func (o JointOptions) maxCells() int {
	if o.MaxCells > 0 {
		return o.MaxCells
	}
	return 2500
}

func (o JointOptions) work() float64 {
	if o.Work > 0 {
		return o.Work
	}
	return 30_000
}

func (o JointOptions) maxTableau() int {
	if o.MaxTableau > 0 {
		return o.MaxTableau
	}
	return 4_000_000
}

func (o JointOptions) boundStall() float64 {
	switch {
	case o.BoundStall > 0:
		return o.BoundStall
	case o.BoundStall < 0:
		return 0
	}
	return 0.02
}

func (o JointOptions) nodes() int {
	if o.Nodes > 0 {
		return o.Nodes
	}
	return 400
}

func (o JointOptions) rounds() int {
	if o.Rounds > 0 {
		return o.Rounds
	}
	return 60
}

// testMasterHook, when set (tests, while no other test runs), sees each
// master LP solved: its search, fixings, bound and y (the cuts are
// js.cuts).
var testMasterHook func(js *jointSolver, fx fixing, lb float64, y []float64)

// errBudget stops the joint search when its work budget is spent (not an
// error of the run: the best pattern found so far is kept).
var errBudget = errors.New("joint: work budget spent")

// The budget that ran out, each an errBudget (errors.Is): the simplex
// work (JointOptions.Work or BoundWork), the branch-and-bound nodes
// (JointOptions.Nodes) or the tableau size (JointOptions.MaxTableau: the
// next LP would be larger; jointSolver.bigLP records its size).
var (
	errWorkSpent = fmt.Errorf("%w: simplex work", errBudget)
	errNodes     = fmt.Errorf("%w: branch-and-bound nodes", errBudget)
	errTableau   = fmt.Errorf("%w: tableau size", errBudget)
)

// errDeadline stops the joint search at the user's time limit.
var errDeadline = errors.New("joint: time limit reached")

// errStalled stops the bound-only cut loop when the bound has stopped
// rising (JointOptions.BoundStall): the bound is the one proven so far.
var errStalled = errors.New("joint: the bound stopped rising")

// stallRounds is the window of BoundStall: the bound's gain over the last
// stallRounds cut rounds.
const stallRounds = 3

// errLPFail stops the joint search when one of its LPs fails numerically
// (the simplex's iteration limit, a false "unbounded"): the best pattern
// found so far is kept, as at the budget.
var errLPFail = errors.New("joint: an LP failed")

// graceful reports whether err stops the search without failing the run.
func graceful(err error) bool {
	return errors.Is(err, errBudget) || errors.Is(err, errDeadline) || errors.Is(err, errLPFail)
}

// commodity is one side of one primary: p must reach x_p + sign·level.
type commodity struct {
	p     int
	sign  float64
	level float64
}

// cut is Σ coef[k]·y[idx[k]] ≥ rhs over candidate cells (fixed cells'
// terms are already subtracted from rhs).
type cut struct {
	idx  []int
	coef []float64
	rhs  float64
	com  int
	// level is the commodity's level, the scale of rhs's tolerance
	// (searchTol)
	level float64
}

type jointSolver struct {
	s        *structure
	opt      Options
	jo       JointOptions
	ctx      context.Context
	deadline time.Time
	fixed    []bool    // suppressed before the search (y = 1)
	cand     []bool    // may be chosen
	cost     []float64 // objective cost of a candidate
	single   []bool
	coms     []commodity
	cuts     []cut
	cutSeen  map[string]bool
	// scenCell: the cell is in a cut of a singleton scenario (see drop)
	scenCell []bool
	// boundOnly: the root's cut loop only (the lower bound; tables above
	// JointOptions.MaxCells)
	boundOnly bool
	// final: the last master LP after the budget ran out (see solve)
	final bool
	// warmY: the last bound-only master's y over every cell, the start
	// of the next (see warmStart)
	warmY []float64
	// boundedLimit: masters with at most this many variables keep y ≤ 1
	boundedLimit int
	pivots       int
	work         float64 // Σ pivots × tableau entries / 10^6 (see spend)
	lps          int
	tol          float64 // lpMethod.tol; judgments on a level use searchTol
	// bigLP is the LP (rows, columns) that did not fit JointOptions.
	// MaxTableau when the search stopped on errTableau
	bigLP    [2]int
	scratchT []float64
	// gran is the costs' granularity margin of the pruning and the
	// "optimal" claim (costGranularity; set by solve)
	gran float64
	// lbS, lbAbs, lbMark: lagrangeBound's scratch
	lbS, lbAbs []float64
	lbMark     []bool
	// badMasters counts master solves whose point missed its rows
	// (masterPointOK) and were solved again
	badMasters int
	// verify reports whether a pattern (sup) protects every primary,
	// also against singletons (the interval audit); nil: trust the cuts.
	verify func(sup []bool) (bool, error)
}

// spend adds an LP's work (pivots times the tableau's size m×n, the
// cost of a dense pivot, in units of 10^6 entries) to the budget and
// checks the stops.
func (js *jointSolver) spend(piv, m, n int) error {
	js.pivots += piv
	js.work += float64(piv) * float64(m) * float64(n) / 1e6
	js.lps++
	if err := js.ctx.Err(); err != nil {
		return err
	}
	if !js.deadline.IsZero() && time.Now().After(js.deadline) {
		return errDeadline
	}
	if js.work > js.budget() && !js.final {
		return errWorkSpent
	}
	return nil
}

// budget is the work budget of this search.
func (js *jointSolver) budget() float64 {
	if js.boundOnly {
		if js.jo.BoundWork > 0 {
			return js.jo.BoundWork
		}
		return 10_000
	}
	return js.jo.work()
}

// fits checks, before an LP is built, that its tableau (m×n) is within
// JointOptions.MaxTableau and that the budget is not spent: the search
// stops (errBudget) rather than start an LP too large for it.
func (js *jointSolver) fits(m, n int) error {
	if float64(m)*float64(n) > float64(js.jo.maxTableau()) {
		js.bigLP = [2]int{m, n}
		return errTableau
	}
	if js.work > js.budget() && !js.final {
		return errWorkSpent
	}
	return nil
}

// attack solves the dual of the intruder's LP of commodity k for the
// pattern y (1: suppressed, fractional during cut generation, 0:
// published) and returns the intruder's best deviation (the dual optimum;
// +Inf when unbounded) and the capacity cut of its dual solution (nil when
// it brings nothing: rhs ≤ 0).
func (js *jointSolver) attack(k int, y []float64, exact bool) (float64, *cut, error) {
	return js.attackPublished(k, y, exact, -1)
}

// attackPublished is attack with cell pub (-1: none) published in the
// intruder's LP whatever y says, and its term left out of the cut (see
// singletonScenarios).
func (js *jointSolver) attackPublished(k int, y []float64, exact bool, pub int) (float64, *cut, error) {
	com := js.coms[k]
	if pub >= 0 && y[pub] != 0 {
		saved := y[pub]
		y[pub] = 0
		defer func() { y[pub] = saved }()
	}
	d := js.dualLP(com, y, exact)
	nv, rows, costs := d.nv, d.rows, d.costs
	if err := js.fits(len(rows), nv); err != nil {
		return 0, nil, err
	}
	solver, err := lp.New(js.ctx, nv, rows)
	if errors.Is(err, lp.ErrInfeasible) {
		// The dual is infeasible: the intruder's deviation is unbounded.
		return math.Inf(1), nil, js.spend(len(rows), len(rows), nv)
	}
	if err != nil {
		if js.ctx.Err() != nil {
			return 0, nil, js.ctx.Err()
		}
		return 0, nil, fmt.Errorf("%w: %v", errLPFail, err)
	}
	val, err := solver.Minimize(js.ctx, costs)
	if err == nil && (math.IsNaN(val) || math.IsInf(val, -1)) {
		err = errors.New("no finite optimum")
	}
	if err != nil {
		if js.ctx.Err() != nil {
			return 0, nil, js.ctx.Err()
		}
		return 0, nil, fmt.Errorf("%w: %v", errLPFail, err)
	}
	if err := js.spend(solver.Pivots, len(rows), nv); err != nil {
		return 0, nil, err
	}
	c := js.capacityCut(k, d, solver, pub)
	if c.rhs <= searchTol(js.tol, com.level) {
		return val, nil, nil
	}
	return val, c, nil
}

// attackDual is the dual of a commodity's intruder LP as attack builds it:
// one row per cell that may move (p first, then sorted), one pair of
// variables (γ⁺, γ⁻) per relation of those cells (relVar: the first's
// index, in relList's order), then β and, for cells not surely
// suppressed, α per row.
type attackDual struct {
	rowsCells []int
	relVar    map[int32]int
	relList   []int32
	nv        int
	costs     []float64
	rows      []lp.Row
}

// dualLP builds the dual of commodity com's intruder LP for the pattern y:
// its rows are the cells that may move (y > 0) linked to p through
// relations, all of p's component when exact, else a neighbourhood of p
// (cutRows).
func (js *jointSolver) dualLP(com commodity, y []float64, exact bool) *attackDual {
	s := js.s
	rowsCells := js.moving(com.p, y, exact)
	relVar := map[int32]int{}
	var relList []int32
	for _, i := range rowsCells {
		for _, r := range s.CellRels[i] {
			if _, ok := relVar[r]; !ok {
				relVar[r] = 2 * len(relList)
				relList = append(relList, r)
			}
		}
	}
	nv := 2 * len(relList)
	type ab struct{ a, b int }
	vars := make([]ab, len(rowsCells))
	var costs []float64
	for range nv {
		costs = append(costs, 0)
	}
	for n, i := range rowsCells {
		v := ab{a: -1, b: nv}
		costs = append(costs, s.Val[i]*y[i])
		nv++
		if y[i] < 1 {
			v.a = nv
			costs = append(costs, com.level*y[i])
			nv++
		}
		vars[n] = v
	}
	rows := make([]lp.Row, len(rowsCells))
	for n, i := range rowsCells {
		var row lp.Row
		for _, r := range s.CellRels[i] {
			c := s.Coef(int(r), i)
			g := relVar[r]
			row.Idx = append(row.Idx, g, g+1)
			row.Coef = append(row.Coef, c, -c)
		}
		row.Idx = append(row.Idx, vars[n].b)
		row.Coef = append(row.Coef, -1)
		if vars[n].a >= 0 {
			row.Idx = append(row.Idx, vars[n].a)
			row.Coef = append(row.Coef, 1)
		}
		if i == com.p {
			row.RHS = com.sign
		}
		rows[n] = row
	}
	return &attackDual{rowsCells: rowsCells, relVar: relVar, relList: relList, nv: nv, costs: costs, rows: rows}
}

// moving returns the rows of a commodity's dual LP: the cells that may
// move (y > 0) linked to p through relations (p's component: the other
// cells' rows are met by γ = 0), p first, the others sorted.
func (js *jointSolver) moving(p int, y []float64, exact bool) []int {
	s := js.s
	rowsCells := []int{p}
	inComp := map[int]bool{p: true}
	// Without exact (cut generation), a neighbourhood of p (breadth first,
	// at most cutRows cells) is enough: any γ gives a valid cut, the LP
	// over part of the component only chooses one.
	for q := 0; q < len(rowsCells) && (exact || len(rowsCells) < cutRows); q++ {
		for _, r := range s.CellRels[rowsCells[q]] {
			for _, j := range s.RelCells(int(r)) {
				if y[j] > 0 && !inComp[j] {
					inComp[j] = true
					rowsCells = append(rowsCells, j)
				}
			}
		}
	}
	slices.Sort(rowsCells[1:])
	return rowsCells
}

// capacityCut returns the capacity cut of commodity k from the dual
// solution of d (solver, solved): c_i = level where α_i > 0, else
// min(level, β_i·|x_i|) (with a margin), fixed cells' terms subtracted
// from the level; cell pub (-1: none), published in the intruder's LP
// whatever the pattern, has no term. Its rhs may be ≤ 0 (the cut brings
// nothing).
func (js *jointSolver) capacityCut(k int, d *attackDual, solver *lp.Solver, pub int) *cut {
	s := js.s
	com := js.coms[k]
	// (Mᵀγ)_i over every cell of a relation with γ ≠ 0.
	n := len(s.T.Cells)
	if len(js.scratchT) != n {
		js.scratchT = make([]float64, n)
	}
	t := js.scratchT
	var touched []int
	mark := map[int]bool{com.p: true}
	touched = append(touched, com.p)
	for _, r := range d.relList {
		g := d.relVar[r]
		gam := gammaGrid(solver.Value(g) - solver.Value(g+1))
		if gam == 0 {
			continue
		}
		for _, i := range s.RelCells(int(r)) {
			t[i] += s.Coef(int(r), i) * gam
			if !mark[i] {
				mark[i] = true
				touched = append(touched, i)
			}
		}
	}
	slices.Sort(touched)
	c := &cut{rhs: com.level, com: k, level: com.level}
	// The fixed cells' terms leave the level: fixSum (their sum, rounded)
	// and fixAbs, fixN bound the rounding (see below).
	fixSum, fixAbs, fixN := 0.0, 0.0, 0
	for _, i := range touched {
		e := 0.0
		if i == com.p {
			e = com.sign
		}
		alpha := math.Max(0, e-t[i])
		beta := math.Max(0, t[i]-e)
		t[i] = 0
		// t, e, alpha and beta are exact (gammaGrid), so a cell gets
		// the level exactly when α_i > 0; β_i·|x_i| is rounded up by the
		// factor 1+1e-9 (two roundings lose at most 2^-52 of it).
		var coef float64
		switch {
		case alpha > 0:
			coef = com.level
		case beta > 0:
			coef = math.Min(com.level, beta*math.Abs(s.Val[i])*(1+1e-9)+1e-12*js.tol)
		}
		if coef <= 0 || i == pub {
			continue
		}
		switch {
		case js.fixed[i]:
			fixSum += coef
			fixAbs += coef
			fixN++
		case js.cand[i]:
			c.idx = append(c.idx, i)
			c.coef = append(c.coef, coef)
		}
	}
	if fixN > 0 {
		// rhs = level − Σ fixed coefficients, lowered by a bound on the
		// rounding of the fixN+1 operations (γ_K ≤ 2K·u, see
		// lagrangeBound) and one float more: at most the exact value, so
		// the cut stays valid (a lower rhs only weakens it).
		r := com.level - fixSum
		r -= 4 * float64(fixN+2) * fpUnit * (com.level + fixAbs)
		c.rhs = math.Nextafter(r, math.Inf(-1))
	}
	return c
}

// gammaGrid rounds a relation's dual value γ_r to a multiple of 2^-30
// within ±2^12. Any γ gives a valid capacity cut (weak duality, see the
// top of this file), so rounding it loses nothing of validity, and it
// makes capacityCut's arithmetic exact: the coefficients Coef(r,i) are
// ±1, so t_i = Σ_r Coef(r,i)·γ_r is a sum of multiples of 2^-30 of at
// most 2^12 each, over the few relations of a cell (at most 2^10), so
// every partial sum is an integer multiple of 2^-30 below 2^22 in
// magnitude: representable in float64's 53 bits, each addition exact.
// Hence α_i > 0 and β_i > 0 are decided exactly (no threshold that
// would drop a tiny positive α, whose cell then needs the level); the
// float noise of the simplex's duals (1e-15 around 0, 1, 1/2) is
// rounded away.
func gammaGrid(g float64) float64 {
	const lim = 1 << 12
	if math.IsNaN(g) {
		return 0
	}
	g = math.Max(-lim, math.Min(lim, g))
	return math.Round(g*(1<<30)) / (1 << 30)
}

// cutRows bounds the rows of a cut-generation LP (see attack).
const cutRows = 300

// addCut adds c to the pool unless the same cut is there.
func (js *jointSolver) addCut(c *cut) bool {
	key := make([]byte, 0, 16*len(c.idx)+16)
	key = appendF(key, c.rhs)
	for k, i := range c.idx {
		key = appendF(key, float64(i))
		key = appendF(key, c.coef[k])
	}
	if js.cutSeen[string(key)] {
		return false
	}
	js.cutSeen[string(key)] = true
	js.cuts = append(js.cuts, *c)
	return true
}

func appendF(b []byte, v float64) []byte {
	u := math.Float64bits(float32Round(v))
	for range 8 {
		b = append(b, byte(u))
		u >>= 8
	}
	return b
}

func float32Round(v float64) float64 { return float64(float32(v)) }

// fixing is what a search node fixes of each cell: 1 suppressed, 0
// published, -1 free.
type fixing []int8

// master solves the LP relaxation of the cuts with the fixings fx; it
// returns a proven lower bound on the cost of the node's patterns (the
// Lagrangian bound of the master's duals, see lagrangeBound: never the
// float LP's objective; -Inf when none), y over every cell (fixed cells
// 1), or feasible false (proven: allOnesMeets). The bound is returned
// with a graceful err too when the LP was solved before the stop (the
// budget or the time limit ran out on its own work).
func (js *jointSolver) master(fx fixing) (float64, []float64, bool, error) {
	n := len(js.cost)
	y := make([]float64, n)
	for i := range n {
		switch {
		case js.fixed[i]:
			y[i] = 1
		case js.cand[i] && fx[i] == 1:
			y[i] = 1
		}
	}
	cs, active, varOf, ok := js.restrictCuts(fx)
	if !ok {
		if meets, proven := js.allOnesMeets(fx); !meets && proven {
			return math.Inf(1), nil, false, nil
		}
		// A cut short by less than rounding can show: no proof of
		// infeasibility; no LP either (a cut with no free cell).
		return math.Inf(-1), nil, false, fmt.Errorf("%w: a node's feasibility undecided", errLPFail)
	}
	if len(cs) == 0 {
		return js.lagrangeBound(fx, nil), y, true, nil
	}
	rows, nv, bounded, costs := js.masterLP(cs, active, varOf)
	na, nb := len(active), 0
	if bounded {
		nb = na
	}
	if err := js.fits(len(rows), nv); err != nil {
		return math.Inf(-1), nil, false, err
	}
	// The bound-only cut loop starts each master from the previous
	// round's y raised onto the new cuts and the slack basis (see
	// warmStart), not from a phase 1: its optimum is the same LP's. The
	// other masters start cold (lp.New's phase 1); a cold solve that
	// fails, or ends at a point that does not meet the rows
	// (masterPointOK), is solved again warm from y raised onto the cuts
	// (warmStart from y = 0): a start with no phase 1 and a checked
	// feasible point.
	lb := math.Inf(-1)
	piv := 0
	var sol *lp.Solver
	var lastErr error
	tries := []bool{false, true}
	if js.boundOnly && !js.jo.ColdMaster {
		tries = []bool{true, false}
	}
	for _, warm := range tries {
		solver, p, err := js.solveMaster(warm, cs, active, bounded, nv, rows, costs)
		piv += p
		if errors.Is(err, lp.ErrInfeasible) {
			if meets, proven := js.allOnesMeets(fx); !meets && proven {
				return math.Inf(1), nil, false, js.spend(piv+len(rows), len(rows), nv)
			}
			err = errors.New("phase 1 said infeasible, y = 1 is feasible")
		}
		if err != nil {
			if js.ctx.Err() != nil {
				return lb, nil, false, js.ctx.Err()
			}
			lastErr = err
			continue
		}
		// Any duals give a proven bound; the larger is kept.
		lam := make([]float64, len(js.cuts))
		for k, p := range cs {
			lam[p.src] = max(0, solver.ReducedCost(na+nb+k)) / p.rhs
		}
		lb = math.Max(lb, js.lagrangeBound(fx, lam))
		if js.masterPointOK(solver, rows) {
			sol = solver
			break
		}
		js.badMasters++
		lastErr = errors.New("the master's point does not meet its rows")
	}
	if err := js.spend(piv, len(rows), nv); err != nil {
		// The LP was solved (or failed): its bound is proven all the
		// same (rootCuts and relax keep it; no y, the search stops).
		return lb, nil, false, err
	}
	if sol == nil {
		return lb, nil, false, fmt.Errorf("%w: %v", errLPFail, lastErr)
	}
	if js.boundOnly {
		if js.warmY == nil {
			js.warmY = make([]float64, n)
		}
		clear(js.warmY)
	}
	for k, i := range active {
		v := sol.Value(k)
		if js.boundOnly {
			js.warmY[i] = max(0, v)
			if bounded {
				js.warmY[i] = min(1, js.warmY[i])
			}
		}
		if v < 1e-9 {
			v = 0
		}
		if v > 1-1e-9 {
			v = 1 // (above 1 only without the bounds: suppressed)
		}
		y[i] = v
	}
	if testMasterHook != nil {
		testMasterHook(js, fx, lb, y)
	}
	return lb, y, true, nil
}

// masterLP builds master's LP from the cuts cs restricted to the free
// cells active (varOf: a cell's variable): each cut scaled to rhs 1 with
// its slack (Σ a·y − s = 1), then, on masters of at most boundedLimit
// cells, y + w = 1; nv variables (y, w, the slacks), minimising costs.
func (js *jointSolver) masterLP(cs []pendingCut, active []int, varOf map[int]int) (rows []lp.Row, nv int, bounded bool, costs []float64) {
	na := len(active)
	// The bounds y ≤ 1 only on small masters: without them the LP is a
	// relaxation still, with a smaller tableau (the bound holds for
	// y ≤ 1 all the same: lagrangeBound).
	bounded = na <= js.boundedLimit
	nb := 0
	if bounded {
		nb = na
	}
	nv = na + nb + len(cs)
	for k, p := range cs {
		// Scaled to rhs 1: coefficients in [0, level/rhs].
		row := lp.Row{RHS: 1}
		for m, i := range p.idx {
			row.Idx = append(row.Idx, varOf[i])
			row.Coef = append(row.Coef, p.coef[m]/p.rhs)
		}
		row.Idx = append(row.Idx, na+nb+k)
		row.Coef = append(row.Coef, -1)
		rows = append(rows, row)
	}
	if bounded {
		for k := range active {
			rows = append(rows, lp.Row{Idx: []int{k, na + k}, Coef: []float64{1, 1}, RHS: 1})
		}
	}
	costs = make([]float64, nv)
	for k, i := range active {
		costs[k] = js.cost[i]
	}
	return rows, nv, bounded, costs
}

// solveMaster solves one master LP (rows, costs), warm (warmStart's
// point and the slack basis; Vertex after Minimize) or cold (lp.New). It
// returns the solver at its optimum and the pivots done (a warm start
// counts one: a pass over the tableau).
func (js *jointSolver) solveMaster(warm bool, cs []pendingCut, active []int, bounded bool, nv int, rows []lp.Row, costs []float64) (*lp.Solver, int, error) {
	var solver *lp.Solver
	var err error
	piv := 0
	if warm {
		x0, basic, ok := js.warmStart(cs, active, bounded, nv)
		if !ok {
			return nil, 0, errors.New("no warm start")
		}
		solver, err = lp.NewBasisOpt(js.ctx, nv, rows, x0, basic, masterOpt)
		piv = 1
	} else {
		solver, err = lp.NewOpt(js.ctx, nv, rows, masterOpt)
	}
	if err != nil {
		return nil, piv, err
	}
	z, err := solver.Minimize(js.ctx, costs)
	if err == nil && (math.IsNaN(z) || math.IsInf(z, -1)) {
		err = errors.New("no finite optimum")
	}
	if err == nil && warm {
		// A vertex: a warm start may end with non-basic cells at
		// fractional values, and a vertex has far fewer cells above 0
		// for the next separation's intruder LPs (the bound is taken
		// after it, from the duals: lagrangeBound).
		err = solver.Vertex(js.ctx)
	}
	return solver, piv + solver.Pivots, err
}

// masterOpt are the master LPs' solver options: KeepTiny, as their
// coefficients span many magnitudes (capacityCut's floor for cells of
// value 0 gives 1e-19 once scaled); dropping tableau entries below 1e-11
// made cold masters drift from their LP (TestJointMasterColdRegression).
var masterOpt = lp.Opt{KeepTiny: true}

// masterPointOK checks the point a master LP's solver ends at against
// its rows (the scaled cuts Σ a·y − s = 1 and, when bounded, y + w = 1):
// every variable non-negative and every row met within 1e-7 of its
// terms. The float simplex has ended at points that miss a cut by
// percents (cold masters on later cut rounds); such a point's y is not
// used, and its objective never was the bound.
func (js *jointSolver) masterPointOK(solver *lp.Solver, rows []lp.Row) bool {
	for _, row := range rows {
		sum, abs := -row.RHS, math.Abs(row.RHS)
		for k, v := range row.Idx {
			x := solver.RawValue(v)
			if x < -1e-9 {
				return false
			}
			sum += row.Coef[k] * x
			abs += math.Abs(row.Coef[k] * x)
		}
		if math.Abs(sum) > 1e-7*max(1, abs) {
			return false
		}
	}
	return true
}

// warmStart is the start of a bound-only master (rows as master builds
// them: the cuts cs scaled to rhs 1 with their slacks, then y_i + w_i = 1
// when bounded): the previous master's y (warmY; 0 at first), raised on
// each cut it violates at the cell of the cut with the most coefficient
// per unit of cost (zero-cost cells first, the largest coefficient among
// them; up to 1 when bounded, then the next cell), with the
// slacks from it, and the slack basis (each slack column has its one
// non-zero in its own row). Raising y only raises the other cuts'
// left-hand sides (coefficients ≥ 0), so one pass meets every cut. It
// reports false when a bounded cut cannot be met (master then runs
// lp.New, which reports the master infeasible) or a coefficient is not
// positive.
func (js *jointSolver) warmStart(cs []pendingCut, active []int, bounded bool, nv int) ([]float64, []int, bool) {
	na := len(active)
	nb := 0
	if bounded {
		nb = na
	}
	x0 := make([]float64, nv)
	if js.warmY != nil {
		for k, i := range active {
			x0[k] = js.warmY[i]
		}
	}
	pos := make(map[int]int, na)
	for k, i := range active {
		pos[i] = k
	}
	basic := make([]int, 0, len(cs)+nb)
	lhsOf := func(p pendingCut) float64 {
		lhs := 0.0
		for m, i := range p.idx {
			lhs += p.coef[m] / p.rhs * x0[pos[i]]
		}
		return lhs
	}
	for _, p := range cs {
		for _, c := range p.coef {
			if !(c > 0) {
				return nil, nil, false
			}
		}
		// Cells with a coefficient below 1e-6 of the cut's largest are
		// not raised (a zero-cost cell with a 1e-12 coefficient would
		// take y to 10^12: a point too large to check, see lp.NewBasis).
		cmax := slices.Max(p.coef)
		// Each raise meets the cut or takes a cell to its bound 1, so
		// len(idx)+1 raises suffice but for rounding (a raise that
		// leaves the left-hand side a rounding short of 1): the loop is
		// capped at 2·len(idx)+4 raises, and a cut not met then gives no
		// warm start (master solves the LP cold).
		steps := 0
		for lhs := lhsOf(p); lhs < 1; lhs = lhsOf(p) {
			if steps++; steps > 2*len(p.idx)+4 {
				return nil, nil, false
			}
			best, bestRate := -1, -1.0
			for m, i := range p.idx {
				if bounded && x0[pos[i]] >= 1 || p.coef[m] < 1e-6*cmax {
					continue
				}
				rate := math.Inf(1)
				if c := js.cost[i]; c > 0 {
					rate = p.coef[m] / c
				}
				if rate > bestRate || rate == bestRate && p.coef[m] > p.coef[best] {
					best, bestRate = m, rate
				}
			}
			if best < 0 {
				return nil, nil, false
			}
			k := pos[p.idx[best]]
			x0[k] += (1 - lhs) * p.rhs / p.coef[best]
			if bounded && x0[k] > 1 {
				x0[k] = 1
			}
		}
	}
	for k, p := range cs {
		x0[na+nb+k] = lhsOf(p) - 1
		basic = append(basic, na+nb+k)
	}
	for k := range nb {
		x0[na+k] = 1 - x0[k]
		basic = append(basic, na+k)
	}
	return x0, basic, true
}

// pendingCut is a cut restricted to the free cells of a search node: its
// cells and coefficients, and the level left once the cells fixed
// suppressed are counted.
type pendingCut struct {
	idx  []int
	coef []float64
	rhs  float64
	src  int // the cut's index in js.cuts
}

// restrictCuts restricts the cuts to the free cells of fx for master: the
// cuts not yet met (on a bound-only solve, those that fit the tableau),
// the free cells they use (sorted), and each such cell's variable. It
// reports false when a cut not met has no free cell: the node is
// infeasible.
func (js *jointSolver) restrictCuts(fx fixing) ([]pendingCut, []int, map[int]int, bool) {
	varOf := map[int]int{}
	var active []int
	var cs []pendingCut
	for ci, c := range js.cuts {
		p := pendingCut{rhs: c.rhs, src: ci}
		for k, i := range c.idx {
			switch {
			case fx[i] == 1:
				p.rhs -= c.coef[k]
			case fx[i] == 0:
			default:
				p.idx = append(p.idx, i)
				p.coef = append(p.coef, c.coef[k])
			}
		}
		if p.rhs <= searchTol(js.tol, c.level) {
			continue
		}
		if len(p.idx) == 0 {
			return nil, nil, nil, false
		}
		if js.boundOnly {
			// Only the cuts that fit the tableau (a subset of valid cuts
			// is still a relaxation: its optimum still a lower bound).
			added := 0
			for _, i := range p.idx {
				if _, ok := varOf[i]; !ok {
					added++
				}
			}
			k, na := len(cs)+1, len(active)+added
			if float64(k)*float64(na+k) > float64(js.jo.maxTableau()) {
				continue
			}
		}
		cs = append(cs, p)
		for _, i := range p.idx {
			if _, ok := varOf[i]; !ok {
				varOf[i] = -1
				active = append(active, i)
			}
		}
	}
	slices.Sort(active)
	for k, i := range active {
		varOf[i] = k
	}
	return cs, active, varOf, true
}

// reaches reports whether an intruder's deviation val meets a commodity's
// level, within searchTol of it (at most 1e-7 of the level: stricter than
// the interval audit's 1e-6, which gates the pattern).
func (js *jointSolver) reaches(val, level float64) bool {
	return val >= level-searchTol(js.tol, level)
}

// separate adds the cuts that y violates (every commodity); it returns how
// many were added.
func (js *jointSolver) separate(y []float64) (int, error) {
	added := 0
	for k := range js.coms {
		_, c, err := js.attack(k, y, false)
		if err != nil {
			return added, err
		}
		if c == nil {
			continue
		}
		lhs := 0.0
		for m, i := range c.idx {
			lhs += c.coef[m] * y[i]
		}
		if lhs < c.rhs-1e-7*js.coms[k].level-searchTol(js.tol, js.coms[k].level) && js.addCut(c) {
			added++
		}
		if js.jo.Rounding {
			// its Chvátal-Gomory rounding that y violates most (roundedCut)
			if g := js.roundedCut(c, y); g != nil && js.addCut(g) {
				added++
			}
		}
	}
	return added, nil
}

// protects reports whether the integer pattern sup (candidates chosen
// plus fixed cells) lets every intruder LP reach its level; violated cuts
// are added to the pool. first stops at the first failure.
func (js *jointSolver) protects(sup []bool, first bool) (bool, error) {
	return js.protectsScen(sup, first, true)
}

// patternY is the integral y of the pattern sup (candidates chosen plus
// fixed cells).
func (js *jointSolver) patternY(sup []bool) []float64 {
	y := make([]float64, len(sup))
	for i, v := range sup {
		if v || js.fixed[i] {
			y[i] = 1
		}
	}
	return y
}

// protectsScen is protects, with the singleton scenarios only when scen.
func (js *jointSolver) protectsScen(sup []bool, first, scen bool) (bool, error) {
	y := js.patternY(sup)
	ok := true
	for k := range js.coms {
		val, c, err := js.attack(k, y, true)
		if err != nil {
			return false, err
		}
		if js.reaches(val, js.coms[k].level) {
			continue
		}
		ok = false
		if c != nil {
			js.addCut(c)
		}
		if first {
			return false, nil
		}
	}
	if !ok || !scen {
		return ok, nil
	}
	return js.singletonScenarios(y, first)
}

// singletonScenarios checks the integral pattern y against the singleton
// rule, as the interval audit does (lpMethod.allProtected): the
// contributor of a suppressed singleton s knows its value, so with s
// published every commodity whose primary s neither is nor covers must
// still reach its level. A commodity left short gives the capacity cut
// of its intruder LP with s published, s's term left out, which every
// protected pattern satisfies: with s published it is the commodity's own
// cut, and with s suppressed the singleton rule asks for it. Without these
// cuts the search knows no singleton, and every pattern it offers may fail
// the audit's check one after another until the work budget is spent. It
// reports whether every scenario reached its level (first: stop at the
// first failure); the cuts of those that did not are added to the pool.
// Each singleton's scenarios are first decided by one primal LP
// (primalReach); only a commodity it finds short gets its dual LP, which
// confirms it and gives the cut.
func (js *jointSolver) singletonScenarios(y []float64, first bool) (bool, error) {
	var singles []int
	for i, v := range js.single {
		if v && y[i] > 0 {
			singles = append(singles, i)
		}
	}
	if len(singles) == 0 {
		return true, nil
	}
	ok := true
	for _, sg := range singles {
		var ks []int
		for k, com := range js.coms {
			if com.p != sg && !js.s.Covers(sg, com.p) {
				ks = append(ks, k)
			}
		}
		reach, err := js.primalReach(y, sg, ks)
		if err != nil {
			return false, err
		}
		for n, k := range ks {
			if reach[n] {
				continue
			}
			// Short in the primal LP: the dual LP confirms it and gives
			// the cut.
			com := js.coms[k]
			val, c, err := js.attackPublished(k, y, true, sg)
			if err != nil {
				return false, err
			}
			if js.reaches(val, com.level) {
				continue
			}
			ok = false
			if c != nil && js.addCut(c) {
				for _, i := range c.idx {
					js.scenCell[i] = true
				}
			}
			if first {
				return false, nil
			}
		}
	}
	return ok, nil
}

// primalReach reports, for the integral pattern y with cell pub published
// (-1: none), whether each commodity of ks reaches its level, from one
// intruder's LP in primal form: the suppressed cells' values x ≥ 0 under
// every relation (the published cells' values moved to the right-hand
// side), started at the true table (lp.NewAt: no phase 1), each
// commodity's primary minimised or maximised from the previous optimal
// basis. One LP and a few pivots per commodity instead of one dual LP per
// commodity (attack), whose dual solution is needed only for a cut.
func (js *jointSolver) primalReach(y []float64, pub int, ks []int) ([]bool, error) {
	s := js.s
	n := len(y)
	varOf := make([]int, n)
	var cells []int
	for i := range n {
		varOf[i] = -1
		if y[i] > 0 && i != pub {
			varOf[i] = len(cells)
			cells = append(cells, i)
		}
	}
	seen := make([]bool, len(s.Rels))
	var rows []lp.Row
	for _, i := range cells {
		for _, r := range s.CellRels[i] {
			if seen[r] {
				continue
			}
			seen[r] = true
			var row lp.Row
			for _, j := range s.RelCells(int(r)) {
				c := s.Coef(int(r), j)
				if v := varOf[j]; v >= 0 {
					row.Idx = append(row.Idx, v)
					row.Coef = append(row.Coef, c)
				} else {
					row.RHS -= c * s.Val[j]
				}
			}
			rows = append(rows, row)
		}
	}
	if err := js.fits(len(rows), len(cells)); err != nil {
		return nil, err
	}
	x0 := make([]float64, len(cells))
	for v, i := range cells {
		x0[v] = s.Val[i]
	}
	reach := make([]bool, len(ks))
	solver, err := lp.NewAt(js.ctx, len(cells), rows, x0)
	if err != nil {
		if js.ctx.Err() != nil {
			return nil, js.ctx.Err()
		}
		// No verdict from this LP: every commodity goes to the dual LPs.
		return reach, nil
	}
	for m, k := range ks {
		com := js.coms[k]
		v := varOf[com.p]
		if v < 0 {
			continue
		}
		val, err := solver.Optimize(js.ctx, v, com.sign > 0)
		if err != nil {
			if js.ctx.Err() != nil {
				return nil, js.ctx.Err()
			}
			break // the dual LPs decide the rest
		}
		reach[m] = js.reaches(com.sign*(val-s.Val[com.p]), com.level)
	}
	return reach, js.spend(solver.Pivots, len(rows), len(cells))
}

// costOf is the objective cost of the candidates chosen in sup.
func (js *jointSolver) costOf(sup []bool) float64 {
	c := 0.0
	for i, v := range sup {
		if v && js.cand[i] && !js.fixed[i] {
			c += js.cost[i]
		}
	}
	return c
}

// repair makes the pattern sup protect every commodity: the cells of each
// violated cut, cheapest per unit of coefficient, until the cut holds;
// then it drops chosen cells, most costly first, while every intruder LP
// still reaches its level. ok is false when some cut cannot be met.
func (js *jointSolver) repair(sup []bool, fx fixing) (bool, error) {
	ok := false
	for range 50 {
		before := len(js.cuts)
		// The singleton scenarios (many LPs) once every commodity is met;
		// the cuts of those left short are repaired like the others.
		var err error
		if ok, err = js.protectsScen(sup, false, false); err == nil && ok {
			ok, err = js.singletonScenarios(js.patternY(sup), false)
		}
		if err != nil {
			return false, err
		}
		if ok {
			break
		}
		if len(js.cuts) == before {
			return false, nil // an LP that failed to give a cut: no repair
		}
		for _, c := range js.cuts[before:] {
			lhs := 0.0
			type opt struct {
				i     int
				ratio float64
				coef  float64
			}
			var opts []opt
			for m, i := range c.idx {
				if sup[i] {
					lhs += c.coef[m]
				} else if fx == nil || fx[i] != 0 {
					opts = append(opts, opt{i, js.cost[i] / c.coef[m], c.coef[m]})
				}
			}
			sort.SliceStable(opts, func(a, b int) bool { return opts[a].ratio < opts[b].ratio })
			for _, o := range opts {
				if lhs >= c.rhs-searchTol(js.tol, c.level) {
					break
				}
				sup[o.i] = true
				lhs += o.coef
			}
			if lhs < c.rhs-searchTol(js.tol, c.level) {
				return false, nil
			}
		}
	}
	if !ok {
		return false, nil
	}
	return true, js.drop(sup, fx)
}

// drop unsuppresses chosen cells, most costly first, while every intruder
// LP still reaches its level (fx: cells fixed to 1 stay). The singleton
// scenarios are checked again only when the cell dropped is in one of
// their cuts (js.scenCell): they are many LPs, and a pattern that breaks
// one otherwise fails the final check (verify) and is not kept.
func (js *jointSolver) drop(sup []bool, fx fixing) error {
	var chosen []int
	for i, v := range sup {
		if v && js.cand[i] && (fx == nil || fx[i] != 1) {
			chosen = append(chosen, i)
		}
	}
	sort.SliceStable(chosen, func(a, b int) bool { return js.cost[chosen[a]] > js.cost[chosen[b]] })
	for _, i := range chosen {
		sup[i] = false
		ok, err := js.protectsScen(sup, true, js.scenCell[i])
		if err != nil {
			sup[i] = true
			return err
		}
		if !ok {
			sup[i] = true
		}
	}
	return nil
}

// jointResult is the joint search's outcome.
type jointResult struct {
	sup        []bool  // the best verified pattern (candidates chosen), nil when none
	cost       float64 // its cost
	lowerBound float64 // proven lower bound on the cost of any protected pattern of the candidates
	boundOK    bool    // lowerBound was computed
	optimal    bool    // the branch-and-bound finished: sup is optimal among the candidates
	stopped    error   // errBudget (which one: errWorkSpent, errNodes, errTableau), errDeadline, errLPFail or errStalled when the search stopped early
	infeasible bool    // no pattern of the candidates protects every primary
}

// solve runs the cut loop at the root, the rounding heuristic and the
// branch-and-bound, starting from the incumbent (cost incCost, +Inf when
// none). It keeps the best verified pattern.
func (js *jointSolver) solve(incCost float64) (jointResult, error) {
	n := len(js.s.T.Cells)
	sr := &jointSearch{
		js:          js,
		n:           n,
		res:         jointResult{cost: math.Inf(1), boundOK: true}, // 0 is a bound
		best:        incCost,
		openBound:   math.Inf(1),
		fathomBound: math.Inf(1),
	}
	if incCost <= 0 && !js.boundOnly {
		// Nothing is cheaper than a pattern that costs nothing (the
		// bound 0 holds).
		return sr.res, nil
	}
	js.gran = js.costGranularity()
	root := make(fixing, n)
	for i := range root {
		root[i] = -1
	}
	y, feasible, err := sr.rootCuts(root)
	if errors.Is(err, errStalled) {
		sr.res.stopped = err
		return sr.res, nil
	}
	if err != nil {
		return sr.stop(err)
	}
	if !feasible {
		sr.res.infeasible = true
		return sr.res, nil
	}
	if js.boundOnly {
		return sr.res, nil
	}
	best := sr.best
	if sr.prunes(sr.res.lowerBound) {
		// The relaxation's bound proves that no pattern is cheaper than
		// the incumbent (within the costs' granularity: prunes): the
		// rounding and the branch-and-bound could not offer one (both
		// keep only cheaper patterns), and the bound is the incumbent's
		// cost, as a finished branch-and-bound has it.
		sr.res.lowerBound = math.Max(sr.res.lowerBound, best)
		return sr.res, nil
	}
	// Rounding heuristic at the root.
	if err := sr.round(y, root); err != nil {
		return sr.stop(err)
	}
	return sr.branch(root)
}

// jointSearch is the state of one solve: the result so far, the cost of
// the best pattern (the incumbent's, until a cheaper one is verified) and
// the smallest bound among the nodes left unexplored.
type jointSearch struct {
	js        *jointSolver
	n         int // cells
	res       jointResult
	best      float64
	openBound float64
	// fathomBound is the smallest proven bound of the nodes fathomed by
	// their bound (prunes)
	fathomBound float64
}

// stop ends the search on err: a graceful stop keeps the result, with
// the reason in res.stopped.
func (sr *jointSearch) stop(err error) (jointResult, error) {
	if graceful(err) {
		sr.res.stopped = err
		return sr.res, nil
	}
	return sr.res, err
}

// rootCuts is the root's cut loop: master LPs and separation rounds until
// no cut is violated or JointOptions.Rounds, raising res.lowerBound. It
// returns the last master's y, or feasible false.
func (sr *jointSearch) rootCuts(root fixing) ([]float64, bool, error) {
	js, res := sr.js, &sr.res
	var y []float64
	var hist []float64 // the bound after each round (bound-only)
	for round := 0; ; round++ {
		lb, yy, feasible, err := js.master(root)
		if err != nil {
			if graceful(err) && lb > res.lowerBound && !math.IsInf(lb, 1) {
				// The budget or the time limit ran out on this master's
				// own work: its bound is proven all the same.
				res.lowerBound, res.boundOK = lb, true
			}
			return nil, false, err
		}
		if !feasible {
			return nil, false, nil
		}
		y = yy
		res.lowerBound, res.boundOK = math.Max(res.lowerBound, lb), true
		if round >= js.jo.rounds() {
			break
		}
		if js.boundOnly {
			// The bound's tail-off: stop when the last rounds raised it
			// by less than BoundStall of itself (a count of rounds, not
			// a clock; see JointOptions.BoundStall).
			hist = append(hist, res.lowerBound)
			if g := js.jo.boundStall(); g > 0 && len(hist) > stallRounds {
				if old := hist[len(hist)-1-stallRounds]; res.lowerBound <= old*(1+g) {
					return y, true, errStalled
				}
			}
		}
		added, err := js.separate(y)
		if errors.Is(err, errBudget) && added > 0 {
			// The budget ran out within a round: one last master LP over
			// the cuts found (within the tableau bound) for the bound.
			// Its bound is kept whether or not the time limit fires
			// after it (a proven bound, see master).
			js.final = true
			if lb, _, ok, err2 := js.master(root); (ok || graceful(err2)) && !math.IsInf(lb, 1) {
				res.lowerBound = math.Max(res.lowerBound, lb)
			}
			js.final = false
		}
		if err != nil {
			return nil, false, err
		}
		if added == 0 {
			break
		}
	}
	return y, true, nil
}

// try keeps sup when it is cheaper than the best pattern and verified.
func (sr *jointSearch) try(sup []bool) error {
	js := sr.js
	c := js.costOf(sup)
	if c >= sr.best-1e-9*math.Max(1, sr.best) {
		return nil
	}
	if js.verify != nil {
		ok, err := js.verify(sup)
		if err != nil || !ok {
			return err
		}
	}
	sr.best = c
	sr.res.sup = slices.Clone(sup)
	sr.res.cost = c
	return nil
}

// round is the rounding heuristic: the candidates at y ≥ 0.5 or fixed
// suppressed in fx, repaired, then tried.
func (sr *jointSearch) round(y []float64, fx fixing) error {
	js := sr.js
	sup := make([]bool, sr.n)
	for i := range sr.n {
		if js.cand[i] && (y[i] >= 0.5 || fx[i] == 1) {
			sup[i] = true
		}
	}
	ok, err := js.repair(sup, fx)
	if err != nil || !ok {
		return err
	}
	return sr.try(sup)
}

// bbNode is a node of the branch-and-bound: its fixings and a proven
// bound on the cost of its patterns (its parent's until it is solved: a
// child's patterns are among its parent's).
type bbNode struct {
	fx fixing
	lb float64
}

// branch is the branch-and-bound from root, depth first, y = 1 branch
// first, within JointOptions.Nodes: when it finishes it sets the bound,
// optimal and infeasible. Stopped early (a budget, the time limit, an LP
// failure), it sets the bound to the smallest proven bound of the nodes
// left (those on the stack and the one cut short), kept open
// (openBound) or fathomed (fathomBound), and the best cost: every
// pattern cheaper than the best lies in one of them. (Depth first
// leaves the root's shallow siblings open, so this bound rises little
// above the root's; best-bound node selection raises it further but
// keeps costlier patterns on the suite: docs/suppression.md.)
func (sr *jointSearch) branch(root fixing) (jointResult, error) {
	js, res := sr.js, &sr.res
	stack := []bbNode{{root, res.lowerBound}}
	nodes := 0
	complete := true
	left := math.Inf(1) // the bound of the node whose work was cut short
	for len(stack) > 0 {
		if nodes >= js.jo.nodes() {
			complete = false
			res.stopped = errNodes
			break
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		lb, y, feasible, err := sr.relax(nd.fx)
		lb = math.Max(lb, nd.lb) // both proven for the node
		if err != nil {
			complete = false
			res.stopped = err
			if !graceful(err) {
				return *res, err
			}
			left = lb
			break
		}
		if !feasible {
			continue // proven (master)
		}
		if sr.prunes(lb) {
			// Fathomed: no pattern of the node is cheaper than the best;
			// the node's patterns cost at least lb.
			sr.fathomBound = math.Min(sr.fathomBound, lb)
			continue
		}
		bi := sr.mostFractional(nd.fx, y)
		if bi < 0 {
			again, err := sr.integral(y, lb)
			if err != nil {
				res.stopped = err
				complete = false
				left = lb
				break
			}
			if again {
				stack = append(stack, bbNode{nd.fx, lb}) // new cuts: solve again
			}
			continue
		}
		if nodes%8 == 0 {
			if err := sr.round(y, nd.fx); err != nil {
				res.stopped = err
				complete = false
				left = lb
				break
			}
		}
		zero := slices.Clone(nd.fx)
		zero[bi] = 0
		one := slices.Clone(nd.fx)
		one[bi] = 1
		stack = append(stack, bbNode{zero, lb}, bbNode{one, lb})
	}
	best := sr.best
	switch {
	case complete && len(stack) == 0:
		// Every node was fathomed (by a proven bound, or proven
		// infeasible) or left open with its bound (openBound). With the
		// open nodes' bounds pruning too, no pattern costs less than the
		// best within the costs' granularity (prunes): the best is
		// optimal and its cost the bound. Otherwise the bound is the
		// smallest of the nodes' proven bounds and the best cost.
		// (The best may be the incumbent's: then no pattern of the
		// search is cheaper, and the bound is its cost all the same.)
		lb := math.Min(best, math.Min(sr.openBound, sr.fathomBound))
		closed := !math.IsInf(best, 1) && (math.IsInf(sr.openBound, 1) || sr.prunes(sr.openBound))
		res.optimal = res.sup != nil && closed
		if closed {
			lb = best
		}
		if !math.IsInf(lb, 1) && lb > res.lowerBound {
			res.lowerBound = lb
		}
		if math.IsInf(best, 1) {
			res.infeasible = true
		}
	case graceful(res.stopped):
		lb := math.Min(math.Min(best, left), math.Min(sr.openBound, sr.fathomBound))
		for _, nd := range stack {
			lb = math.Min(lb, nd.lb)
		}
		if !math.IsInf(lb, 0) && lb > res.lowerBound {
			res.lowerBound = lb
		}
	}
	if res.stopped != nil && !graceful(res.stopped) {
		return *res, res.stopped
	}
	return *res, nil
}

// relax solves a node's relaxation: master LPs and separation rounds (at
// most 20) while the node is feasible, below the best cost and some cut
// is violated.
func (sr *jointSearch) relax(fx fixing) (lb float64, y []float64, feasible bool, err error) {
	js := sr.js
	lb = math.Inf(-1)
	for r := 0; r < 20; r++ {
		var l float64
		l, y, feasible, err = js.master(fx)
		if !math.IsInf(l, 1) {
			// Each round's bound holds for the node: the largest is kept.
			lb = math.Max(lb, l)
		}
		if err != nil || !feasible || sr.prunes(lb) {
			break
		}
		var added int
		if added, err = js.separate(y); err != nil || added == 0 {
			break
		}
	}
	return lb, y, feasible, err
}

// mostFractional returns the free candidate of fx whose y is the most
// fractional (the first of equals), or -1 when y is integral on them.
func (sr *jointSearch) mostFractional(fx fixing, y []float64) int {
	js := sr.js
	bi, bf := -1, 0.0
	for i := range sr.n {
		if js.cand[i] && fx[i] < 0 {
			f := math.Min(y[i], 1-y[i])
			if f > bf+1e-9 {
				bi, bf = i, f
			}
		}
	}
	return bi
}

// integral handles an integral node with no cut violated: its pattern is
// tried when every intruder LP reaches its level; otherwise new cuts were
// added and the node is to be solved again (again true).
func (sr *jointSearch) integral(y []float64, lb float64) (again bool, err error) {
	js := sr.js
	sup := make([]bool, sr.n)
	for i := range sr.n {
		sup[i] = js.cand[i] && y[i] > 0.5
	}
	ok, err := js.protects(sup, false)
	if err != nil {
		return false, err
	}
	if !ok {
		return true, nil
	}
	if err := sr.try(sup); err != nil {
		return false, err
	}
	if js.costOf(sup) < sr.best-1e-9*math.Max(1, sr.best) || !sr.prunes(lb) {
		// Verified false (a singleton), or the node's proven bound does
		// not show that nothing in it is cheaper than the best (the LP's
		// integral optimum is a float claim, and try keeps a pattern
		// only 1e-9 cheaper than the best): the node stays open, with
		// its proven bound, so no optimality is claimed on it.
		sr.openBound = math.Min(sr.openBound, lb)
	}
	return false, nil
}
