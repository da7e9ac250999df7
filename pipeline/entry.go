package pipeline

// Entry points for the commands that read one table without writing
// reports: the suppression audit of a received table (sdcaudit audit) and
// the cells of a table for rule calibration (sdcaudit rules compare). They
// honour the context the caller cancels (the command line's interrupt) and
// report unreadable input as *readers.Error.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/link"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/report"
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
	if ax, _ := t.Structure.Crossed(); ax != nil {
		// two breakdowns of one total: audited through a cover with
		// the breakdowns crossed (link.ProtectCrossed)
		res, reason, err := link.ProtectBreakdowns(ctx, t, opt, false, nil, 0)
		if err != nil {
			return nil, nil, err
		}
		if reason == "" {
			res.Warnings = append(res.Warnings, t.Structure.MarginWarnings...)
			return t, res, nil
		}
		link.CrossedApart(t, reason)
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
		notAdditive(t.Structure, &res)
		// what the structure found affects the audit
		res.Warnings = append(res.Warnings, t.Structure.MarginWarnings...)
	}
	return t, &res, nil
}

// notAdditive makes undetermined the suppressed cells of codes that do
// not add up (Axis.NonAdditive: a median, a standard error, a rate beside
// the counts): no margin bounds them, yet a rate or a coefficient of
// variation published beside its count gives them back, which the
// interval audit does not model; a person decides.
func notAdditive(st *audit.Structure, res *audit.Intervals) {
	cells, n := res.Cells, 0
	res.Cells, res.ExactlyDisclosed, res.UnderProtected, res.Undetermined, res.Approximate = nil, 0, 0, 0, 0
	for _, c := range cells {
		if !c.Exact && !st.Additive(c.Key) {
			c.Undetermined, c.Protected = true, false
			n++
		}
		res.Add(c)
	}
	if n > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s in codes that do not add up (statistics beside the counts: a median, a standard error, a rate): no margin bounds them, but the statistics published beside them may give them back; undetermined, a person decides", report.Plural(int64(n), "suppressed cell", "suppressed cells")))
	}
}
