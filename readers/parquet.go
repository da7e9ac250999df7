package readers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Parquet files are read through their Arrow schema, one batch of rows at
// a time (row group by row group, never the whole file), with the same
// value-to-text rules as Arrow IPC files: dictionary-encoded and plain
// strings alike, integers of every width, floats, decimals exactly, dates
// as 2006-01-02, nulls as "".

func init() {
	RegisterFormat("parquet", OpenParquet, ".parquet", ".parq", ".pq")
}

// OpenParquet opens a Parquet file.
func OpenParquet(path string, opt Options) (srcs []Source, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	src, err := newParquet(path, f, newLimitAlloc(f), opt)
	if err != nil {
		return nil, err
	}
	inner := src.closeFn
	src.closeFn = func() error {
		inner()
		return f.Close()
	}
	return []Source{src}, nil
}

// NewParquet reads a Parquet file held in memory; path is used in messages
// and for the table name.
func NewParquet(path string, data []byte, opt Options) (Source, error) {
	src, err := newParquet(path, bytes.NewReader(data), &limitAlloc{limit: MaxArrowMemory + 32*int64(len(data)), size: int64(len(data))}, opt)
	if err != nil {
		return nil, err
	}
	return src, nil
}

func newParquet(path string, r parquet.ReaderAtSeeker, mem *limitAlloc, opt Options) (src *recordSource, err error) {
	defer recoverCorrupt(path, "", 0, &err)
	pf, err := file.NewParquetReader(r, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return nil, arrowErr(path, 0, err)
	}
	if err := checkParquetChunks(pf.MetaData(), mem); err != nil {
		pf.Close()
		return nil, &Error{File: path, Err: err}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(opt.batchSize())}, mem)
	if err != nil {
		pf.Close()
		return nil, arrowErr(path, 0, err)
	}
	schema, err := fr.Schema()
	if err != nil {
		pf.Close()
		return nil, arrowErr(path, 0, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		pf.Close()
		return nil, arrowErr(path, 0, err)
	}
	next := func() (arrow.RecordBatch, error) {
		if !rr.Next() {
			if err := rr.Err(); err != nil && err != io.EOF {
				return nil, err
			}
			return nil, io.EOF
		}
		rec := rr.RecordBatch()
		rec.Retain()
		return rec, nil
	}
	return newRecordSource(path, schema, opt, next, func() error {
		rr.Release()
		return pf.Close()
	}), nil
}

// checkParquetChunks refuses a footer whose column chunks lie outside the
// file or claim more memory than the budget, before arrow-go sizes buffers
// from those claims.
func checkParquetChunks(md *metadata.FileMetaData, mem *limitAlloc) error {
	size := mem.size
	for i := 0; i < md.NumRowGroups(); i++ {
		rg := md.RowGroup(i)
		if rg.NumRows() < 0 {
			return fmt.Errorf("%w: row group %d claims %d rows", ErrCorrupt, i+1, rg.NumRows())
		}
		for j := 0; j < rg.NumColumns(); j++ {
			cc, err := rg.ColumnChunk(j)
			if err != nil {
				return fmt.Errorf("%w: row group %d, column %d: %v", ErrCorrupt, i+1, j+1, err)
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
				start = cc.DictionaryPageOffset()
			}
			n := cc.TotalCompressedSize()
			if start < 0 || n < 0 || start > size || n > size-start {
				return fmt.Errorf("%w: row group %d, column %d claims %d bytes at offset %d of a file of %d bytes", ErrCorrupt, i+1, j+1, n, start, size)
			}
			if u := cc.TotalUncompressedSize(); u < 0 || u > mem.limit {
				return fmt.Errorf("%w: row group %d, column %d claims %d bytes uncompressed, more than the memory budget of %d bytes", ErrTooLarge, i+1, j+1, u, mem.limit)
			}
			if v := cc.NumValues(); v < 0 || v > 8*n+1<<16 && v > rg.NumRows() {
				return fmt.Errorf("%w: row group %d, column %d claims %d values in %d bytes", ErrCorrupt, i+1, j+1, v, n)
			}
		}
	}
	return nil
}
