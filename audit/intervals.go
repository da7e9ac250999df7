package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Interval is what an intruder can learn of one suppressed cell: the
// interval [Lo, Hi] of every value the cell can take given all published
// cells, the table's additivity and non-negativity.
type Interval struct {
	Key []string
	// Lo and Hi bound the cell; Hi is +Inf when nothing bounds it above.
	Lo, Hi float64
	// Exact is true when Lo = Hi: the cell can be recomputed.
	Exact bool
	// Protected is true when the interval reaches the cell's protection
	// levels on both sides (primary cells and marked cells of a received
	// table), or, for a secondary cell, when it is not exact.
	Protected bool
	// Value is the true value when the table holds it (confidential).
	Value    float64
	HasValue bool
	// Upper and Lower are the protection levels required of the cell (zero
	// for a secondary cell).
	Upper, Lower float64
	Status       Status
	// Approximate is true when the cell lies in a component too large for
	// one LP and its neighbourhood bounds did not close: [Lo, Hi] is then
	// an inner interval, inside the true one (see package suppress).
	Approximate bool
	// Undetermined is true when the audit's time limit
	// (the suppression time limit) ran out, or its neighbourhood LPs did not
	// suffice, before the cell's verdict was proven either way: Protected
	// is false and a person must look. Lo and Hi are then the best inner
	// bounds known (at least the true value itself) or, for a cell whose
	// value is unknown, outer bounds from the relations.
	Undetermined bool
}

// Intervals is the interval audit of one table's suppression pattern.
type Intervals struct {
	Dims  []string
	Cells []Interval
	// ExactlyDisclosed counts the suppressed cells with Lo = Hi.
	ExactlyDisclosed int
	// UnderProtected counts the cells that are not exactly disclosed but
	// whose interval misses a protection level (partially disclosed).
	UnderProtected int
	// Approximate counts the cells whose interval is an inner bound.
	Approximate int
	// Undetermined counts the cells whose verdict is not settled (see
	// Interval.Undetermined); they are in neither count above.
	Undetermined int
	// Warnings are remarks on the table such as published cells that
	// contradict a margin.
	Warnings []string
	// NoMargins is set when the table's structure shows no margin: no
	// relation bounds a suppressed cell, so every interval is [0,
	// unbounded] and "protected" holds only if the table truly has no
	// margins (a total the inference could not confirm, a rounded one,
	// may still give a cell away). A person must confirm it.
	NoMargins bool
	// Suppression records how secondary suppression was run (nil when
	// the pattern was not chosen by sdcaudit).
	Suppression *SuppressionRun
}

// SuppressionRun is the method and cost model of secondary suppression,
// written as the audit's "suppression" object.
type SuppressionRun struct {
	Method       string  // lp or hypercube
	Cost         string  // value, count or unity
	MarginWeight float64 // 0: totals only when no interior pattern exists
	// Fallback counts the primary cells the lp method gave the hypercube
	// method's move instead (FallbackReason says why); 0 when none.
	Fallback       int
	FallbackReason string
	// Chosen is the method whose pattern was kept when both ran (a large
	// table: the hypercube method's pattern is kept when it protects more
	// primaries or costs less); ChosenReason says why. "" when only
	// Method ran.
	Chosen       string
	ChosenReason string
	// PatternCost is the kept pattern's cost (the sum over the secondary
	// cells of the cost model, totals at the margin weight when it is
	// positive); LowerBound a proven lower bound on the cost of every
	// pattern that protects every primary (the LP relaxation of the joint
	// model with the cuts found; nil when the joint search did not run)
	// and Gap = (PatternCost − LowerBound) / PatternCost. Optimal is true
	// when the branch-and-bound proved the kept pattern optimal.
	PatternCost *float64
	LowerBound  *float64
	Gap         *float64
	Optimal     bool
	// Stopped says why the search stopped early (the user's time limit, or
	// the joint search's work budget); "" when it did not.
	Stopped string
}

// NeedsPerson reports whether some cell is exactly disclosed,
// under-protected or undetermined, or cells are suppressed in a table
// where no margin was found (NoMargins).
func (r Intervals) NeedsPerson() bool {
	return r.ExactlyDisclosed+r.UnderProtected+r.Undetermined > 0 || r.NoMargins && len(r.Cells) > 0
}

// MarshalJSON writes the contract's form: {"cells": [{"key": {dim: value},
// "lo", "hi", "exact", "protected"}], "exactly_disclosed",
// "under_protected"}; an unbounded hi (or lo, of a cell that may be negative) is null. True values are not written.
func (r Intervals) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"cells":[`)
	for i, c := range r.Cells {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"key":{`)
		for d, v := range c.Key {
			if d > 0 {
				b.WriteByte(',')
			}
			name := fmt.Sprintf("dim%d", d)
			if d < len(r.Dims) {
				name = r.Dims[d]
			}
			writeJSON(&b, name)
			b.WriteByte(':')
			writeJSON(&b, v)
		}
		b.WriteString(`},"lo":`)
		if math.IsInf(c.Lo, -1) {
			b.WriteString("null") // a cell that may be negative, unbounded below
		} else {
			writeJSON(&b, c.Lo)
		}
		b.WriteString(`,"hi":`)
		if math.IsInf(c.Hi, 1) {
			b.WriteString("null")
		} else {
			writeJSON(&b, c.Hi)
		}
		fmt.Fprintf(&b, `,"exact":%v,"protected":%v`, c.Exact, c.Protected)
		if c.Status != "" {
			b.WriteString(`,"status":`)
			writeJSON(&b, c.Status)
		}
		if c.Approximate {
			b.WriteString(`,"approximate":true`)
		}
		if c.Undetermined {
			b.WriteString(`,"undetermined":true`)
		}
		b.WriteByte('}')
	}
	fmt.Fprintf(&b, `],"exactly_disclosed":%d,"under_protected":%d`, r.ExactlyDisclosed, r.UnderProtected)
	if r.Approximate > 0 {
		fmt.Fprintf(&b, `,"approximate":%d`, r.Approximate)
	}
	if r.Undetermined > 0 {
		fmt.Fprintf(&b, `,"undetermined":%d`, r.Undetermined)
	}
	if r.NoMargins {
		b.WriteString(`,"no_margins":true`)
	}
	if len(r.Warnings) > 0 {
		b.WriteString(`,"warnings":`)
		writeJSON(&b, r.Warnings)
	}
	if sr := r.Suppression; sr != nil {
		b.WriteString(`,"suppression":{"method":`)
		writeJSON(&b, sr.Method)
		b.WriteString(`,"cost":`)
		writeJSON(&b, sr.Cost)
		b.WriteString(`,"margin_weight":`)
		writeJSON(&b, sr.MarginWeight)
		if sr.Fallback > 0 {
			fmt.Fprintf(&b, `,"fallback":%d,"fallback_reason":`, sr.Fallback)
			writeJSON(&b, sr.FallbackReason)
		}
		if sr.Chosen != "" {
			b.WriteString(`,"chosen":`)
			writeJSON(&b, sr.Chosen)
			b.WriteString(`,"chosen_reason":`)
			writeJSON(&b, sr.ChosenReason)
		}
		if sr.PatternCost != nil {
			b.WriteString(`,"pattern_cost":`)
			writeJSON(&b, *sr.PatternCost)
		}
		if sr.LowerBound != nil {
			b.WriteString(`,"lower_bound":`)
			writeJSON(&b, *sr.LowerBound)
		}
		if sr.Gap != nil {
			b.WriteString(`,"gap":`)
			writeJSON(&b, *sr.Gap)
		}
		if sr.Optimal {
			b.WriteString(`,"optimal":true`)
		}
		if sr.Stopped != "" {
			b.WriteString(`,"stopped":`)
			writeJSON(&b, sr.Stopped)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) {
	out, _ := json.Marshal(v)
	b.Write(out)
}
