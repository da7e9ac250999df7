package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/pipeline"
)

func newMergeCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Combine the partial summaries of a sharded run",
		Long: `Combine the partial summaries (summary.part-I-of-N.json) that the shards
of "sdcaudit run --shards N --shard I" wrote into the directories DIR...
(every shard exactly once) into the run's summary.json, summary.html and
results.json in --out, as the unsharded run writes them; table outputs in
another directory are copied into --out. The exit code is the run's: 0
nothing needs a person, 1 some cell failed a rule or needs review, 3 a
partial summary is missing, duplicated, unreadable, does not validate, does
not match its digest or belongs to another run (another version,
configuration or number of shards), or a table output is not the file its
partial summary vouches for (docs/sharding.md), 4 interrupted or an output
could not be written.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return rf.executeWith(cmd, 0, func(ctx context.Context, opt pipeline.Options) (*pipeline.Result, error) {
				return pipeline.Merge(ctx, args, opt)
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&rf.out, "out", "out", "output directory of the merged run")
	fs.StringVar(&rf.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	fs.StringVar(&rf.logFormat, "log-format", "console", "log format: console or json")
	fs.BoolVar(&rf.json, "json", false, "print the run summary as JSON on stdout")
	fs.BoolVar(&rf.quiet, "quiet", false, "print nothing on success")
	return cmd
}
