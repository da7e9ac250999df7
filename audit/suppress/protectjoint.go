package suppress

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
)

// candidate is one verified pattern offered to protectBest.
type candidate struct {
	name  string
	state tableState
	sup   []bool
	cost  float64 // objective cost (totals at the margin weight when it is positive)
	plain float64 // plain cost (addedCost)
	bad   int     // primaries the interval audit does not call protected
	// totals: the pattern suppresses a total (with margin weight 0 such
	// a pattern loses against one of interior cells that protects as
	// many primaries: totals only when no interior pattern exists)
	totals bool
	iv     *audit.Intervals
	// full: iv is the whole interval audit (Audit's), not only its
	// verdicts (unprotectedPrimaries)
	full bool
	run  audit.SuppressionRun
	// unprot are the primaries the method left unprotected (suppressor.out)
	unprot []Unprotected
}

// protectBest is the lp method (the default) at every table size: it
// runs the hypercube method (the incumbent: the pattern kept is never
// costlier than its pattern when both protect as many primaries), the
// per-primary deviation LPs (lpMethod) and, on tables up to
// Options.Joint.MaxCells cells, the joint search (joint.go), audits each
// pattern and keeps the one with the fewest primaries the interval audit
// does not call protected, then the cheapest (ties: lp, joint,
// hypercube). The joint search's proven lower bound is reported with the
// kept pattern's cost and the gap. Every step is deterministic; the
// user's time limit (deadline) and ctx only cut them short.
func protectBest(ctx context.Context, t *audit.Table, opt Options, s *structure, sp *suppressor, prim []int, deadline time.Time, run audit.SuppressionRun) (audit.SuppressionRun, *audit.Intervals, error) {
	orig := snapshot(t)
	origSup := slices.Clone(sp.sup)
	lm0 := newLPMethod(s, sp, opt)
	po := &patternOffers{
		ctx: ctx, t: t, opt: opt, sp: sp, orig: orig, origSup: origSup,
		objCost: objectiveCosts(t, opt, s, lm0.margin), margin: lm0.margin, deadline: deadline,
	}

	// The lp method's pattern.
	lm := newLPMethod(s, sp, opt)
	if err := lm.run(ctx, prim, deadline); err != nil {
		return run, nil, err
	}
	lrun := run
	if lm.fallback > 0 {
		lrun.Fallback = lm.fallback
		lrun.FallbackReason = fallbackReason(lm.fallback)
	}
	if err := po.add("lp", lrun); err != nil {
		return run, nil, err
	}

	// The joint search, from the better of the two others as incumbent.
	var jres *jointResult
	var js0 *jointSolver
	jointTried := !opt.Joint.Off && len(prim) > 0
	boundOnly := len(t.Cells) > opt.Joint.maxCells()
	// The hypercube method's pattern (the incumbent).
	hopt := opt
	hopt.Method = "hypercube"
	hopt.TimeLimit = po.remaining()
	hres, err := Protect(ctx, t, hopt)
	if err != nil {
		return run, nil, err
	}
	sp.out = hres.Unprotected
	if err := po.add("hypercube", run); err != nil {
		return run, nil, err
	}
	if jointTried {
		jres, js0, err = po.joint(s, prim, boundOnly, run)
		if err != nil {
			return run, nil, err
		}
	}

	best, out := po.keep()
	jointReport(&out, best, jres, js0, opt, deadline)
	if msg := lm.stopped(); msg != "" {
		// The lp method's budget (its pattern was offered all the same):
		// why the kept pattern's search stopped early only when it is the
		// lp method's; else the reason says it of the pattern not kept.
		if best.name == "lp" {
			out.Stopped = joinStops(msg, out.Stopped)
		} else {
			out.ChosenReason += "; the lp pattern, not kept, was found with its budget spent: " + msg
		}
	}
	iv, err := po.finalAudit(best)
	if err != nil {
		return out, nil, err
	}
	return out, iv, nil
}

// finalAudit returns the audit of the kept pattern best, restored on the
// table: the offers were compared by their verdicts, so unless best's
// audit is already the whole one (full) the pattern gets the whole audit
// (exact bounds of its large components), once, for the report. Should
// the time limit leave no time for it, or cut it short with fewer cells
// settled, the verdicts' audit stands and its warnings say so.
func (po *patternOffers) finalAudit(best candidate) (*audit.Intervals, error) {
	iv := best.iv
	if iv == nil || best.full {
		return iv, nil
	}
	if po.deadline.IsZero() || time.Now().Before(po.deadline) {
		full, err := Audit(po.ctx, po.t, po.auditOpt())
		if err != nil {
			return nil, err
		}
		if full.Undetermined <= iv.Undetermined {
			return &full, nil
		}
	}
	kept := *iv
	kept.Warnings = append(slices.Clone(iv.Warnings), exactCutWarning(po.opt.TimeLimit, iv.Approximate))
	return &kept, nil
}

// exactCutWarning says that the time limit stopped the exact bounds of
// the kept pattern's audit: its verdicts stand, n intervals are inner
// bounds.
func exactCutWarning(limit time.Duration, n int) string {
	return fmt.Sprintf("interval audit: time limit %v reached before the exact bounds of the pattern kept: every verdict is settled, %d intervals are inner bounds (approximate)", limit, n)
}

// objectiveCosts returns each cell's cost in protectBest's objective: the
// plain cost of the cost model (no tie-break for empty cells: the bound
// and the reported cost are in the cost model's units), Options.CostOf's
// where it has one, times the margin weight on margin cells when it is
// positive.
func objectiveCosts(t *audit.Table, opt Options, s *structure, margin []bool) []float64 {
	objCost := make([]float64, len(t.Cells))
	for i, c := range t.Cells {
		// The plain cost (no tie-break for empty cells): the bound and the
		// reported cost are in the cost model's units.
		switch opt.Cost {
		case "unity":
			objCost[i] = 1
		case "count":
			if c.HasN {
				objCost[i] = float64(c.N)
			} else {
				objCost[i] = math.Abs(s.Val[i])
			}
		default:
			objCost[i] = math.Abs(s.Val[i])
		}
		if opt.CostOf != nil {
			// a cell's own cost (tau-argus's cost variable, an a-priori
			// file, the previous release) as the other methods see it
			if v, ok := opt.CostOf(c); ok {
				objCost[i] = math.Max(v, 0)
			}
		}
		if margin[i] && opt.MarginWeight > 0 {
			objCost[i] *= opt.MarginWeight
		}
	}
	return objCost
}

// patternOffers are the patterns protectBest has been offered (cands),
// each audited against the table as it was before (orig, origSup), which
// add restores after each.
type patternOffers struct {
	ctx      context.Context
	t        *audit.Table
	opt      Options
	sp       *suppressor
	orig     tableState
	origSup  []bool
	objCost  []float64 // objectiveCosts
	margin   []bool    // the lp method's margin cells
	deadline time.Time
	cands    []candidate
}

// costOf is the objective cost of the secondary cells the table's pattern
// adds.
func (po *patternOffers) costOf() float64 {
	c := 0.0
	for i, cell := range po.t.Cells {
		if cell.Status == audit.StatusSecondary && po.orig.cells[i].status != audit.StatusSecondary {
			c += po.objCost[i]
		}
	}
	return c
}

// supNow returns the cells the table's pattern suppresses.
func (po *patternOffers) supNow() []bool {
	out := make([]bool, len(po.t.Cells))
	for i, cell := range po.t.Cells {
		out[i] = po.origSup[i] || cell.Status == audit.StatusSecondary
	}
	return out
}

// remaining is the time left to the deadline (0: none).
func (po *patternOffers) remaining() time.Duration {
	if po.deadline.IsZero() {
		return 0
	}
	return max(time.Until(po.deadline), time.Nanosecond)
}

// auditOpt are the options of an interval audit, within the time left.
func (po *patternOffers) auditOpt() Options {
	o := po.opt
	o.TimeLimit = po.remaining()
	return o
}

// add audits the table's pattern and offers it. The audit is done
// once per pattern: a pattern equal to one already offered (the
// methods often agree) takes its audit. A pattern that cannot win
// (dominated: some offered pattern protects every primary, costs no
// more and suppresses a total only if this one does) is not audited:
// bad is then -1 and it is never kept.
func (po *patternOffers) add(name string, r audit.SuppressionRun) error {
	t, sp := po.t, po.sp
	totals := false
	for i, cell := range t.Cells {
		totals = totals || cell.Status == audit.StatusSecondary && po.orig.cells[i].status != audit.StatusSecondary && po.margin[i]
	}
	totals = totals && po.opt.MarginWeight == 0
	c := candidate{name: name, sup: po.supNow(), cost: po.costOf(), plain: addedCost(t, po.orig, sp.cost), totals: totals, run: r, unprot: sp.out}
	var prev *candidate
	for k := range po.cands {
		if po.cands[k].bad >= 0 && sameStatuses(t, po.cands[k].state) {
			prev = &po.cands[k]
			break
		}
	}
	switch {
	case prev != nil:
		c.iv, c.bad, c.full = prev.iv, prev.bad, prev.full
	case dominated(po.cands, c):
		c.bad = -1
	default:
		iv, bad, full, err := unprotectedPrimaries(po.ctx, t, po.auditOpt())
		if err != nil {
			return err
		}
		if po.publishDetermined(iv) {
			// Secondary cells the audit finds exactly disclosed are
			// published: their value follows from the published cells, so
			// publishing them changes no interval, and the pattern costs
			// less. Audited again, not assumed.
			if iv, bad, full, err = unprotectedPrimaries(po.ctx, t, po.auditOpt()); err != nil {
				return err
			}
			c.sup, c.cost, c.plain = po.supNow(), po.costOf(), addedCost(t, po.orig, sp.cost)
			c.totals = false
			for i, cell := range t.Cells {
				c.totals = c.totals || cell.Status == audit.StatusSecondary && po.orig.cells[i].status != audit.StatusSecondary && po.margin[i]
			}
			c.totals = c.totals && po.opt.MarginWeight == 0
		}
		c.iv, c.bad, c.full = iv, bad, full
	}
	c.state = snapshot(t)
	po.cands = append(po.cands, c)
	po.orig.restore(t)
	copy(sp.sup, po.origSup)
	sp.out = nil
	return nil
}

// publishDetermined publishes again the cells the offered pattern made
// secondary that its audit iv finds exactly disclosed (restoring them as
// they were before protect); it reports whether there were any. A cell
// whose value the published cells determine adds no information when
// published, so every interval stays as it was: such a cell costs and
// protects nothing, and an audit that finds it exactly disclosed sends
// the table to a person.
func (po *patternOffers) publishDetermined(iv *audit.Intervals) bool {
	t := po.t
	var exact map[string]bool
	for _, c := range iv.Cells {
		if c.Exact && c.Status == audit.StatusSecondary {
			if exact == nil {
				exact = map[string]bool{}
			}
			exact[t.KeyString(c.Key)] = true
		}
	}
	changed := false
	for i, cell := range t.Cells {
		cs := po.orig.cells[i]
		if cell.Status != audit.StatusSecondary || cs.status == audit.StatusSecondary || !exact[t.KeyString(cell.Key)] {
			continue
		}
		cell.Status, cell.Findings, cell.Notes = cs.status, slices.Clone(cs.findings), slices.Clone(cs.notes)
		changed = true
	}
	return changed
}

// joint runs the joint search from the patterns offered (the cheapest
// verified ones as incumbents) and offers its pattern, if any, as
// "joint" with run.
func (po *patternOffers) joint(s *structure, prim []int, boundOnly bool, run audit.SuppressionRun) (*jointResult, *jointSolver, error) {
	opt, sp, origSup := po.opt, po.sp, po.origSup
	// inc: the cheapest verified pattern of interior cells, the
	// incumbent of the search over interior cells; incAll: the
	// cheapest verified pattern, the incumbent of the search with
	// totals (its patterns suppress a total, so they win only by
	// costing less).
	inc, incAll := math.Inf(1), math.Inf(1)
	for _, c := range po.cands {
		if c.bad == 0 {
			incAll = math.Min(incAll, c.cost)
			if !c.totals {
				inc = math.Min(inc, c.cost)
			}
		}
	}
	res, js, err := runJoint(po.ctx, s, sp, opt, prim, origSup, po.objCost, po.margin, po.deadline, [2]float64{inc, incAll}, boundOnly)
	if err != nil {
		return nil, nil, err
	}
	if res.sup != nil {
		lj := newLPMethod(s, sp, opt)
		for i, v := range res.sup {
			if v && !origSup[i] {
				sp.sup[i] = true
				lj.added = append(lj.added, i)
				lj.by[i] = js.protects1(i, prim)
				if po.margin[i] && opt.MarginWeight == 0 {
					lj.viaMargin[i] = true
				}
			}
		}
		lj.finish()
		if err := po.add("joint", run); err != nil {
			return nil, nil, err
		}
	}
	return &res, js, nil
}

// keep restores the best pattern offered (fewest unprotected, then
// cheapest; ties to the first) on the table and sp and returns it with
// its run, which says why it was chosen over the others.
func (po *patternOffers) keep() (candidate, audit.SuppressionRun) {
	t, sp, cands := po.t, po.sp, po.cands
	bi := 0
	for k, c := range cands {
		b := cands[bi]
		if c.bad < 0 {
			continue // dominated, not audited (add): never the best
		}
		if c.bad < b.bad || c.bad == b.bad && (!c.totals && b.totals || c.totals == b.totals && c.cost < b.cost-1e-9*math.Max(1, b.cost)) {
			bi = k
		}
	}
	best := cands[bi]
	best.state.restore(t)
	copy(sp.sup, best.sup)
	sp.out = best.unprot
	out := best.run
	out.Chosen = best.name
	var others []string
	for k, c := range cands {
		switch {
		case k == bi:
		case c.bad < 0:
			others = append(others, fmt.Sprintf("%s %s (not audited: no cheaper than a pattern that protects every primary)", c.name, fmtCost(c.cost)))
		default:
			others = append(others, fmt.Sprintf("%s %s (%d unprotected)", c.name, fmtCost(c.cost), c.bad))
		}
	}
	checked := "all checked by the interval audit"
	for _, c := range cands {
		if c.bad < 0 {
			checked = "every pattern that could be kept checked by the interval audit"
		}
	}
	out.ChosenReason = fmt.Sprintf("the %s pattern costs %s with %d primary cells the interval audit does not call protected; the others: %s (%s)",
		best.name, fmtCost(best.cost), best.bad, joinComma(others), checked)
	pc := best.cost
	out.PatternCost = &pc
	return best, out
}

// jointReport adds to out the joint search's lower bound and gap against
// the kept pattern best (jres nil: not run), whether best is optimal, and
// why the search, or the whole run, stopped early.
func jointReport(out *audit.SuppressionRun, best candidate, jres *jointResult, js0 *jointSolver, opt Options, deadline time.Time) {
	pc := *out.PatternCost
	// The joint model's cuts read the published values as exact: with
	// the rounding known (Options.Rounded) a pattern may protect without
	// meeting them, so its bound bounds nothing and none is reported.
	if jres != nil && jres.boundOK && opt.Rounded <= 0 {
		lb := jres.lowerBound
		// Proven on the float costs (lagrangeBound, prunes); rounded
		// down by 1e-9 for the decimal values' float representation
		// (at most n ulps apart) and the printed digits.
		lb = lb - 1e-9*math.Max(1, math.Abs(lb))
		if lb < 0 {
			lb = 0
		}
		if lb > pc && best.totals {
			// The kept pattern uses cells outside the joint search's
			// candidates (totals, with margin weight 0): it is the bound.
			lb = pc
		}
		out.LowerBound = &lb
		gap := 0.0
		if pc > 0 {
			gap = (pc - lb) / pc
		}
		out.Gap = &gap
		if jres.optimal && best.name == "joint" {
			out.Optimal = true
		}
	}
	if jres != nil && jres.stopped != nil {
		// Only a reported bound is named (none on a rounded table).
		bound := ""
		if out.LowerBound != nil {
			bound = ", the bound is the one proven so far"
		}
		switch {
		case errors.Is(jres.stopped, errDeadline):
			out.Stopped = fmt.Sprintf("time limit %v reached during the joint search: the best verified pattern found is kept%s", opt.TimeLimit, bound)
		case errors.Is(jres.stopped, errLPFail):
			out.Stopped = "an LP of the joint search failed numerically: the best verified pattern found is kept" + bound
		case errors.Is(jres.stopped, errStalled):
			out.Stopped = fmt.Sprintf("the joint bound's cut rounds stopped when the last %d raised the bound by less than %g%% of it: the bound is the one proven so far", stallRounds, 100*opt.Joint.boundStall())
		case errors.Is(jres.stopped, errBudget):
			out.Stopped = fmt.Sprintf("the joint search's budget (%.0f units of simplex work, %d branch-and-bound nodes, LPs up to %d tableau entries) was spent: the best verified pattern found is kept%s; %s", js0.budget(), opt.Joint.nodes(), opt.Joint.maxTableau(), bound, budgetRanOut(jres.stopped, js0, opt))
		}
	}
	if !deadline.IsZero() && time.Now().After(deadline) && out.Stopped == "" {
		out.Stopped = fmt.Sprintf("time limit %v reached: the best verified pattern found is kept; primaries it does not protect go to review", opt.TimeLimit)
	}
}

// budgetRanOut says which of the joint search's budgets stopped it (err,
// an errBudget).
func budgetRanOut(err error, js *jointSolver, opt Options) string {
	switch {
	case errors.Is(err, errNodes):
		return fmt.Sprintf("what ran out: the branch-and-bound nodes (%d explored)", opt.Joint.nodes())
	case errors.Is(err, errTableau):
		m, n := js.bigLP[0], js.bigLP[1]
		return fmt.Sprintf("what ran out: the tableau size (the next LP needed %d rows x %d columns, %.0f entries, over %d)", m, n, float64(m)*float64(n), opt.Joint.maxTableau())
	case errors.Is(err, errWorkSpent):
		return fmt.Sprintf("what ran out: the simplex work (%.6g units spent of %.6g)", js.work, js.budget())
	}
	return "what ran out: the work budget"
}

// runJoint sets up and runs the joint search: candidates are the cells
// not yet suppressed, known, not kept (Options.Keep) and, with margin
// weight 0, interior (totals join only when no interior pattern
// exists).
//
// inc[0] is the incumbent's cost for the search over interior cells,
// inc[1] for the search with totals (+Inf: none).
func runJoint(ctx context.Context, s *structure, sp *suppressor, opt Options, prim []int, origSup []bool, objCost []float64, margin []bool, deadline time.Time, inc [2]float64, boundOnly bool) (jointResult, *jointSolver, error) {
	n := len(s.T.Cells)
	lm := newLPMethod(s, sp, opt)
	js := &jointSolver{boundOnly: boundOnly, boundedLimit: lm.tune.JointBounded, s: s, opt: opt, jo: opt.Joint, ctx: ctx, deadline: deadline, fixed: slices.Clone(origSup), cand: make([]bool, n), scenCell: make([]bool, n), cost: objCost, single: sp.single, cutSeen: map[string]bool{}, tol: lm.tol}
	done, err := sp.roundedProtected(ctx, prim, deadline) // the rounding protects them: no cut (rounded.go)
	if err != nil {
		return jointResult{}, nil, err
	}
	for _, p := range prim {
		if done[p] {
			continue
		}
		up, low := s.levels(opt, p, s.Val[p])
		if up <= 0 {
			up = 1000 * lm.tol
		}
		// A primary that the cells suppressed before protect (a balanced
		// move through them) can give no cut: every pattern contains them.
		if m := sp.bestMove(p, up, low, func(i int) bool { return i != p && !origSup[i] }); m != nil {
			continue
		}
		js.coms = append(js.coms, commodity{p, 1, up})
		if low > 0 {
			js.coms = append(js.coms, commodity{p, -1, low})
		}
	}
	setCand := func(margins bool) {
		for i, c := range s.T.Cells {
			js.cand[i] = !origSup[i] && s.Known[i] && (opt.Keep == nil || !opt.Keep(c)) && (margins || !margin[i])
		}
	}
	hasSingle := false
	for _, v := range sp.single {
		hasSingle = hasSingle || v
	}
	if hasSingle {
		// The cuts know no singleton: every pattern is audited with each
		// suppressed singleton published in turn before it is kept.
		budget := math.MaxInt
		js.verify = func(sup []bool) (bool, error) {
			saved := slices.Clone(sp.sup)
			defer copy(sp.sup, saved)
			for i := range sp.sup {
				sp.sup[i] = origSup[i] || sup[i]
			}
			lm.deadline = deadline
			return lm.allProtected(ctx, prim, &budget)
		}
	}
	setCand(opt.MarginWeight > 0)
	res, err := js.solve(inc[0])
	if err == nil && res.infeasible && opt.MarginWeight == 0 && res.stopped == nil {
		// No interior pattern: totals join at their cost. Every pattern
		// of this search suppresses a total, so it can win only by
		// costing less than every verified pattern (inc[1]).
		setCand(true)
		js.cuts, js.cutSeen = nil, map[string]bool{}
		res, err = js.solve(inc[1])
	}
	return res, js, err
}

// protects1 names the primary a joint cell is recorded as protecting: the
// first commodity whose cut uses it, else the first primary.
func (js *jointSolver) protects1(i int, prim []int) int {
	for _, c := range js.cuts {
		if slices.Contains(c.idx, i) {
			return js.coms[c.com].p
		}
	}
	return prim[0]
}

func fmtCost(c float64) string {
	return fmt.Sprintf("%.6g", c)
}

func joinComma(s []string) string {
	out := ""
	for k, v := range s {
		if k > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
