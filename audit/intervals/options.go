package intervals

import (
	"fmt"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// Options configures the interval audit (Audit).
//
// Table structure: see relations.Structure; a child cell absent from the
// table counts as an empty (zero) cell; a relation whose total cell is
// absent does not exist.
type Options struct {
	// Role names the cell figure that the relations add up:
	// audit.RoleTotal (the cell total X, a magnitude table),
	// audit.RoleCount (contributors N, a frequency table) or "" for the
	// table's own. (Table.Value, by contrast, is the name of the value
	// column.)
	Role audit.Role
	// Protection sets the protection levels of sensitive cells.
	Protection Protection
	// Hierarchies gives, per dimension, the parent of each code that is not
	// a top-level code (e.g. district -> region), for a table without a
	// Structure. Codes without a parent add up to the total label. A parent
	// missing from the table is skipped: its children add up to the nearest
	// ancestor present.
	Hierarchies map[string]map[string]string
	// Workers bounds the audit's parallelism; 0 means 2.
	Workers int
	// TimeLimit bounds the wall time of Audit; 0 means none. When it runs
	// out, Audit returns what it has settled, marking the other cells
	// Undetermined; it is not an error.
	TimeLimit time.Duration
	// Unpublished, when set (one entry per cell of the table), marks cells
	// that no output publishes: the cells of a cover table that no linked
	// table shows (docs/suppression.md, "Linked tables"). They are unknown
	// to the intruder, need no protection, and Audit reports no interval
	// for them.
	Unpublished []bool
	// Column, when set, is the key in Cell.Stats of another count column
	// of the table's cells whose relations are audited instead of the
	// count or total (Role is then count).
	Column string
	// Rounded, when positive, is the base B the published values were
	// already rounded to (input.rounded): Audit treats every published
	// cell as the interval [v − B/2, v + B/2] (cut at 0) instead of the
	// exact value v (docs/suppression.md, "Rounded tables").
	Rounded float64
	// Pinned, when set with Rounded (one entry per cell of the table),
	// marks published cells the intruder knows exactly in spite of the
	// rounding: a singleton published in a suppression method's check of
	// what its contributor learns (audit/suppress, allProtected). A pinned
	// cell is its value v, not [v − B/2, v + B/2].
	Pinned []bool
	// Tuning bounds the audit's work; nil means DefaultTuning.
	Tuning *Tuning
	// exact is set by Audit: large components also get exact bounds
	// within the work budget (the internal audits of the suppression
	// methods need only verdicts).
	exact bool
	// stats, when set, receives the audit's counted work (tests and
	// benchmarks).
	stats func(*intervalSet)
}

// Validate reports the first option out of range.
func (o Options) Validate() error { return o.validate() }

func (o Options) validate() error {
	switch o.Role {
	case "", audit.RoleTotal, audit.RoleCount:
	default:
		return fmt.Errorf("suppression: value %q: want total or count", o.Role)
	}
	return o.Protection.validate()
}

// relations is what the table's relations read of o.
func (o Options) relations() relations.Options {
	return relations.Options{Role: o.Role, Hierarchies: o.Hierarchies, Unpublished: o.Unpublished, Column: o.Column}
}

// structure is a table's relations with the audit's methods.
type structure struct {
	*relations.Structure
	signed []bool // the cell may be negative (nil: none; rounded.go)
}

func newStructure(t *audit.Table, opt Options) (*structure, error) {
	r, err := relations.New(t, opt.relations())
	if err != nil {
		return nil, err
	}
	return wrap(r), nil
}

// wrap gives the audit's methods to the relations r, with the cells that
// may be negative.
func wrap(r *relations.Structure) *structure {
	s := &structure{Structure: r}
	s.loadSigned()
	return s
}
