package intervals

import (
	"context"
	"math"

	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// Pattern is the audit of a suppression pattern that a suppression method
// asks for while it searches (Check): verdicts, not exact bounds.
type Pattern struct{ iv *intervalSet }

// Check audits the pattern sup (one entry per cell of s's table: withheld)
// for a suppression method. Only the verdicts are settled: large
// components get no exact bounds beyond them (Audit's do).
func Check(ctx context.Context, s *relations.Structure, sup []bool, opt Options) (*Pattern, error) {
	iv, err := wrap(s).intervals(ctx, sup, opt)
	if err != nil {
		return nil, err
	}
	return &Pattern{iv}, nil
}

// Reaches reports whether cell i (value x) is settled, not exact, and has
// an inner interval that reaches [x−down, x+up], within the audit's
// verdict tolerance on each level (levelTol, as Audit's Protected): with
// the table-scaled tolerance a search kept a pattern the audit refused.
func (p *Pattern) Reaches(i int, x, up, down float64) bool {
	iv := p.iv
	return !(iv.undet[i] || iv.ohi[i]-iv.olo[i] <= iv.tol || iv.hi[i] < x+up-levelTol(iv.tol, up) || iv.lo[i] > x-down+levelTol(iv.tol, down))
}

// Failed reports whether cell i's upper bound is not a number (an LP
// failed on it).
func (p *Pattern) Failed(i int) bool { return math.IsNaN(p.iv.hi[i]) }

// Levels returns the protection levels (upper, lower) of cell i of s with
// value x: a magnitude table's cells by their contributors, a frequency
// table's by the count alone.
func Levels(s *relations.Structure, p Protection, i int, x float64) (upper, lower float64) {
	return wrap(s).levels(Options{Protection: p}, i, x)
}

// Exact reports whether cell i's value is disclosed: its outer bounds
// meet.
func (p *Pattern) Exact(i int) bool { return p.iv.ohi[i]-p.iv.olo[i] <= p.iv.tol }
