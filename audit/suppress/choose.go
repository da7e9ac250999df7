package suppress

import (
	"context"
	"slices"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
)

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

// unprotectedPrimaries audits t's pattern for its verdicts
// (intervals.AuditVerdicts) and counts the primary cells it does not call
// protected; it returns the audit too, and whether that is Audit's whole
// (full: no large component's cell was left with inexact bounds).
func unprotectedPrimaries(ctx context.Context, t *audit.Table, opt Options) (*audit.Intervals, int, bool, error) {
	if err := opt.validate(); err != nil {
		return nil, 0, false, err
	}
	res, full, err := intervals.AuditVerdicts(ctx, t, opt.audit())
	if err != nil {
		return nil, 0, false, err
	}
	return &res, countUnprotected(&res), full, nil
}

// countUnprotected counts the primary cells res does not call protected.
func countUnprotected(res *audit.Intervals) int {
	n := 0
	for _, iv := range res.Cells {
		if iv.Status == audit.StatusPrimary && (!iv.Protected || iv.Undetermined || iv.Exact) {
			n++
		}
	}
	return n
}

// sameStatuses reports whether t's cells have the statuses of st: the
// same pattern, so that its interval audit is st's.
func sameStatuses(t *audit.Table, st tableState) bool {
	for i, c := range t.Cells {
		if c.Status != st.cells[i].status {
			return false
		}
	}
	return true
}

// dominated reports whether pattern c cannot be kept by protectBest
// whatever its audit finds: an audited pattern protects every primary,
// costs no more (ties go to the earlier pattern) and suppresses a total
// only if c does.
func dominated(cands []candidate, c candidate) bool {
	for _, b := range cands {
		if b.bad == 0 && (!b.totals || c.totals) && b.cost <= c.cost {
			return true
		}
	}
	return false
}
