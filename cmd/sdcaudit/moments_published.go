package main

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules/moments"
)

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

// momentsFromPublished prepares a cell from published moments: raw power
// sums, raw moment means, central moments or summary statistics.
func momentsFromPublished(f *momentsFlags) (*momentsInput, error) {
	if err := publishedFlags(f); err != nil {
		return nil, err
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
		var err error
		if sums, exactK, err = summarySums(f, in, n); err != nil {
			return nil, err
		}
	}
	if in.source != "summary" {
		ms := make([]*big.Rat, len(sums))
		for i, v := range sums {
			ms[i] = new(big.Rat).Quo(v, n)
		}
		if in.inc = moments.CheckRaw(ms); in.inc == nil {
			in.inc = moments.CheckCount(f.n, ms)
		}
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
	in.setExactSums(f.n, sums)
	return in, nil
}

// momentsShape maps g1/G1/b1 (or g2/G2/b2) to a definition.
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

// summarySums converts published mean, SD (or variance), skewness and
// kurtosis under the stated definitions to power sums S_1..S_K; the first
// exactK are exact (the third moment of a skewness involves a square
// root). It records the definition and any inconsistency in in.
func summarySums(f *momentsFlags, in *momentsInput, n *big.Rat) (sums []*big.Rat, exactK int, err error) {
	in.source = "summary"
	def := moments.Definition{SD: moments.SDKind(f.sdKind), Excess: f.excess}
	var ok bool
	if def.Skewness, ok = momentsShape(f.skewDef, "1"); !ok {
		return nil, 0, usageErr(fmt.Errorf("--skewness-def %q: use g1, G1 or b1", f.skewDef))
	}
	if def.Kurtosis, ok = momentsShape(f.kurDef, "2"); !ok {
		return nil, 0, usageErr(fmt.Errorf("--kurtosis-def %q: use g2, G2 or b2", f.kurDef))
	}
	if err := def.Validate(); err != nil {
		return nil, 0, usageErr(fmt.Errorf("--sd-kind %q: use sample or population", f.sdKind))
	}
	s := moments.Summary{N: f.n}
	for _, x := range []struct {
		flag, v string
		dst     **big.Rat
	}{{"mean", f.mean, &s.Mean}, {"sd", f.sd, &s.SD}, {"variance", f.variance, &s.Variance}, {"skewness", f.skewness, &s.Skewness}, {"kurtosis", f.kurtosis, &s.Kurtosis}} {
		if *x.dst, err = momentsOptRat(x.flag, x.v); err != nil {
			return nil, 0, err
		}
	}
	if s.Mean == nil || s.SD == nil && s.Variance == nil {
		return nil, 0, usageErr(errors.New("published statistics need at least --mean and --sd (or --variance)"))
	}
	if s.Kurtosis != nil && s.Skewness == nil {
		return nil, 0, usageErr(errors.New("--kurtosis needs --skewness (moments must be consecutive)"))
	}
	ms, err := s.RawMoments(def)
	if err != nil {
		return nil, 0, usageErr(err)
	}
	for _, m := range ms {
		sums = append(sums, new(big.Rat).Mul(m, n))
	}
	in.definition = def.String()
	if in.inc, err = s.Check(def); err != nil {
		return nil, 0, usageErr(err)
	}
	exactK = -1
	if s.Skewness != nil {
		exactK = 2 // the third moment involves a square root
	}
	if in.inc == nil {
		exact := ms
		if exactK >= 0 && exactK < len(ms) {
			exact = ms[:exactK]
		}
		in.inc = moments.CheckCount(f.n, exact)
	}
	return sums, exactK, nil
}

// setExactSums records the power sums in steps, for the exact recovery,
// when they are non-negative integers in steps.
func (in *momentsInput) setExactSums(n int64, sums []*big.Rat) {
	if in.stepRat == nil {
		return
	}
	st := in.stepRat
	ex := []*big.Int{big.NewInt(n)}
	sp := big.NewRat(1, 1)
	for _, s := range sums {
		sp.Mul(sp, st)
		q := new(big.Rat).Quo(s, sp)
		if !q.IsInt() || q.Sign() < 0 {
			return
		}
		ex = append(ex, new(big.Int).Set(q.Num()))
	}
	in.exactSums = ex
}

// publishedFlags checks that the flags give exactly one form of published
// moments, with --n.
func publishedFlags(f *momentsFlags) error {
	if f.column != "" {
		return usageErr(errors.New("--column needs --values"))
	}
	given := 0
	for _, s := range []string{f.raw, f.means, f.central} {
		if s != "" {
			given++
		}
	}
	summary := f.sd != "" || f.variance != "" || f.skewness != "" || f.kurtosis != ""
	if given > 1 || given == 1 && summary || f.central == "" && f.mean != "" && !summary && given == 1 {
		return usageErr(errors.New("give one of --raw, --moments, --central (with --mean) or --mean/--sd/--skewness/--kurtosis"))
	}
	if given == 0 && !summary {
		return usageErr(errors.New("no input: give --values FILE --column NAME, or --n N with --raw, --moments, --central or --mean/--sd/..."))
	}
	if f.n < 1 {
		return usageErr(errors.New("published moments need --n N (the number of values), N >= 1"))
	}
	return nil
}
