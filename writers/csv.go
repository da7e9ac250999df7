package writers

import (
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

// Write implements TableWriter.
func (s SafeCSV) Write(w io.Writer, t *audit.Table) error {
	cw := csv.NewWriter(w)
	return writeRows(t, s.Marker, func(rec []string) error { return cw.Write(rec) }, func() error {
		cw.Flush()
		return cw.Error()
	})
}

// SafeRows returns the publishable table as rows of text, header first,
// for writers of other formats.
func SafeRows(t *audit.Table, marker string) [][]string {
	var rows [][]string
	writeRows(t, marker, func(r []string) error { rows = append(rows, append([]string(nil), r...)); return nil }, func() error { return nil })
	return rows
}

func writeRows(t *audit.Table, marker string, put func([]string) error, done func() error) error {
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
		for i, k := range c.Key {
			rec[i] = EscapeFormula(k)
		}
		sup := Suppressed(c)
		for j, col := range t.Columns {
			v := ""
			if st, ok := c.Stats[col]; ok {
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
