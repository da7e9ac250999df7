package pipeline

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
)

// SuppressOptions maps the configuration to the options of secondary
// suppression and the interval audit for a table.
func SuppressOptions(t *audit.Table, s *configs.Settings, workers int) suppress.Options {
	return suppressOptions(t, s, workers)
}

func suppressOptions(t *audit.Table, s *configs.Settings, workers int) suppress.Options {
	share, _ := s.Suppression.Protection.Rat().Float64()
	opt := suppress.Options{
		Cost:        s.Suppression.Cost,
		Protection:  suppress.Protection{Share: share / 100},
		Hierarchies: s.Suppression.Hierarchies,
		Workers:     workers,
		TimeLimit:   s.Suppression.TimeLimit,
	}
	if share == 0 {
		opt.Protection.Share = -1 // no share-based level
	}
	frequency := t.Value == "" && t.Mode == audit.Microdata
	if t.Mode == audit.Aggregate {
		frequency = true
		for _, c := range t.Cells {
			if _, ok := c.Stats["total"]; ok {
				frequency = false
				break
			}
		}
	}
	if frequency {
		opt.Value = "count"
		opt.Protection.Min = 1
	}
	return opt
}

// protectTable runs secondary suppression and the interval audit as the
// settings ask, after every cell has its primary status.
func protectTable(ctx context.Context, t *audit.Table, s *configs.Settings, workers int, keep map[*audit.Cell]bool) error {
	if !s.Suppression.Secondary && !s.Suppression.Audit {
		return nil
	}
	opt := suppressOptions(t, s, workers)
	if len(keep) > 0 {
		opt.Keep = func(c *audit.Cell) bool { return keep[c] }
	}
	if s.Suppression.Secondary {
		enterStage(ctx, StageSuppression)
		if err := suppress.Protect(ctx, t, opt); err != nil {
			return fmt.Errorf("%s: secondary suppression: %w", t.Source, err)
		}
	}
	enterStage(ctx, StageAudit)
	res, err := suppress.Audit(ctx, t, opt)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t.Warnings = append(t.Warnings, "interval audit not possible: "+err.Error())
		return nil
	}
	t.Audit = &res
	t.Warnings = append(t.Warnings, res.Warnings...)
	attachIntervals(t, &res)
	return nil
}

// attachIntervals adds an "interval_audit" finding to every suppressed
// cell: pass when its interval is wide enough, review (a person must
// strengthen the pattern) when it is exactly or partially disclosed.
func attachIntervals(t *audit.Table, res *audit.Intervals) {
	byKey := make(map[string]*audit.Cell, len(t.Cells))
	for _, c := range t.Cells {
		byKey[strings.Join(c.Key, "\x00")] = c
	}
	for _, r := range res.Cells {
		c := byKey[strings.Join(r.Key, "\x00")]
		if c == nil {
			continue
		}
		hi := audit.FloatFig("hi", r.Hi)
		if math.IsInf(r.Hi, 1) {
			hi = audit.NullFig("hi")
		}
		v := []audit.Figure{audit.FloatFig("lo", r.Lo), hi, audit.BoolFig("exact", r.Exact), audit.BoolFig("protected", r.Protected), audit.FloatFig("upper_level", r.Upper), audit.FloatFig("lower_level", r.Lower)}
		if r.Approximate {
			v = append(v, audit.BoolFig("approximate", true))
		}
		if r.Undetermined {
			v = append(v, audit.BoolFig("undetermined", true))
		}
		f := audit.Finding{Rule: "interval_audit", Status: audit.Pass, Figures: v}
		switch {
		case r.Undetermined:
			f.Status = audit.Review
			f.Text = fmt.Sprintf("the audit could not decide within its limits whether an intruder can narrow this cell below its protection levels (proven so far: [%s, %s])", audit.FloatText(r.Lo), fmtHi(r.Hi))
		case r.Exact:
			f.Status = audit.Review
			f.Text = fmt.Sprintf("the published cells give this cell exactly (%s): the suppression pattern does not protect it", audit.FloatText(r.Lo))
		case !r.Protected:
			f.Status = audit.Review
			f.Text = fmt.Sprintf("an intruder can narrow this cell to [%s, %s], inside its protection levels", audit.FloatText(r.Lo), fmtHi(r.Hi))
		default:
			f.Text = fmt.Sprintf("an intruder can only place this cell in [%s, %s]", audit.FloatText(r.Lo), fmtHi(r.Hi))
		}
		c.Findings = append(c.Findings, f)
		if f.Status == audit.Review && c.Status == audit.StatusOK {
			c.Status = audit.StatusReview
		}
	}
}

func fmtHi(h float64) string {
	if math.IsInf(h, 1) {
		return "unbounded"
	}
	return audit.FloatText(h)
}
