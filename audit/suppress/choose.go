package suppress

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
)

// compareLarge enables protectCheaper (tests switch it off to see the lp
// method's own pattern).
var compareLarge = true

// cellState is what Protect changes in a cell.
type cellState struct {
	status   audit.Status
	findings []audit.Finding
	notes    []string
}

type tableState struct {
	cells    []cellState
	warnings []string
}

func snapshot(t *audit.Table) tableState {
	st := tableState{cells: make([]cellState, len(t.Cells)), warnings: slices.Clone(t.Warnings)}
	for i, c := range t.Cells {
		st.cells[i] = cellState{c.Status, slices.Clone(c.Findings), slices.Clone(c.Notes)}
	}
	return st
}

func (st tableState) restore(t *audit.Table) {
	for i, c := range t.Cells {
		cs := st.cells[i]
		c.Status, c.Findings, c.Notes = cs.status, slices.Clone(cs.findings), slices.Clone(cs.notes)
	}
	t.Warnings = slices.Clone(st.warnings)
}

// protectCheaper protects a large table (above redundancyLimit) with the
// lp method and, on the same input, with the hypercube method (fast), and
// keeps the pattern with fewer primaries the interval audit does not call
// protected, then the cheaper one (cost model of Options.Cost, totals at
// their plain cost); the lp pattern on a tie. run.Chosen and
// run.ChosenReason say which and why. Both runs and audits are
// deterministic, so the choice is too. It also returns the interval audit
// of the pattern kept: Audit of t as it is left, computed once.
func protectCheaper(ctx context.Context, t *audit.Table, opt Options, s *structure, sp *suppressor, prim []int, deadline time.Time, run audit.SuppressionRun) (audit.SuppressionRun, *audit.Intervals, error) {
	orig := snapshot(t)
	hopt := opt
	hopt.Method = "hypercube"
	if _, err := ProtectRun(ctx, t, hopt); err != nil {
		return run, nil, err
	}
	hCost := addedCost(t, orig, sp.cost)
	hAudit, hBad, err := unprotectedPrimaries(ctx, t, opt)
	if err != nil {
		return run, nil, err
	}
	hyper := snapshot(t)
	orig.restore(t)

	lm := newLPMethod(s, sp, opt)
	if err := lm.run(ctx, prim, deadline); err != nil {
		return run, nil, err
	}
	lCost := addedCost(t, orig, sp.cost)
	lAudit, lBad, err := unprotectedPrimaries(ctx, t, opt)
	if err != nil {
		return run, nil, err
	}
	switch {
	case hBad < lBad:
		hyper.restore(t)
		run.Chosen = "hypercube"
		run.ChosenReason = fmt.Sprintf("the hypercube method's pattern leaves %d primary cells unprotected by the interval audit, the lp method's %d", hBad, lBad)
		return run, hAudit, nil
	case hBad == lBad && hCost < lCost:
		hyper.restore(t)
		run.Chosen = "hypercube"
		run.ChosenReason = "the hypercube method's pattern costs less than the lp method's (both checked by the interval audit)"
		return run, hAudit, nil
	}
	run.Chosen = "lp"
	run.ChosenReason = "the lp method's pattern costs no more than the hypercube method's (both checked by the interval audit)"
	if lBad < hBad {
		run.ChosenReason = fmt.Sprintf("the lp method's pattern leaves %d primary cells unprotected by the interval audit, the hypercube method's %d", lBad, hBad)
	}
	if lm.fallback > 0 {
		run.Fallback = lm.fallback
		run.FallbackReason = fallbackReason(lm.fallback)
	}
	return run, lAudit, nil
}

// addedCost is the cost of the cells of t secondary now but not in orig.
func addedCost(t *audit.Table, orig tableState, cost []float64) float64 {
	c := 0.0
	for i, cell := range t.Cells {
		if cell.Status == audit.StatusSecondary && orig.cells[i].status != audit.StatusSecondary {
			c += cost[i]
		}
	}
	return c
}

// unprotectedPrimaries audits t's pattern and counts the primary cells it
// does not call protected; it returns the audit too.
func unprotectedPrimaries(ctx context.Context, t *audit.Table, opt Options) (*audit.Intervals, int, error) {
	res, err := Audit(ctx, t, opt)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	for _, iv := range res.Cells {
		if iv.Status == audit.StatusPrimary && (!iv.Protected || iv.Undetermined || iv.Exact) {
			n++
		}
	}
	return &res, n, nil
}
