package readers

import (
	"bytes"
	"context"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
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
	src, err := newParquet(path, bytes.NewReader(data), &limitAlloc{limit: MaxArrowMemory + 32*int64(len(data))}, opt)
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
