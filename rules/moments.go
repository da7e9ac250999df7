package rules

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
	"github.com/sdcaudit/sdcaudit/rules/moments"
)

func init() {
	Register(Spec{Name: "moments", Doc: "moment release (Lehmer mean): unsafe when published moments let an intruder estimate the largest or second largest contribution within max_rel_error%, or bracket the maximum within interval%", Params: []Param{
		{Name: "max_rel_error", Doc: "unsafe when an estimate of the largest or second largest value is within this percent of the true value; 0 < max_rel_error <= 100"},
		{Name: "interval", Doc: "without the true values: unsafe when the bracket for the maximum is narrower than this percent of its upper end; 0 < interval <= 100"},
		{Name: "max_order", Doc: "the highest power sum kept per cell (safe_order is reported up to it); 2..100"},
		{Name: "step", Doc: "the data granularity for the one-pair estimate; 0: the measure's step, else 1"},
		{Name: "sd", Doc: "the published SD and variance: sample or population"},
		{Name: "skewness", Doc: "the published skewness: g1 (Fisher-Pearson), G1 (adjusted) or b1"},
		{Name: "kurtosis", Doc: "the published kurtosis: g2, G2 (adjusted) or b2"},
		{Name: "excess_kurtosis", Doc: "true: the published kurtosis is the excess (minus 3)"},
	}, New: newMoments})
}

// momentsRule adapts rules/moments to cells. Its parameters are declared
// in its Spec (init above); their values are set in the profiles.
type momentsRule struct {
	opt      moments.Options
	maxOrder int
	step     decimal.Dec
	def      moments.Definition
	relText  string
	intText  string
}

func newMoments(decode Decoder) (Rule, error) {
	var p struct {
		MaxRelError    decimal.Dec `yaml:"max_rel_error"`
		Interval       decimal.Dec `yaml:"interval"`
		MaxOrder       int         `yaml:"max_order"`
		Step           decimal.Dec `yaml:"step"`
		SD             string      `yaml:"sd"`
		Skewness       string      `yaml:"skewness"`
		Kurtosis       string      `yaml:"kurtosis"`
		ExcessKurtosis bool        `yaml:"excess_kurtosis"`
	}
	if err := decodeParams("moments", decode, &p); err != nil {
		return nil, err
	}
	if _, err := toPct("moments", "max_rel_error", p.MaxRelError, 0, 100, true); err != nil {
		return nil, err
	}
	if _, err := toPct("moments", "interval", p.Interval, 0, 100, true); err != nil {
		return nil, err
	}
	if p.MaxOrder < 2 || p.MaxOrder > 100 {
		return nil, &ParamError{"moments", "max_order", fmt.Sprintf("must be 2..100, got %d", p.MaxOrder)}
	}
	if p.Step.Sign() < 0 {
		return nil, &ParamError{"moments", "step", "must not be negative"}
	}
	def := moments.Definition{SD: moments.SDKind(p.SD), Excess: p.ExcessKurtosis}
	var ok bool
	if def.Skewness, ok = shapeKind(p.Skewness, "1"); !ok {
		return nil, &ParamError{"moments", "skewness", fmt.Sprintf("unknown definition %q (g1, G1 or b1)", p.Skewness)}
	}
	if def.Kurtosis, ok = shapeKind(p.Kurtosis, "2"); !ok {
		return nil, &ParamError{"moments", "kurtosis", fmt.Sprintf("unknown definition %q (g2, G2 or b2)", p.Kurtosis)}
	}
	if err := def.Validate(); err != nil {
		return nil, &ParamError{"moments", "sd", fmt.Sprintf("unknown definition %q (sample or population)", p.SD)}
	}
	return momentsRule{
		opt:      moments.Options{MaxRelError: p.MaxRelError.Float64(), Interval: p.Interval.Float64()},
		maxOrder: p.MaxOrder,
		step:     p.Step,
		def:      def,
		relText:  p.MaxRelError.String(),
		intText:  p.Interval.String(),
	}, nil
}

// shapeKind maps g1/G1/b1 (or g2/G2/b2, or g/G/b) to a definition.
func shapeKind(s, digit string) (moments.ShapeKind, bool) {
	switch strings.TrimSuffix(strings.TrimSpace(s), digit) {
	case "g", "fisher-pearson":
		return moments.FisherPearson, true
	case "G", "adjusted":
		return moments.Adjusted, true
	case "b", "sample-sd":
		return moments.SampleSDBased, true
	}
	return "", false
}

func (momentsRule) Name() string { return "moments" }

// Needs asks for power sums up to max_order; Check uses the orders the
// table publishes for the verdict and the rest for safe_order.
// SumSq gives S_2 exactly, to decide threshold ties at orders 1 and 2.
func (r momentsRule) Needs() Needs { return Needs{Top: 2, Powers: r.maxOrder, SumSq: true} }

func (r momentsRule) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	order := publishedOrder(t, c)
	switch {
	case order < 2:
		return finding("moments", audit.NotApplicable, "the table publishes no moments beyond the mean", nil)
	case c.Negative > 0:
		return finding("moments", audit.Review, report.Plural(c.Negative, "negative contribution", "negative contributions")+": the Lehmer-mean attack assumes non-negative values", []audit.Figure{audit.IntFig("negative", c.Negative)})
	case !c.HasN:
		return finding("moments", audit.Review, "the number of contributors is not known", nil)
	case c.N == 0:
		return finding("moments", audit.NotApplicable, "empty cell", nil)
	}
	opt := r.opt
	step := r.stepFor(t)
	opt.Step = step.Float64()
	ex := &moments.Exact{Step: step.Rat()}
	opt.Exact = ex
	if t != nil && t.Measure != nil {
		opt.DomainMax, opt.HasDomainMax = t.Measure.Max.Float64(), true
		ex.DomainMax = t.Measure.Max.Rat()
	}
	var truth *moments.Truth
	if len(c.Top) > 0 {
		truth = &moments.Truth{Largest: c.Top[0].Float64()}
		ex.Largest = c.Top[0].Rat()
		if len(c.Top) > 1 && c.N > 1 {
			truth.Second, truth.HasSecond = c.Top[1].Float64(), true
			ex.Second = c.Top[1].Rat()
		}
	}
	var s moments.Sums
	var k int
	var vals []audit.Figure
	if len(c.Pow) > 0 {
		if c.PowScale == 0 {
			return finding("moments", audit.Pass, "every contribution is zero", nil)
		}
		s = moments.Sums{N: c.N, Scale: c.PowScale, Pow: c.Pow}
		k = min(order, len(c.Pow))
		switch {
		case c.AllTop && int64(len(c.Top)) == c.N:
			ex.Values = make([]*big.Rat, len(c.Top))
			for i, v := range c.Top {
				ex.Values[i] = v.Rat()
			}
		case c.HasTotal:
			ex.Sums = []*big.Rat{new(big.Rat).SetInt64(c.N), c.Total.Rat()}
			if c.HasSumSq {
				ex.Sums = append(ex.Sums, c.SumSq.Rat())
			}
		}
	} else {
		var why string
		s, ex.Sums, why = r.aggregateSums(c)
		if why != "" {
			return finding("moments", audit.Review, why, nil)
		}
		if s.Order() < 2 {
			return finding("moments", audit.NotApplicable, "fewer than two moments are published for this cell", nil)
		}
		k = s.Order()
		vals = append(vals, audit.TextFig("definition", r.def.String()))
	}
	rep := moments.Evaluate(moments.Release{Sums: s, Truth: truth, Options: opt, Order: k, Published: order, MaxRelErrorText: r.relText, IntervalText: r.intText})
	vals = r.reportFigures(vals, rep, k, opt.Step, truth)
	switch rep.Verdict {
	case moments.VerdictUnsafe:
		return finding("moments", audit.Fail, rep.Reason, vals)
	case moments.VerdictReview:
		return finding("moments", audit.Review, rep.Reason, vals)
	}
	return finding("moments", audit.Pass, rep.Reason, vals)
}

// reportFigures appends the figures of the moments report at order k to vals.
func (r momentsRule) reportFigures(vals []audit.Figure, rep moments.Report, k int, step float64, truth *moments.Truth) []audit.Figure {
	a, d := rep.Assessment, rep.Decision
	at := a.Orders[k-1]
	ls := make([]float64, k)
	for p := range ls {
		ls[p] = sig(a.Orders[p].Largest.Value)
	}
	vals = append(vals, audit.IntFig("order", int64(k)), audit.FloatsFig("lehmer", ls), audit.FloatFig("largest", sig(at.Largest.Value)),
		audit.IntFig("safe_order", int64(a.SafeOrder)))
	if step > 0 {
		vals = append(vals, audit.FloatFig("step", step))
	}
	putEst := func(name string, e moments.Estimate) {
		if e.OK() {
			vals = append(vals, audit.FloatFig(name, sig(e.Value)))
			if e.HasError {
				vals = append(vals, audit.FloatFig(name+"_rel_error", sig(e.RelError)))
			}
		}
	}
	putEst("second_two_pair", at.TwoPair)
	if at.TwoPair.OK() {
		vals = append(vals, audit.IntFig("two_pair_p_prime", int64(at.PPrime)))
	}
	putEst("second_one_pair", at.OnePair)
	b := at.Bracket
	vals = append(vals, audit.FloatsFig("bracket", []float64{sig(b.Lo), sig(b.Hi)}), audit.FloatFig("bracket_width_pct", sig(b.WidthPct)))
	if truth != nil {
		vals = append(vals, audit.FloatFig("largest_true", truth.Largest))
		if at.Largest.HasError {
			vals = append(vals, audit.FloatFig("largest_rel_error", sig(at.Largest.RelError)))
		}
		if truth.HasSecond {
			vals = append(vals, audit.FloatFig("second_true", truth.Second))
		}
		vals = append(vals, audit.TextFig("max_rel_error", r.relText))
	} else {
		vals = append(vals, audit.TextFig("interval", r.intText))
	}
	vals = append(vals, audit.TextFig("verdict", string(d.Verdict)))
	return vals
}

// stepFor is the granularity for the one-pair estimate.
func (r momentsRule) stepFor(t *audit.Table) decimal.Dec {
	if r.step.Sign() > 0 {
		return r.step
	}
	if t.Measure != nil && t.Measure.Step.Sign() > 0 {
		return t.Measure.Step
	}
	return decimal.FromInt(1)
}

// publishedOrder is the highest moment order the cell's table releases:
// the table's MomentOrder, raw moment means m1..mk, or SD/variance (2),
// skewness (3) and kurtosis (4) published consecutively.
func publishedOrder(t *audit.Table, c *audit.Cell) int {
	k := t.MomentOrder
	m := 0
	for {
		if _, ok := c.Stats.Get(audit.Moment(m + 1).String()); !ok {
			break
		}
		m++
	}
	k = max(k, audit.Moment(m).MomentOrder())
	has := func(n string) bool { _, ok := c.Stats.Get(n); return ok }
	if has("mean") && (has("sd") || has("variance")) {
		// SD or variance, then skewness and kurtosis if published in turn
		for _, st := range []audit.Statistic{{Kind: audit.KindSD}, {Kind: audit.KindSkewness}, {Kind: audit.KindKurtosis}} {
			if st.Kind != audit.KindSD && !has(st.String()) {
				break
			}
			k = max(k, st.MomentOrder())
		}
	}
	return k
}

// aggregateSums builds power sums from a cell's published statistics:
// raw moment means m1..mk when present (up to the first missing one),
// otherwise mean, SD or variance, skewness and kurtosis under the rule's
// definition. It returns the power sums S_0..S_k known exactly (to decide
// threshold ties), and a reason when they cannot be used or cannot come
// from non-negative data.
func (r momentsRule) aggregateSums(c *audit.Cell) (moments.Sums, []*big.Rat, string) {
	var ms []*big.Rat
	for p := 1; ; p++ {
		st, ok := c.Stats.Get("m" + strconv.Itoa(p))
		if !ok || st.Missing {
			break
		}
		ms = append(ms, st.Value.Rat())
	}
	exactK := len(ms)
	var inc *moments.Inconsistency
	if len(ms) < 2 {
		get := func(n string) (*big.Rat, bool) {
			st, ok := c.Stats.Get(n)
			if !ok || st.Missing {
				return nil, false
			}
			return st.Value.Rat(), true
		}
		sum := moments.Summary{N: c.N}
		var ok bool
		if sum.Mean, ok = get("mean"); !ok {
			return moments.Sums{}, nil, ""
		}
		if sum.SD, ok = get("sd"); !ok {
			if sum.Variance, ok = get("variance"); !ok {
				return moments.Sums{}, nil, ""
			}
		}
		if sum.Skewness, ok = get("skewness"); ok {
			sum.Kurtosis, _ = get("kurtosis")
		}
		var err error
		if ms, err = sum.RawMoments(r.def); err != nil {
			return moments.Sums{}, nil, fmt.Sprintf("the published statistics cannot be converted to moments (%s): %v", r.def, err)
		}
		if inc, err = sum.Check(r.def); err != nil {
			return moments.Sums{}, nil, fmt.Sprintf("the published statistics cannot be converted to moments (%s): %v", r.def, err)
		}
		exactK = len(ms)
		if sum.Skewness != nil {
			exactK = 2 // the third moment involves a square root
		}
	} else {
		inc = moments.CheckRaw(ms)
	}
	if inc == nil && exactK > 0 && exactK <= len(ms) {
		inc = moments.CheckCount(c.N, ms[:exactK]) // what n non-negative values allow
	}
	if len(ms) < 2 {
		return moments.Sums{}, nil, ""
	}
	if d := moments.Decide(nil, 0, inc); d.Verdict == moments.VerdictReview {
		return moments.Sums{}, nil, d.Reason
	}
	if ms[0].Sign() <= 0 {
		return moments.Sums{}, nil, "the published mean is not positive: the Lehmer-mean attack needs positive values"
	}
	s, err := moments.FromMoments(c.N, moments.RatsToFloats(ms))
	if err != nil {
		return moments.Sums{}, nil, fmt.Sprintf("the published moments are not those of non-negative data: %v", err)
	}
	n := new(big.Rat).SetInt64(c.N)
	exact := []*big.Rat{n}
	for _, m := range ms[:exactK] {
		exact = append(exact, new(big.Rat).Mul(m, n))
	}
	return s, exact, ""
}

// sig rounds to 10 significant digits for stable reports.
func sig(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 10, 64), 64)
	return f
}
