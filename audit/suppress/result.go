package suppress

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Result is what Protect did.
type Result struct {
	// Run says what was run: the method, the cost model, the margin
	// weight, how many primaries the lp method left to the hypercube
	// method's move and why, and the pattern kept (the audit's
	// "suppression" object).
	Run audit.SuppressionRun
	// Audit is the interval audit of the pattern Protect leaves when it
	// computed one on the way (a large table, whose lp and hypercube
	// patterns are both audited to choose between them), or nil. It is
	// Audit(ctx, t, opt) on t as Protect leaves it, so a caller that
	// audits next can use it instead of auditing again.
	Audit *audit.Intervals
	// Unprotected are the primary cells the kept pattern was not built to
	// protect, in the order the method met them.
	Unprotected []Unprotected
}

// Reason says why a primary cell is left unprotected.
type Reason int

// Reasons.
const (
	// NoPattern: no complementary pattern protects the cell.
	NoPattern Reason = iota + 1
	// Singleton: the single contributor of another suppressed cell (By)
	// can recover the cell.
	Singleton
)

// Unprotected is a primary cell that secondary suppression leaves
// unprotected, and why.
type Unprotected struct {
	// Cell is the cell's index in Table.Cells.
	Cell   int
	Reason Reason
	// By is the singleton cell whose contributor recovers Cell
	// (Reason Singleton), else -1.
	By int
}

// Warning says u as a table warning of t.
func (u Unprotected) Warning(t *audit.Table) string {
	key := t.KeyString(t.Cells[u.Cell].Key)
	if u.Reason == Singleton {
		return fmt.Sprintf("secondary suppression: %s can be recovered by the single contributor of %s", key, t.KeyString(t.Cells[u.By].Key))
	}
	return fmt.Sprintf("secondary suppression: no complementary pattern protects %s", key)
}
