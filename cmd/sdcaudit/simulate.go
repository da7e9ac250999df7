package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/rules/moments"
	"github.com/sdcaudit/sdcaudit/writers"
)

// simFlags are the flags of `sdcaudit moments simulate`.
type simFlags struct {
	sizes, means string
	reps         int
	seed         uint64
	svg          string
	json         bool
}

func newMomentsSimulateCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "The seed's Poisson experiment: the smallest moment order that recovers a whole sample",
		Long: `simulate draws --reps samples of each size n (--sizes) from Poisson
distributions (--means), with a fixed --seed, and finds for each sample the
smallest power p whose moments S_{p-1}, S_p recover every value when the
estimates are rounded up to integers (Stander and Stander 2024, section
4.2), and the smallest p that recovers the largest value. Releasing moments
below these orders does not hand out the sample; the SVG (--svg FILE) plots
them against n with the line 2p = n.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.sizes, "sizes", "5,10,20,30,40,50,60,70,80,90,100", "sample sizes: a list of n and ranges a-b or a-b:step")
	fl.StringVar(&f.means, "means", "10,25,50,75", "Poisson means")
	fl.IntVar(&f.reps, "reps", 50, "samples per (n, mean)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.StringVar(&f.svg, "svg", "", "write the plot to this SVG file")
	fl.BoolVar(&f.json, "json", false, "print one JSON document")
	return cmd
}

func simSizes(s string) ([]int, error) {
	var out []int
	for _, it := range strings.Split(s, ",") {
		it = strings.TrimSpace(it)
		step := 1
		if i := strings.IndexByte(it, ':'); i >= 0 {
			v, err := strconv.Atoi(it[i+1:])
			if err != nil || v < 1 {
				return nil, fmt.Errorf("--sizes: bad step in %q", it)
			}
			step, it = v, it[:i]
		}
		lo, hi, rng := strings.Cut(it, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 {
			return nil, fmt.Errorf("--sizes: %q is not a positive size or range", it)
		}
		b := a
		if rng {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("--sizes: bad range %q", it)
			}
		}
		for n := a; n <= b; n += step {
			// checked before appending: a wide range allocates nothing
			if len(out) == 10000 || n > 100000 {
				return nil, errors.New("--sizes: at most 10000 sizes of at most 100000")
			}
			out = append(out, n)
		}
	}
	return out, nil
}

type simRow struct {
	N       int     `json:"n"`
	Mean    float64 `json:"mean"`
	All     simStat `json:"p_all"`
	Largest simStat `json:"p_largest"`
}

type simStat struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Min    int     `json:"min"`
	Max    int     `json:"max"`
}

func mkSimStat(ps []int) simStat {
	m, med, lo, hi := moments.Stats(ps)
	return simStat{Mean: math.Round(m*1000) / 1000, Median: med, Min: lo, Max: hi}
}

func runSimulate(cmd *cobra.Command, f *simFlags) error {
	sizes, err := simSizes(f.sizes)
	if err != nil {
		return usageErr(err)
	}
	var means []float64
	for _, it := range strings.Split(f.means, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(it), 64)
		if err != nil || !(v > 0) || v > 700 {
			return usageErr(fmt.Errorf("--means: %q must be a number in (0, 700]", it))
		}
		means = append(means, v)
	}
	if f.reps < 1 || f.reps > 100000 {
		return usageErr(fmt.Errorf("--reps must be 1..100000, got %d", f.reps))
	}
	cells, err := moments.Simulate(moments.SimConfig{Sizes: sizes, Means: means, Reps: f.reps, Seed: f.seed})
	if err != nil {
		return usageErr(err)
	}
	rows := make([]simRow, len(cells))
	for i, c := range cells {
		rows[i] = simRow{N: c.N, Mean: c.Mean, All: mkSimStat(c.All), Largest: mkSimStat(c.Largest)}
	}
	if f.svg != "" {
		plot := &writers.RecoveryPlot{Sizes: sizes, Means: means, Reps: f.reps, Seed: f.seed, Points: make([]writers.RecoveryPoint, len(rows))}
		for i, r := range rows {
			plot.Points[i] = writers.RecoveryPoint{N: r.N, AllMean: r.All.Mean, AllMin: r.All.Min, AllMax: r.All.Max, LargestMean: r.Largest.Mean}
		}
		if err := writers.WriteAtomic(cmd.Context(), f.svg, plot.WriteSVG); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if f.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"seed": f.seed, "reps": f.reps, "rows": rows})
	}
	fmt.Fprintf(w, "Smallest power p that recovers the whole sample (values rounded up to integers);\nmean over %d Poisson samples [min-max], seed %d. p_max: smallest p that recovers the largest value.\n", f.reps, f.seed)
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "n\t")
	for _, m := range means {
		fmt.Fprintf(tw, "mean %g: p\tp_max\t", m)
	}
	fmt.Fprintln(tw)
	for i, n := range sizes {
		fmt.Fprintf(tw, "%d\t", n)
		for j := range means {
			r := rows[j*len(sizes)+i]
			fmt.Fprintf(tw, "%.1f [%d-%d]\t%.1f\t", r.All.Mean, r.All.Min, r.All.Max, r.Largest.Mean)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if f.svg != "" {
		fmt.Fprintf(w, "Plot written to %s\n", f.svg)
	}
	return nil
}
