package readers

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Parquet files are read with arrow-go's column chunk readers (not its
// Arrow layer, pqarrow, which brings Arrow Flight and gRPC into the
// binary), row group by row group and one batch of rows at a time, never
// the whole file. The schema must be flat (one column per field, none
// repeated). Values become text by the rules of Arrow IPC files (see
// arrow.go), by their Parquet logical type:
//
//	INT32, INT64 (signed or unsigned)   the integer
//	DECIMAL (any physical type)         exactly with its scale
//	FLOAT, DOUBLE, FLOAT16              shortest decimal, NaN a null
//	DATE                                2006-01-02
//	TIMESTAMP, INT96                    RFC 3339 in UTC
//	TIME                                15:04:05.000 (to the unit)
//	BOOLEAN                             true, false
//	BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY    the bytes as text (strings and
//	                                    dictionary-encoded strings alike;
//	                                    UUIDs in their 8-4-4-4-12 form)
//
// nulls as "". A column asked as numbers (Typed) gives integers, decimals
// and floats as exact decimals (arrow_typed.go).

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
	src, err := newParquet(path, f, newLimitAlloc(f, opt), opt)
	if err != nil {
		return nil, err
	}
	inner := src.closeFn
	src.closeFn = func() error {
		// arrow-go's reader closes f itself (f is an io.Closer)
		err := inner()
		if cerr := f.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
			err = cerr
		}
		return err
	}
	return []Source{src}, nil
}

// NewParquet reads a Parquet file held in memory; path is used in messages
// and for the table name.
func NewParquet(path string, data []byte, opt Options) (Source, error) {
	src, err := newParquet(path, bytes.NewReader(data), newBudget(opt, int64(len(data))), opt)
	if err != nil {
		return nil, err
	}
	return src, nil
}

func newParquet(path string, r parquet.ReaderAtSeeker, mem *limitAlloc, opt Options) (src *parquetSource, err error) {
	defer recoverCorrupt(path, "", 0, &err)
	pf, err := file.NewParquetReader(r, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return nil, arrowErr(path, 0, err)
	}
	if err := checkParquetChunks(pf.MetaData(), mem); err != nil {
		pf.Close()
		return nil, &Error{File: path, Err: err}
	}
	sc := pf.MetaData().Schema
	root := sc.Root()
	if root.NumFields() != sc.NumColumns() {
		pf.Close()
		return nil, &Error{File: path, Err: fmt.Errorf("%w: the schema has nested fields (%d fields, %d leaf columns); only flat tables can be read", ErrCorrupt, root.NumFields(), sc.NumColumns())}
	}
	base := filepath.Base(path)
	s := &parquetSource{path: path, name: strings.TrimSuffix(base, filepath.Ext(base)), pf: pf, batch: opt.batchSize(), closeFn: pf.Close, ra: r, mem: mem}
	for i := 0; i < sc.NumColumns(); i++ {
		col := sc.Column(i)
		if col.MaxRepetitionLevel() > 0 || col.MaxDefinitionLevel() > 1 {
			pf.Close()
			return nil, &Error{File: path, Column: col.Name(), Err: fmt.Errorf("%w: a repeated or nested column; only flat tables can be read", ErrCorrupt)}
		}
		c, err := newPQColumn(col)
		if err != nil {
			pf.Close()
			return nil, &Error{File: path, Column: col.Name(), Err: err}
		}
		s.header = append(s.header, root.Field(i).Name())
		s.cols = append(s.cols, c)
	}
	return s, nil
}

// parquetSource reads the rows of a Parquet file in batches that do not
// cross row groups.
type parquetSource struct {
	path, name string
	header     []string
	pf         *file.Reader
	cols       []*pqColumn
	batch      int
	closeFn    func() error
	ra         parquet.ReaderAtSeeker // what pf reads, for decoders' readers
	mem        *limitAlloc

	rg   int   // next row group
	left int64 // rows left in the current row group
	row  int64 // records before the next batch
	defs []int16

	// step is the distance between the row groups this source reads: 1,
	// or the number of decoders for a decoder's own source
	// (parquet_parallel.go).
	step int
	par  *pqParallel // set by DecodeParallel
}

func (s *parquetSource) Name() string            { return s.name }
func (s *parquetSource) Where() (string, string) { return s.path, "" }
func (s *parquetSource) Header() []string        { return s.header }

// SkipColumn implements ColumnSkipper.
func (s *parquetSource) SkipColumn(c int) bool {
	if c < 0 || c >= len(s.cols) || s.par != nil || s.rg > 0 {
		return false
	}
	s.cols[c].skip = true
	return true
}

// ReadNumbers implements Typed.
func (s *parquetSource) ReadNumbers(c int) bool {
	if c < 0 || c >= len(s.cols) || s.cols[c].num == nil {
		return false
	}
	s.cols[c].asNumber = true
	return true
}

func (s *parquetSource) Close() (err error) {
	defer recoverCorrupt(s.path, "", 0, &err)
	if s.par != nil {
		s.par.stop()
	}
	if s.closeFn != nil {
		err = s.closeFn()
		s.closeFn = nil
	}
	return err
}

// Next returns the next batch of rows.
func (s *parquetSource) Next() (*Batch, error) {
	if s.par != nil {
		return s.par.next(s)
	}
	return s.decode()
}

// decode reads the next batch of the row groups s reads.
func (s *parquetSource) decode() (b *Batch, err error) {
	defer recoverCorrupt(s.path, "", int(s.row)+2, &err)
	for s.left == 0 {
		if s.rg >= s.pf.NumRowGroups() {
			return nil, io.EOF
		}
		rg := s.pf.RowGroup(s.rg)
		s.rg += max(s.step, 1)
		s.left = rg.NumRows()
		if s.left == 0 {
			continue
		}
		for j, c := range s.cols {
			if c.skip {
				continue
			}
			ccr, err := rg.Column(j)
			if err != nil {
				return nil, arrowErr(s.path, int(s.row)+2, err)
			}
			if !c.attach(ccr) {
				return nil, &Error{File: s.path, Row: int(s.row) + 2, Column: s.header[j], Err: fmt.Errorf("%w: a column chunk of physical type %s, the schema %s", ErrCorrupt, ccr.Type(), c.desc.PhysicalType())}
			}
		}
	}
	n := int(min(s.left, int64(s.batch)))
	width := len(s.cols)
	if cap(s.defs) < n {
		s.defs = make([]int16, n)
	}
	store := make([]string, n*width)
	b = &Batch{Rows: make([][]string, n), Lines: make([]int, n)}
	for j, c := range s.cols {
		if c.skip {
			continue // "" in every row
		}
		var nums []decimal.Dec
		if c.asNumber {
			if b.Numbers == nil {
				b.Numbers = make([][]decimal.Dec, width)
			}
			nums = make([]decimal.Dec, n)
			b.Numbers[j] = nums
		}
		if err := c.fill(store[j:], width, nums, n, s.defs[:n]); err != nil {
			return nil, &Error{File: s.path, Row: int(s.row) + 2, Column: s.header[j], Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		}
	}
	for r := range n {
		b.Rows[r] = store[r*width : (r+1)*width : (r+1)*width]
		b.Lines[r] = int(s.row) + r + 2
	}
	s.row += int64(n)
	s.left -= int64(n)
	return b, nil
}

// pqColumn turns the values of one column into text and numbers.
type pqColumn struct {
	desc     *schema.Column
	asNumber bool
	skip     bool // not read: "" in every row (SkipColumn)
	// attach takes the column's reader of the next row group; fill reads
	// n rows into dst[0], dst[stride], ... (and nums when asked).
	attach func(file.ColumnChunkReader) bool
	fill   func(dst []string, stride int, nums []decimal.Dec, n int, defs []int16) error
	num    any // non-nil when the column is numeric
}

// pageReader is the typed column chunk reader of values of type T.
type pageReader[T any] interface {
	ReadBatchInPage(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
}

// typedColumn builds a column reading values of type T; num may be nil.
func typedColumn[T any](c *pqColumn, text func(T) string, num func(T) (decimal.Dec, bool)) {
	var rd pageReader[T]
	var vals []T
	maxDef := c.desc.MaxDefinitionLevel()
	if num != nil {
		c.num = num
	}
	c.attach = func(ccr file.ColumnChunkReader) bool {
		r, ok := ccr.(pageReader[T])
		rd = r
		return ok
	}
	c.fill = func(dst []string, stride int, nums []decimal.Dec, n int, defs []int16) error {
		if cap(vals) < n {
			vals = make([]T, n)
		}
		asNum := c.asNumber && num != nil
		for got := 0; got < n; {
			lv, nv, err := rd.ReadBatchInPage(int64(n-got), vals[:n-got], defs[got:n], nil)
			if err != nil {
				return err
			}
			if lv <= 0 {
				return fmt.Errorf("the column chunk ends after %d of a row group's rows", got)
			}
			k := 0
			for r := got; r < got+int(lv); r++ {
				if maxDef > 0 && defs[r] < maxDef {
					continue // null: "" and 0
				}
				if k >= nv {
					return fmt.Errorf("fewer values than definition levels")
				}
				v := vals[k]
				k++
				if asNum {
					if d, ok := num(v); ok {
						dst[r*stride] = NumberField
						nums[r] = d
						continue
					}
				}
				dst[r*stride] = text(v)
			}
			if k != nv {
				return fmt.Errorf("more values than definition levels")
			}
			got += int(lv)
		}
		return nil
	}
}

// newPQColumn chooses the text and number forms of a column by its
// physical and logical type.
func newPQColumn(desc *schema.Column) (*pqColumn, error) {
	c := &pqColumn{desc: desc}
	lt := desc.LogicalType()
	intType, isInt := lt.(schema.IntLogicalType)
	unsigned := isInt && !intType.IsSigned()
	decType, isDec := lt.(schema.DecimalLogicalType)
	switch desc.PhysicalType() {
	case parquet.Types.Boolean:
		typedColumn(c, strconv.FormatBool, nil)
	case parquet.Types.Int32:
		switch lt := lt.(type) {
		case schema.DecimalLogicalType:
			sc := lt.Scale()
			typedColumn(c, func(v int32) string { return decimalText(big.NewInt(int64(v)), sc) },
				func(v int32) (decimal.Dec, bool) { return scaledDec(int64(v), sc) })
		case schema.DateLogicalType:
			typedColumn(c, func(v int32) string { return arrow.Date32(v).ToTime().Format(time.DateOnly) }, nil)
		case schema.TimeLogicalType:
			typedColumn(c, func(v int32) string { return arrow.Time32(v).FormattedString(arrow.Millisecond) }, nil)
		default:
			if unsigned {
				typedColumn(c, func(v int32) string { return strconv.FormatUint(uint64(uint32(v)), 10) },
					func(v int32) (decimal.Dec, bool) { return decimal.FromInt(int64(uint32(v))), true })
			} else {
				typedColumn(c, func(v int32) string { return strconv.FormatInt(int64(v), 10) },
					func(v int32) (decimal.Dec, bool) { return decimal.FromInt(int64(v)), true })
			}
		}
	case parquet.Types.Int64:
		switch lt := lt.(type) {
		case schema.DecimalLogicalType:
			sc := lt.Scale()
			typedColumn(c, func(v int64) string { return decimalText(big.NewInt(v), sc) },
				func(v int64) (decimal.Dec, bool) { return scaledDec(v, sc) })
		case schema.TimestampLogicalType:
			unit := timeUnit(lt.TimeUnit())
			typedColumn(c, func(v int64) string { return arrow.Timestamp(v).ToTime(unit).UTC().Format(time.RFC3339Nano) }, nil)
		case schema.TimeLogicalType:
			unit := timeUnit(lt.TimeUnit())
			typedColumn(c, func(v int64) string { return arrow.Time64(v).FormattedString(unit) }, nil)
		default:
			if unsigned {
				typedColumn(c, func(v int64) string { return strconv.FormatUint(uint64(v), 10) },
					func(v int64) (decimal.Dec, bool) { return uintDec(uint64(v)) })
			} else {
				typedColumn(c, func(v int64) string { return strconv.FormatInt(v, 10) },
					func(v int64) (decimal.Dec, bool) { return decimal.FromInt(v), true })
			}
		}
	case parquet.Types.Int96:
		typedColumn(c, func(v parquet.Int96) string { return v.ToTime().Format(time.RFC3339Nano) }, nil)
	case parquet.Types.Float:
		typedColumn(c, func(v float32) string { return floatText(float64(v), 32) },
			func(v float32) (decimal.Dec, bool) { return floatDec(float64(v), 32) })
	case parquet.Types.Double:
		typedColumn(c, func(v float64) string { return floatText(v, 64) },
			func(v float64) (decimal.Dec, bool) { return floatDec(v, 64) })
	case parquet.Types.ByteArray:
		if isDec {
			sc := decType.Scale()
			typedColumn(c, func(v parquet.ByteArray) string { return decimalText(bigEndianInt(v), sc) },
				func(v parquet.ByteArray) (decimal.Dec, bool) { return bigEndianDec(v, sc) })
		} else {
			typedColumn(c, newInterner().text, nil)
		}
	case parquet.Types.FixedLenByteArray:
		switch {
		case isDec:
			sc := decType.Scale()
			typedColumn(c, func(v parquet.FixedLenByteArray) string { return decimalText(bigEndianInt(v), sc) },
				func(v parquet.FixedLenByteArray) (decimal.Dec, bool) { return bigEndianDec(v, sc) })
		case isFloat16(lt) && desc.TypeLength() == 2:
			f := func(v parquet.FixedLenByteArray) float64 {
				return float64(float16.FromBits(binary.LittleEndian.Uint16(v)).Float32())
			}
			typedColumn(c, func(v parquet.FixedLenByteArray) string { return floatText(f(v), 32) },
				func(v parquet.FixedLenByteArray) (decimal.Dec, bool) { return floatDec(f(v), 32) })
		case isUUID(lt) && desc.TypeLength() == 16:
			typedColumn(c, func(v parquet.FixedLenByteArray) string {
				h := fmt.Sprintf("%x", []byte(v))
				return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
			}, nil)
		default:
			in := newInterner()
			typedColumn(c, func(v parquet.FixedLenByteArray) string { return in.text(parquet.ByteArray(v)) }, nil)
		}
	default:
		return nil, fmt.Errorf("%w: physical type %s", ErrCorrupt, desc.PhysicalType())
	}
	return c, nil
}

func isFloat16(lt schema.LogicalType) bool { _, ok := lt.(schema.Float16LogicalType); return ok }

func isUUID(lt schema.LogicalType) bool { _, ok := lt.(schema.UUIDLogicalType); return ok }

func timeUnit(u schema.TimeUnitType) arrow.TimeUnit {
	switch u {
	case schema.TimeUnitMillis:
		return arrow.Millisecond
	case schema.TimeUnitMicros:
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

// bigEndianInt reads a big-endian two's complement integer (Parquet's
// DECIMAL in byte arrays).
func bigEndianInt(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// bigEndianDec is bigEndianInt with scale sc when it fits an int64.
func bigEndianDec(b []byte, sc int32) (decimal.Dec, bool) {
	if len(b) == 0 || len(b) > 8 {
		return decimal.Dec{}, false
	}
	var u uint64
	if b[0]&0x80 != 0 {
		u = ^uint64(0)
	}
	for _, x := range b {
		u = u<<8 | uint64(x)
	}
	return scaledDec(int64(u), sc)
}

// interner keeps one copy of each distinct text of a column (labels
// repeat), up to maxInterned texts; the values of a page are not kept
// past the next read, so every text is a copy.
type interner struct{ m map[string]string }

const maxInterned = 1 << 16

func newInterner() *interner { return &interner{m: map[string]string{}} }

func (in *interner) text(v parquet.ByteArray) string {
	if s, ok := in.m[string(v)]; ok {
		return s
	}
	s := string(v)
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
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
