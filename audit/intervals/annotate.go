package intervals

import (
	"fmt"
	"math"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// Annotate adds an "interval_audit" finding to every suppressed
// cell: pass when its interval is wide enough, review (a person must
// strengthen the pattern) when it is exactly or partially disclosed or
// undetermined, and turns such a cell still "ok" into "review".
func Annotate(t *audit.Table, res *audit.Intervals) {
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
		// sized for the flags below: a finding per suppressed cell, kept
		// to the end of the run (appending them to six figures doubled
		// the array: at a million cells some 1 KB of the peak per cell)
		n := 6
		if r.Approximate {
			n++
		}
		if r.Undetermined {
			n++
		}
		v := append(make([]audit.Figure, 0, n), audit.FloatFig("lo", r.Lo), hi, audit.BoolFig("exact", r.Exact), audit.BoolFig("protected", r.Protected), audit.FloatFig("upper_level", r.Upper), audit.FloatFig("lower_level", r.Lower))
		if r.Approximate {
			v = append(v, audit.BoolFig("approximate", true))
		}
		if r.Undetermined {
			v = append(v, audit.BoolFig("undetermined", true))
		}
		o, msg := audit.Pass, ""
		switch {
		case r.Undetermined:
			o = audit.Review
			msg = fmt.Sprintf("the audit could not decide within its limits whether an intruder can narrow this cell below its protection levels (proven so far: [%s, %s])", report.FloatText(r.Lo), fmtHi(r.Hi))
		case r.Exact:
			o = audit.Review
			msg = fmt.Sprintf("the published cells give this cell exactly (%s): the suppression pattern does not protect it", report.FloatText(r.Lo))
		case !r.Protected:
			o = audit.Review
			msg = fmt.Sprintf("an intruder can narrow this cell to [%s, %s], inside its protection levels", report.FloatText(r.Lo), fmtHi(r.Hi))
		default:
			msg = fmt.Sprintf("an intruder can only place this cell in [%s, %s]", report.FloatText(r.Lo), fmtHi(r.Hi))
		}
		f := audit.Said("interval_audit", o, msg, v)
		c.Findings = append(c.Findings, f)
		if f.Outcome == audit.Review && c.Status == audit.StatusOK {
			c.Status = audit.StatusReview
		}
	}
}

func fmtHi(h float64) string {
	if math.IsInf(h, 1) {
		return "unbounded"
	}
	return report.FloatText(h)
}
