// Package writers produces the outputs of an audit from audited tables:
// the checker's report (NAME.report.json), the publishable table
// (NAME.safe.csv), and the run summary (summary.json). Other formats add a
// file each.
//
// Every file is written atomically: to a temporary file in the output
// directory, synced, then renamed, so that an interrupted run never leaves
// a half-written output. Outputs are byte-identical for identical input.
package writers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// TableWriter writes one output file for one audited table.
type TableWriter interface {
	// File is the output file name for the table (e.g. NAME.report.json).
	File(t *audit.Table) string
	// WriteContext writes the output. It must not keep w, and it returns
	// ctx.Err() soon after ctx is cancelled (it checks ctx at least every
	// CheckEvery cells).
	WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error
}

// CheckEvery is how many cells a writer handles between two looks at its
// context.
const CheckEvery = 256

// canceller counts the cells a writer handles and looks at the context
// every CheckEvery of them.
type canceller struct {
	ctx context.Context
	n   int
}

// next counts one cell and returns ctx.Err() every CheckEvery cells.
func (c *canceller) next() error {
	c.n++
	if c.n%CheckEvery != 0 {
		return nil
	}
	return c.ctx.Err()
}

// ctxWriter fails every write once ctx is cancelled, so that a writer
// stuck in a library's output phase stops too.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Options are the settings writers share. The zero value of each limit
// is its default; tests lower them to reach the paths of large tables on
// small ones.
type Options struct {
	// Marker replaces suppressed values in publishable outputs.
	Marker string
	// MaxComments is the most cells the annotated workbook explains in
	// comments; a table with more gets an explanation column instead
	// (0: 10,000).
	MaxComments int
	// MaxCrosstabValues bounds the values of the annotated workbook's
	// Crosstab sheet (levels across, times rows down, times statistics),
	// so that the sheet of a table of a million cells, which the Cells
	// sheet already lists, does not double the workbook (0: 1,000,000).
	MaxCrosstabValues int
	// ReportChunk is the number of cells of report.json rendered into one
	// buffer by one goroutine (0: 1,024); ReportWorkers the number of
	// goroutines rendering them (0: GOMAXPROCS). The bytes written do not
	// depend on either.
	ReportChunk, ReportWorkers int
}

// maxComments is o.MaxComments or its default.
func (o Options) maxComments() int {
	if o.MaxComments > 0 {
		return o.MaxComments
	}
	return 10_000
}

// reportChunk is o.ReportChunk or its default.
func (o Options) reportChunk() int {
	if o.ReportChunk > 0 {
		return o.ReportChunk
	}
	return 1024
}

// maxCrosstabValues is o.MaxCrosstabValues or its default.
func (o Options) maxCrosstabValues() int {
	if o.MaxCrosstabValues > 0 {
		return o.MaxCrosstabValues
	}
	return 1_000_000
}

// writeBuffer is the size of WriteAtomic's buffer: 1 MiB, so that a large
// output is written in few system calls.
const writeBuffer = 1 << 20

// writeBuffers keeps WriteAtomic's buffers for the next outputs.
var writeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeBuffer) }}

// WriteAtomic creates path through a temporary file in the same directory
// and renames it into place when write succeeds and ctx is not cancelled.
// write's writer fails once ctx is cancelled. On any failure, cancellation
// included, the temporary file is removed and path is untouched; a
// cancelled write returns ctx.Err(). write must not keep its writer, nor
// let another goroutine write to it, once it has returned: the writer's
// buffer then serves the next output.
func WriteAtomic(ctx context.Context, path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = ctx.Err(); err != nil {
		return err
	}
	// Writes go through a large buffer so that writers emitting many
	// small pieces (templates, encoders, zip entries) cost few syscalls;
	// each write still fails once ctx is cancelled.
	bw := writeBuffers.Get().(*bufio.Writer)
	bw.Reset(f)
	defer func() {
		bw.Reset(nil)
		writeBuffers.Put(bw)
	}()
	if err = write(ctxWriter{ctx, bw}); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteTable writes one table output into dir atomically. The file name
// must be a plain name inside dir (see CheckName).
func WriteTable(ctx context.Context, dir string, w TableWriter, t *audit.Table) error {
	file := w.File(t)
	if err := CheckName(file); err != nil {
		return fmt.Errorf("output file %q: %w", file, err)
	}
	return WriteAtomic(ctx, filepath.Join(dir, file), func(out io.Writer) error { return w.WriteContext(ctx, out, t) })
}

// MaxNameBytes bounds a table's output base name, so that each output
// file name (NAME.findings.parquet, ...) passes CheckName.
const MaxNameBytes = 200

// maxFileName bounds a file name: with the dot and the suffix of its
// temporary file (WriteAtomic) it stays within 255 bytes.
const maxFileName = 240

// CheckName reports why name cannot be an output name (a table's base
// name, or an output file name) in the output directory: it must be a
// single path element, not empty, "." or "..", without a path separator
// (either slash), a leading dot (hidden and temporary files are the
// writers' own) or a control character, and a name the system reserves
// (filepath.IsLocal: NUL on Windows), at most 240 bytes long. It
// returns nil for a valid name.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty name")
	case len(name) > maxFileName:
		return fmt.Errorf("a name of %d bytes: at most %d, so that the file and its temporary file fit the file system's 255", len(name), maxFileName)
	case name == "." || name == "..":
		return fmt.Errorf("%q is not a file name", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("a name must not contain a path separator")
	case strings.HasPrefix(name, "."):
		return fmt.Errorf("a name must not start with a dot")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Errorf("a name must not contain a control character")
		}
	}
	if !filepath.IsLocal(name) || filepath.Base(name) != name {
		return fmt.Errorf("a name must be a single file name")
	}
	return nil
}

// EscapeFormula makes text safe to open in a spreadsheet: a text that
// starts with = + - @ (or a tab or carriage return) is prefixed with an
// apostrophe so that it is shown, not evaluated. Plain numbers, including
// negative ones, are left alone.
func EscapeFormula(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := decimal.Parse(s); err == nil && !strings.ContainsAny(s, "\t\r") {
			return s
		}
		return "'" + s
	}
	return s
}

// Suppressed reports whether a cell is withheld from publishable outputs:
// primary and secondary cells, and cells that need review (not yet cleared).
func Suppressed(c *audit.Cell) bool {
	return c.Status != audit.StatusOK
}
