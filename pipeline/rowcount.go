package pipeline

import (
	"sync/atomic"

	"github.com/sdcaudit/sdcaudit/readers"
)

// countRows wraps a source so that it counts the data rows it gives
// (rowCounter.Rows); the chunks a builder parses itself are counted too.
func countRows(src readers.Source) *rowCounter { return &rowCounter{Source: src} }

// rowCounter counts the data rows a source gives.
type rowCounter struct {
	readers.Source
	rows atomic.Int64
}

// Rows is the number of data rows given so far.
func (r *rowCounter) Rows() int64 { return r.rows.Load() }

// Unwrap returns the counted source.
func (r *rowCounter) Unwrap() readers.Source { return r.Source }

func (r *rowCounter) Next() (*readers.Batch, error) {
	b, err := r.Source.Next()
	if b != nil {
		r.rows.Add(int64(len(b.Rows)))
	}
	return b, err
}
