package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/readers"
)

func init() { addCommand(newAuditCmd) }

func newAuditCmd() *cobra.Command {
	var cfgPath, dims, total, count, sheet, format string
	var asJSON bool
	var limit time.Duration
	cmd := &cobra.Command{
		Use:   "audit FILE",
		Short: "Audit the suppression pattern of a received aggregate table",
		Long: `Audit the suppression pattern of an aggregate table as received: cells
carrying a suppression marker (c, x, .., *, :, or the config's markers) are
suppressed, margins are rows and columns whose dimension value is "Total" (or
the config's total_label). For every suppressed cell the feasibility interval
[lo, hi] an intruder can derive from everything published (additivity,
non-negativity) is computed by linear programming.

The table's columns come from the config (columns: {dims: [...], total: col}
or count: col) or from --dims with --total or --count.

Exit codes: 0 every suppressed cell is protected, 1 some cell is exactly
disclosed or under-protected (or could not be decided), 2 usage or
configuration error, 3 the table could not be read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			layer := &configs.Config{}
			if cfgPath != "" {
				c, err := configs.Load(cfgPath)
				if err != nil {
					return err
				}
				layer = c
			}
			flags := &configs.Config{}
			if dims != "" {
				if (total == "") == (count == "") {
					return usageErr(errors.New("--dims needs exactly one of --total or --count"))
				}
				flags.Columns = &configs.Columns{Dims: splitList(dims), Total: total, Count: count}
			}
			if sheet != "" || format != "" {
				flags.Input = &configs.Input{Sheet: sheet, Format: format}
			}
			s, err := configs.Resolve(layer, flags)
			if err != nil {
				return err
			}
			if s.Columns == nil || len(s.Columns.Dims) == 0 || (s.Columns.Total == "" && s.Columns.Count == "") {
				return usageErr(errors.New("audit needs the table's dimensions and value column: --dims a,b with --total COL or --count COL, or columns in --config"))
			}
			// Only the value column matters for the audit.
			mapped := s.Columns
			cols := &configs.Columns{Dims: s.Columns.Dims, Total: s.Columns.Total}
			if cols.Total == "" {
				cols.Count = s.Columns.Count
			}
			s.Columns = cols
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srcs, err := readers.Open(args[0], pipeline.ReaderOptions(s))
			if err != nil {
				return err
			}
			defer func() {
				for _, src := range srcs {
					src.Close()
				}
			}()
			if len(srcs) != 1 {
				return usageErr(fmt.Errorf("%s has %d tables; choose one with --sheet", args[0], len(srcs)))
			}
			guard := newMarkerGuard(srcs[0], mapped, cols, s.Markers)
			t, err := pipeline.LoadTable(ctx, guard, s)
			if err != nil {
				return err
			}
			if guard.found != nil {
				return inputErr(guard.found)
			}
			for _, c := range t.Cells {
				c.Status = audit.StatusOK
			}
			opt := pipeline.SuppressOptions(t, s, 0)
			if cmd.Flags().Changed("time-limit") {
				opt.TimeLimit = limit
			}
			res, err := suppress.Audit(ctx, t, opt)
			if err != nil {
				if errors.Is(err, suppress.ErrInconsistent) {
					return inputErr(fmt.Errorf("%s: %w", args[0], err))
				}
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				b, err := json.Marshal(res)
				if err != nil {
					return err
				}
				fmt.Fprintln(out, string(b))
			} else {
				printAudit(out, t, &res)
			}
			if res.NeedsPerson() {
				return errNeedsPerson
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "config file with columns: {dims, total or count}, markers and total_label")
	cmd.Flags().StringVar(&dims, "dims", "", "comma-separated dimension columns")
	cmd.Flags().StringVar(&total, "total", "", "the magnitude column the margins add up")
	cmd.Flags().StringVar(&count, "count", "", "the frequency column the margins add up")
	cmd.Flags().StringVar(&sheet, "sheet", "", "workbook sheet by name or 1-based index")
	cmd.Flags().StringVar(&format, "format", "", "input format instead of the extension")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the audit as JSON")
	cmd.Flags().DurationVar(&limit, "time-limit", 0, "stop the audit after this long; undecided cells are reported as undetermined (default: the config's suppression.time_limit)")
	return cmd
}

// errUnmodelledMarker reports a suppression marker outside the cells the
// audit reads: auditing without it would pass a pattern it never saw.
var errUnmodelledMarker = errors.New("suppression marker in a column the audit does not read; " +
	"audit needs one row per cell (dimension columns and one value column): " +
	"a crosstab with values across columns cannot be audited as it is")

// markerGuard passes a table's rows through unchanged and remembers the
// first suppression marker the audit would not model: in a column that is
// neither a dimension nor the audited value column (columns mapped to
// another statistic are allowed a marker where the row's value is itself
// suppressed). Next is called from one goroutine.
type markerGuard struct {
	readers.Source
	value   int    // index of the audited value column, -1 if absent
	allowed []bool // per column: a marker there is modelled (dims, value)
	mapped  []bool // per column: mapped to another statistic
	markers map[string]bool
	found   *readers.Error
}

func newMarkerGuard(src readers.Source, mapped, cols *configs.Columns, markers []string) *markerGuard {
	g := &markerGuard{Source: src, value: -1, markers: map[string]bool{}}
	for _, m := range markers {
		g.markers[m] = true
	}
	header := src.Header()
	g.allowed = make([]bool, len(header))
	g.mapped = make([]bool, len(header))
	idx := map[string]int{}
	for i, h := range header {
		if _, dup := idx[h]; !dup {
			idx[h] = i
		}
	}
	for _, d := range cols.Dims {
		if i, ok := idx[d]; ok {
			g.allowed[i] = true
		}
	}
	for _, r := range cols.Roles() {
		if i, ok := idx[r[1]]; ok {
			g.allowed[i], g.value = true, i
		}
	}
	if mapped != nil {
		names := append([]string(nil), mapped.Top...)
		for _, r := range mapped.Roles() {
			names = append(names, r[1])
		}
		for _, n := range names {
			if i, ok := idx[n]; ok && !g.allowed[i] {
				g.mapped[i] = true
			}
		}
	}
	return g
}

func (g *markerGuard) Next() (*readers.Batch, error) {
	b, err := g.Source.Next()
	if b == nil || g.found != nil {
		return b, err
	}
	header := g.Header()
	for k, row := range b.Rows {
		valueMarked := false
		if g.value >= 0 && g.value < len(row) {
			v := strings.TrimSpace(row[g.value])
			valueMarked = v == "" || g.markers[v]
		}
		for c, field := range row {
			if c < len(g.allowed) && g.allowed[c] {
				continue
			}
			v := strings.TrimSpace(field)
			if !g.markers[v] || c < len(g.mapped) && g.mapped[c] && valueMarked {
				continue
			}
			file, sheet := g.Where()
			col := fmt.Sprintf("#%d", c+1)
			if c < len(header) {
				col = header[c]
			}
			line := 0
			if k < len(b.Lines) {
				line = b.Lines[k]
			}
			g.found = &readers.Error{File: file, Sheet: sheet, Row: line, Column: col, Value: v, Err: errUnmodelledMarker}
			return b, err
		}
	}
	return b, err
}

// printAudit prints one line per suppressed cell and the counts.
func printAudit(w io.Writer, t *audit.Table, r *audit.Intervals) {
	fmt.Fprintf(w, "%d suppressed cell(s) in %s\n", len(r.Cells), t.Source)
	for _, c := range r.Cells {
		hi := fmt.Sprintf("%g", c.Hi)
		if math.IsInf(c.Hi, 1) {
			hi = "unbounded"
		}
		verdict := "protected"
		switch {
		case c.Undetermined:
			verdict = "UNDETERMINED"
		case c.Exact:
			verdict = "EXACTLY DISCLOSED"
		case !c.Protected:
			verdict = "UNDER-PROTECTED"
		}
		if c.Approximate {
			verdict += " (approximate interval)"
		}
		fmt.Fprintf(w, "  %-40s [%g, %s]  %s\n", t.KeyString(c.Key), c.Lo, hi, verdict)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintln(w, "warning:", warn)
	}
	fmt.Fprintf(w, "exactly disclosed: %d, under-protected: %d, undetermined: %d\n", r.ExactlyDisclosed, r.UnderProtected, r.Undetermined)
	if r.NeedsPerson() {
		fmt.Fprintln(w, "the suppression pattern does not protect every cell: suppress more cells")
	}
}
