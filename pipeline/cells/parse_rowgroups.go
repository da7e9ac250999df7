package cells

import (
	"context"

	"github.com/sdcaudit/sdcaudit/readers"
)

// Parallel decoding of Parquet files (docs/performance.md): when the
// source decodes its row groups on several goroutines
// (readers.ParallelDecoder), the reading goroutine of build only hands
// out batches already decoded, in the order of the sequential reader, so
// that batch i still goes to shard i mod n and every result is the same.

// decodeInParallel asks src, or the source under its wrappers (which see
// the same batches), for n decoders until ctx is done.
func decodeInParallel(ctx context.Context, src readers.Source, n int) {
	if n < 2 {
		return
	}
	if p, ok := readers.As[readers.ParallelDecoder](src); ok {
		p.DecodeParallel(ctx, n)
	}
}

// skipUnread leaves unread the columns of src that the microdata builder
// b does not read (the id column of a Parquet extract, for one), when
// nothing but the run's row counter, which only counts rows, stands
// between the builder and the source: any other wrapper (the marker guard
// of audit, which looks for suppression markers in every column; the
// crosstab reader) may read every field. Other builders read columns
// beyond these (statistics, markers) and keep them all.
func skipUnread(src readers.Source, b builder) {
	mb, ok := b.(*microBuilder)
	if !ok {
		return
	}
	if c, ok := src.(*RowCounter); ok {
		src = c.Source
	}
	sk, ok := src.(readers.ColumnSkipper)
	if !ok {
		return
	}
	read := mb.readColumns(len(src.Header()))
	for c, r := range read {
		if !r {
			sk.SkipColumn(c)
		}
	}
}

// readColumns marks the columns microBuilder.add reads of a record: the
// dimensions, the value, the holding and the parent columns of
// hierarchies. A column it comes to read must be marked here, or the
// column reads as "" from Parquet files
// (TestParquetSkippedColumnsMatchAllColumns).
func (b *microBuilder) readColumns(width int) []bool {
	read := make([]bool, width)
	mark := func(i int) {
		if i >= 0 && i < width {
			read[i] = true
		}
	}
	for _, i := range b.dimIdx {
		mark(i)
	}
	mark(b.valIdx)
	mark(b.holdIdx)
	if b.hier != nil {
		for _, i := range b.hier.dimCol {
			mark(i)
		}
		for _, cols := range b.hier.cols {
			for _, i := range cols {
				mark(i)
			}
		}
	}
	return read
}
