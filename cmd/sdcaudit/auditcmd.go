package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/report"
)

// auditFlags are the flags of `sdcaudit audit`.
type auditFlags struct {
	config, dims, total, count, sheet, format string
	across, value                             string
	json                                      bool
	limit                                     time.Duration
}

func newAuditCmd() *cobra.Command {
	var f auditFlags
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
or count: col) or from --dims with --total or --count. A crosstab (wide
table: row labels down the side, one header row per column dimension) is
read with columns: {dims: [row dims], across: [column dims], value: total}
or --dims, --across and --value; every body cell is modelled. Without
dims and across, a crosstab's layout is detected when unambiguous (say
what its body holds with --value when no title does); otherwise the
message names the keys to set.

Exit codes: 0 every suppressed cell is protected, 1 some cell is exactly
disclosed or under-protected (or could not be decided), 2 usage or
configuration error, 3 the table could not be read, 4 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.settings()
			if err != nil {
				return err
			}
			var limit *time.Duration
			if cmd.Flags().Changed("time-limit") {
				if f.limit < 0 {
					return usageErr(fmt.Errorf("--time-limit must not be negative (0: no limit), got %s", f.limit))
				}
				limit = &f.limit
			}
			t, res, err := pipeline.AuditFile(cmd.Context(), args[0], s, limit)
			var ce *configs.Error
			if err != nil && errors.As(err, &ce) && (s.Columns == nil || len(s.Columns.Dims) == 0) {
				return usageErr(fmt.Errorf("%w\n%s", err, auditNeeds))
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.json {
				fmt.Fprintln(out, string(report.IntervalsJSON(*res)))
			} else {
				printAudit(out, t, res)
			}
			if res.NeedsPerson() {
				return errNeedsPerson
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.config, "config", "", "config file with columns: {dims, total or count}, markers and total_label")
	cmd.Flags().StringVar(&f.dims, "dims", "", "comma-separated dimension columns")
	cmd.Flags().StringVar(&f.total, "total", "", "the magnitude column the margins add up")
	cmd.Flags().StringVar(&f.count, "count", "", "the frequency column the margins add up")
	cmd.Flags().StringVar(&f.across, "across", "", "a crosstab: comma-separated column dimensions, one header row each, outermost first (--dims are then the row dimensions)")
	cmd.Flags().StringVar(&f.value, "value", "", "a crosstab: what its body holds, total or count")
	cmd.Flags().StringVar(&f.sheet, "sheet", "", "workbook sheet by name or 1-based index")
	cmd.Flags().StringVar(&f.format, "format", "", "input format instead of the extension")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the audit as JSON")
	cmd.Flags().DurationVar(&f.limit, "time-limit", 0, "stop the audit after this long; undecided cells are reported as undetermined (default: the config's suppression.time_limit)")
	return cmd
}

// settings resolves the config file and the flags, which win.
func (f *auditFlags) settings() (*configs.Settings, error) {
	layer := &configs.Config{}
	if f.config != "" {
		c, err := configs.Load(f.config)
		if err != nil {
			return nil, err
		}
		layer = c
	}
	flags := &configs.Config{}
	if f.value != "" && f.dims == "" && f.across == "" && f.total == "" && f.count == "" {
		// a crosstab whose layout is detected; --value says what its body holds
		flags.Columns = &configs.Columns{Value: f.value}
	} else if f.across != "" || f.value != "" {
		if f.dims == "" || f.across == "" || f.value == "" || f.total != "" || f.count != "" {
			return nil, usageErr(errors.New("a crosstab needs --dims (row dimensions), --across (column dimensions) and --value (total or count), without --total or --count"))
		}
		flags.Columns = &configs.Columns{Dims: splitList(f.dims), Across: splitList(f.across), Value: f.value}
	} else if f.dims != "" {
		if (f.total == "") == (f.count == "") {
			return nil, usageErr(errors.New("--dims needs exactly one of --total or --count"))
		}
		flags.Columns = &configs.Columns{Dims: splitList(f.dims), Total: f.total, Count: f.count}
	}
	if f.sheet != "" || f.format != "" {
		flags.Input = &configs.Input{Sheet: f.sheet, Format: f.format}
	}
	s, err := configs.Resolve(layer, flags)
	if err != nil {
		return nil, err
	}
	if s.Columns == nil || len(s.Columns.Dims) == 0 && len(s.Columns.Across) == 0 {
		// no layout given: a crosstab's is detected (pipeline.AuditFile),
		// and a file whose layout cannot be detected is refused naming the
		// keys to set
		return s, nil
	}
	if len(s.Columns.Dims) == 0 || (s.Columns.Total == "" && s.Columns.Count == "" && (len(s.Columns.Across) == 0 || s.Columns.Value == "")) {
		return nil, usageErr(errors.New(auditNeeds))
	}
	return s, nil
}

// auditNeeds says which keys tell audit a table's layout.
const auditNeeds = "audit needs the table's dimensions and value column: --dims a,b with --total COL or --count COL, or columns in --config; for a crosstab --dims, --across and --value (columns: {dims, across, value}), or --value alone when its layout can be detected"

// printAudit prints one line per suppressed cell and the counts.
func printAudit(w io.Writer, t *audit.Table, r *audit.Intervals) {
	fmt.Fprintf(w, "%s in %s\n", report.Plural(int64(len(r.Cells)), "suppressed cell", "suppressed cells"), t.Source)
	for _, c := range r.Cells {
		hi := report.FloatText(c.Hi)
		if math.IsInf(c.Hi, 1) {
			hi = "unbounded"
		}
		lo := report.FloatText(c.Lo)
		if math.IsInf(c.Lo, -1) {
			lo = "unbounded" // a cell that may be negative
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
		fmt.Fprintf(w, "  %-40s [%s, %s]  %s\n", t.KeyString(c.Key), lo, hi, verdict)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintln(w, "warning:", warn)
	}
	fmt.Fprintf(w, "exactly disclosed: %d, under-protected: %d, undetermined: %d\n", r.ExactlyDisclosed, r.UnderProtected, r.Undetermined)
	switch {
	case r.ExactlyDisclosed+r.UnderProtected+r.Undetermined > 0:
		fmt.Fprintln(w, "the suppression pattern does not protect every cell: suppress more cells")
	case r.NeedsPerson():
		fmt.Fprintln(w, "no margins were found, so the audit cannot confirm the pattern: declare the table's margins (total_label, totals:) or confirm it has none")
	}
}
