// Package readers turns input files into rows of text fields with their
// source positions. Every format (CSV/TSV, Excel, Arrow IPC, Parquet) is
// one file behind the same Source interface, chosen by extension or by an
// explicit format name.
//
// Readers do not interpret values: they return text exactly as it should be
// parsed (numbers in plain decimal notation, nulls as empty strings) and
// leave number parsing and role mapping to the pipeline, which reports
// errors with the positions readers give. Arrow and Parquet sources can
// also give a column's typed values as exact numbers (Typed).
package readers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Errors wrapped by *Error.
var (
	ErrFieldCount = errors.New("wrong number of fields")
	ErrNoHeader   = errors.New("no header row")
	ErrFormat     = errors.New("unknown input format")
	ErrCorrupt    = errors.New("corrupt or unreadable file")
	ErrTooLarge   = errors.New("file exceeds a size limit")
	ErrColumn     = errors.New("no such column")
	ErrSheet      = errors.New("no such sheet")
	ErrEncoding   = errors.New("text is not valid in the file's encoding")
	// ErrRepeatedLabel: a row label of a crosstab repeats and nothing
	// tells the rows apart (an input error, whatever the layout's keys).
	ErrRepeatedLabel = errors.New("repeated row label")
)

// ErrNotNumber is decimal.ErrNotNumber: one sentinel whichever package
// reports a text that is not a number.
var ErrNotNumber = decimal.ErrNotNumber

// Error is an input error with the position where it happened, in the
// style of encoding/csv's ParseError: Err is the cause (one of the
// sentinels above, possibly wrapped with details, or an os error), which
// errors.Is and errors.As reach through Unwrap.
type Error struct {
	// File is the input path.
	File string
	// Sheet is the workbook sheet; empty outside workbooks.
	Sheet string
	// Row is the 1-based source row (the header is row 1); 0 when unknown.
	Row int
	// Column is the column name or letter; empty when unknown.
	Column string
	// Value is the offending text (shortened in messages by Excerpt);
	// empty when none. The message of Err is cut to about 1,000 bytes.
	Value string
	// Err is the cause; never nil.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Sheet != "" {
		fmt.Fprintf(&b, ", sheet %q", e.Sheet)
	}
	if e.Row > 0 {
		fmt.Fprintf(&b, ", row %d", e.Row)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, ", column %q", Excerpt(e.Column))
	}
	b.WriteString(": ")
	b.WriteString(shortMessage(e.Err.Error()))
	if e.Value != "" {
		fmt.Fprintf(&b, " (value %q)", Excerpt(e.Value))
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Batch is a run of consecutive data rows.
type Batch struct {
	// Rows holds the fields of each row, one string per header column;
	// nulls and empty cells are "".
	Rows [][]string
	// Lines holds the 1-based source row of each row (the line of a CSV
	// record, the sheet row of a workbook, the record index+2 for Arrow and
	// Parquet so that row 1 is the header as in the other formats).
	Lines []int
	// Numbers, for the columns a caller asked as numbers (Typed), holds
	// one exact number per row; a row's field is then NumberField when its
	// number is there. nil for every other column and format.
	Numbers [][]decimal.Dec
}

// Source is one table in an input file.
type Source interface {
	// Name is the table's name: the file's base name without extension,
	// with the sheet name appended for workbooks with several sheets.
	Name() string
	// Where is the file (and sheet) for messages.
	Where() (file, sheet string)
	// Header returns the column names.
	Header() []string
	// Next returns the next batch of rows, or io.EOF after the last one.
	// Errors are *Error values.
	Next() (*Batch, error)
	// Close releases the file.
	Close() error
}

// Options control how a file is opened. The zero value picks everything
// from the file itself.
type Options struct {
	// Format overrides the extension: csv, tsv, xlsx, arrow, arrows, parquet.
	Format string
	// Delimiter forces the CSV field separator (0 sniffs , ; or tab).
	Delimiter rune
	// Sheet selects a workbook sheet by name or 1-based index; "*" means
	// every visible sheet, "" the first sheet.
	Sheet string
	// Range restricts a workbook sheet to a cell range such as "A5:H40".
	Range string
	// BatchSize is the number of rows per batch (default 4096).
	BatchSize int
	// Tee, when set, receives every byte of the file as a streaming reader
	// (CSV, TSV) reads it, so that the caller can hash the input without
	// reading it twice. Other formats ignore it.
	Tee io.Writer
	// Encoding forces the text encoding of delimited files: auto (or ""),
	// utf-8, utf-16, latin-1 or windows-1252; see encoding.go.
	Encoding string
	// Decimal forces the decimal mark of numbers in delimited files: "."
	// or ","; "" detects a decimal comma in semicolon-separated files.
	Decimal string
	// Wide, when set, reads the table as a crosstab (wide.go).
	Wide *WideOptions
	// Metadata is the tau-argus metadata file (.rda) of format "tauargus"
	// (tauargus.go).
	Metadata string
	// MaxRecordBytes bounds one record of a delimited file, its header
	// included (0: DefaultMaxRecordBytes); a longer record is an *Error
	// naming its row and wrapping ErrTooLarge.
	MaxRecordBytes int64
	// MaxFieldBytes bounds one field of a delimited file (0:
	// DefaultMaxFieldBytes).
	MaxFieldBytes int64
	// MaxXLSXUnzipSize bounds the bytes a workbook's parts unzip to (0:
	// DefaultMaxXLSXUnzipSize); a larger workbook is refused with
	// ErrTooLarge (a zip bomb).
	MaxXLSXUnzipSize int64
	// MaxArrowMemory is the base memory budget of one Arrow or Parquet
	// file in bytes (0: DefaultMaxArrowMemory); the budget is this plus
	// 32 times the file size.
	MaxArrowMemory int64
}

// maxXLSXUnzipSize is o.MaxXLSXUnzipSize or its default.
func (o Options) maxXLSXUnzipSize() int64 {
	if o.MaxXLSXUnzipSize > 0 {
		return o.MaxXLSXUnzipSize
	}
	return DefaultMaxXLSXUnzipSize
}

// maxArrowMemory is o.MaxArrowMemory or its default.
func (o Options) maxArrowMemory() int64 {
	if o.MaxArrowMemory > 0 {
		return o.MaxArrowMemory
	}
	return DefaultMaxArrowMemory
}

func (o Options) batchSize() int {
	if o.BatchSize > 0 {
		return o.BatchSize
	}
	return 4096
}

// Opener opens every table of one file.
type Opener func(path string, opt Options) ([]Source, error)

var formats = map[string]Opener{}
var extensions = map[string]string{}

// RegisterFormat adds a format with the file extensions (with dot) it owns.
func RegisterFormat(name string, open Opener, exts ...string) {
	formats[name] = open
	for _, e := range exts {
		extensions[e] = name
	}
}

// Formats returns the names of the known formats, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for f := range formats {
		names = append(names, f)
	}
	sort.Strings(names)
	return names
}

// FormatOf returns the format name for a path, or "" when unknown.
func FormatOf(path string, opt Options) string {
	if opt.Format != "" {
		return opt.Format
	}
	return extensions[strings.ToLower(filepath.Ext(path))]
}

// Open opens every table of a file (one for CSV, one per chosen sheet for
// workbooks).
func Open(path string, opt Options) ([]Source, error) {
	if opt.Wide != nil {
		return openWide(path, opt)
	}
	f := FormatOf(path, opt)
	open, ok := formats[f]
	if !ok {
		if opt.Format != "" {
			return nil, &Error{File: path, Err: fmt.Errorf("%w %q (known: %s)", ErrFormat, opt.Format, strings.Join(Formats(), ", "))}
		}
		return nil, &Error{File: path, Err: fmt.Errorf("%w: extension %q (known: .csv .tsv .xlsx .arrow .feather .ipc .arrows .parquet; or give the format)", ErrFormat, filepath.Ext(path))}
	}
	return open(path, opt)
}

// ParallelDecoder is implemented by sources that can decode their batches
// on several goroutines (Parquet files, by row group).
type ParallelDecoder interface {
	// DecodeParallel asks, before the first call to Next, for up to n
	// goroutines to decode batches ahead of Next until ctx is done or the
	// source is closed (Close waits for them). Next still returns the
	// same batches in the same order, and the same error at the same
	// row, as without it; the call does nothing when the source cannot
	// be split.
	DecodeParallel(ctx context.Context, n int)
}

// ColumnSkipper is implemented by sources that can leave a column
// unread (Parquet files: its column chunks are neither read nor decoded).
type ColumnSkipper interface {
	// SkipColumn asks, before the first call to Next, that column c
	// (0-based) not be read: its field is "" in every later batch. It
	// reports whether the column is skipped. Only a caller that sees
	// every batch itself, with nothing else reading the fields, may ask.
	SkipColumn(c int) bool
}

// HeaderRower is implemented by sources whose header need not be on row
// 1 (a workbook sheet with title rows above its table).
type HeaderRower interface {
	// HeaderRow is the 1-based source row of the (first) header row.
	HeaderRow() int
}

// HeaderRow is the source row of src's header: 1 unless src says
// otherwise.
func HeaderRow(src Source) int {
	if h, ok := As[HeaderRower](src); ok && h.HeaderRow() > 0 {
		return h.HeaderRow()
	}
	return 1
}

// Wrapper is implemented by sources that wrap another one (to count its
// rows, to guard its markers) and pass its rows through; As looks through
// them.
type Wrapper interface {
	Unwrap() Source
}

// As returns the first source in src's chain of wrappers that implements
// T, the optional interfaces Warner and Describer for example, so that a
// wrapper never hides what the source underneath can say.
func As[T any](src Source) (T, bool) {
	for src != nil {
		if t, ok := src.(T); ok {
			return t, true
		}
		w, ok := src.(Wrapper)
		if !ok {
			break
		}
		src = w.Unwrap()
	}
	var zero T
	return zero, false
}
