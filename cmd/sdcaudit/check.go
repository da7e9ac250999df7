package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/writers"
)

// runFlags are the flags check and run share.
type runFlags struct {
	out       string
	workers   int
	logLevel  string
	logFormat string
	json      bool
	quiet     bool
	timestamp bool
	linked    bool              // --linked: protect the tables that share cells together
	link      pipeline.LinkMode // the release file's choice (LinkNone: --linked decides)
	links     [][]string        // the release file's links: (tables protected together)
	// shard and shards: run only (registered by the run command).
	shard, shards int
}

func (f *runFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.out, "out", "out", "output directory")
	cmd.Flags().IntVar(&f.workers, "workers", 0, "concurrent tables and cell workers (0: number of CPUs)")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	cmd.Flags().StringVar(&f.logFormat, "log-format", "console", "log format: console or json")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the run summary as JSON on stdout")
	cmd.Flags().BoolVar(&f.quiet, "quiet", false, "print nothing on success")
	cmd.Flags().BoolVar(&f.timestamp, "timestamp", false, "record the run's wall-clock time in report.json, summary.json and results.json (outputs then differ between runs)")
}

func (f *runFlags) logger(w io.Writer) (zerolog.Logger, error) {
	color := isTerminal(w)
	if lw, ok := w.(logWriter); ok {
		color = isTerminal(lw.p.w)
	}
	lvl, err := zerolog.ParseLevel(f.logLevel)
	if err != nil || f.logLevel == "" {
		return zerolog.Nop(), usageErr(fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel))
	}
	switch f.logFormat {
	case "json":
	case "console":
		w = zerolog.ConsoleWriter{Out: w, NoColor: !color, TimeFormat: time.TimeOnly}
	default:
		return zerolog.Nop(), usageErr(fmt.Errorf("--log-format %q: want console or json", f.logFormat))
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// holdEnv names a file: when set, a run writes "staged" into it once every
// output is staged, then waits for an interrupt (a hook for the interrupt
// test, not for users).
const holdEnv = "SDCAUDIT_TEST_HOLD"

// execute runs the pipeline with signal handling, progress and the summary.
func (f *runFlags) execute(cmd *cobra.Command, jobs []pipeline.Job) error {
	return f.executeWith(cmd, inputSize(jobs), func(ctx context.Context, opt pipeline.Options) (*pipeline.Result, error) {
		return pipeline.Run(ctx, jobs, opt)
	})
}

// executeWith runs a pipeline entry point (Run, Merge) with signal
// handling, progress and the summary.
func (f *runFlags) executeWith(cmd *cobra.Command, size int64, run func(context.Context, pipeline.Options) (*pipeline.Result, error)) error {
	var bar *progress
	logOut := cmd.ErrOrStderr()
	if isTerminal(cmd.ErrOrStderr()) && !f.quiet {
		bar = newProgress(cmd.ErrOrStderr(), size)
		logOut = logWriter{bar}
	}
	log, err := f.logger(logOut)
	if err != nil {
		return err
	}
	if f.workers < 0 {
		return usageErr(fmt.Errorf("--workers %d: want 0 (the number of CPUs) or more", f.workers))
	}
	ctx := cmd.Context()
	opt := pipeline.Options{Out: f.out, Workers: f.workers, Log: log, Version: version, Link: f.link, Links: f.links, Shard: f.shard, Shards: f.shards}
	if f.linked && opt.Link == pipeline.LinkNone {
		opt.Link = pipeline.LinkOn
	}
	if f.timestamp {
		opt.Timestamp = time.Now().UTC().Format(time.RFC3339)
	}
	if hold := os.Getenv(holdEnv); hold != "" {
		// For tests: say when every output is staged, then wait for the
		// interrupt, so that it comes at a known stage.
		opt.BeforeCommit = func(ctx context.Context) error {
			if err := os.WriteFile(hold, []byte("staged\n"), 0o644); err != nil {
				return err
			}
			<-ctx.Done()
			return ctx.Err()
		}
	}
	if bar != nil {
		opt.Progress, opt.Stage, opt.ReadBytes = bar.Rows, bar.Stage, bar.Bytes
	}
	res, err := run(ctx, opt)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		if ctx.Err() != nil {
			return &interruptedError{err, ctx.Err()}
		}
		return err
	}
	out := cmd.OutOrStdout()
	switch {
	case f.shards > 0 && !f.quiet && !f.json:
		// a shard's summary is partial: its verdict is merge's
		fmt.Fprintf(out, "shard %d of %d: %d table(s) audited; partial summary %s/%s (combine the shards with sdcaudit merge)\n", f.shard, f.shards, len(res.Tables), f.out, pipeline.PartFile(f.shard, f.shards))
		return nil
	case f.shards > 0:
		return nil
	case f.json:
		if err := writers.WriteSummary(out, &res.Summary); err != nil {
			return err
		}
	case !f.quiet:
		printSummary(out, f.out, &res.Summary)
	}
	if res.Summary.NeedsPerson {
		return errNeedsPerson
	}
	return nil
}

func newCheckCmd() *cobra.Command {
	var rf runFlags
	var tf tableFlags
	var name string
	var cells []string
	cmd := &cobra.Command{
		Use:   "check TABLE... | check --cells FILE --dims ... [--value v --holding h]",
		Short: "Audit table files and write reports",
		Long: `Audit one or more table files. Microdata (one record per contributor) is
grouped by --dims with every margin; without --dims the config's columns map
an aggregate table. Reports go to --out: open summary.html first (what to
do next, flagged cells first), then TABLE.annotated.xlsx (every cell
coloured by status, each flagged cell explained in a comment);
TABLE.safe.csv is the publishable table; TABLE.report.json and
summary.json are for machines.

--cells FILE reads a cell summary (docs/cells.md) that the query of
"sdcaudit sql" computed in the engine holding the microdata, with the same
--dims, --value, --holding and config as for the microdata; its invariants
are checked exactly (a violation is exit 3 naming the cell).

The checker's a-priori decisions (--overrides FILE or overrides: in the
config) mark cells safe, suppress or protected, each with a reason and a
name; they are applied before secondary suppression, audited like every
cell and listed in every report. An override matching no cell, or naming
a table the run does not have, is an error (exit 2).

tau-argus inputs: "check FILE.rda" (its data file beside it), "check
FILE.tab --metadata FILE.rda", or a .tab with a .rda of the same name
beside it; --apriori FILE.hst reads a tau-argus a-priori file (or an
overrides CSV); --previous DIR keeps the previous release's pattern
(docs/tauargus.md).

` + exitCodesHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(cells) == 0 {
				return usageErr(errors.New("check needs a table file or --cells FILE"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// tau-argus inputs (FILE.rda, --metadata, FILE.tab beside
			// FILE.rda): their metadata is a layer under the others
			type tauIn struct{ data, rda string }
			tau := make([]tauIn, len(args))
			for i, a := range args {
				data, rda, ok, err := pipeline.TauArgusInput(a, tf.metadata)
				if err != nil {
					return err
				}
				if ok {
					tau[i] = tauIn{data, rda}
					tf.tauargus = true
				}
			}
			layers, err := tf.layers()
			if err != nil {
				return err
			}
			s, err := configs.Resolve(layers...)
			if err != nil {
				return err
			}
			if name != "" && len(args)+len(cells) > 1 {
				return usageErr(errors.New("--name needs a single input file"))
			}
			var jobs []pipeline.Job
			for i, a := range args {
				if tau[i].rda != "" {
					tl, err := pipeline.TauArgusLayer(tau[i].data, tau[i].rda)
					if err != nil {
						return err
					}
					ts, err := configs.Resolve(append([]*configs.Config{tl}, layers...)...)
					if err != nil {
						return err
					}
					jobs = append(jobs, pipeline.Job{Path: tau[i].data, Name: name, Settings: ts})
					continue
				}
				jobs = append(jobs, pipeline.Job{Path: a, Name: name, Settings: s})
			}
			for _, c := range cells {
				jobs = append(jobs, pipeline.Job{Path: c, Name: name, Settings: s, Cells: true})
			}
			return rf.execute(cmd, jobs)
		},
	}
	rf.add(cmd)
	tf.add(cmd.Flags())
	cmd.Flags().StringVar(&name, "name", "", "output base name instead of the file name")
	cmd.Flags().BoolVar(&rf.linked, "linked", false, "protect tables built from the same microdata together (shared cells, one status everywhere)")
	cmd.Flags().StringArrayVar(&cells, "cells", nil, "a cell summary of the microdata (docs/cells.md), from the query of sdcaudit sql; repeatable")
	cmd.Flags().StringVar(&tf.overrides, "overrides", "", "a-priori file (CSV: dims..., action, reason, by): cells the checker marks safe, suppress or protected, applied before secondary suppression")
	cmd.Flags().StringVar(&tf.metadata, "metadata", "", "tau-argus metadata (.rda) describing the input: a .tab table or .asc/.csv microdata (docs/tauargus.md)")
	cmd.Flags().StringVar(&tf.apriori, "apriori", "", "a-priori file: tau-argus .hst (cell codes, then s, u, p, c COST or pl LEVELS) or an overrides CSV")
	cmd.Flags().StringVar(&tf.previous, "previous", "", "output directory of the previous release: stay close to its pattern and list what changed")
	return cmd
}

func newRunCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run RELEASE.yaml",
		Short: "Audit every table a release file lists",
		Long: `Audit every table of a release file. The release file holds shared
settings (the same keys as a config file) and a list of tables, each with
its file (relative to the release file), an optional output name and
per-table overrides (file: a table or microdata; cells: a cell summary,
docs/cells.md).

With --shards N --shard I the run audits only the tables whose index in
the release file modulo N is I, and writes their outputs and a partial
summary (summary.part-I-of-N.json) instead of summary.json: it exits 0
unless an input, configuration or output fails. "sdcaudit merge" combines
the N partial summaries into the run's summary.json, summary.html and
results.json and gives the run's exit code (docs/sharding.md).

Tables may carry overrides: (the checker's a-priori decisions). Open
summary.html first, then each TABLE.annotated.xlsx.

` + exitCodesHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rel, err := configs.LoadRelease(args[0])
			if err != nil {
				return err
			}
			var jobs []pipeline.Job
			for i := range rel.Tables {
				t := &rel.Tables[i]
				layers := []*configs.Config{rel.Base(), t.Layer()}
				path := rel.Path(*t)
				if t.Cells == "" {
					meta := ""
					for _, l := range layers {
						if l.Input != nil && l.Input.Metadata != "" {
							meta = l.Input.Metadata
						}
					}
					data, rda, ok, err := pipeline.TauArgusInput(path, meta)
					if err != nil {
						return err
					}
					if ok {
						tl, err := pipeline.TauArgusLayer(data, rda)
						if err != nil {
							return err
						}
						layers, path = append([]*configs.Config{tl}, layers...), data
					}
				}
				s, err := configs.Resolve(layers...)
				if err != nil {
					return err
				}
				jobs = append(jobs, pipeline.Job{Path: path, Name: t.Name, Settings: s, Cells: t.Cells != ""})
			}
			if cmd.Flags().Changed("shard") != cmd.Flags().Changed("shards") || rf.shards < 0 || (rf.shards > 0 && (rf.shard < 0 || rf.shard >= rf.shards)) {
				return usageErr(fmt.Errorf("--shard %d --shards %d: give both, with 0 <= shard < shards", rf.shard, rf.shards))
			}
			rf.link = pipeline.LinkOff
			if rel.Linked == nil || *rel.Linked {
				rf.link = pipeline.LinkOn
			}
			rf.links = rel.Links
			return rf.execute(cmd, jobs)
		},
	}
	rf.add(cmd)
	cmd.Flags().IntVar(&rf.shard, "shard", 0, "this shard's index, 0 <= shard < shards (with --shards)")
	cmd.Flags().IntVar(&rf.shards, "shards", 0, "audit only the tables whose index modulo shards is --shard; write a partial summary for sdcaudit merge")
	return cmd
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
