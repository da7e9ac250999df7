package suppress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// The "lp" method (the default): for each primary cell p, largest first,
// and each side (p raised by its upper level U, lowered by its lower
// level L) it solves the intruder's deviation LP
//
//	min Σ c_i·|f_i|  subject to  every relation balanced by f,
//	f_p = +U (or −L),  x_i + f_i ≥ 0,  f_i = 0 outside the candidate cells,
//
// where c_i is the cell's cost and 0 for a cell already suppressed. Any
// such f is a feasible table that publishes the same cells as the true
// one once the cells carrying flow are suppressed, so p's interval then
// reaches x+U (x−L); the cells with f_i ≠ 0 are suppressed. Unlike a
// hypercube move, the deviation may spread over several rectangles, so
// a large primary need not go up through the totals. When every primary
// is protected, the secondary cells are tried again, most costly first,
// and dropped when the interval audit shows every primary still
// protected (also against each singleton's contributor); see
// docs/suppression.md for the limits.
//
// Margins (cells that are the total of a relation) are candidates only
// when no interior pattern exists (Options.MarginWeight 0), or at their
// cost times MarginWeight. Singletons other than p (and p's margins) are
// avoided as in Protect's hypercube method.

// MethodFor returns the method Protect uses for t: "lp" (the default, at
// every table size) or "hypercube" (Options.Method).
func MethodFor(t *audit.Table, opt Options) string {
	if opt.Method == "hypercube" {
		return "hypercube"
	}
	return "lp"
}

// lpWholeTable is the largest table whose deviation LPs span every cell;
// larger tables use a box of candidate codes around each primary.
const lpWholeTable = 400

// redundancyBudget bounds the number of interval audits of the redundancy
// pass that re-audits the whole table per candidate (tables up to
// Tuning.RedundancyLimit).
const redundancyBudget = 4000

type lpMethod struct {
	s      *structure
	sp     *suppressor
	opt    Options
	tune   Tuning // opt.tuning()
	margin []bool
	// added lists the secondary cells chosen, in order; by[i] is the
	// primary a cell protects and viaMargin whether it is a total chosen
	// because no interior pattern exists.
	added     []int
	hyper     map[int]bool // chosen by the hypercube fallback (final)
	by        map[int]int
	viaMargin map[int]bool
	fallback  int // primaries given the hypercube move (no deviation found)
	// tol is 1e-9 of the table's largest value: flows below it are zero
	// where no level is at stake; a judgment on a level uses
	// searchTol(tol, level), a flow of a deviation flowTol(tol, dev).
	tol float64
	// rec holds, per primary, the cells (other than itself) of the move or
	// deviations that protect it, as a starting support for dropLocal.
	rec map[int][]int
	// deadline is the user's hard stop (Options.TimeLimit; zero: none):
	// every stage checks it, the redundancy passes too.
	deadline time.Time
	// audits counts the interval audits of the redundancy pass.
	audits int
	// work is the counted work spent so far (LPOptions.Work's units:
	// spend, moveWork) and budget the lp method's budget (+Inf: none).
	work, budget float64
	// stop records where the budget ran out (nil: it did not).
	stop *lpStop
}

// lpStop says where the lp method's work budget ran out: after
// protected primaries of total had their own deviations (or move), rest
// others got the hypercube method's move; or, with rest 0 and redundancy
// set, during the redundancy pass.
type lpStop struct {
	budget                 float64
	protected, rest, total int
	redundancy             bool
}

// searchTol is the float tolerance of a search's judgment on a level (a
// primary's deviation reaching it, a flow or a cut's right-hand side
// measured against it): the table-scaled tol, but at most 1e-7 of the
// level. The interval audit, which gates every pattern, allows at most
// 1e-6 of the level (intervals.levelTol): a pattern a search calls
// protected must not be one the audit then refuses, so float noise makes
// a search's primary unprotected first. Before, a table whose largest
// value is 2e9 (tol about 6 with its grand total) let a search call a
// primary with level 10 protected when it could move only 5.
func searchTol(tol, level float64) float64 {
	return min(tol, 1e-7*math.Abs(level))
}

// flowTol is the threshold below which a deviation's flow through a cell
// is taken as zero (the cell is left out of the pattern): the
// table-scaled tol, but at most 1e-3 of the deviation dev, so that on a
// table whose largest value is 2e9 (tol about 6) a flow of 5 in a
// deviation of 10 keeps its cell. Not searchTol's 1e-7: a flow is a
// simplex value, whose noise grows with the table's scale (on tau-argus's
// pp.tab, scale 1e7, noise flows of 1e-4 put spurious cells in the
// pattern).
func flowTol(tol, dev float64) float64 {
	return min(tol, 1e-3*math.Abs(dev))
}

// spend adds units of counted work (LPOptions.Work).
func (lm *lpMethod) spend(units float64) { lm.work += units }

// spent reports whether the work budget is spent.
func (lm *lpMethod) spent() bool { return lm.work > lm.budget }

// moveWeight is the counted work of one combination a move search may
// examine (or one code of a line it reads), in tableau entries: a unit
// of move search then costs about what a unit of deviation LP costs
// (measured on cells_300.csv, thread CPU time: some 0.06 ms each).
const moveWeight = 250

// moveWork counts one move search through p (bestMove, sp.protect): the
// combinations it may examine (the product of the one-dimensional move
// counts through p's codes, at most maxCombos) and the codes it reads
// (their sum). It depends on the table, not on how the search prunes.
// The counts are the run's cached Count1D (suppressor.count1D): the same
// units as Count1D's, without walking a dimension's codes at every call.
func (lm *lpMethod) moveWork(p int) {
	s := lm.s
	combos, codes := 1, 0
	for d := 0; d < s.NDim; d++ {
		c := lm.sp.count1D(d, s.Keys[p][d])
		combos = min(combos*max(c, 1), maxCombos)
		codes += c
	}
	lm.spend(float64(combos+codes) * moveWeight / 1e6)
}

// expired reports whether the user's time limit has run out.
func (lm *lpMethod) expired() bool {
	return !lm.deadline.IsZero() && time.Now().After(lm.deadline)
}

// remaining is the time left before the deadline for an audit run inside
// the search (at least 1 ns: an expired limit still bounds it), or 0 when
// there is no deadline.
func (lm *lpMethod) remaining() time.Duration {
	if lm.deadline.IsZero() {
		return 0
	}
	return max(time.Until(lm.deadline), time.Nanosecond)
}

func newLPMethod(s *structure, sp *suppressor, opt Options) *lpMethod {
	lm := &lpMethod{s: s, sp: sp, opt: opt, tune: opt.tuning(), margin: make([]bool, len(s.T.Cells)), by: map[int]int{}, viaMargin: map[int]bool{}, hyper: map[int]bool{}, rec: map[int][]int{}}
	for _, r := range s.Rels {
		lm.margin[r.Total] = true
	}
	lm.tol = 1e-9 * s.Scale()
	lm.budget = opt.LP.work()
	return lm
}

// run protects every primary of prim (in order) and then drops redundant
// secondary cells.
func (lm *lpMethod) run(ctx context.Context, prim []int, deadline time.Time) error {
	s := lm.s
	lm.deadline = deadline
	// A primary the rounding of the published values already protects
	// needs no complement (rounded.go).
	done, err := lm.sp.roundedProtected(ctx, prim, deadline)
	if err != nil {
		return err
	}
	for k, p := range prim {
		if err := ctx.Err(); err != nil {
			return err
		}
		if done[p] {
			continue
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			s.T.Warnings = append(s.T.Warnings, fmt.Sprintf("secondary suppression: time limit %v reached; %d of %d primary cells not protected (the interval audit shows which)",
				lm.opt.TimeLimit, len(prim)-k, len(prim)))
			lm.finish()
			return nil
		}
		if lm.spent() {
			// The work budget is spent: the others get the hypercube
			// method's move, and no redundancy pass runs.
			return lm.protectRest(ctx, prim, k, done)
		}
		if err := lm.protect(ctx, p); err != nil {
			return err
		}
	}
	if err := lm.dropRedundant(ctx, prim); err != nil {
		return err
	}
	lm.finish()
	return nil
}

// protectRest gives every primary of prim[k:] not yet protected (done:
// the rounding protects it) the hypercube method's move (sp.protect, its
// warnings as there), once the work budget is spent: each is protected,
// at a higher cost than its own deviations would give, and the pattern
// stays the same on any machine. The user's time limit still stops it.
func (lm *lpMethod) protectRest(ctx context.Context, prim []int, k int, done map[int]bool) error {
	s := lm.s
	// total counts the primaries that need a pattern (the rounding
	// protects the others), so that protected + rest = total.
	st := &lpStop{budget: lm.budget}
	for j, p := range prim {
		if !done[p] {
			st.total++
			if j < k {
				st.protected++
			}
		}
	}
	lm.stop = st
	for j, p := range prim[k:] {
		if err := ctx.Err(); err != nil {
			return err
		}
		if done[p] {
			continue
		}
		if lm.expired() {
			s.T.Warnings = append(s.T.Warnings, fmt.Sprintf("secondary suppression: time limit %v reached; %d of %d primary cells not protected (the interval audit shows which)",
				lm.opt.TimeLimit, len(prim)-k-j, len(prim)))
			break
		}
		lm.moveWork(p)
		lm.sp.protect(p)
		delete(lm.rec, p)
		st.rest++
	}
	if st.rest > 0 {
		lm.adoptHypercube(prim[k]) // once: the cells the moves suppressed
	}
	s.T.Warnings = append(s.T.Warnings, st.warning())
	lm.finish()
	return nil
}

// stopRedundancy records that the budget ran out in a redundancy pass,
// with its table warning.
func (lm *lpMethod) stopRedundancy() {
	if lm.stop != nil {
		return
	}
	lm.stop = &lpStop{budget: lm.budget, redundancy: true}
	lm.s.T.Warnings = append(lm.s.T.Warnings, lm.stop.warning())
}

// warning is the table warning of a spent budget (deterministic: counts,
// no times).
func (st *lpStop) warning() string {
	if st.redundancy {
		return fmt.Sprintf("secondary suppression: the lp method's work budget (%.0f units) was spent during its redundancy pass: the cells not yet tried stay suppressed (the pattern stays protected, at a higher cost)", st.budget)
	}
	return fmt.Sprintf("secondary suppression: the lp method's work budget (%.0f units) was spent after %d of %d primary cells: the other %d were given the hypercube method's move instead of their own deviations (more cells suppressed; the interval audit checks every primary)",
		st.budget, st.protected, st.total, st.rest)
}

// stopped is the run's "stopped" for a spent budget ("" when not spent).
func (lm *lpMethod) stopped() string {
	st := lm.stop
	switch {
	case st == nil:
		return ""
	case st.redundancy:
		return fmt.Sprintf("the lp method's work budget (%.0f units of counted work: LP pivots x tableau entries and move combinations, in 10^6) was spent during its redundancy pass: the cells not yet tried stay suppressed", st.budget)
	}
	return fmt.Sprintf("the lp method's work budget (%.0f units of counted work: LP pivots x tableau entries and move combinations, in 10^6) was spent after %d of %d primary cells: the other %d were given the hypercube method's move",
		st.budget, st.protected, st.total, st.rest)
}

// protect protects primary p on both sides.
func (lm *lpMethod) protect(ctx context.Context, p int) error {
	s, sp := lm.s, lm.sp
	x := s.Val[p]
	up, low := s.levels(lm.opt, p, x)
	if up <= 0 {
		// No level (a zero cell without a minimum): the interval must
		// only not be a point.
		up = 1000 * lm.tol
	}
	if m := lm.protectedNow(p, up, low); m != nil {
		lm.record(p, m.cells)
		return nil
	}
	// In a boxed table the hypercube method's best move (no singleton
	// that could recover p) is the bar: its search covers every sibling
	// combination, the box only the most promising codes. The deviation
	// is used when it is cheaper (a move that suppresses a total counts
	// only when totals are allowed at a weight).
	limit := math.Inf(1)
	var hm *move
	if len(s.T.Cells) > lpWholeTable {
		noSingles := func(i int) bool { return i != p && sp.singleton(i) && !s.Covers(i, p) }
		lm.moveWork(p)
		if hm = sp.bestMove(p, up, low, noSingles); hm != nil {
			limit = lm.moveCost(hm)
		}
	}
	for k, side := range []float64{up, -low} {
		if side == 0 {
			continue
		}
		if k > 0 {
			limit = math.Inf(1)
		}
		ok, hyper, err := lm.protectSide(ctx, p, side, limit)
		if err != nil {
			return err
		}
		if hyper {
			delete(lm.rec, p)
			lm.record(p, hm.cells)
			sp.apply(p, hm)
			lm.adoptHypercube(p)
			return nil
		}
		if !ok {
			// No deviation within the candidate cells (or the LP failed):
			// the hypercube method's move, or its warning.
			delete(lm.rec, p)
			lm.moveWork(p)
			sp.protect(p)
			lm.adoptHypercube(p)
			lm.fallback++
			return nil
		}
	}
	return nil
}

// moveCost is the cost of the cells of m not yet suppressed, totals at
// the margin weight; +Inf when m suppresses a total and the weight is 0
// (totals only when nothing else protects the primary).
func (lm *lpMethod) moveCost(m *move) float64 {
	c := 0.0
	for _, i := range m.cells {
		if lm.sp.sup[i] {
			continue
		}
		if lm.margin[i] {
			if lm.opt.MarginWeight == 0 {
				return math.Inf(1)
			}
			c += lm.sp.cost[i] * lm.opt.MarginWeight
			continue
		}
		c += lm.sp.cost[i]
	}
	return c
}

// protectedNow reports whether the cells already suppressed protect p: a
// balanced move (a hypercube move, as the hypercube method and the
// audit's witnesses use) through suppressed cells only, no singleton
// among them that could recover p, whose cells leave room for p's levels.
// Then p's interval reaches x+U and x−L whatever else is suppressed, and
// no deviation LP is needed (most primaries of a dense table).
//
// It returns the move, or nil.
func (lm *lpMethod) protectedNow(p int, up, low float64) *move {
	s, sp := lm.s, lm.sp
	forbid := func(i int) bool {
		return i != p && (!sp.sup[i] || (sp.singleton(i) && !s.Covers(i, p)))
	}
	lm.moveWork(p)
	return sp.bestMove(p, up, low, forbid)
}

// record adds cells to p's recorded support (see rec).
func (lm *lpMethod) record(p int, cells []int) {
	for _, i := range cells {
		if i != p {
			lm.rec[p] = append(lm.rec[p], i)
		}
	}
}

// adoptHypercube records cells that the hypercube fallback suppressed.
func (lm *lpMethod) adoptHypercube(p int) {
	for i, c := range lm.s.T.Cells {
		if c.Status == audit.StatusSecondary {
			if _, ok := lm.by[i]; !ok {
				lm.by[i] = p
				lm.hyper[i] = true
				lm.added = append(lm.added, i)
			}
		}
	}
}

type lpPhase struct{ margins, singles bool }

// protectSide finds and applies a deviation of p by dev (+U or −L).
//
// A deviation that costs limit or more is not applied: hyper is then true
// (the caller's hypercube move is no more costly).
func (lm *lpMethod) protectSide(ctx context.Context, p int, dev, limit float64) (ok, hyper bool, err error) {
	s, sp := lm.s, lm.sp
	single := func(i int) bool { return i != p && sp.singleton(i) && !s.Covers(i, p) }
	phases := []lpPhase{{false, false}, {false, true}, {true, false}, {true, true}}
	if lm.opt.MarginWeight > 0 {
		phases = []lpPhase{{true, false}, {true, true}}
	}
	var boxes [][]int
	if len(s.T.Cells) <= lpWholeTable {
		boxes = [][]int{lm.box(p, 0)}
	} else {
		for _, size := range lm.tune.BoxCells {
			boxes = append(boxes, lm.box(p, size))
		}
	}
	for _, ph := range phases {
		for _, box := range boxes {
			allow := func(i int) bool {
				return (ph.margins || !lm.margin[i]) && (ph.singles || !single(i))
			}
			f, ok, err := lm.deviation(ctx, p, box, dev, allow)
			if err != nil {
				return false, false, err
			}
			if !ok {
				continue
			}
			if !math.IsInf(limit, 1) {
				c := 0.0
				for _, i := range f {
					if !sp.sup[i] {
						w := 1.0
						if lm.margin[i] && lm.opt.MarginWeight > 0 {
							w = lm.opt.MarginWeight
						}
						c += sp.cost[i] * w
					}
				}
				if c >= limit {
					return false, true, nil
				}
			}
			marginUsed := ph.margins && lm.opt.MarginWeight == 0
			var singles []int
			for _, i := range f {
				if single(i) {
					singles = append(singles, i)
				}
			}
			lm.apply(p, f, marginUsed)
			lm.record(p, f)
			for _, sg := range singles {
				if err := lm.avoidSingleton(ctx, p, sg, dev, boxes, ph.margins, single); err != nil {
					return false, false, err
				}
			}
			return true, false, nil
		}
	}
	return false, false, nil
}

// avoidSingleton gives p a second deviation that avoids singleton sg (its
// contributor knows it), using margins only if needed (or already allowed).
func (lm *lpMethod) avoidSingleton(ctx context.Context, p, sg int, dev float64, boxes [][]int, margins bool, single func(int) bool) error {
	for _, m := range []bool{margins, true} {
		for _, box := range boxes {
			avoid := func(i int) bool { return i != sg && (m || !lm.margin[i]) }
			g, ok, err := lm.deviation(ctx, p, box, dev, avoid)
			if err != nil || ok {
				if ok {
					lm.apply(p, g, m && lm.opt.MarginWeight == 0)
				}
				return err
			}
		}
	}
	lm.sp.out = append(lm.sp.out, Unprotected{Cell: p, Reason: Singleton, By: sg})
	return nil
}

// apply suppresses the cells of f not yet suppressed.
func (lm *lpMethod) apply(p int, f []int, viaMargin bool) {
	for _, i := range f {
		if lm.sp.sup[i] {
			continue
		}
		lm.sp.sup[i] = true
		lm.by[i] = p
		if viaMargin && lm.margin[i] {
			lm.viaMargin[i] = true
		}
		lm.added = append(lm.added, i)
	}
}

// box returns the candidate cells for p's deviations: the whole table
// when it is small, else the cells whose code in every dimension is p's
// code, one of its ancestors, or one of the most promising siblings or
// children of p's code (so many that the box has about size cells).
func (lm *lpMethod) box(p int, size float64) []int {
	s, sp := lm.s, lm.sp
	n := len(s.T.Cells)
	if n <= lpWholeTable {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	nd := s.NDim
	key := s.Keys[p]
	up, _ := s.levels(lm.opt, p, s.Val[p])
	k := max(2, int(math.Pow(size, 1/float64(nd)))-1)
	codes := make([][]int, nd)
	tuple := append([]int(nil), key...)
	for d := 0; d < nd; d++ {
		for c := key[d]; c >= 0; c = s.Parent[d][c] {
			codes[d] = append(codes[d], c)
		}
		var cand []int
		if par := s.Parent[d][key[d]]; par >= 0 {
			for _, c := range s.Children[d][par] {
				if c != key[d] {
					cand = append(cand, c)
				}
			}
		}
		cand = append(cand, s.Children[d][key[d]]...)
		score := make(map[int]float64, len(cand))
		for _, c := range cand {
			tuple[d] = c
			j := s.Lookup(tuple)
			switch {
			case j < 0:
				score[c] = math.Inf(1)
			case sp.sup[j]:
				score[c] = 0
			default:
				score[c] = sp.cost[j] / math.Max(math.Min(s.Val[j], up), lm.tol+1e-12)
			}
		}
		tuple[d] = key[d]
		sort.SliceStable(cand, func(a, b int) bool { return score[cand[a]] < score[cand[b]] })
		if len(cand) > k {
			cand = cand[:k]
		}
		codes[d] = append(codes[d], cand...)
	}
	return s.BoxCells(codes)
}

// deviation solves p's deviation LP over the cells of box that allow
// admits (p itself always) and returns the cells other than p that carry
// flow (suppressed or not), or ok false when no deviation exists.
func (lm *lpMethod) deviation(ctx context.Context, p int, box []int, dev float64, allow func(int) bool) ([]int, bool, error) {
	return lm.deviationCost(ctx, p, box, dev, allow, nil)
}

// deviationCost is deviation with the cost of a cell's flow given by
// costOf (nil: the cell's cost, 0 when it is already suppressed).
func (lm *lpMethod) deviationCost(ctx context.Context, p int, box []int, dev float64, allow func(int) bool, costOf func(int) float64) ([]int, bool, error) {
	s, sp := lm.s, lm.sp
	// Variables: a_j (increase) and b_j (decrease, with slack for
	// b_j ≤ x_j) per admitted cell other than p.
	local := make(map[int]lpVars, len(box))
	var cells []int
	nv := 0
	keep := lm.opt.Keep
	for _, j := range box {
		if j == p || !allow(j) || (keep != nil && !sp.sup[j] && keep(s.T.Cells[j])) {
			continue // a kept cell (Options.Keep) stays published: it cannot move
		}
		v := lpVars{a: nv, b: -1, slack: -1}
		nv++
		if x := s.Val[j]; s.Known[j] && x > 0 {
			v.b, v.slack = nv, nv+1
			nv += 2
		}
		local[j] = v
		cells = append(cells, j)
	}
	rows, ok := lm.relRows(p, dev, cells, func(j int) (lpVars, bool) { v, ok := local[j]; return v, ok })
	if !ok {
		return nil, false, nil
	}
	cost := make([]float64, nv)
	for _, j := range cells {
		v := local[j]
		rows = lm.capRow(rows, v.b, v.slack, s.Val[j])
		c := 0.0
		switch {
		case costOf != nil:
			c = costOf(j)
		case !sp.sup[j]:
			c = sp.cost[j]
			if lm.margin[j] && lm.opt.MarginWeight > 0 {
				c *= lm.opt.MarginWeight
			}
		}
		cost[v.a] = c
		if v.b >= 0 {
			cost[v.b] = c
		}
	}
	// The work counted: the tableau's entries (rows × columns) once to
	// build it and once per pivot (the cost of a dense pivot). A phase 1
	// that fails reports no pivots: an infeasible one counts rows +
	// columns pivots, one past its iteration limit that limit
	// (lp.Solver.run's, 50·(rows+columns)+1000).
	m := len(rows)
	entries := float64(m) * float64(nv)
	solver, err := lp.New(ctx, nv, rows)
	switch {
	case errors.Is(err, lp.ErrInfeasible):
		lm.spend(float64(1+m+nv) * entries / 1e6)
		return nil, false, nil
	case errors.Is(err, lp.ErrIterations):
		lm.spend(float64(1+50*(m+nv)+1000) * entries / 1e6)
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	_, err = solver.Minimize(ctx, cost)
	lm.spend(float64(1+solver.Pivots) * entries / 1e6)
	if errors.Is(err, lp.ErrIterations) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	// A flow that matters to the deviation dev (flowTol) puts its cell in
	// the pattern: one left out could leave p short of dev.
	tol := flowTol(lm.tol, dev)
	var out []int
	for _, j := range cells {
		v := local[j]
		f := solver.Value(v.a)
		if v.b >= 0 {
			f -= solver.Value(v.b)
		}
		if math.Abs(f) > tol {
			out = append(out, j)
		}
	}
	return out, true, nil
}

// lpVars are the LP variables of a cell: increase a, decrease b (-1 when
// the cell cannot decrease) and the slack of b ≤ x.
type lpVars struct{ a, b, slack int }

// relRows returns the relations through p and cells as rows over the
// cells' variables, p deviating by dev; ok is false when a relation has
// no variable to balance p.
func (lm *lpMethod) relRows(p int, dev float64, cells []int, local func(int) (lpVars, bool)) (rows []lp.Row, ok bool) {
	s := lm.s
	tol := searchTol(lm.tol, dev) // a relation p alone moves by dev
	seen := map[int32]bool{}
	addRel := func(r int32) bool {
		if seen[r] {
			return true
		}
		seen[r] = true
		var row lp.Row
		for _, j := range s.RelCells(int(r)) {
			c := s.Coef(int(r), j)
			if j == p {
				row.RHS -= c * dev
				continue
			}
			v, ok := local(j)
			if !ok {
				continue
			}
			row.Idx = append(row.Idx, v.a)
			row.Coef = append(row.Coef, c)
			if v.b >= 0 {
				row.Idx = append(row.Idx, v.b)
				row.Coef = append(row.Coef, -c)
			}
		}
		if len(row.Idx) == 0 {
			return math.Abs(row.RHS) <= tol
		}
		rows = append(rows, row)
		return true
	}
	for _, r := range s.CellRels[p] {
		if !addRel(r) {
			return nil, false
		}
	}
	for _, j := range cells {
		for _, r := range s.CellRels[j] {
			if !addRel(r) {
				return nil, false
			}
		}
	}
	return rows, true
}

// capRow adds b + slack = x (the decrease of a cell is at most its value).
func (lm *lpMethod) capRow(rows []lp.Row, b, slack int, x float64) []lp.Row {
	if b < 0 {
		return rows
	}
	return append(rows, lp.Row{Idx: []int{b, slack}, Coef: []float64{1, 1}, RHS: x})
}

// dropRedundant tries the secondary cells again, most costly first, and
// keeps one unsuppressed when the interval audit (full LPs on a small
// table) shows every primary still protected, also with any one
// suppressed singleton published (its contributor knows it).
func (lm *lpMethod) dropRedundant(ctx context.Context, prim []int) error {
	s, sp := lm.s, lm.sp
	if len(lm.added) == 0 {
		return nil
	}
	if len(s.T.Cells) > lm.tune.RedundancyLimit {
		if !lm.tune.LocalRedundancy {
			return nil
		}
		return lm.dropLocal(ctx, prim)
	}
	var cand []int
	for _, i := range lm.added {
		if !lm.hyper[i] {
			cand = append(cand, i)
		}
	}
	sort.SliceStable(cand, func(a, b int) bool { return sp.cost[cand[a]] > sp.cost[cand[b]] })
	budget := redundancyBudget
	for _, c := range cand {
		if err := ctx.Err(); err != nil {
			return err
		}
		if lm.expired() {
			// The user's hard stop: the cells not tried stay suppressed
			// (the pattern stays protected, only costlier).
			break
		}
		if lm.spent() {
			lm.stopRedundancy() // as the hard stop, deterministically
			break
		}
		sp.sup[c] = false
		ok, err := lm.allProtected(ctx, prim, &budget)
		if err != nil {
			return err
		}
		if !ok {
			sp.sup[c] = true
			if budget <= 0 {
				return nil
			}
			continue
		}
		delete(lm.by, c)
		delete(lm.viaMargin, c)
	}
	kept := lm.added[:0]
	for _, i := range lm.added {
		if sp.sup[i] {
			kept = append(kept, i)
		}
	}
	lm.added = kept
	return nil
}

// allProtected audits the pattern sp.sup: every primary's inner interval
// reaches its levels, and no singleton's contributor narrows a primary
// it does not cover below its levels.
func (lm *lpMethod) allProtected(ctx context.Context, prim []int, budget *int) (bool, error) {
	s, sp := lm.s, lm.sp
	check := func(except int) (bool, error) {
		if *budget <= 0 {
			return false, nil
		}
		*budget--
		lm.audits++
		iv, err := intervals.Check(ctx, s.Structure, sp.sup, lm.opt.checkOptions(1, lm.remaining(), except, len(s.T.Cells)))
		if err != nil {
			return false, err
		}
		for _, p := range prim {
			if p == except || (except >= 0 && s.Covers(except, p)) {
				continue
			}
			x := s.Val[p]
			up, down := s.levels(lm.opt, p, x)
			if !iv.Reaches(p, x, up, down) {
				return false, nil
			}
		}
		return true, nil
	}
	if ok, err := check(-1); !ok || err != nil {
		return ok, err
	}
	for i := range s.T.Cells {
		if !sp.sup[i] || !sp.singleton(i) {
			continue
		}
		sp.sup[i] = false
		ok, err := check(i)
		sp.sup[i] = true
		if !ok || err != nil {
			return ok, err
		}
	}
	return true, nil
}

// finish marks the chosen cells secondary with their findings.
func (lm *lpMethod) finish() {
	s := lm.s
	for _, i := range lm.added {
		c := s.T.Cells[i]
		if c.Status == audit.StatusSecondary {
			continue // the hypercube fallback marked it
		}
		p := lm.by[i]
		where := "(it carries part of the intruder's deviation of that cell)"
		for _, r := range s.CellRels[i] {
			if s.InRel(int(r), p) {
				where = "in " + s.Describe(int(r))
				break
			}
		}
		pk := s.T.KeyString(s.T.Cells[p].Key)
		msg := fmt.Sprintf("protects %s %s", pk, where)
		if lm.viaMargin[i] {
			if len(s.T.Cells) > lpWholeTable {
				msg += fmt.Sprintf("; a total, suppressed because no pattern of interior cells among the candidate cells around %s protects it", pk)
			} else {
				msg += fmt.Sprintf("; a total, suppressed because no pattern of interior cells protects %s", pk)
			}
		}
		c.Findings = append(c.Findings, audit.Said("secondary", audit.Fail, msg, []audit.Figure{audit.TextFig("protects", pk)}))
		c.Notes = append(c.Notes, msg)
		c.Status = audit.StatusSecondary
	}
}
