package readers

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Arrow IPC files (.arrow, .feather, .ipc: the random-access "file" format,
// Feather v2) and streams (.arrows) are read record batch by record batch.
// The schema's field names are the header; each record is one row, and row
// r (0-based) is reported as source row r+2 so that row 1 is the header as
// in the other formats.
//
// Values become text as follows: integers of every width in decimal;
// float16/32/64 in the shortest decimal notation that reads back to the
// same value (never an exponent), NaN as null; decimal32/64/128/256
// exactly with their scale; booleans as true/false; dates as 2006-01-02,
// timestamps as RFC 3339 in UTC; strings, large strings, string views and
// dictionary-encoded strings as they are; nulls as "". Other types use
// Arrow's own text form.
//
// Memory taken by a file is capped (Options.MaxArrowMemory plus a
// multiple of the file size) so that a corrupt length cannot exhaust
// memory; exceeding it is ErrTooLarge. Corrupt files are ErrCorrupt, never a panic.

func init() {
	RegisterFormat("arrow", OpenArrow, ".arrow", ".feather", ".ipc")
	RegisterFormat("arrows", OpenArrowStream, ".arrows")
}

// DefaultMaxArrowMemory is the default base memory budget of one Arrow or
// Parquet file in bytes (Options.MaxArrowMemory); the budget is this plus
// 32 times the file size.
const DefaultMaxArrowMemory int64 = 1 << 30

// OpenArrow opens an Arrow IPC file (random-access format).
func OpenArrow(path string, opt Options) (srcs []Source, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	defer recoverCorrupt(path, "", 0, &err)
	mem := newLimitAlloc(f, opt)
	s, err := arrowFileSource(path, f, mem.size, mem, opt, f.Close)
	if err != nil {
		return nil, err
	}
	return []Source{s}, nil
}

// OpenArrowStream opens an Arrow IPC stream.
func OpenArrowStream(path string, opt Options) (srcs []Source, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	mem := newLimitAlloc(f, opt)
	src, err := newArrowStream(path, newIPCGuard(f, mem.size, mem.limit), mem, opt)
	if err != nil {
		return nil, err
	}
	rs := src.(*recordSource)
	inner := rs.closeFn
	rs.closeFn = func() error {
		inner()
		return f.Close()
	}
	return []Source{src}, nil
}

// NewArrowStream reads an Arrow IPC stream from r; path is used in messages
// and for the table name.
func NewArrowStream(path string, r io.Reader, opt Options) (src Source, err error) {
	mem := newBudget(opt, 0)
	return newArrowStream(path, newIPCGuard(r, -1, mem.limit), mem, opt)
}

// newArrowStream reads a stream whose message headers r checks.
func newArrowStream(path string, r *ipcGuard, mem *limitAlloc, opt Options) (src Source, err error) {
	defer recoverCorrupt(path, "", 0, &err)
	rd, err := ipc.NewReader(r, ipcLimits(mem)...)
	if err != nil {
		return nil, arrowErr(path, 0, err)
	}
	next := func() (arrow.RecordBatch, error) {
		if !rd.Next() {
			if err := rd.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		rec := rd.RecordBatch()
		rec.Retain()
		return rec, nil
	}
	return newRecordSource(path, rd.Schema(), opt, next, func() error {
		rd.Release()
		return nil
	}), nil
}

// NewArrowFile reads an Arrow IPC file held in memory (for tests and fuzzing).
func NewArrowFile(path string, data []byte, opt Options) (src Source, err error) {
	defer recoverCorrupt(path, "", 0, &err)
	mem := newBudget(opt, int64(len(data)))
	return arrowFileSource(path, strings.NewReader(string(data)), mem.size, mem, opt, func() error { return nil })
}

// arrowFileSource reads the record batches of an IPC file one by one;
// closeFn releases what backs ra. The headers of every message are checked
// against the file's size before arrow-go reads them.
func arrowFileSource(path string, ra ipc.ReadAtSeeker, size int64, mem *limitAlloc, opt Options, closeFn func() error) (Source, error) {
	if err := checkIPCFile(ra, size, mem.limit); err != nil {
		return nil, arrowErr(path, 0, err)
	}
	r, err := ipc.NewFileReader(ra, ipcLimits(mem)...)
	if err != nil {
		return nil, arrowErr(path, 0, err)
	}
	i, n := 0, r.NumRecords()
	next := func() (arrow.RecordBatch, error) {
		if i >= n {
			return nil, io.EOF
		}
		rec, err := r.RecordBatchAt(i)
		i++
		return rec, err
	}
	return newRecordSource(path, r.Schema(), opt, next, func() error {
		r.Close()
		return closeFn()
	}), nil
}

// ipcLimits bounds the memory an IPC message may claim: metadata to 16 MiB,
// a record batch body to the memory budget.
func ipcLimits(mem *limitAlloc) []ipc.Option {
	return []ipc.Option{ipc.WithAllocator(mem), ipc.WithMetadataSizeLimit(16 << 20), ipc.WithBodySizeLimit(mem.limit)}
}

// recordSource turns a sequence of Arrow record batches into batches of text rows.
type recordSource struct {
	path    string
	name    string
	header  []string
	next    func() (arrow.RecordBatch, error)
	closeFn func() error
	batch   int

	cur  arrow.RecordBatch
	conv []func(int) string
	// asNumber marks the columns asked as numbers (ReadNumbers); nums
	// holds their converters for cur (nil for a column without numbers)
	asNumber []bool
	nums     []func(int) (decimal.Dec, bool)
	types    []arrow.DataType
	off      int   // next row within cur
	row      int64 // records consumed before cur
	done     bool
}

func newRecordSource(path string, schema *arrow.Schema, opt Options, next func() (arrow.RecordBatch, error), closeFn func() error) *recordSource {
	base := filepath.Base(path)
	s := &recordSource{path: path, name: strings.TrimSuffix(base, filepath.Ext(base)), next: next, closeFn: closeFn, batch: opt.batchSize()}
	for _, f := range schema.Fields() {
		s.header = append(s.header, f.Name)
		s.types = append(s.types, f.Type)
	}
	s.asNumber = make([]bool, len(s.header))
	return s
}

// ReadNumbers implements Typed.
func (s *recordSource) ReadNumbers(c int) bool {
	if c < 0 || c >= len(s.types) || !isNumeric(s.types[c]) {
		return false
	}
	s.asNumber[c] = true
	return true
}

func (s *recordSource) Name() string            { return s.name }
func (s *recordSource) Where() (string, string) { return s.path, "" }
func (s *recordSource) Header() []string        { return s.header }

func (s *recordSource) Close() (err error) {
	defer recoverCorrupt(s.path, "", 0, &err)
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.closeFn != nil {
		err = s.closeFn()
		s.closeFn = nil
	}
	return err
}

// Next returns up to one batch of rows, crossing record batches as needed.
func (s *recordSource) Next() (b *Batch, err error) {
	defer recoverCorrupt(s.path, "", int(s.row)+s.off+2, &err)
	if s.done {
		return nil, io.EOF
	}
	width := len(s.header)
	b = &Batch{Rows: make([][]string, 0, s.batch), Lines: make([]int, 0, s.batch)}
	store := make([]string, 0, s.batch*width)
	for c, on := range s.asNumber {
		if on {
			if b.Numbers == nil {
				b.Numbers = make([][]decimal.Dec, width)
			}
			b.Numbers[c] = make([]decimal.Dec, 0, s.batch)
		}
	}
	for len(b.Rows) < s.batch {
		if s.cur == nil || int64(s.off) >= s.cur.NumRows() {
			if s.cur != nil {
				s.row += s.cur.NumRows()
				s.cur.Release()
				s.cur = nil
			}
			rec, err := s.next()
			if err == io.EOF {
				s.done = true
				break
			}
			if err != nil {
				return nil, arrowErr(s.path, int(s.row)+2, err)
			}
			if int(rec.NumCols()) != width {
				rec.Release()
				return nil, &Error{File: s.path, Row: int(s.row) + 2, Err: fmt.Errorf("%w: a record batch has %d columns, the schema %d", ErrCorrupt, rec.NumCols(), width)}
			}
			s.cur, s.off = rec, 0
			s.conv, s.nums = s.conv[:0], s.nums[:0]
			for c := 0; c < width; c++ {
				s.conv = append(s.conv, textOf(rec.Column(c)))
				var num func(int) (decimal.Dec, bool)
				if s.asNumber[c] {
					if num = numberOf(rec.Column(c)); num == nil {
						return nil, &Error{File: s.path, Row: int(s.row) + 2, Column: s.header[c], Err: fmt.Errorf("%w: a record batch has type %s, the schema %s", ErrCorrupt, rec.Column(c).DataType(), s.types[c])}
					}
				}
				s.nums = append(s.nums, num)
			}
			continue
		}
		n := min(int(s.cur.NumRows())-s.off, s.batch-len(b.Rows))
		for i := s.off; i < s.off+n; i++ {
			start := len(store)
			for c, conv := range s.conv {
				if num := s.nums[c]; num != nil {
					d, ok := num(i)
					b.Numbers[c] = append(b.Numbers[c], d)
					if ok {
						store = append(store, NumberField)
						continue
					}
				}
				store = append(store, conv(i))
			}
			b.Rows = append(b.Rows, store[start:len(store):len(store)])
			b.Lines = append(b.Lines, int(s.row)+i+2)
		}
		s.off += n
	}
	if len(b.Rows) == 0 {
		return nil, io.EOF
	}
	return b, nil
}

// textOf returns a function giving the text of element i of a.
func textOf(a arrow.Array) func(int) string {
	null := func(f func(int) string) func(int) string {
		if a.NullN() == 0 {
			return f
		}
		return func(i int) string {
			if a.IsNull(i) {
				return ""
			}
			return f(i)
		}
	}
	switch a := a.(type) {
	case *array.Null:
		return func(int) string { return "" }
	case *array.String:
		return null(a.Value)
	case *array.LargeString:
		return null(a.Value)
	case *array.StringView:
		return null(a.Value)
	case *array.Binary:
		return null(a.ValueString)
	case *array.LargeBinary:
		return null(a.ValueString)
	case *array.Boolean:
		return null(func(i int) string { return strconv.FormatBool(a.Value(i)) })
	case *array.Int8:
		return null(signed(a.Value))
	case *array.Int16:
		return null(signed(a.Value))
	case *array.Int32:
		return null(signed(a.Value))
	case *array.Int64:
		return null(signed(a.Value))
	case *array.Uint8:
		return null(unsigned(a.Value))
	case *array.Uint16:
		return null(unsigned(a.Value))
	case *array.Uint32:
		return null(unsigned(a.Value))
	case *array.Uint64:
		return null(unsigned(a.Value))
	case *array.Float16:
		return null(func(i int) string { return floatText(float64(a.Value(i).Float32()), 32) })
	case *array.Float32:
		return null(func(i int) string { return floatText(float64(a.Value(i)), 32) })
	case *array.Float64:
		return null(func(i int) string { return floatText(a.Value(i), 64) })
	case *array.Decimal32:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) string { return decimalText(big.NewInt(int64(a.Value(i))), sc) })
	case *array.Decimal64:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) string { return decimalText(big.NewInt(int64(a.Value(i))), sc) })
	case *array.Decimal128:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) string { return decimalText(a.Value(i).BigInt(), sc) })
	case *array.Decimal256:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) string { return decimalText(a.Value(i).BigInt(), sc) })
	case *array.Date32:
		return null(func(i int) string { return a.Value(i).ToTime().Format(time.DateOnly) })
	case *array.Date64:
		return null(func(i int) string { return a.Value(i).ToTime().Format(time.DateOnly) })
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return null(func(i int) string { return a.Value(i).ToTime(unit).UTC().Format(time.RFC3339Nano) })
	case *array.Dictionary:
		dict := textOf(a.Dictionary())
		return null(func(i int) string { return dict(a.GetValueIndex(i)) })
	}
	return null(a.ValueStr)
}

// floatText writes a float in plain decimal notation, the shortest that
// reads back to the same value; NaN is a null (as pandas writes missing
// values).
func floatText(v float64, bits int) string {
	if math.IsNaN(v) {
		return ""
	}
	if math.IsInf(v, 0) {
		if v > 0 {
			return "Inf"
		}
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'f', -1, bits)
}

// decimalText writes an unscaled integer with scale sc exactly.
func decimalText(v *big.Int, sc int32) string {
	s := v.String()
	if sc <= 0 {
		if sc < 0 && v.Sign() != 0 {
			s += strings.Repeat("0", int(-sc))
		}
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s) <= int(sc) {
		s = strings.Repeat("0", int(sc)-len(s)+1) + s
	}
	s = s[:len(s)-int(sc)] + "." + s[len(s)-int(sc):]
	if neg {
		s = "-" + s
	}
	return s
}

func arrowErr(path string, row int, err error) error {
	var re *Error
	if errors.As(err, &re) {
		return err
	}
	var claim *ipcClaim
	if errors.As(err, &claim) {
		return &Error{File: path, Row: row, Err: claim.err}
	}
	var over *arrowMemoryError
	if errors.As(err, &over) {
		return &Error{File: path, Row: row, Err: fmt.Errorf("%w: more than the memory budget of %d bytes", ErrTooLarge, over.base)}
	}
	return &Error{File: path, Row: row, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
}

// recoverCorrupt turns a panic in a decoding library into ErrCorrupt (or
// ErrTooLarge when the memory budget ran out).
func recoverCorrupt(path, sheet string, row int, err *error) {
	r := recover()
	if r == nil {
		return
	}
	var over *arrowMemoryError
	if e, ok := r.(error); ok && errors.As(e, &over) {
		*err = &Error{File: path, Sheet: sheet, Row: row, Err: fmt.Errorf("%w: more than the memory budget of %d bytes", ErrTooLarge, over.base)}
		return
	}
	if debugPanics {
		fmt.Fprintf(os.Stderr, "readers: recovered panic: %v\n%s", r, debug.Stack())
	}
	if _, ok := r.(runtime.Error); ok {
		// a nil pointer or an index out of range inside the decoder says
		// nothing to the person holding the file
		*err = &Error{File: path, Sheet: sheet, Row: row, Err: fmt.Errorf("%w: malformed data the decoder could not read (SDCAUDIT_DEBUG_PANIC=1 prints where)", ErrCorrupt)}
		return
	}
	*err = &Error{File: path, Sheet: sheet, Row: row, Err: fmt.Errorf("%w: %v", ErrCorrupt, r)}
}

// debugPanics prints the stack of recovered panics (SDCAUDIT_DEBUG_PANIC=1).
var debugPanics = os.Getenv("SDCAUDIT_DEBUG_PANIC") != ""

// arrowMemoryError is what limitAlloc panics with when its budget runs
// out; base is the budget's base (Options.MaxArrowMemory), which the
// message names.
type arrowMemoryError struct{ base int64 }

func (*arrowMemoryError) Error() string { return "arrow memory budget exceeded" }

// limitAlloc is a Go allocator that panics with an *arrowMemoryError
// when the live bytes would exceed limit.
type limitAlloc struct {
	mu    sync.Mutex
	base  int64 // Options.MaxArrowMemory
	limit int64 // base plus 32 times the file's size
	size  int64 // the file's size
	used  int64
	mem   memory.GoAllocator
}

// newLimitAlloc is the budget of reading file f under opt.
func newLimitAlloc(f *os.File, opt Options) *limitAlloc {
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return newBudget(opt, size)
}

// newBudget is the budget of reading a file of size bytes under opt
// (size 0 for a stream): Options.MaxArrowMemory plus 32 times the size.
func newBudget(opt Options, size int64) *limitAlloc {
	base := opt.maxArrowMemory()
	return &limitAlloc{base: base, limit: base + 32*size, size: size}
}

func (a *limitAlloc) take(n int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n > 0 && a.used+n > a.limit {
		panic(&arrowMemoryError{base: a.base})
	}
	a.used += n
}

func (a *limitAlloc) give(n int64) {
	a.mu.Lock()
	a.used -= n
	a.mu.Unlock()
}

func (a *limitAlloc) Allocate(size int) []byte {
	a.take(int64(size))
	return a.mem.Allocate(size)
}

func (a *limitAlloc) Reallocate(size int, b []byte) []byte {
	a.take(int64(size) - int64(len(b)))
	return a.mem.Reallocate(size, b)
}

func (a *limitAlloc) Free(b []byte) {
	a.give(int64(len(b)))
	a.mem.Free(b)
}

// signed and unsigned format the integers of an Arrow array of any width.
func signed[T int8 | int16 | int32 | int64](value func(int) T) func(int) string {
	return func(i int) string { return strconv.FormatInt(int64(value(i)), 10) }
}

func unsigned[T uint8 | uint16 | uint32 | uint64](value func(int) T) func(int) string {
	return func(i int) string { return strconv.FormatUint(uint64(value(i)), 10) }
}
