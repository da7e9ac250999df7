package writers

import (
	"bufio"
	"context"
	"encoding/csv"
	"io"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Apriori writes NAME.hst, a table's final suppression pattern as a
// tau-argus a-priori file: one line per withheld cell, its codes in the
// order of the table's dimensions (margins as the total label) separated
// by ";", then "u" (unsafe) for a primary cell, or "c;0" (cost zero) for
// a secondary or review cell. Read back by the next run (--apriori
// NAME.hst) or by tau-argus, the primary cells are withheld again and the
// other withheld cells are the free complements secondary suppression
// chooses first, so that the same data give the same pattern (a
// secondary written "u" would be a primary needing protection of its
// own, and could pull in more cells). A review cell is left to the next
// run's rules, which on the same data send it to review again; tau-argus,
// which has no review, sees a free complement. Cells published here get
// no line.
// The file names cells only: no values.
type Apriori struct{}

// File returns NAME.hst.
func (Apriori) File(t *audit.Table) string { return t.Name + ".hst" }

// WriteContext implements TableWriter.
func (Apriori) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	cc := canceller{ctx: ctx}
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	cw.Comma = ';'
	rec := make([]string, len(t.Dims), len(t.Dims)+2)
	for _, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		if c.Status.Effective() == audit.StatusOK {
			continue
		}
		copy(rec, c.Key)
		out := append(rec[:len(t.Dims)], "u")
		if c.Status != audit.StatusPrimary {
			out = append(rec[:len(t.Dims)], "c", "0")
		}
		if err := cw.Write(out); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
