package pipeline

import (
	"context"
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/link"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
)

// noMargins is the table warning of a table without margins.
const noMargins = "secondary suppression was not applied because no margins were found: no row or column is labelled as a total (total_label, totals:) or is the sum of others; if the table has margins, declare them with total_label, totals: or suppression.hierarchies"

// SuppressOptions maps the configuration to the options of secondary
// suppression and the interval audit for a table.
func SuppressOptions(t *audit.Table, s *configs.Settings, workers int) suppress.Options {
	return suppressOptions(t, s, workers)
}

func suppressOptions(t *audit.Table, s *configs.Settings, workers int) suppress.Options {
	share, _ := s.Suppression.Protection.Rat().Float64()
	weight, _ := s.Suppression.MarginWeight.Rat().Float64()
	opt := suppress.Options{
		Method:       s.Suppression.Method,
		MarginWeight: weight,
		Cost:         s.Suppression.Cost,
		Protection:   suppress.Protection{Share: share / 100},
		Hierarchies:  s.Suppression.Hierarchies,
		Workers:      workers,
		TimeLimit:    s.Suppression.TimeLimit,
	}
	if r := roundedBase(t, s); r != nil {
		// input.rounded: published values are intervals, for secondary
		// suppression and the audit alike; aggregate tables only, as the
		// rules (a table built from microdata publishes exact values)
		opt.Rounded, _ = r.Rat().Float64()
	}
	if t.Hierarchies != nil {
		opt.Hierarchies = t.Hierarchies // the settings' and those read from microdata.parents
	}
	if share == 0 {
		opt.Protection.Share = suppress.NoShare // suppression.protection: 0 asks for none
	}
	if t.Frequency() {
		opt.Role = audit.RoleCount
		opt.Protection.Min = 1
	}
	return opt
}

// protectTable runs secondary suppression and the interval audit as the
// settings ask, after every cell has its primary status; hints, when not
// nil, are the a-priori costs and protection levels and the previous
// release's statuses (apriori.go, previous.go).
func protectTable(ctx context.Context, t *audit.Table, s *configs.Settings, workers int, keep map[*audit.Cell]bool, hints *tableHints) error {
	if !s.Suppression.Secondary && !s.Suppression.Audit {
		return nil
	}
	if s.Suppression.Secondary && t.Structure != nil && !t.Structure.Margins {
		t.Warnings = append(t.Warnings, noMargins)
	}
	opt := suppressOptions(t, s, workers)
	withApriori(hints, &opt)
	if hints != nil {
		opt.AuditTuning = hints.auditTuning
		opt.Joint.Work = hints.jointWork
	}
	if len(keep) > 0 {
		opt.Keep = func(c *audit.Cell) bool { return keep[c] }
	}
	if crossed, err := protectCrossed(ctx, t, s, opt, keep); crossed || err != nil {
		return err
	}
	var run audit.SuppressionRun
	var done *audit.Intervals // the audit secondary suppression computed of its pattern
	if s.Suppression.Secondary {
		enterStage(ctx, StageSuppression)
		var err error
		if run, done, err = suppress.ProtectAudit(ctx, t, opt); err != nil {
			return fmt.Errorf("%s: secondary suppression: %w", t.Source, err)
		}
		if opt.Rounded > 0 {
			done = nil // the audit with the published values as intervals (input.rounded) below
		}
	}
	// the table's other count columns, after its count (columns.go)
	if added, err := protectOtherCounts(ctx, t, opt, s.Suppression.Secondary); err != nil {
		return err
	} else if added {
		done = nil // the pattern grew: audit the count again
	}
	enterStage(ctx, StageAudit)
	var res audit.Intervals
	if done != nil {
		res = *done
	} else {
		var err error
		if res, err = suppress.Audit(ctx, t, opt); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t.Warnings = append(t.Warnings, "interval audit not possible: "+err.Error())
			return nil
		}
	}
	if s.Suppression.Secondary {
		res.Suppression = &run
	}
	if t.Structure != nil {
		notAdditive(t.Structure, &res)
	}
	t.Audit = &res
	t.Warnings = append(t.Warnings, res.Warnings...)
	suppress.Annotate(t, &res)
	return nil
}

// protectCrossed protects a table whose structure gives one total two or
// more breakdowns (audit.Structure.Crossed: People = Men + Women = the
// age bands) through a cover with the breakdowns crossed
// (link.ProtectCrossed), and reports whether it did. When it cannot (the
// table has other count columns, or no cover is built), the table is
// protected as before with the total unconfirmed (link.CrossedApart): a
// warning, and its suppressed cells undetermined, a person decides; with
// breakdowns in both axes every cell is then withheld (link.WithholdAll).
func protectCrossed(ctx context.Context, t *audit.Table, s *configs.Settings, opt suppress.Options, keep map[*audit.Cell]bool) (bool, error) {
	if ax, _ := t.Structure.Crossed(); ax == nil {
		return false, nil
	}
	reason := ""
	if len(otherCounts(t)) > 0 {
		reason = "the table has other count columns"
	} else {
		if s.Suppression.Secondary {
			enterStage(ctx, StageSuppression)
		}
		res, why, err := link.ProtectBreakdowns(ctx, t, opt, s.Suppression.Secondary, keep, 0)
		if err != nil {
			return false, fmt.Errorf("%s: secondary suppression: %w", t.Source, err)
		}
		if why == "" {
			enterStage(ctx, StageAudit)
			t.Audit = res
			return true, nil
		}
		reason = why
	}
	link.CrossedApart(t, reason)
	if s.Suppression.Secondary && link.BreakdownsInBothAxes(t) {
		// one breakdown per axis would let the others give a
		// primary back
		link.WithholdAll(t, keep, reason)
	}
	return false, nil
}
