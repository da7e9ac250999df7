// Package parquettest writes Parquet files for tests: Arrow records built
// row by row, flushed as row groups.
package parquettest

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Sink writes the Arrow records built in B to a Parquet file.
type Sink struct {
	tb   testing.TB
	B    *array.RecordBuilder
	w    *pqarrow.FileWriter
	file *os.File // closed by Close when the sink created it
}

// NewSink starts a Parquet file of the schema on f.
func NewSink(tb testing.TB, f io.Writer, schema *arrow.Schema, props *parquet.WriterProperties) *Sink {
	tb.Helper()
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		tb.Fatal(err)
	}
	return &Sink{tb: tb, B: array.NewRecordBuilder(memory.NewGoAllocator(), schema), w: w}
}

// Create starts the Parquet file path of the schema, strings
// dictionary-encoded, in row groups of at most rowGroup rows; Close
// closes the file.
func Create(tb testing.TB, path string, schema *arrow.Schema, rowGroup int64) *Sink {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true), parquet.WithMaxRowGroupLength(rowGroup))
	s := NewSink(tb, f, schema, props)
	s.file = f
	return s
}

// Flush writes the records built so far (a row group or more).
func (s *Sink) Flush() {
	rec := s.B.NewRecordBatch()
	defer rec.Release()
	if err := s.w.Write(rec); err != nil {
		s.tb.Fatal(err)
	}
}

// Close writes the records left and the file's footer.
func (s *Sink) Close() {
	s.Flush()
	if err := s.w.Close(); err != nil {
		s.tb.Fatal(err)
	}
	s.B.Release()
	if s.file != nil {
		// the Parquet writer may have closed it already
		if err := s.file.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			s.tb.Fatal(err)
		}
	}
}
