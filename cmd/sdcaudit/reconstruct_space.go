package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/rules/meansd"
)

func newSpaceCmd() *cobra.Command {
	var (
		min, max, step, ns, dps, rounding, sdKind string
		asJSON                                    bool
	)
	cmd := &cobra.Command{
		Use:   "space",
		Short: "Whole-space uniqueness profile: how many samples a published (mean, SD) identifies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			nlist, err := parseNRange(ns)
			if err != nil {
				return usageErr(err)
			}
			var dpl []int
			var names []string
			for _, d := range strings.Split(dps, ",") {
				d = strings.TrimSpace(d)
				if d == "exact" {
					dpl, names = append(dpl, meansd.ExactDP), append(names, d)
					continue
				}
				v, err := strconv.Atoi(d)
				if err != nil || v < 0 || v > 9 {
					return usageErr(fmt.Errorf("--dp: %q is not \"exact\" or a number of decimals 0..9", d))
				}
				dpl, names = append(dpl, v), append(names, d)
			}
			r, err := meansd.ParseRounding(rounding)
			if err != nil {
				return usageErr(err)
			}
			if sdKind != "sample" && sdKind != "population" {
				return usageErr(fmt.Errorf("--sd-kind must be sample or population"))
			}
			if min == "" || max == "" {
				return usageErr(errors.New("--min and --max are required"))
			}
			rows, err := meansd.Space(cmd.Context(), meansd.SpaceRequest{Min: min, Max: max, Step: step, N: nlist, DPs: dpl,
				Rounding: r, Population: sdKind == "population"})
			if err != nil {
				return usageErr(err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				type row struct {
					N       int               `json:"n"`
					Samples uint64            `json:"samples"`
					Unique  map[string]uint64 `json:"unique"`
				}
				doc := struct {
					Rows []row `json:"rows"`
				}{Rows: []row{}}
				for _, r := range rows {
					u := map[string]uint64{}
					for i, name := range names {
						u[name] = r.Unique[i]
					}
					doc.Rows = append(doc.Rows, row{r.N, r.Samples, u})
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			fmt.Fprintf(out, "%4s %12s", "n", "samples")
			for _, name := range names {
				fmt.Fprintf(out, " %10s", "unique "+name)
			}
			fmt.Fprintln(out)
			for _, r := range rows {
				fmt.Fprintf(out, "%4d %12d", r.N, r.Samples)
				for _, u := range r.Unique {
					fmt.Fprintf(out, " %10d", u)
				}
				fmt.Fprintln(out)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&min, "min", "", "smallest possible value")
	fl.StringVar(&max, "max", "", "largest possible value")
	fl.StringVar(&step, "step", "1", "grid step")
	fl.StringVar(&ns, "n", "3-12", "a sample size or a range such as 3-12")
	fl.StringVar(&dps, "dp", "exact,2,1", "comma-separated decimal places of mean and SD, or exact")
	fl.StringVar(&rounding, "rounding", "half-up", "half-up or half-even (the seed's tables use half-even)")
	fl.StringVar(&sdKind, "sd-kind", "sample", "sample or population")
	fl.BoolVar(&asJSON, "json", false, "print one JSON document")
	return cmd
}

func parseNRange(s string) ([]int, error) {
	a, b, isRange := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi := lo
	var err2 error
	if isRange {
		hi, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil || lo < 2 || hi < lo || hi > 200 {
		return nil, fmt.Errorf("--n: %q is not a sample size or range like 3-12 (2..200)", s)
	}
	var out []int
	for n := lo; n <= hi; n++ {
		out = append(out, n)
	}
	return out, nil
}

func newDisguiseCmd() *cobra.Command {
	var (
		values, min, max, step, method, rounding string
		seed                                     uint64
		dp, minSolutions                         int
		asJSON                                   bool
	)
	cmd := &cobra.Command{
		Use:   "disguise",
		Short: "Little white lies: disguise a sample's mean and SD and re-check them with the solver",
		Long: "disguise applies the seed's methods (split-half, bootstrap, variable sample sizes with and without\n" +
			"replacement) to a sample, re-checks each disguised (mean, SD) with the solver (is the true sample still a\n" +
			"solution? how many solutions?), and recommends the rounding of the true mean and SD that keeps at least\n" +
			"--min-solutions solutions with the most decimals.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var sample []string
			for _, v := range strings.Split(values, ",") {
				if v = strings.TrimSpace(v); v != "" {
					sample = append(sample, v)
				}
			}
			r, err := meansd.ParseRounding(rounding)
			if err != nil {
				return usageErr(err)
			}
			if min == "" || max == "" || len(sample) < 2 {
				return usageErr(errors.New("--values (at least two), --min and --max are required"))
			}
			if dp < 0 || dp > 6 || minSolutions < 1 {
				return usageErr(errors.New("--dp must be within 0..6 and --min-solutions at least 1"))
			}
			methods := []meansd.Method{meansd.SplitHalf, meansd.Bootstrap, meansd.VariableWith, meansd.VariableWithout}
			if method != "all" {
				methods = []meansd.Method{meansd.Method(method)}
			}
			rep, err := meansd.Disguise(cmd.Context(), meansd.DisguiseRequest{Values: sample, Min: min, Max: max, Step: step,
				Methods: methods, Seed: seed, DP: dp, Rounding: r, MinSolutions: minSolutions, TimeLimit: 2 * time.Second})
			if err != nil {
				return usageErr(err)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			fmt.Fprintf(out, "true sample: mean %s, SD %s -> %d solution(s)\n", rep.Mean, rep.SD, rep.Solutions)
			for _, d := range rep.Disguises {
				capped := ""
				if d.Capped {
					capped = "at least "
				}
				fmt.Fprintf(out, "%-22s mean %-8s SD %-8s %s%d solution(s), true sample among them: %v\n", d.Method, d.Mean, d.SD, capped, d.Solutions, d.TrueIncluded)
			}
			if rep.Recommended != nil {
				fmt.Fprintf(out, "recommendation: publish mean %s and SD %s (%d decimals) -> %s%d solutions\n", rep.Recommended.Mean, rep.Recommended.SD, rep.Recommended.DP, map[bool]string{true: "at least ", false: ""}[rep.Recommended.Capped], rep.Recommended.Solutions)
			} else {
				fmt.Fprintf(out, "recommendation: no rounding of the true mean and SD keeps %d solutions; suppress or disguise\n", minSolutions)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&values, "values", "", "the confidential sample, comma-separated")
	fl.StringVar(&min, "min", "", "smallest possible value")
	fl.StringVar(&max, "max", "", "largest possible value")
	fl.StringVar(&step, "step", "1", "grid step")
	fl.StringVar(&method, "method", "all", "split-half, bootstrap, variable, variable-noreplace or all")
	fl.Uint64Var(&seed, "seed", 1, "random seed (fixed for reproducibility)")
	fl.IntVar(&dp, "dp", 3, "decimals of the disguised mean and SD")
	fl.StringVar(&rounding, "rounding", "half-up", "rounding convention of the published values")
	fl.IntVar(&minSolutions, "min-solutions", 10, "the solution count to keep")
	fl.BoolVar(&asJSON, "json", false, "print one JSON document")
	return cmd
}
