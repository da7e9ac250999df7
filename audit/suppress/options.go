package suppress

import (
	"fmt"
	"math"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// Options configures secondary suppression (Protect) and the
// interval audit of its pattern (Audit, intervals.Audit).
//
// Table structure: in every dimension that has margins, a cell whose value
// in that dimension is the total label (or a parent code of Hierarchies)
// equals the sum of the cells that replace it by each of its children,
// the other dimensions held fixed. A child cell absent from the table counts
// as an empty (zero) cell; a relation whose total cell is absent does not
// exist.
type Options struct {
	// Role names the cell figure that the relations add up:
	// audit.RoleTotal (the cell total X, a magnitude table),
	// audit.RoleCount (contributors N, a frequency table) or "" for the
	// table's own. (Table.Value, by contrast, is the name of the value
	// column.)
	Role audit.Role
	// Method is the secondary suppression method: "lp" (the default,
	// near-optimal cost: deviation LPs, then redundant cells dropped) or
	// "hypercube" (the generalised hypercube method, faster, more cells).
	Method string
	// MarginWeight, when positive, lets the lp method use margins (cells
	// that are the total of a relation) at their cost times MarginWeight;
	// 0 (the default) uses a margin only when no pattern of interior cells
	// protects the primary.
	MarginWeight float64
	// Cost is what secondary suppression minimises: "value" (the sum of the
	// suppressed cells' values, the default), "count" (their contributors)
	// or "unity" (the number of suppressed cells).
	Cost string
	// Protection sets the protection levels of sensitive cells.
	Protection Protection
	// Hierarchies gives, per dimension, the parent of each code that is not
	// a top-level code (e.g. district -> region). Codes without a parent
	// add up to the total label. A parent missing from the table is skipped:
	// its children add up to the nearest ancestor present.
	Hierarchies map[string]map[string]string
	// Workers bounds the audit's parallelism; 0 means 2.
	Workers int
	// TimeLimit bounds the wall time of Protect and Audit; 0
	// means none. When it runs out, Protect stops choosing complements
	// (with a table warning) and Audit returns what it has
	// settled, marking the other cells Undetermined; neither is an error.
	TimeLimit time.Duration
	// Unpublished, when set (one entry per cell of the table), marks cells
	// that no output publishes: the cells of a cover table that no linked
	// table shows (docs/suppression.md, "Linked tables"). They are unknown
	// to the intruder and free for complementary patterns (already
	// withheld: never marked secondary, cost nothing), need no protection,
	// and Audit reports no interval for them.
	Unpublished []bool
	// Column, when set, is the key in Cell.Stats of another count column
	// of the table's cells whose relations are protected and audited
	// instead of the count or total (Role is then count): counts of
	// the same cells published beside the count (employees beside
	// workers).
	Column string
	// Rounded, when positive, is the base B the published values were
	// already rounded to (input.rounded): Audit treats every published
	// cell as the interval [v − B/2, v + B/2] (cut at 0) instead of the
	// exact value v (docs/suppression.md, "Rounded tables").
	Rounded float64
	// Keep, when set, marks cells that secondary suppression must never
	// choose (cells an output checker protected); they may still be
	// primary.
	Keep func(c *audit.Cell) bool
	// CostOf, when set, gives a cell's own cost in secondary suppression
	// (a tau-argus cost variable or a-priori file, or a reduced cost for
	// a cell suppressed in the previous release); ok false keeps the
	// cost model's.
	CostOf func(c *audit.Cell) (cost float64, ok bool)
	// Joint tunes the joint search of the lp method (budgets in simplex
	// pivots, nodes and cut rounds; docs/suppression.md).
	Joint JointOptions
	// LP bounds the lp method's own search (its per-primary deviation
	// LPs and move searches, and its redundancy passes) by counted work
	// (docs/suppression.md, "Budgets, not clocks").
	LP LPOptions
	// Tuning bounds the suppression method's searches; nil means
	// DefaultTuning.
	Tuning *Tuning
	// AuditTuning bounds the interval audit's work; nil means
	// intervals.DefaultTuning.
	AuditTuning *intervals.Tuning

	// rounded caches roundedProtected for the methods of one Protect
	// (rounded.go); nil: not computed.
	rounded *roundedDone
}

// LPOptions bounds the lp method's search by counted work, never a
// clock: the same input stops at the same point on any machine, at any
// load, GOMAXPROCS or worker count.
type LPOptions struct {
	// Work bounds the lp method's search in counted work, in units of
	// 10^6 (default 200,000, about 12 CPU-s: a unit is some 0.06 ms of
	// deviation LP or move search): each LP's pivots × its tableau
	// entries (the deviation LPs: rows × columns; the redundancy pass's
	// sparse LPs: iterations × (rows + columns)), and each move search's
	// combinations (at most maxCombos) plus the codes of the lines it
	// reads, times moveWeight. When it is spent, every
	// primary not yet protected gets the hypercube method's move (it is
	// protected, at a higher cost) and the redundancy passes stop,
	// keeping the verified pattern; the run's "stopped" and a table
	// warning say so. Negative: no budget.
	Work float64
}

// work is the lp method's work budget (+Inf: none).
func (o LPOptions) work() float64 {
	switch {
	case o.Work > 0:
		return o.Work
	case o.Work < 0:
		return math.Inf(1)
	}
	return defaultLPWork
}

// defaultLPWork is LPOptions.Work's default.
const defaultLPWork = 200_000

func (o Options) validate() error {
	switch o.Role {
	case "", audit.RoleTotal, audit.RoleCount:
	default:
		return fmt.Errorf("suppression: value %q: want total or count", o.Role)
	}
	switch o.Method {
	case "", "lp", "hypercube":
	default:
		return fmt.Errorf("suppression: method %q: want lp or hypercube", o.Method)
	}
	if o.MarginWeight < 0 || math.IsNaN(o.MarginWeight) || math.IsInf(o.MarginWeight, 0) {
		return fmt.Errorf("suppression: margin weight %v: want 0 (margins as a last resort) or a positive factor", o.MarginWeight)
	}
	if math.IsNaN(o.LP.Work) {
		return fmt.Errorf("suppression: lp work budget %v: want a number", o.LP.Work)
	}
	switch o.Cost {
	case "", "value", "count", "unity":
	default:
		return fmt.Errorf("suppression: cost %q: want value, count or unity", o.Cost)
	}
	return o.audit().Validate()
}

// relations is what the table's relations read of o.
func (o Options) relations() relations.Options {
	return relations.Options{Role: o.Role, Hierarchies: o.Hierarchies, Unpublished: o.Unpublished, Column: o.Column}
}

// audit is what the interval audit reads of o.
func (o Options) audit() intervals.Options {
	return intervals.Options{Role: o.Role, Protection: o.Protection, Hierarchies: o.Hierarchies, Workers: o.Workers,
		TimeLimit: o.TimeLimit, Unpublished: o.Unpublished, Column: o.Column, Rounded: o.Rounded, Tuning: o.AuditTuning}
}
