package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/sqlgen"
)

func newSQLCmd() *cobra.Command {
	var tf tableFlags
	var dialect string
	var top, powers, decimals int
	cmd := &cobra.Command{
		Use:   "sql TABLE --dialect " + strings.Join(sqlgen.Dialects(), "|"),
		Short: "Print the query that computes a table's cell summaries in the engine",
		Long: `Print the SQL query that computes the cell summaries of a microdata table
(every cell and margin: rows, contributors, missing, negative, exact total,
power sums, min, max, the k largest contributions) in the engine that holds
the records, so that they never leave it. TABLE is the engine's relation
(schema.table). With --dialect duckdb, TABLE may be a microdata file
(.csv, .tsv, .txt, .parquet; a name with a '/' or such an extension): DuckDB
reads it itself (read_csv with every column as text, or read_parquet).
The output schema is described in docs/cells.md.

--top-k and --powers are raised to what the configured rules and published
statistics need. --value-decimals is the number of decimals of the value
(default: the measure step's, else 2); the query fails on a value with more.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if top < 1 || top > sqlgen.MaxTop {
				return usageErr(fmt.Errorf("--top-k %d: want 1..%d", top, sqlgen.MaxTop))
			}
			if powers < 1 || powers > sqlgen.MaxPowers {
				return usageErr(fmt.Errorf("--powers %d: want 1..%d", powers, sqlgen.MaxPowers))
			}
			layers, err := tf.layers()
			if err != nil {
				return err
			}
			s, err := configs.Resolve(layers...)
			if err != nil {
				return err
			}
			if s.Microdata == nil || len(s.Microdata.Dims) == 0 {
				return usageErr(errors.New("sql needs --dims (or microdata.dims in the config)"))
			}
			if len(s.Microdata.Parents) > 0 {
				return usageErr(errors.New("microdata.parents: parent columns are not supported by sdcaudit sql yet: give the hierarchy as suppression.hierarchies or suppression.hierarchy_files"))
			}
			rs, err := pipeline.BuildRules(s)
			if err != nil {
				return err
			}
			needs := rs.Needs()
			spec := sqlgen.Spec{
				Table: args[0], Dims: s.Microdata.Dims, Value: s.Microdata.Value, Holding: s.Microdata.Holding,
				Top: max(top, needs.Top), Powers: max(powers, needs.Powers), Scale: decimals,
				Hierarchies: s.Suppression.Hierarchies, Leaves: s.Suppression.Leaves, TotalLabel: s.TotalLabel,
			}
			if needs.SumSq {
				spec.Powers = max(spec.Powers, 2)
			}
			if sqlgen.IsFile(args[0]) {
				spec.Table, spec.File, spec.Delimiter = "", args[0], s.Input.Delimiter
			}
			if !cmd.Flags().Changed("value-decimals") {
				spec.Scale = 2
				if m := s.Measure; m != nil {
					spec.Scale = max(m.Step.Scale(), m.Min.Scale())
				}
			}
			q, err := sqlgen.Query(sqlgen.Dialect(dialect), spec)
			if err != nil {
				return usageErr(err)
			}
			fmt.Fprint(cmd.OutOrStdout(), q)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&tf.config, "config", "", "config file (YAML); the embedded default profile otherwise")
	fs.StringVar(&tf.profile, "profile", "", "base profile: "+strings.Join(configs.Profiles(), ", "))
	fs.StringVar(&tf.dims, "dims", "", "comma-separated grouping dimensions")
	fs.StringVar(&tf.value, "value", "", "the value column (omit for a frequency table)")
	fs.StringVar(&tf.holding, "holding", "", "holding/enterprise id column; its contributions are summed")
	fs.StringVar(&dialect, "dialect", "", "SQL dialect: "+strings.Join(sqlgen.Dialects(), ", "))
	fs.IntVar(&top, "top-k", 2, "largest contributions kept per cell (at least what the rules need)")
	fs.IntVar(&powers, "powers", 4, "highest power sum (at least what the published moments need)")
	fs.IntVar(&decimals, "value-decimals", 2, "decimals of the value column (default: the measure step's, else 2)")
	_ = cmd.MarkFlagRequired("dialect")
	return cmd
}
