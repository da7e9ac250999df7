package writers

import (
	"context"
	"encoding/csv"
	"io"

	"github.com/sdcaudit/sdcaudit/audit"
)

// SafeCSV writes NAME.safe.csv, the publishable table: the dimensions and
// the published statistics of every cell, with every statistic of a
// suppressed cell (primary, secondary or pending review) replaced by the
// marker. It has no confidential extra columns (no contributions, no
// figures from the rules). Text is escaped against formula injection.
type SafeCSV struct {
	Options
}

// File implements TableWriter.
func (SafeCSV) File(t *audit.Table) string { return t.Name + ".safe.csv" }

// Write writes the table; see WriteContext.
func (s SafeCSV) Write(w io.Writer, t *audit.Table) error {
	return s.WriteContext(context.Background(), w, t)
}

// WriteContext implements TableWriter.
func (s SafeCSV) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	cw := csv.NewWriter(w)
	return writeRows(ctx, t, s.Marker, func(rec []string) error { return cw.Write(rec) }, func() error {
		cw.Flush()
		return cw.Error()
	})
}

// SafeRows returns the publishable table as rows of text, header first,
// for writers of other formats.
func SafeRows(t *audit.Table, marker string) [][]string {
	var rows [][]string
	writeRows(context.Background(), t, marker, func(r []string) error { rows = append(rows, append([]string(nil), r...)); return nil }, func() error { return nil })
	return rows
}

// writeRows gives put the publishable rows, header first, then calls
// done; it stops with ctx.Err() once ctx is cancelled.
func writeRows(ctx context.Context, t *audit.Table, marker string, put func([]string) error, done func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cc := canceller{ctx: ctx}
	header := make([]string, 0, len(t.Dims)+len(t.Columns))
	for _, d := range t.Dims {
		header = append(header, EscapeFormula(d))
	}
	for i := range t.Columns {
		header = append(header, EscapeFormula(t.ColumnLabel(i)))
	}
	if err := put(header); err != nil {
		return err
	}
	rec := make([]string, len(header))
	for _, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		for i, k := range c.Key {
			rec[i] = EscapeFormula(k)
		}
		sup := Suppressed(c)
		for j, col := range t.Columns {
			v := ""
			if st, ok := c.Stats.Get(col); ok {
				switch {
				case sup:
					v = marker
				case st.Missing:
					v = st.Text
				default:
					v = st.Text
				}
			} else if sup {
				v = marker
			}
			rec[len(t.Dims)+j] = EscapeFormula(v)
		}
		if err := put(rec); err != nil {
			return err
		}
	}
	return done()
}
