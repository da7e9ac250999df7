package link

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// Breakdowns in both the rows and the columns (issue 24): "All people" =
// Men + Women = the age bands down the label column, and Total = North +
// South = Urban + Rural across the header. The true structure is a cross
// of four hidden dimensions (Sex x Age x Region x Area) with the four
// two-way tables published; its non-negative completion is not found
// by joining the views one at a time (their dimensions cross in a
// cycle), so no cover table is built. Instead the table is split along
// one axis into blocks, one per breakdown of that axis's total (the
// rows x {Total, North, South} and the rows x {Total, Urban, Rural}),
// each protected through the cross of the other axis's breakdowns
// (ProtectCrossed), with the line they share (the Total column) kept
// published: the blocks then share no withheld cell, and the published
// relations of the whole table give an intruder nothing about one
// block's withheld cells that the block's own do not. A block's
// interval holds the true one (its relations are some of the table's):
// a cell it finds exact or under-protected is so; one it finds
// protected is undetermined, since the hidden four-way cross (its cells
// are non-negative) can narrow it, and a person decides.

// ProtectCrossedBoth protects (secondary set) and audits a table with
// breakdowns of a total in two axes, as ProtectCrossed does one: opt,
// keep and maxCells as there. The split along the second axis (the
// columns) is tried first, then along the first; a split is refused when
// a primary lies in the shared line, or when a primary is left
// unprotected within its block. A non-empty reason says why neither
// served (nothing is changed then).
func ProtectCrossedBoth(ctx context.Context, t *audit.Table, opt suppress.Options, secondary bool, keep map[*audit.Cell]bool, maxCells int) (*audit.Intervals, string, error) {
	st := t.Structure
	var crossed []int
	for i := range st.Axes {
		if len(st.Axes[i].Breakdowns) > 0 {
			crossed = append(crossed, i)
		}
	}
	if len(crossed) != 2 {
		return nil, "breakdowns in more than two axes, or in one", nil
	}
	for _, i := range crossed {
		if len(st.Axes[i].Breakdowns) != 1 || len(st.Axes[i].Dims) != 1 {
			return nil, "more than one margin with two breakdowns in an axis, or nested rows: not protected as a cross", nil
		}
	}
	var why []string
	for k := len(crossed) - 1; k >= 0; k-- {
		ax := &st.Axes[crossed[k]]
		total := slices.Collect(maps.Keys(ax.Breakdowns))[0]
		res, reason, err := protectBlocks(ctx, t, ax, total, opt, secondary, keep, maxCells)
		if err != nil || reason == "" {
			return res, "", err
		}
		why = append(why, fmt.Sprintf("split by %s: %s", ax.Name(), reason))
	}
	return nil, strings.Join(why, "; "), nil
}

// protectBlocks protects and audits t split along ax into blocks, one
// per breakdown of total (ProtectCrossedBoth); a reason when it cannot.
func protectBlocks(ctx context.Context, t *audit.Table, ax *audit.Axis, total string, opt suppress.Options, secondary bool, keep map[*audit.Cell]bool, maxCells int) (*audit.Intervals, string, error) {
	d := ax.Dims[0]
	if secondary {
		for _, c := range t.Cells {
			if c.Key[d] == total && c.Status == audit.StatusPrimary {
				return nil, fmt.Sprintf("a primary cell (%s) in the line %q the blocks share", t.KeyString(c.Key), audit.CodeText(total)), nil
			}
		}
	}
	blocks, reason := splitViews(t, ax, total, false)
	if reason != "" {
		return nil, reason, nil
	}
	hier := maps.Clone(opt.Hierarchies)
	delete(hier, t.Dims[d])
	opt.Hierarchies = hier
	var stopped []string // primaries left unprotected at the time limit
	for _, b := range blocks {
		bkeep := map[*audit.Cell]bool{}
		for i, o := range b.from {
			oc := t.Cells[o]
			// the shared line stays published: no withheld cell joins
			// the blocks
			if keep[oc] || secondary && oc.Key[d] == total {
				bkeep[b.t.Cells[i]] = true
			}
		}
		n0 := len(b.t.Warnings)
		res, reason, err := ProtectCrossed(ctx, b.t, opt, secondary, bkeep, maxCells)
		if err != nil || reason != "" {
			return nil, reason, err
		}
		if secondary {
			limited := timeLimitReached(res, b.t.Warnings[n0:])
			for _, r := range res.Cells {
				if r.Status == audit.StatusPrimary && !r.Protected {
					if limited {
						// the user's time limit, not the split: the
						// block's verified pattern is kept, its
						// unprotected primaries left to the audit
						stopped = append(stopped, b.t.KeyString(r.Key))
						continue
					}
					return nil, fmt.Sprintf("the primary cell %s is not protected within its block with the line %q published", b.t.KeyString(r.Key), audit.CodeText(total)), nil
				}
			}
		}
		b.t.Audit = res
	}
	var runs []*audit.SuppressionRun
	for _, b := range blocks {
		runs = append(runs, b.t.Audit.Suppression)
	}
	// a cell of the shared line is in every block: its strongest
	// verdict, its intervals intersected (each holds the true one)
	best := map[string]audit.Interval{}
	for _, b := range blocks {
		for _, r := range b.t.Audit.Cells {
			k := strings.Join(r.Key, "\x00")
			if o, seen := best[k]; seen {
				r = stronger(o, r)
			}
			best[k] = r
		}
	}
	merged := mergeViews(t, blocks, nil)
	// a block's interval holds the true one: exact or under-protected
	// stand; protected is undetermined (the hidden four-way cross)
	res := &audit.Intervals{Dims: merged.Dims, Warnings: merged.Warnings, Suppression: blocksRun(runs)}
	for _, r := range merged.Cells {
		if b, ok := best[strings.Join(r.Key, "\x00")]; ok {
			r.Lo, r.Hi, r.Exact, r.Protected, r.Undetermined, r.Approximate = b.Lo, b.Hi, b.Exact, b.Protected, b.Undetermined, b.Approximate
		}
		if r.Protected && !r.Exact {
			r.Protected, r.Undetermined = false, true
		}
		res.Add(r)
	}
	msg := fmt.Sprintf("breakdowns in both axes: protected in blocks by %s (one per breakdown of %q, the line they share published), each through the cross of the other axis's breakdowns; an intruder who knows the four-way cross of the breakdowns is not modelled and may narrow a withheld cell: a person decides", ax.Name(), audit.CodeText(total))
	res.Warnings = append(res.Warnings, msg)
	t.Warnings = append(t.Warnings, msg)
	if len(stopped) > 0 {
		w := fmt.Sprintf("time limit %v reached while the blocks by %s were protected: the verified pattern found is kept (no other split tried); the interval audit flags the %d primary cell(s) it does not protect (%s)", opt.TimeLimit, ax.Name(), len(stopped), strings.Join(stopped, "; "))
		res.Warnings = append(res.Warnings, w)
		t.Warnings = append(t.Warnings, w)
	}
	for _, c := range t.Cells {
		if c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary {
			c.Findings = append(c.Findings, audit.Said("secondary", audit.Review, msg, nil))
		}
	}
	return res, "", nil
}

// timeLimitReached reports whether the user's time limit stopped a
// block's suppression: the run's Stopped or a warning suppress.Protect
// wrote (warnings, the block's new ones) says so.
func timeLimitReached(res *audit.Intervals, warnings []string) bool {
	if res.Suppression != nil && strings.HasPrefix(res.Suppression.Stopped, "time limit") {
		return true
	}
	for _, w := range append(slices.Clone(warnings), res.Warnings...) {
		if strings.Contains(w, "secondary suppression: time limit") {
			return true
		}
	}
	return false
}

// ProtectBreakdowns protects and audits a table with breakdowns of a
// total (audit.Structure.Crossed): through their cross (ProtectCrossed)
// when one axis has them, in blocks (ProtectCrossedBoth) when both do.
// A non-empty reason says why it cannot (nothing is changed then).
func ProtectBreakdowns(ctx context.Context, t *audit.Table, opt suppress.Options, secondary bool, keep map[*audit.Cell]bool, maxCells int) (*audit.Intervals, string, error) {
	if BreakdownsInBothAxes(t) {
		return ProtectCrossedBoth(ctx, t, opt, secondary, keep, maxCells)
	}
	return ProtectCrossed(ctx, t, opt, secondary, keep, maxCells)
}

// BreakdownsInBothAxes reports whether more than one axis of t has a
// margin with two or more breakdowns.
func BreakdownsInBothAxes(t *audit.Table) bool {
	if t.Structure == nil {
		return false
	}
	n := 0
	for i := range t.Structure.Axes {
		if len(t.Structure.Axes[i].Breakdowns) > 0 {
			n++
		}
	}
	return n > 1
}

// WithholdAll withholds every cell of t that no override keeps
// (secondary, with a review finding saying why): the last resort for a
// table with breakdowns in both axes that neither the cross nor the
// blocks protect (reason), since protecting it with one breakdown per
// axis would let an intruder combine the others and give a primary back.
func WithholdAll(t *audit.Table, keep map[*audit.Cell]bool, reason string) {
	WithholdEvery(t, keep, fmt.Sprintf("breakdowns in both axes not protected through them (%s): every cell is withheld, since the relations of the other breakdowns could give a primary back; a person decides", reason))
}

// WithholdEvery withholds every cell of t that no override keeps
// (secondary), with msg as a table warning and a review finding on each.
func WithholdEvery(t *audit.Table, keep map[*audit.Cell]bool, msg string) {
	t.Warnings = append(t.Warnings, msg)
	for _, c := range t.Cells {
		if keep[c] {
			continue
		}
		if c.Status != audit.StatusPrimary {
			c.Status = audit.StatusSecondary
		}
		c.Findings = append(c.Findings, audit.Said("secondary", audit.Review, msg, nil))
	}
}

// blocksRun is how the blocks' suppressions ran, as one: the first's
// method and cost model, the patterns' costs added; no lower bound nor
// gap (each block's holds with the shared line published, not for the
// table), the method chosen only when every block chose it (no reason:
// each block's is its own). Nil when none ran.
func blocksRun(runs []*audit.SuppressionRun) *audit.SuppressionRun {
	var out *audit.SuppressionRun
	var cost float64
	costs := true
	for _, r := range runs {
		if r == nil {
			continue
		}
		if out == nil {
			c := *r
			out = &c
			out.LowerBound, out.Gap, out.Optimal, out.PatternCost = nil, nil, false, nil
			out.Fallback, out.Stopped, out.ChosenReason = 0, "", ""
		} else if r.Chosen != out.Chosen || r.Method != out.Method {
			out.Chosen = ""
		}
		out.Fallback += r.Fallback
		if r.Stopped != "" && !strings.Contains(out.Stopped, r.Stopped) {
			out.Stopped = strings.TrimPrefix(out.Stopped+"; "+r.Stopped, "; ")
		}
		if r.PatternCost == nil {
			costs = false
		} else {
			cost += *r.PatternCost
		}
	}
	if out != nil && costs {
		out.PatternCost = &cost
	}
	return out
}

// stronger is the verdict of a cell audited in two blocks (each interval
// holds the true one): exact in either, else under-protected in either
// (settled, not protected), else the intervals intersected.
func stronger(a, b audit.Interval) audit.Interval {
	settled := func(r audit.Interval) bool { return !r.Protected && !r.Undetermined }
	switch {
	case a.Exact:
		return a
	case b.Exact:
		return b
	case settled(a):
		return a
	case settled(b):
		return b
	}
	a.Lo, a.Hi = max(a.Lo, b.Lo), min(a.Hi, b.Hi)
	a.Approximate = a.Approximate || b.Approximate
	a.Undetermined = a.Undetermined || b.Undetermined
	a.Protected = a.Protected && b.Protected
	return a
}

// CombinedAudit is the audit of a table protected in two systems that
// each hold only part of its relations (a linked group's cover without
// the cross of its breakdowns, and its own cover with them): each
// system's interval holds the true one, so per cell the stronger verdict
// stands and the intervals are intersected (exact or under-protected in
// either stands), and one found protected is undetermined (an intruder
// combining the two is not modelled). a's cells in a's order, then b's
// cells absent from a. Nil a gives b's cells so judged.
func CombinedAudit(a, b *audit.Intervals) *audit.Intervals {
	if a == nil {
		a, b = b, nil
	}
	if a == nil {
		return nil
	}
	other := map[string]audit.Interval{}
	if b != nil {
		for _, r := range b.Cells {
			other[strings.Join(r.Key, "\x00")] = r
		}
	}
	res := &audit.Intervals{Dims: a.Dims, Warnings: a.Warnings, NoMargins: a.NoMargins, Suppression: a.Suppression}
	if b != nil {
		res.Warnings = append(slices.Clone(a.Warnings), b.Warnings...)
		if res.Suppression == nil {
			res.Suppression = b.Suppression
		}
	}
	seen := map[string]bool{}
	add := func(r audit.Interval) {
		if r.Protected && !r.Exact {
			r.Protected, r.Undetermined = false, true
		}
		res.Add(r)
	}
	for _, r := range a.Cells {
		k := strings.Join(r.Key, "\x00")
		seen[k] = true
		if o, ok := other[k]; ok {
			r = stronger(r, o)
		}
		add(r)
	}
	if b != nil {
		for _, r := range b.Cells {
			if !seen[strings.Join(r.Key, "\x00")] {
				add(r)
			}
		}
	}
	return res
}
