package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/rules/meansd"
)

type reconstructFlags struct {
	n                  int
	min, max, step     string
	mean, sd, median   string
	meanDP, sdDP       int
	rounding, sdKind   string
	cap                uint64
	timeLimit          time.Duration
	list, minSolutions int
	interval, kind     string
	groupSlack         int
	countOnly, json    bool
}

func newReconstructCmd() *cobra.Command {
	var f reconstructFlags
	cmd := &cobra.Command{
		Use:   "reconstruct",
		Short: "Find every sample that fits a published n, mean and SD on a bounded grid",
		Long: "reconstruct finds every multiset of n values on the grid min, min+step, ..., max whose mean and SD\n" +
			"round to the published strings (their decimals are the precision), counts them exactly or up to --cap,\n" +
			"and reports the range of the maximum and minimum, the values in every solution, analytic bounds and a verdict:\n" +
			"disclosive when the sample is unique, when every solution gives one value to all respondents but --group-slack,\n" +
			"or (--kind magnitude) when the largest or smallest amount is the same in every solution inside the domain;\n" +
			"risky when fewer than --min-solutions fit or (magnitude) the largest amount's range is narrower than --interval%.\n" +
			"The maximum being the scale's own bound in every solution is a figure, not a finding.\n" +
			"Exit 1 when the verdict is disclosive, risky, inconsistent or not determined.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReconstruct(cmd, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.n, "n", 0, "number of values")
	fl.StringVar(&f.min, "min", "", "smallest possible value")
	fl.StringVar(&f.max, "max", "", "largest possible value")
	fl.StringVar(&f.step, "step", "1", "grid step of the values")
	fl.StringVar(&f.mean, "mean", "", "published mean")
	fl.StringVar(&f.sd, "sd", "", "published standard deviation")
	fl.StringVar(&f.median, "median", "", "published median (optional)")
	fl.IntVar(&f.meanDP, "mean-dp", 0, "decimal places of the published mean (default: those of the string)")
	fl.IntVar(&f.sdDP, "sd-dp", 0, "decimal places of the published SD (default: those of the string)")
	fl.StringVar(&f.rounding, "rounding", "half-up", "rounding convention: half-up, half-even, closed or exact")
	fl.StringVar(&f.sdKind, "sd-kind", "sample", "sample (divisor n-1) or population (divisor n)")
	fl.Uint64Var(&f.cap, "cap", 0, "stop counting at this many solutions (0 counts exactly)")
	fl.DurationVar(&f.timeLimit, "time-limit", 60*time.Second, "give up after this long and say \"not determined\" (0: no limit)")
	fl.IntVar(&f.list, "list", 10, "list at most this many samples")
	fl.BoolVar(&f.countOnly, "count-only", false, "the count alone, as fast as it can be (no ranges, forced values or samples)")
	fl.IntVar(&f.minSolutions, "min-solutions", 10, "fewer solutions than this are risky")
	fl.StringVar(&f.kind, "kind", "scale", "the measure: scale (answers on a rating scale) or magnitude (an amount)")
	fl.IntVar(&f.groupSlack, "group-slack", 0, "every solution giving one value to all but this many values is disclosive")
	fl.StringVar(&f.interval, "interval", "25", "magnitude: a range of the largest amount narrower than this percentage of its upper end is risky (0: off)")
	fl.BoolVar(&f.json, "json", false, "print one JSON document")
	cmd.AddCommand(newSpaceCmd(), newDisguiseCmd())
	return cmd
}

func (f reconstructFlags) request() (meansd.Request, error) {
	for name, v := range map[string]string{"min": f.min, "max": f.max, "mean": f.mean, "sd": f.sd} {
		if v == "" {
			return meansd.Request{}, fmt.Errorf("--%s is required", name)
		}
	}
	if f.n < 1 {
		return meansd.Request{}, fmt.Errorf("--n must be at least 1")
	}
	rnd, err := meansd.ParseRounding(f.rounding)
	if err != nil {
		return meansd.Request{}, err
	}
	pop := false
	switch f.sdKind {
	case "sample":
	case "population":
		pop = true
	default:
		return meansd.Request{}, fmt.Errorf("--sd-kind must be sample or population, got %q", f.sdKind)
	}
	if f.list < 0 || f.minSolutions < 1 || f.meanDP < 0 || f.sdDP < 0 || f.timeLimit < 0 || f.groupSlack < 0 {
		return meansd.Request{}, fmt.Errorf("--list, --mean-dp, --sd-dp, --time-limit and --group-slack must not be negative, --min-solutions must be at least 1")
	}
	if f.kind != "scale" && f.kind != "magnitude" {
		return meansd.Request{}, fmt.Errorf("--kind must be scale or magnitude, got %q", f.kind)
	}
	list := f.list
	if f.countOnly {
		list = 0
	}
	return meansd.Request{N: f.n, Min: f.min, Max: f.max, Step: f.step, Mean: f.mean, SD: f.sd, Median: f.median,
		MeanDP: f.meanDP, SDDP: f.sdDP, Rounding: rnd, Population: pop, Cap: f.cap, List: list, CountOnly: f.countOnly,
		TimeLimit: f.timeLimit, MinSolutions: f.minSolutions, Interval: f.interval, GroupSlack: f.groupSlack,
		Magnitude: f.kind == "magnitude"}, nil
}

// reconstructJSON is the contract's JSON document.
type reconstructJSON struct {
	Solutions  uint64                `json:"solutions"`
	Capped     bool                  `json:"capped"`
	Samples    [][]json.Number       `json:"samples"`
	Listed     int                   `json:"listed"`
	ListCut    bool                  `json:"list_cut"`
	MaxRange   []json.Number         `json:"max_range"`
	MinRange   []json.Number         `json:"min_range"`
	Forced     []forcedJSON          `json:"forced"`
	Group      *forcedJSON           `json:"group"`
	Impossible []json.Number         `json:"impossible"`
	Bounds     map[string][2]float64 `json:"bounds"`
	Verdict    string                `json:"verdict"`
	Determined bool                  `json:"determined"`
	Analysed   bool                  `json:"analysed"`
	Reason     string                `json:"reason"`
	Method     string                `json:"method"`
}

type forcedJSON struct {
	Value    json.Number `json:"value"`
	MinCount int         `json:"min_count"`
}

func numbers(v []string) []json.Number {
	out := make([]json.Number, len(v))
	for i, s := range v {
		out[i] = json.Number(s)
	}
	return out
}

func rangeJSON(r *meansd.Range) []json.Number {
	if r == nil {
		return nil
	}
	return numbers([]string{r.Lo, r.Hi})
}

func runReconstruct(cmd *cobra.Command, f reconstructFlags) error {
	req, err := f.request()
	if err != nil {
		return usageErr(err)
	}
	res, err := meansd.Solve(cmd.Context(), req)
	if err != nil {
		return usageErr(err)
	}
	out := cmd.OutOrStdout()
	if f.json {
		doc := reconstructJSON{Solutions: res.Solutions, Capped: res.Capped, Samples: [][]json.Number{},
			MaxRange: rangeJSON(res.MaxRange), MinRange: rangeJSON(res.MinRange), Forced: []forcedJSON{},
			Impossible: numbers(res.Impossible), Verdict: string(res.Verdict), Determined: res.Determined,
			Analysed: res.Analysed, Reason: res.Reason, Method: res.Method,
			Bounds: map[string][2]float64{"samuelson": res.Bounds.Samuelson, "chebyshev": res.Bounds.Chebyshev,
				"selberg": res.Bounds.Selberg, "marching_max": res.Bounds.MarchingMax}}
		for _, s := range res.Samples {
			doc.Samples = append(doc.Samples, numbers(s))
		}
		for _, fc := range res.Forced {
			doc.Forced = append(doc.Forced, forcedJSON{json.Number(fc.Value), fc.MinCount})
		}
		if g := res.Group; g != nil {
			doc.Group = &forcedJSON{json.Number(g.Value), g.MinCount}
		}
		doc.Listed, doc.ListCut = len(res.Samples), res.ListCut
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else {
		printReconstruct(out, req, res)
	}
	if res.Verdict != meansd.Safe {
		return errNeedsPerson
	}
	return nil
}

func printReconstruct(w io.Writer, req meansd.Request, res meansd.Result) {
	fmt.Fprintf(w, "verdict: %s\n%s\n", res.Verdict, res.Reason)
	count := strconv.FormatUint(res.Solutions, 10)
	if res.Capped {
		count = "at least " + count
	}
	fmt.Fprintf(w, "solutions: %s (method %s)\n", count, res.Method)
	if res.MaxRange != nil {
		fmt.Fprintf(w, "maximum in %s..%s, minimum in %s..%s\n", res.MaxRange.Lo, res.MaxRange.Hi, res.MinRange.Lo, res.MinRange.Hi)
	}
	if len(res.Forced) > 0 {
		var parts []string
		for _, fc := range res.Forced {
			parts = append(parts, fmt.Sprintf("%s (at least %d×)", fc.Value, fc.MinCount))
		}
		fmt.Fprintf(w, "in every solution: %s\n", strings.Join(parts, ", "))
	}
	if len(res.Impossible) > 0 && len(res.Impossible) <= 50 {
		fmt.Fprintf(w, "in no solution: %s\n", strings.Join(res.Impossible, ", "))
	}
	b := res.Bounds
	fmt.Fprintf(w, "bounds: Samuelson %v..%v, Chebyshev %v..%v, Selberg %v..%v, marching max %v..%v\n",
		b.Samuelson[0], b.Samuelson[1], b.Chebyshev[0], b.Chebyshev[1], b.Selberg[0], b.Selberg[1], b.MarchingMax[0], b.MarchingMax[1])
	if len(res.Samples) == 0 {
		return
	}
	if res.ListCut {
		fmt.Fprintf(w, "listing cut at %d samples (of %d asked)\n", len(res.Samples), req.List)
	}
	fmt.Fprintf(w, "samples (count vectors over %s..%s):\n", req.Min, req.Max)
	for i, s := range res.Samples {
		fmt.Fprintf(w, "  %v  {%s}\n", trimVector(res.Vectors[i]), strings.Join(s, ","))
	}
	// histogram: in how many listed solutions each value occurs
	occ := map[string]int{}
	var keys []string
	for _, s := range res.Samples {
		seen := map[string]bool{}
		for _, v := range s {
			if !seen[v] {
				seen[v] = true
				if occ[v] == 0 {
					keys = append(keys, v)
				}
				occ[v]++
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := new(big.Rat).SetString(keys[i])
		b, _ := new(big.Rat).SetString(keys[j])
		return a.Cmp(b) < 0
	})
	fmt.Fprintf(w, "value occurs in (of %d listed solutions):\n", len(res.Samples))
	for _, k := range keys {
		bar := strings.Repeat("#", int(math.Ceil(30*float64(occ[k])/float64(len(res.Samples)))))
		fmt.Fprintf(w, "  %8s %-30s %d\n", k, bar, occ[k])
	}
}

// trimVector prints a count vector, eliding long runs of zeros.
func trimVector(c []int) string {
	if len(c) <= 20 {
		return fmt.Sprint(c)
	}
	var parts []string
	for k, x := range c {
		if x > 0 {
			parts = append(parts, fmt.Sprintf("k%d:%d", k, x))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

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
