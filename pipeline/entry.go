package pipeline

// Entry points for the commands that read one table without writing
// reports: the suppression audit of a received table (sdcaudit audit), the
// cells of a table for rule calibration (sdcaudit rules compare) and one
// column of values (sdcaudit moments --values). They honour the context the
// caller cancels (the command line's interrupt) and report unreadable input
// as *readers.Error.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
)

// ErrManyTables is wrapped by LoadFile and AuditFile when the file holds
// more than one table (the sheets of a workbook): the caller must choose
// one (a usage error).
var ErrManyTables = errors.New("choose one with --sheet")

// LoadFile reads the one table of a file with the settings "sdcaudit
// check" would use, without evaluating rules.
func LoadFile(ctx context.Context, path string, s *configs.Settings) (*audit.Table, error) {
	return loadFile(ctx, path, s, nil)
}

// loadFile is LoadFile with an optional wrapper around the table's source.
func loadFile(ctx context.Context, path string, s *configs.Settings, wrap func(readers.Source) readers.Source) (*audit.Table, error) {
	s, detection, err := cells.DetectLayout(path, s)
	if err != nil {
		return nil, err
	}
	srcs, err := readers.Open(path, cells.ReaderOptions(s))
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, src := range srcs {
			src.Close()
		}
	}()
	if len(srcs) != 1 {
		return nil, fmt.Errorf("%s has %d tables: %w", path, len(srcs), ErrManyTables)
	}
	src := srcs[0]
	if wrap != nil {
		src = wrap(src)
	}
	t, err := LoadTable(ctx, src, s)
	if err != nil {
		return nil, err
	}
	cells.NoteDetection(t, detection)
	return t, nil
}

// AuditFile audits the suppression pattern of a received aggregate table:
// every cell is read as published (suppressed cells by their marker) and
// the LP interval audit bounds each suppressed cell. Only the dimensions
// and the value column (the total, else the count) of s.Columns are used.
// timeLimit, when not nil, replaces the configured suppression time limit.
// A table whose published cells contradict its margins is an input error
// wrapping suppress.ErrInconsistent; a suppression marker in a column the
// audit does not read (a crosstab, a mapped statistic suppressed where the
// value is published) is a *readers.Error wrapping errUnmodelledMarker:
// auditing without it would pass a pattern it never saw.
func AuditFile(ctx context.Context, path string, s *configs.Settings, timeLimit *time.Duration) (*audit.Table, *audit.Intervals, error) {
	s, detection, err := cells.DetectLayout(path, s)
	if err != nil {
		return nil, nil, err
	}
	// mapped are the table's long columns: the audit reads the
	// dimensions and one value column (the total, else the count) of them.
	mapped, wide := s.Columns, cells.IsWide(s.Columns)
	if wide {
		// every body cell is the one value column: all are modelled
		long, err := cells.LongColumns(s.Columns)
		if err != nil {
			return nil, nil, err
		}
		if long.Total == "" && long.Count == "" {
			return nil, nil, &configs.Error{Msg: "audit reads totals or counts: the wide table's columns.value or columns.statistics has neither", Err: configs.ErrInvalid}
		}
		mapped = long
	}
	var cols *configs.Columns
	if mapped != nil {
		cols = &configs.Columns{Dims: mapped.Dims, Total: mapped.Total}
		if cols.Total == "" {
			cols.Count = mapped.Count
		}
	}
	if !wide && cols != nil {
		// a long table is read with the audited columns alone; a wide one
		// keeps its layout for the reader
		c := *s
		c.Columns = cols
		s = &c
	}
	// as for every table: a marker in a column the audit does not read
	// (the count block where the audited total is published) is refused
	var guard *cells.MarkerGuard
	t, err := loadFile(ctx, path, s, func(src readers.Source) readers.Source {
		guard = cells.NewMarkerGuard(src, mapped, cols, s.Markers)
		return guard
	})
	if err != nil {
		return nil, nil, err
	}
	if guard.Found != nil {
		return nil, nil, guard.Found
	}
	cells.NoteDetection(t, detection)
	return auditTable(ctx, path, t, s, timeLimit)
}

// auditTable runs the interval audit of a table read as published.
func auditTable(ctx context.Context, path string, t *audit.Table, s *configs.Settings, timeLimit *time.Duration) (*audit.Table, *audit.Intervals, error) {
	for _, c := range t.Cells {
		c.Status = audit.StatusOK
	}
	opt := SuppressOptions(t, s, 0)
	if timeLimit != nil {
		opt.TimeLimit = *timeLimit
	}
	res, err := suppress.Audit(ctx, t, opt)
	if err != nil {
		if errors.Is(err, suppress.ErrInconsistent) {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, nil, err
	}
	if t.Structure != nil {
		if !t.Structure.Margins {
			res.NoMargins = true
			res.Warnings = append(res.Warnings, "no margins were found: no row or column is labelled as a total (total_label, totals:) or is the sum of others, so nothing bounds a suppressed cell; if the table has margins, declare them; a person must confirm it has none")
		}
		for _, w := range t.Warnings {
			if strings.Contains(w, "reads as a total") || strings.Contains(w, "declared total") || strings.Contains(w, "is above") {
				res.Warnings = append(res.Warnings, w) // what the structure found affects the audit
			}
		}
	}
	return t, &res, nil
}

// Column is one numeric column of a table file, read exactly.
type Column struct {
	// Values are the column's numbers in file order.
	Values []decimal.Dec
	// Missing counts the empty and NA cells, which are not values.
	Missing int
}

// ReadColumn reads the named column of the first table of a file. Every
// value must be a number (at most decimal.MaxScale decimals), non-negative
// when nonNegative; empty and NA cells are counted as missing. A problem is
// a *readers.Error naming the file, row and column; a column with no
// values is one too.
func ReadColumn(ctx context.Context, path, column string, nonNegative bool) (*Column, error) {
	srcs, err := readers.Open(path, readers.Options{})
	if err != nil {
		return nil, asInput(path, err)
	}
	defer func() {
		for _, s := range srcs {
			s.Close()
		}
	}()
	src := srcs[0]
	col := slices.Index(src.Header(), column)
	if col < 0 {
		return nil, &readers.Error{File: path, Row: 1, Column: column, Err: fmt.Errorf("%w (columns: %s)", readers.ErrColumn, readers.ColumnList(src.Header()))}
	}
	out := &Column{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, asInput(path, err)
		}
		for i, row := range b.Rows {
			v := strings.TrimSpace(row[col])
			if v == "" || strings.EqualFold(v, "NA") {
				out.Missing++
				continue
			}
			d, err := columnValue(v, nonNegative)
			if err != nil {
				return nil, &readers.Error{File: path, Row: b.Lines[i], Column: column, Value: v, Err: err}
			}
			out.Values = append(out.Values, d)
		}
	}
	if len(out.Values) == 0 {
		return nil, &readers.Error{File: path, Column: column, Err: errors.New("no values")}
	}
	return out, nil
}

func columnValue(v string, nonNegative bool) (decimal.Dec, error) {
	d, err := decimal.Parse(v)
	if err != nil {
		if strings.Contains(err.Error(), "decimal places") {
			return d, fmt.Errorf("%w: more than %d decimal places (the most kept exactly)", readers.ErrNotNumber, decimal.MaxScale)
		}
		return d, readers.ErrNotNumber
	}
	if nonNegative && d.Sign() < 0 {
		return d, errors.New("negative value: the Lehmer-mean attack assumes non-negative values")
	}
	return d, nil
}

// asInput makes err a *readers.Error for path unless it already is one.
func asInput(path string, err error) error {
	var re *readers.Error
	if errors.As(err, &re) {
		return err
	}
	return &readers.Error{File: path, Err: err}
}
