package suppress

import (
	"context"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// Protection sets the protection levels of sensitive cells (see
// intervals.Protection).
type Protection = intervals.Protection

// The protection shares that are not a fraction of the cell value (see
// intervals.DefaultShare and intervals.NoShare).
const (
	DefaultShare = intervals.DefaultShare
	NoShare      = intervals.NoShare
)

// DominanceRule is one (n, k) dominance rule (see intervals.DominanceRule).
type DominanceRule = intervals.DominanceRule

// Relation is one additive relation of a table (see relations.Relation).
type Relation = relations.Relation

// ErrInconsistent is intervals.ErrInconsistent: the published cells
// contradict the margins.
var ErrInconsistent = intervals.ErrInconsistent

// Audit is the interval audit (intervals.Audit) of t's pattern under the
// audit's part of opt, after opt is checked whole.
func Audit(ctx context.Context, t *audit.Table, opt Options) (audit.Intervals, error) {
	if err := opt.validate(); err != nil {
		return audit.Intervals{Dims: t.Dims}, err
	}
	return intervals.Audit(ctx, t, opt.audit())
}

// Annotate is intervals.Annotate.
func Annotate(t *audit.Table, res *audit.Intervals) { intervals.Annotate(t, res) }

// Relations is relations.Of.
func Relations(t *audit.Table) ([]Relation, error) { return relations.Of(t) }

// structure is a table's relations with the suppression methods' own
// methods.
type structure struct{ *relations.Structure }

func newStructure(t *audit.Table, opt Options) (*structure, error) {
	r, err := relations.New(t, opt.relations())
	if err != nil {
		return nil, err
	}
	return &structure{r}, nil
}

// levels returns the protection levels of cell i with value x.
func (s *structure) levels(opt Options, i int, x float64) (float64, float64) {
	return intervals.Levels(s.Structure, opt.Protection, i, x)
}
