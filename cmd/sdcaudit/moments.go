package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/rules/moments"
)

// momentsFlags are the flags of `sdcaudit moments`.
type momentsFlags struct {
	values, column          string
	n                       int64
	raw, means, central     string
	mean, sd, variance      string
	skewness, kurtosis      string
	sdKind, skewDef, kurDef string
	excess                  bool
	p, maxOrder             int
	step                    string
	maxRelError, interval   float64
	json                    bool
}

func newMomentsCmd() *cobra.Command {
	var f momentsFlags
	cmd := &cobra.Command{
		Use:   "moments",
		Short: "Lehmer-mean attack on released power moments: how well can an intruder estimate the largest values?",
		Long: `moments runs the Lehmer-mean attack (Stander and Stander 2024) on one cell.

Input is either the cell's microdata (--values FILE --column NAME; the true
values are known, so every estimate gets a relative error) or what a table
publishes: --n with raw power sums (--raw "S1,S2,..."), raw moment means
(--moments "m1,m2,..."), central moments (--mean with --central "c2,c3,...",
divisor n), or --mean, --sd (or --variance), --skewness, --kurtosis under
the definitions --sd-kind, --skewness-def, --kurtosis-def, --excess.

The largest value is estimated by the Lehmer means L_p = S_p/S_{p-1}; the
second largest by the two-pair estimator (p, p' = p/2) and the one-pair
estimator (L_p rounded up to --step); every value by iterating. With
microdata the cell is unsafe when an estimate of the largest or second
largest value is within --max-rel-error percent; without, when the bracket
[L_p, min(Samuelson bound, S_p^(1/p))] for the maximum is narrower than
--interval percent of its upper end. Exit 1 when unsafe.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMoments(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.values, "values", "", "microdata of one cell: a CSV (or any readable table) file")
	fl.StringVar(&f.column, "column", "", "the value column of --values")
	fl.Int64Var(&f.n, "n", 0, "number of values (with published moments)")
	fl.StringVar(&f.raw, "raw", "", "published raw power sums S1,S2,... (S_p = Σ x^p)")
	fl.StringVar(&f.means, "moments", "", "published raw moment means m1,m2,... (m_p = S_p/n)")
	fl.StringVar(&f.central, "central", "", "published central moments c2,c3,... (divisor n), with --mean")
	fl.StringVar(&f.mean, "mean", "", "published mean")
	fl.StringVar(&f.sd, "sd", "", "published standard deviation (see --sd-kind)")
	fl.StringVar(&f.variance, "variance", "", "published variance (see --sd-kind)")
	fl.StringVar(&f.skewness, "skewness", "", "published skewness (see --skewness-def)")
	fl.StringVar(&f.kurtosis, "kurtosis", "", "published kurtosis (see --kurtosis-def, --excess)")
	fl.StringVar(&f.sdKind, "sd-kind", "sample", "SD/variance divisor: sample (n-1) or population (n)")
	fl.StringVar(&f.skewDef, "skewness-def", "g1", "skewness definition: g1 = c3/c2^1.5, G1 = adjusted (Excel, SAS), b1 = c3/s^3")
	fl.StringVar(&f.kurDef, "kurtosis-def", "g2", "kurtosis definition: g2 = c4/c2^2, G2 = adjusted (Excel, SAS), b2 = c4/s^4")
	fl.BoolVar(&f.excess, "excess", false, "the published kurtosis is excess kurtosis (minus 3)")
	fl.IntVar(&f.p, "p", 0, "highest power used (0: all published; 4 for --values)")
	fl.IntVar(&f.maxOrder, "max-order", 20, "with --values: orders examined for safe_order")
	fl.StringVar(&f.step, "step", "", "granularity of the data for the one-pair estimate and the recovery (default: the values' decimals, 1 for published moments; 0 disables)")
	fl.Float64Var(&f.maxRelError, "max-rel-error", 10, "percent: an estimate closer to the true value discloses it")
	fl.Float64Var(&f.interval, "interval", 10, "percent: a bracket for the maximum narrower than this share of its upper end discloses it")
	fl.BoolVar(&f.json, "json", false, "print one JSON document")
	cmd.AddCommand(newMomentsSimulateCmd())
	return cmd
}

// momentsInput is a cell prepared for the attack.
type momentsInput struct {
	source     string
	sums       moments.Sums // orders 1..available
	order      int          // the published order the verdict is about
	truth      *moments.Truth
	values     []float64  // microdata only
	grid       []int64    // values in steps, when on the grid
	exactSums  []*big.Int // S_0..S_order in steps, when integers
	step       float64
	stepRat    *big.Rat // the step exactly (nil when 0)
	definition string
	missing    int
	// inc says why the moments cannot come from non-negative data.
	inc *moments.Inconsistency
	// exact holds the figures exactly, to decide threshold ties.
	exact *moments.Exact
}

func runMoments(cmd *cobra.Command, f *momentsFlags) error {
	if !(f.maxRelError > 0 && f.maxRelError <= 100) || !(f.interval > 0 && f.interval <= 100) {
		return usageErr(errors.New("--max-rel-error and --interval must be in (0, 100]"))
	}
	if f.p < 0 {
		return usageErr(fmt.Errorf("--p must be positive, got %d", f.p))
	}
	var in *momentsInput
	var err error
	if f.values != "" {
		in, err = momentsFromValues(cmd.Context(), f)
	} else {
		in, err = momentsFromPublished(f)
	}
	if err != nil {
		return err
	}
	rep := moments.Evaluate(moments.Release{
		Sums:          in.sums,
		Truth:         in.truth,
		Options:       moments.Options{MaxRelError: f.maxRelError, Interval: f.interval, Step: in.step, Exact: in.exact},
		Order:         in.order,
		Inconsistency: in.inc,
	})
	var r *momentsJSON
	if in.sums.Order() == 0 { // inconsistent moments the attack cannot even start from
		r = &momentsJSON{Source: in.source, N: f.n, Definition: in.definition, Order: in.order, Step: in.step, Lehmer: []momentsLehmer{}, Verdict: string(rep.Verdict), Reason: rep.Reason, Inconsistent: in.inc != nil}
	} else {
		r = momentsReport(in, rep, f)
	}
	w := cmd.OutOrStdout()
	switch {
	case f.json:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	case in.sums.Order() == 0:
		fmt.Fprintf(w, "Verdict: %s: %s\n", r.Verdict, r.Reason)
	default:
		printMoments(w, in, rep.Assessment, r)
	}
	if rep.Verdict != moments.VerdictSafe {
		return errNeedsPerson
	}
	return nil
}
