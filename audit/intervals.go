package audit

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

// Add appends a cell's interval and counts it: exactly disclosed,
// undetermined or under-protected (at most one), and approximate.
func (r *Intervals) Add(c Interval) {
	if c.Approximate {
		r.Approximate++
	}
	switch {
	case c.Exact:
		r.ExactlyDisclosed++
	case c.Undetermined:
		r.Undetermined++
	case !c.Protected:
		r.UnderProtected++
	}
	r.Cells = append(r.Cells, c)
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
