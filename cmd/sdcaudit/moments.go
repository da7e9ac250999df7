package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules/moments"
)

func init() { addCommand(newMomentsCmd) }

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
		in, err = momentsFromValues(f)
	} else {
		in, err = momentsFromPublished(f)
	}
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if in.sums.Order() == 0 { // inconsistent moments the attack cannot even start from
		rep := &momentsJSON{Source: in.source, N: f.n, Definition: in.definition, Order: in.order, Step: in.step, Lehmer: []momentsLehmer{}, Verdict: string(moments.VerdictReview), Reason: in.inc.Reason}
		if f.json {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(w, "Verdict: %s: %s\n", rep.Verdict, rep.Reason)
		}
		return errNeedsPerson
	}
	opt := moments.Options{MaxRelError: f.maxRelError, Interval: f.interval, Step: in.step, Exact: in.exact}
	a := moments.Assess(in.sums, in.truth, opt)
	rep := momentsReport(in, a, f)
	if f.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printMoments(w, in, a, rep)
	}
	if rep.Verdict != "safe" {
		return errNeedsPerson
	}
	return nil
}

func momentsFromValues(f *momentsFlags) (*momentsInput, error) {
	if f.column == "" {
		return nil, usageErr(errors.New("--values needs --column NAME"))
	}
	if f.n != 0 || f.raw != "" || f.means != "" || f.central != "" || f.mean != "" || f.sd != "" || f.variance != "" || f.skewness != "" || f.kurtosis != "" {
		return nil, usageErr(errors.New("give either --values or published statistics (--n with --raw, --moments, --central or --mean/--sd/...), not both"))
	}
	if f.maxOrder < 1 || f.maxOrder > 1000 {
		return nil, usageErr(fmt.Errorf("--max-order must be 1..1000, got %d", f.maxOrder))
	}
	srcs, err := readers.Open(f.values, readers.Options{})
	if err != nil {
		return nil, inputErr(err)
	}
	defer func() {
		for _, s := range srcs {
			s.Close()
		}
	}()
	src := srcs[0]
	col := slices.Index(src.Header(), f.column)
	if col < 0 {
		return nil, inputErr(&readers.Error{File: f.values, Row: 1, Column: f.column, Err: fmt.Errorf("%w (columns: %s)", readers.ErrColumn, strings.Join(src.Header(), ", "))})
	}
	var decs []decimal.Dec
	in := &momentsInput{source: "values"}
	for {
		b, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, inputErr(err)
		}
		for i, row := range b.Rows {
			v := strings.TrimSpace(row[col])
			if v == "" || strings.EqualFold(v, "NA") {
				in.missing++
				continue
			}
			d, err := decimal.Parse(v)
			if err != nil {
				e := readers.ErrNotNumber
				if strings.Contains(err.Error(), "decimal places") {
					e = fmt.Errorf("%w: more than %d decimal places (the most kept exactly)", readers.ErrNotNumber, decimal.MaxScale)
				}
				return nil, inputErr(&readers.Error{File: f.values, Row: b.Lines[i], Column: f.column, Value: v, Err: e})
			}
			if d.Sign() < 0 {
				return nil, inputErr(&readers.Error{File: f.values, Row: b.Lines[i], Column: f.column, Value: v, Err: errors.New("negative value: the Lehmer-mean attack assumes non-negative values")})
			}
			decs = append(decs, d)
		}
	}
	if len(decs) == 0 {
		return nil, inputErr(&readers.Error{File: f.values, Column: f.column, Err: errors.New("no values")})
	}
	in.order = f.p
	if in.order == 0 {
		in.order = 4
	}
	avail := max(in.order, f.maxOrder)
	// granularity: --step, else the values' decimals
	var step decimal.Dec
	if f.step != "" {
		if step, err = decimal.Parse(f.step); err != nil || step.Sign() < 0 {
			return nil, usageErr(fmt.Errorf("--step %q: must be a non-negative number", f.step))
		}
	} else {
		d := 0
		for _, v := range decs {
			d = max(d, v.Scale())
		}
		step = decimal.Must("1e-" + strconv.Itoa(d))
	}
	in.step = step.Float64()
	if step.Sign() > 0 {
		in.stepRat = step.Rat()
	}
	in.values = make([]float64, len(decs))
	in.exact = &moments.Exact{Values: make([]*big.Rat, len(decs)), Step: in.stepRat}
	for i, d := range decs {
		in.values[i] = d.Float64()
		in.exact.Values[i] = d.Rat()
	}
	if in.sums, err = moments.FromValues(in.values, avail); err != nil {
		return nil, inputErr(&readers.Error{File: f.values, Column: f.column, Err: err})
	}
	sorted := slices.Clone(in.values)
	slices.Sort(sorted)
	in.truth = &moments.Truth{Largest: sorted[len(sorted)-1]}
	if len(sorted) > 1 {
		in.truth.Second, in.truth.HasSecond = sorted[len(sorted)-2], true
	}
	byRat := slices.Clone(in.exact.Values)
	slices.SortFunc(byRat, func(a, b *big.Rat) int { return b.Cmp(a) })
	in.exact.Largest = byRat[0]
	if len(byRat) > 1 {
		in.exact.Second = byRat[1]
	}
	// values in steps, for the exact recovery
	if step.Sign() > 0 {
		sr := step.Rat()
		grid := make([]int64, 0, len(decs))
		for _, d := range decs {
			q := new(big.Rat).Quo(d.Rat(), sr)
			if !q.IsInt() || !q.Num().IsInt64() {
				grid = nil
				break
			}
			grid = append(grid, q.Num().Int64())
		}
		if grid != nil {
			in.grid = grid
			in.exactSums, _ = moments.IntSums(grid, in.order)
		}
	}
	return in, nil
}

// momentsList parses a comma-separated list of exact numbers.
func momentsList(flag, s string) ([]*big.Rat, error) {
	var out []*big.Rat
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		r, ok := new(big.Rat).SetString(f)
		if f == "" || !ok {
			return nil, usageErr(fmt.Errorf("--%s: item %d %q is not a number", flag, i+1, f))
		}
		out = append(out, r)
	}
	return out, nil
}

func momentsOptRat(flag, s string) (*big.Rat, error) {
	if s == "" {
		return nil, nil
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return nil, usageErr(fmt.Errorf("--%s %q is not a number", flag, s))
	}
	return r, nil
}

func momentsFromPublished(f *momentsFlags) (*momentsInput, error) {
	if f.column != "" {
		return nil, usageErr(errors.New("--column needs --values"))
	}
	given := 0
	for _, s := range []string{f.raw, f.means, f.central} {
		if s != "" {
			given++
		}
	}
	summary := f.sd != "" || f.variance != "" || f.skewness != "" || f.kurtosis != ""
	if given > 1 || given == 1 && summary || f.central == "" && f.mean != "" && !summary && given == 1 {
		return nil, usageErr(errors.New("give one of --raw, --moments, --central (with --mean) or --mean/--sd/--skewness/--kurtosis"))
	}
	if given == 0 && !summary {
		return nil, usageErr(errors.New("no input: give --values FILE --column NAME, or --n N with --raw, --moments, --central or --mean/--sd/..."))
	}
	if f.n < 1 {
		return nil, usageErr(errors.New("published moments need --n N (the number of values), N >= 1"))
	}
	n := new(big.Rat).SetInt64(f.n)
	in := &momentsInput{}
	var sums []*big.Rat // S_1..S_K
	exactK := -1        // sums[:exactK] are exact (-1: all)
	switch {
	case f.raw != "":
		in.source = "raw"
		l, err := momentsList("raw", f.raw)
		if err != nil {
			return nil, err
		}
		sums = l
	case f.means != "":
		in.source = "moments"
		l, err := momentsList("moments", f.means)
		if err != nil {
			return nil, err
		}
		for _, m := range l {
			sums = append(sums, new(big.Rat).Mul(m, n))
		}
	case f.central != "":
		in.source = "central"
		mean, err := momentsOptRat("mean", f.mean)
		if err != nil {
			return nil, err
		}
		if mean == nil {
			return nil, usageErr(errors.New("--central needs --mean"))
		}
		l, err := momentsList("central", f.central)
		if err != nil {
			return nil, err
		}
		c := append([]*big.Rat{big.NewRat(1, 1), new(big.Rat)}, l...)
		for _, m := range moments.CentralToRaw(mean, c)[1:] {
			sums = append(sums, new(big.Rat).Mul(m, n))
		}
	default:
		in.source = "summary"
		def := moments.Definition{SD: moments.SDKind(f.sdKind), Excess: f.excess}
		var ok bool
		if def.Skewness, ok = momentsShape(f.skewDef, "1"); !ok {
			return nil, usageErr(fmt.Errorf("--skewness-def %q: use g1, G1 or b1", f.skewDef))
		}
		if def.Kurtosis, ok = momentsShape(f.kurDef, "2"); !ok {
			return nil, usageErr(fmt.Errorf("--kurtosis-def %q: use g2, G2 or b2", f.kurDef))
		}
		if err := def.Validate(); err != nil {
			return nil, usageErr(fmt.Errorf("--sd-kind %q: use sample or population", f.sdKind))
		}
		s := moments.Summary{N: f.n}
		var err error
		for _, x := range []struct {
			flag, v string
			dst     **big.Rat
		}{{"mean", f.mean, &s.Mean}, {"sd", f.sd, &s.SD}, {"variance", f.variance, &s.Variance}, {"skewness", f.skewness, &s.Skewness}, {"kurtosis", f.kurtosis, &s.Kurtosis}} {
			if *x.dst, err = momentsOptRat(x.flag, x.v); err != nil {
				return nil, err
			}
		}
		if s.Mean == nil || s.SD == nil && s.Variance == nil {
			return nil, usageErr(errors.New("published statistics need at least --mean and --sd (or --variance)"))
		}
		if s.Kurtosis != nil && s.Skewness == nil {
			return nil, usageErr(errors.New("--kurtosis needs --skewness (moments must be consecutive)"))
		}
		ms, err := s.RawMoments(def)
		if err != nil {
			return nil, usageErr(err)
		}
		for _, m := range ms {
			sums = append(sums, new(big.Rat).Mul(m, n))
		}
		in.definition = def.String()
		if in.inc, err = s.Check(def); err != nil {
			return nil, usageErr(err)
		}
		if s.Skewness != nil {
			exactK = 2 // the third moment involves a square root
		}
	}
	if in.source != "summary" {
		ms := make([]*big.Rat, len(sums))
		for i, v := range sums {
			ms[i] = new(big.Rat).Quo(v, n)
		}
		in.inc = moments.CheckRaw(ms)
	}
	k := len(sums)
	if f.p > k {
		return nil, usageErr(fmt.Errorf("--p %d: only %d moments are given", f.p, k))
	}
	in.order = k
	if f.p > 0 {
		in.order = f.p
		sums = sums[:f.p]
	}
	in.step, in.stepRat = 1, big.NewRat(1, 1)
	if f.step != "" {
		st, err := decimal.Parse(f.step)
		if err != nil || st.Sign() < 0 {
			return nil, usageErr(fmt.Errorf("--step %q: must be a non-negative number (at most %d decimal places)", f.step, decimal.MaxScale))
		}
		in.step, in.stepRat = st.Float64(), nil
		if st.Sign() > 0 {
			in.stepRat = st.Rat()
		}
	}
	var err error
	if in.sums, err = moments.FromPowerSums(f.n, moments.RatsToFloats(sums)); err != nil {
		if in.inc != nil {
			return in, nil // review: the report says why
		}
		return nil, usageErr(fmt.Errorf("the moments cannot come from non-negative data: %w", err))
	}
	if exactK < 0 || exactK > len(sums) {
		exactK = len(sums)
	}
	in.exact = &moments.Exact{Sums: append([]*big.Rat{n}, sums[:exactK]...), Step: in.stepRat}
	// exact recovery when the sums are integers in steps
	if in.stepRat != nil {
		st := in.stepRat
		ex := []*big.Int{big.NewInt(f.n)}
		sp := big.NewRat(1, 1)
		for _, s := range sums {
			sp.Mul(sp, st)
			q := new(big.Rat).Quo(s, sp)
			if !q.IsInt() || q.Sign() < 0 {
				ex = nil
				break
			}
			ex = append(ex, new(big.Int).Set(q.Num()))
		}
		in.exactSums = ex
	}
	return in, nil
}

func momentsShape(s, digit string) (moments.ShapeKind, bool) {
	switch strings.TrimSuffix(s, digit) {
	case "g":
		return moments.FisherPearson, true
	case "G":
		return moments.Adjusted, true
	case "b":
		return moments.SampleSDBased, true
	}
	return "", false
}

// JSON report of `sdcaudit moments`.
type momentsEst struct {
	P        int      `json:"p,omitempty"`
	PPrime   int      `json:"p_prime,omitempty"`
	Estimate *float64 `json:"estimate"`
	Note     string   `json:"note,omitempty"`
	True     *float64 `json:"true,omitempty"`
	RelError *float64 `json:"rel_error,omitempty"`
	Rounded  *float64 `json:"rounded_largest,omitempty"`
}

type momentsSecond struct {
	momentsEst
	OnePair momentsEst `json:"one_pair"`
}

type momentsLehmer struct {
	P        int        `json:"p"`
	Estimate float64    `json:"estimate"`
	RelError *float64   `json:"rel_error,omitempty"`
	Second   *float64   `json:"second_two_pair,omitempty"`
	SecondE  *float64   `json:"second_two_pair_rel_error,omitempty"`
	OnePair  *float64   `json:"second_one_pair,omitempty"`
	OnePairE *float64   `json:"second_one_pair_rel_error,omitempty"`
	Bracket  [2]float64 `json:"bracket"`
	Safe     bool       `json:"safe"`
}

type momentsRecovery struct {
	P        int       `json:"p"`
	Exact    bool      `json:"exact_arithmetic"`
	Values   []float64 `json:"values"`
	Complete bool      `json:"complete"`
	Correct  *int      `json:"correct,omitempty"`
	Note     string    `json:"note,omitempty"`
}

type momentsJSON struct {
	Source      string           `json:"source"`
	N           int64            `json:"n"`
	Missing     int              `json:"missing,omitempty"`
	Definition  string           `json:"definition,omitempty"`
	Order       int              `json:"order"`
	Step        float64          `json:"step"`
	Harmonic    *float64         `json:"harmonic_mean,omitempty"`
	Lehmer      []momentsLehmer  `json:"lehmer"`
	Largest     momentsEst       `json:"largest"`
	Second      momentsSecond    `json:"second"`
	Bracket     map[string]any   `json:"bracket"`
	Recovery    *momentsRecovery `json:"recovery,omitempty"`
	RecoveryP   *int             `json:"smallest_recovery_p,omitempty"`
	MaxRelError *float64         `json:"max_rel_error,omitempty"`
	Interval    *float64         `json:"interval,omitempty"`
	SafeOrder   int              `json:"safe_order"`
	SafeAtLeast bool             `json:"safe_order_at_least,omitempty"`
	Verdict     string           `json:"verdict"`
	Reason      string           `json:"reason"`
}

func fp(v float64) *float64 { v = momentsSig(v); return &v }

func momentsSig(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

func estJSON(e moments.Estimate) momentsEst {
	var o momentsEst
	if !e.OK() {
		o.Note = e.Reason
		return o
	}
	o.Estimate = fp(e.Value)
	if e.HasError {
		o.RelError = fp(e.RelError)
	}
	return o
}

func momentsReport(in *momentsInput, a moments.Assessment, f *momentsFlags) *momentsJSON {
	k := in.order
	at := a.Orders[k-1]
	r := &momentsJSON{Source: in.source, N: in.sums.N, Missing: in.missing, Definition: in.definition, Order: k, Step: in.step, SafeOrder: a.SafeOrder}
	if in.values != nil {
		r.Harmonic = fp(moments.LehmerOf(in.values, 0))
	}
	for p := 1; p <= k; p++ {
		o := a.Orders[p-1]
		l := momentsLehmer{P: p, Estimate: momentsSig(o.Largest.Value), Safe: o.Safe, Bracket: [2]float64{momentsSig(o.Bracket.Lo), momentsSig(o.Bracket.Hi)}}
		if o.Largest.HasError {
			l.RelError = fp(o.Largest.RelError)
		}
		if o.TwoPair.OK() {
			l.Second = fp(o.TwoPair.Value)
			if o.TwoPair.HasError {
				l.SecondE = fp(o.TwoPair.RelError)
			}
		}
		if o.OnePair.OK() {
			l.OnePair = fp(o.OnePair.Value)
			if o.OnePair.HasError {
				l.OnePairE = fp(o.OnePair.RelError)
			}
		}
		r.Lehmer = append(r.Lehmer, l)
	}
	r.Largest = estJSON(at.Largest)
	r.Largest.P = k
	r.Second.momentsEst = estJSON(at.TwoPair)
	if at.TwoPair.OK() {
		r.Second.P, r.Second.PPrime = k, at.PPrime
	}
	r.Second.OnePair = estJSON(at.OnePair)
	if at.OnePair.OK() {
		r.Second.OnePair.P = k
		r.Second.OnePair.Rounded = fp(at.RoundedLargest)
	}
	if in.truth != nil {
		r.Largest.True = fp(in.truth.Largest)
		if in.truth.HasSecond {
			r.Second.True = fp(in.truth.Second)
			r.Second.OnePair.True = fp(in.truth.Second)
		}
		r.MaxRelError = fp(f.maxRelError)
	} else {
		r.Interval = fp(f.interval)
	}
	b := at.Bracket
	r.Bracket = map[string]any{"lo": momentsSig(b.Lo), "hi": momentsSig(b.Hi), "power_bound": momentsSig(b.PowerBound), "width_pct": momentsSig(b.WidthPct)}
	if !math.IsInf(b.Samuelson, 0) {
		r.Bracket["samuelson"] = momentsSig(b.Samuelson)
	}
	r.Recovery = momentsRecover(in, k)
	if in.grid != nil {
		all, _, err := moments.SmallestRecoveryPower(in.grid)
		if err == nil {
			r.RecoveryP = &all
		}
	}
	r.SafeAtLeast = a.SafeOrder == in.sums.Order() && in.values != nil
	d := moments.Decide(&a, k, in.inc)
	r.Verdict = string(d.Verdict)
	r.Reason = d.Reason
	if d.Verdict != moments.VerdictReview {
		r.Reason = momentsReason(a, d, k, in.truth != nil, f)
	}
	return r
}

// momentsRecover estimates every value by the iteration at power p:
// exactly when the sums are integers in steps, else in floating point.
func momentsRecover(in *momentsInput, p int) *momentsRecovery {
	if !(in.step > 0) {
		return nil
	}
	rec := &momentsRecovery{P: p}
	if in.exactSums != nil && len(in.exactSums) > p {
		est, err := moments.RecoverInts(in.exactSums, p)
		rec.Exact = true
		for _, e := range est {
			v, _ := new(big.Float).SetInt(e).Float64()
			rec.Values = append(rec.Values, momentsSig(v*in.step))
		}
		rec.Complete = err == nil
		if err != nil {
			rec.Note = err.Error()
		}
	} else {
		est, err := in.sums.Recover(p, in.step)
		for _, v := range est {
			rec.Values = append(rec.Values, momentsSig(v))
		}
		rec.Complete = err == nil
		switch {
		case errors.Is(err, moments.ErrTooMany):
			rec.Note = err.Error()
		case err != nil:
			rec.Note = "the smaller values are lost in floating-point rounding"
		}
	}
	if in.values != nil {
		want := slices.Clone(in.values)
		slices.Sort(want)
		slices.Reverse(want)
		c := 0
		for i, v := range rec.Values {
			if i < len(want) && math.Abs(v-want[i]) <= 1e-9*math.Max(1, want[i]) {
				c++
			}
		}
		rec.Correct = &c
	}
	if rec.Values == nil {
		rec.Values = []float64{}
	}
	return rec
}

func momentsReason(a moments.Assessment, d moments.Decision, k int, known bool, f *momentsFlags) string {
	if d.Verdict == moments.VerdictSafe {
		if known {
			return fmt.Sprintf("no estimate of the largest or second largest value from moments up to order %d is within %g%%", k, f.maxRelError)
		}
		return fmt.Sprintf("moments up to order %d leave the maximum in a bracket %.3g%% wide (at least %g%% needed)", k, a.Orders[k-1].Bracket.WidthPct, f.interval)
	}
	o := a.Orders[d.Order-1]
	if !known {
		return fmt.Sprintf("moments up to order %d bracket the maximum within %.3g%% (threshold %g%%)", o.P, o.Bracket.WidthPct, f.interval)
	}
	// the closest estimate (a tie decided exactly may sit at the threshold)
	what, e := "largest", o.Largest
	for _, c := range []struct {
		what string
		e    moments.Estimate
	}{{"second largest (two-pair)", o.TwoPair}, {"second largest (one-pair)", o.OnePair}} {
		if c.e.HasError && (!e.HasError || math.Abs(c.e.RelError) < math.Abs(e.RelError)) {
			what, e = c.what, c.e
		}
	}
	return fmt.Sprintf("moments up to order %d estimate the %s value within %.2g%% (threshold %g%%)", o.P, what, math.Abs(e.RelError), f.maxRelError)
}

func printMoments(w io.Writer, in *momentsInput, a moments.Assessment, r *momentsJSON) {
	src := map[string]string{"values": "microdata", "raw": "raw power sums", "moments": "raw moment means", "central": "central moments", "summary": "mean, SD, skewness, kurtosis"}[in.source]
	fmt.Fprintf(w, "Lehmer-mean attack: n = %d, moments of orders 1..%d from %s", r.N, r.Order, src)
	if r.Definition != "" {
		fmt.Fprintf(w, " (%s)", r.Definition)
	}
	fmt.Fprintln(w)
	known := in.truth != nil
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	if known {
		fmt.Fprintln(tw, "p\tlargest L_p\terror%\tsecond two-pair\terror%\tsecond one-pair\terror%\tsafe\t")
	} else {
		fmt.Fprintln(tw, "p\tlargest L_p\tsecond two-pair\tsecond one-pair\tbracket for max\twidth%\tsafe\t")
	}
	num := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return strconv.FormatFloat(*v, 'g', 6, 64)
	}
	yes := map[bool]string{true: "yes", false: "NO"}
	for _, l := range r.Lehmer {
		est := strconv.FormatFloat(l.Estimate, 'g', 6, 64)
		if known {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.P, est, num(l.RelError), num(l.Second), num(l.SecondE), num(l.OnePair), num(l.OnePairE), yes[l.Safe])
		} else {
			o := a.Orders[l.P-1]
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t[%.6g, %.6g]\t%.3g\t%s\t\n", l.P, est, num(l.Second), num(l.OnePair), o.Bracket.Lo, o.Bracket.Hi, o.Bracket.WidthPct, yes[l.Safe])
		}
	}
	tw.Flush()
	line := func(label string, e momentsEst) {
		fmt.Fprintf(w, "%s ", label)
		if e.Estimate == nil {
			fmt.Fprintf(w, "none (%s)\n", e.Note)
			return
		}
		fmt.Fprintf(w, "%s", num(e.Estimate))
		if e.True != nil {
			fmt.Fprintf(w, ", true %s, error %s%%", num(e.True), num(e.RelError))
		}
		fmt.Fprintln(w)
	}
	line(fmt.Sprintf("Largest (L_%d):", r.Order), r.Largest)
	if r.Second.Estimate != nil {
		line(fmt.Sprintf("Second, two-pair (%d, %d):", r.Second.P, r.Second.PPrime), r.Second.momentsEst)
	} else {
		line("Second, two-pair:", r.Second.momentsEst)
	}
	line(fmt.Sprintf("Second, one-pair (step %g):", r.Step), r.Second.OnePair)
	if r.Harmonic != nil {
		fmt.Fprintf(w, "Harmonic mean L_0: %s\n", num(r.Harmonic))
	}
	if rec := r.Recovery; rec != nil {
		vals := rec.Values
		more := ""
		if len(vals) > 12 {
			vals, more = vals[:12], " ..."
		}
		strs := make([]string, len(vals))
		for i, v := range vals {
			strs[i] = strconv.FormatFloat(v, 'g', 8, 64)
		}
		fmt.Fprintf(w, "Recovery of all values at p = %d: %s%s", rec.P, strings.Join(strs, ", "), more)
		if rec.Correct != nil {
			fmt.Fprintf(w, " (%d of %d exact)", *rec.Correct, r.N)
		}
		if !rec.Complete {
			fmt.Fprintf(w, " (incomplete: %s)", rec.Note)
		}
		fmt.Fprintln(w)
	}
	if r.RecoveryP != nil {
		fmt.Fprintf(w, "Moments up to order %d recover every value exactly.\n", *r.RecoveryP)
	}
	at := ""
	if r.SafeAtLeast {
		at = "at least "
	}
	fmt.Fprintf(w, "Safe order: %s%d\n", at, r.SafeOrder)
	fmt.Fprintf(w, "Verdict: %s: %s\n", r.Verdict, r.Reason)
}

// simulate

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
			out = append(out, n)
		}
	}
	if len(out) > 10000 || slices.Max(out) > 100000 {
		return nil, errors.New("--sizes: at most 10000 sizes of at most 100000")
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
		if err := writeFileAtomic(f.svg, []byte(simSVG(rows, sizes, means, f))); err != nil {
			return &codeError{exitFailed, err}
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

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place, so that readers never see a partial file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// simSVG draws the smallest recovery power against n, one colour per
// Poisson mean: the mean over replicates as a line with points, the
// min-max range as a band, and the line 2p = n.
func simSVG(rows []simRow, sizes []int, means []float64, f *simFlags) string {
	const W, H, L, R, T, B = 760, 480, 70, 170, 50, 60
	pw, ph := float64(W-L-R), float64(H-T-B)
	xmax := float64(slices.Max(sizes))
	xmin := float64(slices.Min(sizes))
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	ymax := 1.0
	for _, r := range rows {
		ymax = max(ymax, float64(r.All.Max))
	}
	ymax = niceCeil(ymax * 1.05)
	X := func(n float64) float64 { return float64(L) + (n-xmin)/(xmax-xmin)*pw }
	Y := func(p float64) float64 { return float64(T) + ph - p/ymax*ph }
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<title>Smallest moment order that recovers a Poisson sample</title>`+"\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="15" font-weight="bold">Smallest power p whose moments recover the whole sample</text>`+"\n", L)
	fmt.Fprintf(&b, `<text x="%d" y="40" fill="#555">Poisson samples, values rounded up to integers; mean of %d replicates (band: min-max), seed %d</text>`+"\n", L, f.reps, f.seed)
	// axes and grid
	ystep := niceStep(ymax / 6)
	for p := 0.0; p <= ymax+1e-9; p += ystep {
		y := Y(p)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", L, y, float64(L)+pw, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", L-6, y+4, p)
	}
	for _, n := range niceTicks(xmin, xmax) {
		x := X(n)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x, T, x, float64(T)+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", x, float64(T)+ph+16, n)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", L, T, pw, ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">sample size n</text>`+"\n", float64(L)+pw/2, H-16)
	fmt.Fprintf(&b, `<text transform="translate(18 %.1f) rotate(-90)" text-anchor="middle">smallest p</text>`+"\n", float64(T)+ph/2)
	// 2p = n
	x0, x1 := xmin, min(xmax, 2*ymax)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-dasharray="5 4"/>`+"\n", X(x0), Y(x0/2), X(x1), Y(x1/2))
	for j, m := range means {
		col := colors[j%len(colors)]
		rs := rows[j*len(sizes) : (j+1)*len(sizes)]
		var band, line strings.Builder
		for i, r := range rs {
			fmt.Fprintf(&band, "%s%.1f,%.1f", sep(i), X(float64(r.N)), Y(float64(r.All.Max)))
			fmt.Fprintf(&line, "%s%.1f,%.1f", sep(i), X(float64(r.N)), Y(r.All.Mean))
		}
		for i := len(rs) - 1; i >= 0; i-- {
			fmt.Fprintf(&band, " %.1f,%.1f", X(float64(rs[i].N)), Y(float64(rs[i].All.Min)))
		}
		fmt.Fprintf(&b, `<polygon points="%s" fill="%s" fill-opacity="0.15" stroke="none"/>`+"\n", band.String(), col)
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", line.String(), col)
		for _, r := range rs {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>n=%d mean=%g: p %.1f [%d-%d], largest %.1f</title></circle>`+"\n", X(float64(r.N)), Y(r.All.Mean), col, r.N, m, r.All.Mean, r.All.Min, r.All.Max, r.Largest.Mean)
		}
		ly := T + 10 + 20*j
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">Poisson mean %g</text>`+"\n", W-R+15, ly, W-R+40, ly, col, W-R+46, ly+4, m)
	}
	ly := T + 10 + 20*len(means)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black" stroke-dasharray="5 4"/><text x="%d" y="%d">2p = n</text>`+"\n", W-R+15, ly, W-R+40, ly, W-R+46, ly+4)
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555" font-size="11"><tspan x="%d" dy="0">Moments of order</tspan><tspan x="%d" dy="14">below a curve do not</tspan><tspan x="%d" dy="14">recover the sample;</tspan><tspan x="%d" dy="14">the largest value leaks</tspan><tspan x="%d" dy="14">much earlier (see table).</tspan></text>`+"\n", W-R+15, ly+30, W-R+15, W-R+15, W-R+15, W-R+15, W-R+15)
	b.WriteString("</svg>\n")
	return b.String()
}

func sep(i int) string {
	if i == 0 {
		return ""
	}
	return " "
}

// niceCeil rounds v up to a round number: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5,
// 6 or 8 times a power of ten.
func niceCeil(v float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

func niceTicks(lo, hi float64) []float64 {
	step := niceStep((hi - lo) / 6)
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// niceStep rounds v up to 1, 2 or 5 times a power of ten.
func niceStep(v float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}
