package meansd

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"
)

// Method is a "little white lies" disguise of the seed's section 5.
type Method string

// The disguise methods.
const (
	// SplitHalf publishes the mean of a random half and the SD of the rest.
	SplitHalf Method = "split-half"
	// Bootstrap publishes the mean of one bootstrap resample and the SD of
	// another.
	Bootstrap Method = "bootstrap"
	// VariableWith resamples with replacement sizes drawn from [n/2, n].
	VariableWith Method = "variable"
	// VariableWithout subsamples without replacement sizes drawn from [n/2, n].
	VariableWithout Method = "variable-noreplace"
)

// DisguiseRequest asks for disguised statistics of a confidential sample.
type DisguiseRequest struct {
	Values         []string // the sample
	Min, Max, Step string   // the grid
	Methods        []Method
	Seed           uint64 // fixed seed: the same request gives the same answer
	DP             int    // decimals of the disguised mean and SD
	Rounding       Rounding
	MinSolutions   int           // solution count to keep (recommendation)
	TimeLimit      time.Duration // per solver call
}

// Disguised is one disguised (mean, SD) re-checked by the solver.
type Disguised struct {
	Method       Method  `json:"method"`
	Mean         string  `json:"mean"`
	SD           string  `json:"sd"`
	Solutions    uint64  `json:"solutions"`
	Capped       bool    `json:"capped"`
	TrueIncluded bool    `json:"true_included"`
	Verdict      Verdict `json:"verdict"`
}

// Recommendation is the rounding of the true mean and SD with the most
// decimals that keeps at least the minimum number of solutions.
type Recommendation struct {
	DP        int    `json:"dp"`
	Mean      string `json:"mean"`
	SD        string `json:"sd"`
	Solutions uint64 `json:"solutions"`
	Capped    bool   `json:"capped"`
}

// DisguiseReport is the answer of Disguise.
type DisguiseReport struct {
	Mean        string          `json:"mean"`
	SD          string          `json:"sd"`
	Solutions   uint64          `json:"solutions"`
	Disguises   []Disguised     `json:"disguises"`
	Recommended *Recommendation `json:"recommended"`
}

// Disguise applies the methods to the sample and re-checks each result.
func Disguise(ctx context.Context, req DisguiseRequest) (DisguiseReport, error) {
	n := len(req.Values)
	if n < 2 {
		return DisguiseReport{}, fmt.Errorf("%w: the sample needs at least 2 values", ErrRequest)
	}
	rnd := req.Rounding
	if rnd == "" {
		rnd = HalfUp
	}
	pub := rnd
	if pub != HalfEven {
		pub = HalfUp
	}
	minSol := max(req.MinSolutions, 1)
	vals := make([]*big.Rat, n)
	for i, v := range req.Values {
		r, err := parseDec("value", v)
		if err != nil {
			return DisguiseReport{}, err
		}
		vals[i] = r
	}
	base := Request{N: n, Min: req.Min, Max: req.Max, Step: req.Step, Rounding: rnd, TimeLimit: req.TimeLimit, MinSolutions: minSol}
	p, err := compile(Request{N: n, Min: req.Min, Max: req.Max, Step: req.Step, Mean: req.Min, SD: "0"})
	if err != nil {
		return DisguiseReport{}, err
	}
	truth := make([]int, p.K+1)
	for _, v := range vals {
		k := p.indexOf(v.FloatString(p.valDP))
		if k < 0 || k > p.K {
			return DisguiseReport{}, fmt.Errorf("%w: value %s is not on the grid %s..%s", ErrRequest, v.FloatString(p.valDP), req.Min, req.Max)
		}
		truth[k]++
	}
	check := func(mean, sd string, dp int, cap uint64) (Result, bool, error) {
		r := base
		r.Mean, r.SD, r.MeanDP, r.SDDP, r.Cap = mean, sd, dp, dp, cap
		res, err := Solve(ctx, r)
		if err != nil {
			return res, false, err
		}
		q, err := compile(r)
		if err != nil {
			return res, false, err
		}
		return res, q.matches(truth), nil
	}
	var rep DisguiseReport
	rep.Mean, rep.SD = fmtMean(vals, req.DP, pub), fmtSD(vals, req.DP, pub)
	res, _, err := check(rep.Mean, rep.SD, req.DP, 0)
	if err != nil {
		return rep, err
	}
	rep.Solutions = res.Solutions

	rng := rand.New(rand.NewPCG(req.Seed, 0x5dca0d17))
	for _, m := range req.Methods {
		a, b, err := disguiseSamples(rng, vals, m)
		if err != nil {
			return rep, err
		}
		d := Disguised{Method: m, Mean: fmtMean(a, req.DP, pub), SD: fmtSD(b, req.DP, pub)}
		res, in, err := check(d.Mean, d.SD, req.DP, uint64(max(1000, minSol)))
		if err != nil {
			return rep, err
		}
		d.Solutions, d.Capped, d.TrueIncluded, d.Verdict = res.Solutions, res.Capped, in, res.Verdict
		rep.Disguises = append(rep.Disguises, d)
	}
	for dp := max(req.DP, 3); dp >= 0; dp-- {
		mean, sd := fmtMean(vals, dp, pub), fmtSD(vals, dp, pub)
		res, _, err := check(mean, sd, dp, uint64(minSol))
		if err != nil {
			return rep, err
		}
		if res.Determined && res.Solutions >= uint64(minSol) && res.Verdict == Safe {
			rep.Recommended = &Recommendation{DP: dp, Mean: mean, SD: sd, Solutions: res.Solutions, Capped: res.Capped}
			break
		}
	}
	return rep, nil
}

// disguiseSamples draws the samples whose mean (a) and SD (b) method m publishes.
func disguiseSamples(rng *rand.Rand, vals []*big.Rat, m Method) (a, b []*big.Rat, err error) {
	n := len(vals)
	draw := func(size int, replace bool) []*big.Rat {
		out := make([]*big.Rat, 0, size)
		if replace {
			for range size {
				out = append(out, vals[rng.IntN(n)])
			}
			return out
		}
		for _, i := range rng.Perm(n)[:size] {
			out = append(out, vals[i])
		}
		return out
	}
	size := func() int { // round(uniform(n/2, n)), at least 2
		return max(2, int(float64(n)/2+rng.Float64()*float64(n)/2+0.5))
	}
	switch m {
	case SplitHalf:
		perm := rng.Perm(n)
		h := (n + 1) / 2
		for i, j := range perm {
			if i < h {
				a = append(a, vals[j])
			} else {
				b = append(b, vals[j])
			}
		}
		if len(b) < 2 {
			b = a
		}
	case Bootstrap:
		a, b = draw(n, true), draw(n, true)
	case VariableWith:
		a, b = draw(size(), true), draw(size(), true)
	case VariableWithout:
		a, b = draw(min(size(), n), false), draw(min(size(), n), false)
	default:
		return nil, nil, fmt.Errorf("%w: unknown disguise method %q", ErrRequest, m)
	}
	return a, b, nil
}

// fmtMean rounds the mean of vals to dp decimals.
func fmtMean(vals []*big.Rat, dp int, r Rounding) string {
	s := new(big.Rat)
	for _, v := range vals {
		s.Add(s, v)
	}
	s.Quo(s, big.NewRat(int64(len(vals)), 1))
	s.Mul(s, new(big.Rat).SetInt(pow10(dp)))
	return scaled(roundInt(s.Num(), s.Denom(), r), dp)
}

// fmtSD rounds the sample SD of vals to dp decimals.
func fmtSD(vals []*big.Rat, dp int, r Rounding) string {
	n := int64(len(vals))
	if n < 2 {
		return scaled(0, dp)
	}
	s, q := new(big.Rat), new(big.Rat)
	for _, v := range vals {
		s.Add(s, v)
		q.Add(q, new(big.Rat).Mul(v, v))
	}
	// var = (nQ − S²)/(n(n−1))
	x := new(big.Rat).Mul(q, big.NewRat(n, 1))
	x.Sub(x, new(big.Rat).Mul(s, s))
	x.Quo(x, big.NewRat(n*(n-1), 1))
	x.Mul(x, new(big.Rat).SetInt(pow10(2*dp)))
	f := new(big.Int).Sqrt(new(big.Int).Quo(x.Num(), x.Denom()))
	t := new(big.Int).Lsh(f, 1)
	t.Add(t, big.NewInt(1))
	t.Mul(t, t)
	c := new(big.Int).Mul(x.Num(), big.NewInt(4)).Cmp(new(big.Int).Mul(t, x.Denom()))
	if c > 0 || c == 0 && (r == HalfUp || f.Bit(0) == 1) {
		f.Add(f, big.NewInt(1))
	}
	return scaled(f.Int64(), dp)
}

func scaled(v int64, dp int) string {
	r := new(big.Rat).SetFrac(big.NewInt(v), pow10(dp))
	return r.FloatString(dp)
}
