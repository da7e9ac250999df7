package main

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"

	"github.com/sdcaudit/sdcaudit/rules/moments"
)

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
	// Inconsistent says that no non-negative data can have the moments
	// (the verdict is then review, Reason says why).
	Inconsistent bool `json:"inconsistent,omitempty"`
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

// momentsReport is the JSON report of the release: every order's
// estimates, the figures at the released order, and the verdict and reason
// of moments.Evaluate.
func momentsReport(in *momentsInput, rep moments.Report, f *momentsFlags) *momentsJSON {
	a := rep.Assessment
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
	r.Verdict = string(rep.Verdict)
	r.Reason = rep.Reason
	r.Inconsistent = in.inc != nil
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
