package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/rules/compare"
	"github.com/sdcaudit/sdcaudit/writers"
)

// ruleInfo is one rule of `sdcaudit rules --json`.
type ruleInfo struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	Doc     string `json:"doc"`
	// Params are the rule's parameter values in the profile, keyed by
	// their configuration names ({} when the profile does not mention it).
	Params map[string]any `json:"params"`
	// ParamDocs declare the rule's parameters: key and meaning.
	ParamDocs []paramDoc `json:"param_docs"`

	text []string // the parameter values as name=value
}

// paramDoc is one declared parameter in `sdcaudit rules --json`.
type paramDoc struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

func newRulesCmd() *cobra.Command {
	var jsonOut, long bool
	var profile string
	cmd := &cobra.Command{
		Use:   "rules [RULE...]",
		Short: "List the sensitivity rules, whether a profile enables them and their parameters",
		Long: `List every registered rule with what it checks, whether the profile
(--profile, default "default") enables it and its parameter values there.
The parameter values live in the profiles (configs/profiles/*.yaml, which
set every parameter of every rule) and in config files under
rules: NAME: {...}.

With RULE names or --long, each rule is shown in full with what each of its
parameters means. --json prints every rule with its parameter values
("params") and their declarations ("param_docs").

"sdcaudit rules compare" calibrates the magnitude rules against each other.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := configs.Resolve(&configs.Config{Profile: profile})
			if err != nil {
				return err
			}
			names := rules.Names()
			if len(args) > 0 {
				for _, a := range args {
					if _, ok := rules.Lookup(a); !ok {
						return usageErr(fmt.Errorf("%w %q (known: %s)", rules.ErrUnknownRule, a, strings.Join(names, ", ")))
					}
				}
				names, long = args, true
			}
			list, err := ruleInfos(s, names)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				e := json.NewEncoder(out)
				e.SetIndent("", "  ")
				return e.Encode(struct {
					Profile string     `json:"profile"`
					Rules   []ruleInfo `json:"rules"`
				}{s.Profile, list})
			}
			if long {
				return printRulesLong(out, s.Profile, list)
			}
			return printRules(out, s.Profile, list)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the list as JSON")
	cmd.Flags().BoolVar(&long, "long", false, "show every rule in full, with what each parameter means")
	cmd.Flags().StringVar(&profile, "profile", "default", "profile whose enabled rules and parameter values are shown: "+strings.Join(configs.Profiles(), ", "))
	cmd.AddCommand(newRulesCompareCmd())
	return cmd
}

// ruleInfos describes the named rules with their settings in s: the
// parameter values as each rule decodes them (rules.Params, as in
// the audit trail).
func ruleInfos(s *configs.Settings, names []string) ([]ruleInfo, error) {
	settings := map[string]configs.RuleSetting{}
	for _, r := range s.Rules {
		settings[r.Name] = r
	}
	list := make([]ruleInfo, 0, len(names))
	for _, n := range names {
		spec, _ := rules.Lookup(n)
		info := ruleInfo{Name: n, Doc: spec.Doc, Params: map[string]any{}, ParamDocs: []paramDoc{}}
		for _, p := range spec.Params {
			info.ParamDocs = append(info.ParamDocs, paramDoc{p.Name, p.Doc})
		}
		if r, ok := settings[n]; ok {
			p, err := rules.Params(r.Name, r.Decode)
			if err != nil {
				return nil, &configs.Error{File: "profile " + s.Profile, Err: err}
			}
			info.Enabled = r.Enabled
			info.Params = rules.ParamValues(p)
			info.text = rules.FormatParams(p)
		}
		list = append(list, info)
	}
	return list, nil
}

func newRulesCompareCmd() *cobra.Command {
	var (
		tf                        tableFlags
		dist, ruleList, svgPath   string
		contributors, cells, domN int
		seed                      uint64
		target                    float64
		jsonOut, margins          bool
	)
	cmd := &cobra.Command{
		Use:   "compare [TABLE]",
		Short: "Calibrate the magnitude rules to flag the same share of cells and compare them",
		Long: `Compare the magnitude rules (dominance, p_percent, pq, interval) as in the
Statisticon rule thesis, section 3. Each rule's parameter (dominance k for
a fixed n, p, the ratio p/q with q = 100, s) is calibrated by bisection on
its exact test so that it flags --target of the cells; then every pair of
rules gets its 2x2 agreement table, Cohen's kappa, and the typical case of
the cells only one of them flags (mean and median shares x1/X, x2/X, ...,
mean n, x1 - x2, the rest X - x1 - x2, the SD of the shares).

The cells come from TABLE (read as "sdcaudit check" reads it: --dims,
--value and --holding for microdata, or the config's columns with top
contributions for an aggregate table) or from a simulation (--dist
exponential|normal, --contributors per cell, --cells, --seed). Cells that
some rule cannot assess (empty, negative contributions, figures missing)
are left out and counted. --svg writes the sensitivity plot: sensitive
cells against each rule's parameter.

With input.rounded in the config (an aggregate table rounded to base B),
each rule judges every value a rounded count and total stand for, as
"sdcaudit check" does, and a cell counts as sensitive when some of them
is (check: primary or review); the output says so. The typical-case
shares are of the published totals.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt := compare.Options{Target: target, DominanceN: domN, Rules: splitList(ruleList)}
			if !(target > 0 && target < 1) {
				return usageErr(fmt.Errorf("--target must be a share in (0, 1), got %g", target))
			}
			var (
				t     *audit.Table
				cs    []*audit.Cell
				label string
			)
			switch {
			case len(args) == 1 && dist != "":
				return usageErr(errors.New("give either a TABLE or --dist, not both"))
			case len(args) == 1:
				var (
					err     error
					rounded *decimal.Dec
				)
				t, rounded, err = loadForCompare(cmd, args[0], &tf, max(domN, 4))
				if err != nil {
					return err
				}
				if rounded != nil && t.Mode == audit.Aggregate {
					opt.Rounded = *rounded // input.rounded: judged as check judges it
				}
				for _, c := range t.Cells {
					if margins || !c.IsMargin(t.TotalLabel) {
						cs = append(cs, c)
					}
				}
				label = t.Source
			case dist != "":
				var err error
				cs, err = compare.Simulate(dist, contributors, cells, seed)
				if err != nil {
					return usageErr(err)
				}
				t = &audit.Table{Mode: audit.Microdata, Value: "x", TotalLabel: "Total"}
				label = fmt.Sprintf("simulated %s, n = %d, %d cells, seed %d", dist, contributors, cells, seed)
			default:
				return usageErr(errors.New("give a TABLE or --dist exponential|normal"))
			}
			res, err := compare.Run(t, cs, opt)
			if err != nil {
				return usageErr(err)
			}
			res.Source = label
			if svgPath != "" {
				if err := writers.WriteAtomic(cmd.Context(), svgPath, res.WriteSVG); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				e := json.NewEncoder(out)
				e.SetIndent("", "  ")
				return e.Encode(res)
			}
			return res.WriteText(out)
		},
	}
	f := cmd.Flags()
	tf.add(f)
	f.BoolVar(&margins, "margins", true, "include the margin cells of TABLE")
	f.StringVar(&dist, "dist", "", "simulate contributions: exponential (rate 1) or normal (mean 100, SD 50, truncated at 0)")
	f.IntVar(&contributors, "contributors", 4, "simulation: contributors per cell")
	f.IntVar(&cells, "cells", 1000, "simulation: number of cells")
	f.Uint64Var(&seed, "seed", 1, "simulation: random seed")
	f.Float64Var(&target, "target", 0.2, "share of cells each rule should flag, in (0, 1)")
	f.StringVar(&ruleList, "rules", strings.Join(compare.Families, ","), "rules to compare")
	f.IntVar(&domN, "dominance-n", 2, "n of the (n,k) dominance rule; k is calibrated")
	f.BoolVar(&jsonOut, "json", false, "print the comparison as JSON")
	f.StringVar(&svgPath, "svg", "", "write the sensitivity plot (SVG) to this file")
	return cmd
}

// loadForCompare reads TABLE with the settings "sdcaudit check" would use,
// keeping at least the `top` largest contributions per cell; it returns
// the base its published values are rounded to (input.rounded), if any.
func loadForCompare(cmd *cobra.Command, path string, tf *tableFlags, top int) (*audit.Table, *decimal.Dec, error) {
	layers, err := tf.layers()
	if err != nil {
		return nil, nil, err
	}
	// Keep the largest contributions the comparison needs, whatever the
	// config's own rules ask for.
	need, err := configs.Parse("rules compare", fmt.Appendf(nil, "rules: {dominance: {enabled: true, sets: [{n: %d, k: 99}]}}\n", top))
	if err != nil {
		return nil, nil, err
	}
	s, err := configs.Resolve(append(layers, need)...)
	if err != nil {
		return nil, nil, err
	}
	t, err := pipeline.LoadFile(cmd.Context(), path, s)
	return t, s.Input.Rounded, err
}
