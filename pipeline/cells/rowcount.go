package cells

import (
	"sync/atomic"

	"github.com/sdcaudit/sdcaudit/readers"
)

// CountRows wraps a source so that it counts the data rows it gives
// (RowCounter.Rows); the chunks a builder parses itself are counted too.
func CountRows(src readers.Source) *RowCounter { return &RowCounter{Source: src} }

// RowCounter counts the data rows a source gives.
type RowCounter struct {
	readers.Source
	rows atomic.Int64
}

// Rows is the number of data rows given so far.
func (r *RowCounter) Rows() int64 { return r.rows.Load() }

// Unwrap returns the counted source.
func (r *RowCounter) Unwrap() readers.Source { return r.Source }

func (r *RowCounter) Next() (*readers.Batch, error) {
	b, err := r.Source.Next()
	if b != nil {
		r.rows.Add(int64(len(b.Rows)))
	}
	return b, err
}
