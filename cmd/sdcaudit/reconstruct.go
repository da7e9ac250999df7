package main

import (
	"encoding/json"
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

// reconstructJSON is the contract's JSON document: the verdict, its
// reason and the counts first, the listed samples last, one per line
// (see writeReconstructJSON).
type reconstructJSON struct {
	Verdict    string                `json:"verdict"`
	Reason     string                `json:"reason"`
	Determined bool                  `json:"determined"`
	Analysed   bool                  `json:"analysed"`
	Solutions  uint64                `json:"solutions"`
	Capped     bool                  `json:"capped"`
	Listed     int                   `json:"listed"`
	ListCut    bool                  `json:"list_cut"`
	MaxRange   []json.Number         `json:"max_range"`
	MinRange   []json.Number         `json:"min_range"`
	Forced     []forcedJSON          `json:"forced"`
	Group      *forcedJSON           `json:"group"`
	Impossible []json.Number         `json:"impossible"`
	Bounds     map[string][2]float64 `json:"bounds"`
	Method     string                `json:"method"`
	Samples    [][]json.Number       `json:"-"`
}

// writeReconstructJSON writes doc indented, with "samples" last and each
// sample compact on a line of its own.
func writeReconstructJSON(w io.Writer, doc reconstructJSON) error {
	head, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	b := append(head[:len(head)-2], ",\n  \"samples\": ["...) // drop "\n}"
	for i, s := range doc.Samples {
		row, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = append(b, row...)
	}
	if len(doc.Samples) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "]\n}\n"...)
	_, err = w.Write(b)
	return err
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
		if err := writeReconstructJSON(out, doc); err != nil {
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
