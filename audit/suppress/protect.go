package suppress

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Protect chooses secondary (complementary) suppressions for the primary
// cells of t so that each primary cell keeps an interval that reaches its
// protection levels whatever an intruder does with the margins. It marks
// the chosen cells StatusSecondary with a "secondary" finding saying which
// primary cell they protect and in which relation.
//
// The method generalises the hypercube heuristic (GHMITER, used by
// tau-argus): for each primary cell p, largest first, it picks the cheapest
// "move" — a tensor product of one-dimensional moves, one per dimension,
// each a pair of sibling codes with opposite signs or a path to the total —
// that keeps every relation of the table in balance. Shifting the cells of
// the move by +t and −t is invisible in the published cells, so when the
// cells on the move's negative side are at least the upper protection
// level and those on its positive side at least the lower level, p's
// interval covers [x−L, x+U] once the move's cells are suppressed; later
// suppressions only widen it. Already suppressed cells cost nothing, so
// primaries share complements. Hierarchical codes give paths from a leaf up
// to the sibling of the other side. Cost is the cells' value, contributors
// or count (Options.Cost).
//
// Singletons: a cell with one contributor is known exactly to that
// contributor. A move that uses a singleton other than p would let it
// recover p, so moves without other singletons are preferred; failing
// that, each singleton of the move gets a second move avoiding it.
//
// Primaries the method cannot protect are returned as data
// (Result.Unprotected), not written to the table; callers say so in
// their own words (Unprotected.Warning).
//
// With opt.TimeLimit set, Protect stops choosing complements when it runs
// out and adds a table warning; the result is not an error.
func Protect(ctx context.Context, t *audit.Table, opt Options) (Result, error) {
	run, iv, sp, err := protect(ctx, t, opt)
	res := Result{Run: run, Audit: iv}
	if sp != nil {
		res.Unprotected = sp.out
	}
	return res, err
}

// ProtectAudit is Protect for callers that report the unprotected
// primaries as table warnings: it writes Unprotected.Warning of each to
// t.Warnings (before the run's own warnings, as the method once did) and
// returns the run and the audit of Result.
func ProtectAudit(ctx context.Context, t *audit.Table, opt Options) (audit.SuppressionRun, *audit.Intervals, error) {
	n0 := len(t.Warnings)
	res, err := Protect(ctx, t, opt)
	if len(res.Unprotected) > 0 {
		ws := make([]string, len(res.Unprotected))
		for k, u := range res.Unprotected {
			ws[k] = u.Warning(t)
		}
		t.Warnings = slices.Insert(t.Warnings, min(n0, len(t.Warnings)), ws...)
	}
	return res.Run, res.Audit, err
}

// protect is Protect; it returns the suppressor whose records
// (suppressor.out) say which primaries are left unprotected, or nil.
func protect(ctx context.Context, t *audit.Table, opt Options) (audit.SuppressionRun, *audit.Intervals, *suppressor, error) {
	run := audit.SuppressionRun{Method: MethodFor(t, opt), Cost: opt.Cost, MarginWeight: opt.MarginWeight}
	if run.Cost == "" {
		run.Cost = "value"
	}
	if err := opt.validate(); err != nil {
		return run, nil, nil, err
	}
	s, err := newStructure(t, opt)
	if err != nil {
		return run, nil, nil, err
	}
	sp := &suppressor{s: s, opt: opt, sup: make([]bool, len(t.Cells)), cost: make([]float64, len(t.Cells)), single: make([]bool, len(t.Cells))}
	delta := s.Scale() * 1e-6
	for i, c := range t.Cells {
		sp.sup[i] = s.IsSuppressed(i)
		sp.single[i] = s.Role == audit.RoleTotal && c.HasN && c.N == 1
		switch opt.Cost {
		case "unity":
			sp.cost[i] = 1
		case "count":
			if c.HasN {
				sp.cost[i] = float64(c.N) + 1e-6
			} else {
				sp.cost[i] = math.Abs(s.Val[i]) + delta
			}
		default:
			sp.cost[i] = math.Abs(s.Val[i]) + delta
		}
		if opt.CostOf != nil {
			if v, ok := opt.CostOf(c); ok {
				sp.cost[i] = math.Max(v, 0) + delta
			}
		}
	}
	var prim []int
	for i, c := range t.Cells {
		if c.Status == audit.StatusPrimary {
			prim = append(prim, i)
		}
	}
	sortPrimaries(prim, s.Val)
	var deadline time.Time
	if opt.TimeLimit > 0 {
		deadline = time.Now().Add(opt.TimeLimit)
	}
	// the primaries the rounding alone protects, once for every method
	if err := sp.knowRounded(ctx, prim, deadline); err != nil {
		return run, nil, nil, err
	}
	opt = sp.opt
	if run.Method == "lp" && opt.tuning().CompareLarge {
		run, iv, err := protectBest(ctx, t, opt, s, sp, prim, deadline, run)
		return run, iv, sp, err
	}
	if run.Method == "lp" {
		lm := newLPMethod(s, sp, opt)
		err := lm.run(ctx, prim, deadline)
		if lm.fallback > 0 {
			run.Fallback = lm.fallback
			run.FallbackReason = fallbackReason(lm.fallback)
		}
		run.Stopped = lm.stopped()
		return run, nil, nil, err
	}
	done, err := sp.roundedProtected(ctx, prim, deadline) // rounded.go
	if err != nil {
		return run, nil, nil, err
	}
	for k, p := range prim {
		if err := ctx.Err(); err != nil {
			return run, nil, nil, err
		}
		if done[p] {
			continue
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			t.Warnings = append(t.Warnings, fmt.Sprintf("secondary suppression: time limit %v reached; %d of %d primary cells not protected (the interval audit shows which)",
				opt.TimeLimit, len(prim)-k, len(prim)))
			return run, nil, sp, nil
		}
		sp.protect(p)
	}
	return run, nil, sp, nil
}

// sortPrimaries orders the primary cells prim largest value first, ties
// in their order in prim (cell order). The generic stable sort gives
// sort.SliceStable's order without its reflection and its closure over
// indices (some 900,000 primaries at a million cells).
func sortPrimaries(prim []int, val []float64) {
	slices.SortStableFunc(prim, func(a, b int) int { return lessFirst(val[a] > val[b], val[b] > val[a]) })
}

// joinStops joins the reasons a run stopped early ("" when none).
func joinStops(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func fallbackReason(n int) string {
	return fmt.Sprintf("no deviation of the intruder found among the candidate cells around %d primary cells (the deviation LP has no solution there, or failed): the hypercube method's move protects them", n)
}
