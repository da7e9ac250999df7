package moments

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Threshold ties. The estimates are computed in float64, so an estimate
// exactly at the threshold (values 10 and 8: L_1 = 9 is exactly 10% below
// 10) comes out a few ulps either side of it. A relative error or bracket
// width within TieWindow percentage points of its threshold is therefore
// decided again in exact arithmetic from the cell's exact figures
// (Options.Exact); when those do not cover the order, the order is
// undecided and the verdict is review.

// TieWindow is the distance, in percentage points, from a threshold within
// which the float64 result is not trusted.
const TieWindow = 1e-6

func near(x, thr float64) bool { return math.Abs(math.Abs(x)-thr) <= TieWindow*max(1, thr) }

// Exact holds a cell's figures in exact arithmetic.
type Exact struct {
	// Sums are the power sums S_0..S_k exactly (S_0 = n); orders above k
	// cannot be decided exactly. Ignored when Values is set.
	Sums []*big.Rat
	// Values, when set, is the whole sample: its power sums are computed
	// as far as needed.
	Values []*big.Rat
	// Largest and Second are the true largest and second largest values
	// (with a known truth); Second nil when there is none.
	Largest, Second *big.Rat
	// Step is the granularity for the one-pair estimate (nil: none).
	Step *big.Rat
	// DomainMax is the largest value the data can take (nil: none).
	DomainMax *big.Rat
}

// exactState computes exact sums lazily.
type exactState struct {
	e    *Exact
	sums []*big.Rat
	cnt  map[string]int64 // distinct values with counts, for Values
	vals []*big.Rat
	pw   []*big.Rat
}

func newExactState(e *Exact) *exactState {
	st := &exactState{e: e}
	if e != nil && e.Values == nil {
		st.sums = e.Sums
	}
	return st
}

// sum returns S_p exactly, or nil when not known.
func (st *exactState) sum(p int) *big.Rat {
	if st.e == nil {
		return nil
	}
	if st.e.Values != nil {
		if st.vals == nil {
			st.cnt = map[string]int64{}
			for _, v := range st.e.Values {
				k := v.RatString()
				if st.cnt[k] == 0 {
					st.vals = append(st.vals, v)
				}
				st.cnt[k]++
			}
			st.pw = make([]*big.Rat, len(st.vals))
			for i := range st.pw {
				st.pw[i] = big.NewRat(1, 1)
			}
			st.sums = []*big.Rat{new(big.Rat).SetInt64(int64(len(st.e.Values)))}
		}
		for len(st.sums) <= p {
			s := new(big.Rat)
			t := new(big.Rat)
			for i, v := range st.vals {
				st.pw[i].Mul(st.pw[i], v)
				t.SetInt64(st.cnt[v.RatString()])
				s.Add(s, t.Mul(t, st.pw[i]))
			}
			st.sums = append(st.sums, s)
		}
	}
	if p < 0 || p >= len(st.sums) || st.sums[p] == nil {
		return nil
	}
	return st.sums[p]
}

// covers reports whether S_0..S_p are known exactly.
func (st *exactState) covers(p int) bool {
	for q := 0; q <= p; q++ {
		if st.sum(q) == nil {
			return false
		}
	}
	return true
}

// lehmer is L_p exactly (nil when S_{p-1} = 0).
func (st *exactState) lehmer(p int) *big.Rat {
	if st.sum(p-1).Sign() <= 0 {
		return nil
	}
	return new(big.Rat).Quo(st.sum(p), st.sum(p-1))
}

// residual is (S_q - l^q)/(S_{q-1} - l^(q-1)) capped at l, nil when a
// difference is not positive (no estimate).
func (st *exactState) residual(q int, l *big.Rat) *big.Rat {
	lq1 := ratPowInt(l, q-1)
	num := new(big.Rat).Sub(st.sum(q), new(big.Rat).Mul(lq1, l))
	den := new(big.Rat).Sub(st.sum(q-1), lq1)
	if num.Sign() <= 0 || den.Sign() <= 0 {
		return nil
	}
	v := num.Quo(num, den)
	if v.Cmp(l) > 0 {
		v.Set(l)
	}
	return v
}

func ratPowInt(r *big.Rat, p int) *big.Rat {
	num := new(big.Int).Exp(r.Num(), big.NewInt(int64(p)), nil)
	den := new(big.Int).Exp(r.Denom(), big.NewInt(int64(p)), nil)
	return new(big.Rat).SetFrac(num, den)
}

// ceilStep rounds v up to a multiple of step, exactly.
func ceilStep(v, step *big.Rat) *big.Rat {
	q := new(big.Rat).Quo(v, step)
	k, m := new(big.Int).QuoRem(q.Num(), q.Denom(), new(big.Int))
	if m.Sign() > 0 {
		k.Add(k, big.NewInt(1))
	}
	return new(big.Rat).Mul(new(big.Rat).SetInt(k), step)
}

// pctRat converts a threshold in percent to the exact fraction thr/100 of
// its shortest decimal form (10 -> 1/10, 0.6 -> 3/500).
func pctRat(thr float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(thr, 'g', -1, 64))
	return r.Quo(r, big.NewRat(100, 1))
}

// closeExact reports whether |truth - est| < f·truth.
func closeExact(truth, est, f *big.Rat) bool {
	d := new(big.Rat).Sub(truth, est)
	d.Abs(d)
	return d.Cmp(new(big.Rat).Mul(f, truth)) < 0
}

// judgeKnown decides an order against the true values: unsafe when an
// estimate is within MaxRelError percent; ties decided exactly.
func (st *exactState) judgeKnown(s Sums, r *OrderResult, opt Options) (safe bool, undecided string) {
	thr := opt.MaxRelError
	f := pctRat(thr)
	type cand struct {
		name string
		e    Estimate
		val  func() (*big.Rat, bool) // exact estimate (nil: none), decidable
		tr   *big.Rat
	}
	p := r.P
	var tl, ts *big.Rat
	if st.e != nil {
		tl, ts = st.e.Largest, st.e.Second
	}
	cands := []cand{
		{"largest value", r.Largest, func() (*big.Rat, bool) {
			if !st.covers(p) {
				return nil, false
			}
			return st.lehmer(p), true
		}, tl},
		{"second largest value (two-pair)", r.TwoPair, func() (*big.Rat, bool) {
			if !st.covers(p) || s.N < 2 {
				return nil, false
			}
			l := st.lehmer(p)
			if l == nil {
				return nil, true
			}
			return st.residual(r.PPrime, l), true
		}, ts},
		{"second largest value (one-pair)", r.OnePair, func() (*big.Rat, bool) {
			if !st.covers(p) || s.N < 2 || st.e.Step == nil || st.e.Step.Sign() <= 0 {
				return nil, false
			}
			l := st.lehmer(p)
			if l == nil {
				return nil, true
			}
			return st.residual(p, ceilStep(l, st.e.Step)), true
		}, ts},
	}
	safe = true
	for _, c := range cands {
		if !c.e.HasError {
			continue
		}
		if !near(c.e.RelError, thr) {
			if c.e.close(thr) {
				return false, ""
			}
			continue
		}
		if c.tr == nil {
			undecided = fmt.Sprintf("the estimate of the %s at order %d is within float precision of the %g%% threshold and the exact true value is not known", c.name, p, thr)
			safe = false
			continue
		}
		v, ok := c.val()
		if !ok {
			undecided = fmt.Sprintf("the estimate of the %s at order %d is within float precision of the %g%% threshold and the exact power sums needed to decide are not kept", c.name, p, thr)
			safe = false
			continue
		}
		if v != nil && closeExact(c.tr, v, f) {
			return false, ""
		}
	}
	return safe, undecided
}

// judgeBracket decides an order by the bracket for the maximum: unsafe
// when narrower than Interval percent of its upper end; ties decided
// exactly (safe iff L_q <= (1 - Interval/100)·h for every q <= P and every
// upper bound h: Samuelson, S_q^(1/q), the domain maximum).
func (st *exactState) judgeBracket(s Sums, r *OrderResult, opt Options) (safe bool, undecided string) {
	if !near(r.Bracket.WidthPct, opt.Interval) {
		return r.Bracket.WidthPct >= opt.Interval, ""
	}
	p := r.P
	if !st.covers(p) || st.sum(1).Sign() <= 0 || (opt.HasDomainMax && st.e.DomainMax == nil) {
		return false, fmt.Sprintf("the bracket for the maximum at order %d is within float precision of the %g%% threshold and the exact moments needed to decide are not kept", p, opt.Interval)
	}
	t := new(big.Rat).Sub(big.NewRat(1, 1), pctRat(opt.Interval))
	n := st.sum(0)
	for q := 1; q <= p; q++ {
		l := st.lehmer(q)
		if l == nil {
			continue
		}
		// power bounds: l^j <= t^j S_j
		for j := 1; j <= p; j++ {
			if ratPowInt(l, j).Cmp(new(big.Rat).Mul(ratPowInt(t, j), st.sum(j))) > 0 {
				return false, ""
			}
		}
		if p >= 2 && t.Sign() > 0 { // Samuelson: l/t - m1 <= sqrt(v (n-1))
			m1 := new(big.Rat).Quo(st.sum(1), n)
			v := new(big.Rat).Quo(st.sum(2), n)
			v.Sub(v, new(big.Rat).Mul(m1, m1))
			v.Mul(v, new(big.Rat).Sub(n, big.NewRat(1, 1)))
			lhs := new(big.Rat).Quo(l, t)
			lhs.Sub(lhs, m1)
			if lhs.Sign() > 0 && (v.Sign() < 0 || new(big.Rat).Mul(lhs, lhs).Cmp(v) > 0) {
				return false, ""
			}
		} else if p >= 2 && l.Sign() > 0 {
			return false, ""
		}
		if opt.HasDomainMax && l.Cmp(new(big.Rat).Mul(t, st.e.DomainMax)) > 0 {
			return false, ""
		}
	}
	return true, ""
}

// Verdict is the outcome of the attack for a release.
type Verdict string

// The verdicts.
const (
	VerdictSafe   Verdict = "safe"
	VerdictUnsafe Verdict = "unsafe"
	// VerdictReview: the moments are inconsistent with non-negative data,
	// or a threshold tie could not be decided: a person must look.
	VerdictReview Verdict = "review"
)

// Decision is the verdict for releasing moments of orders 1..K.
type Decision struct {
	Verdict Verdict
	// Order is the order the verdict rests on: the first unsafe order
	// (unsafe), the first undecided one (review of a tie), 0 otherwise.
	Order int
	// Reason explains a review.
	Reason string
}

// Decide is the one verdict rule for a cell, used by the command and the
// pipeline alike: review when the moments are inconsistent (inc not nil;
// a may then be nil); unsafe when some order 1..k is unsafe; review when
// none is but one is undecided; safe otherwise.
func Decide(a *Assessment, k int, inc *Inconsistency) Decision {
	if inc != nil {
		return Decision{Verdict: VerdictReview, Reason: inc.Reason}
	}
	if a == nil {
		return Decision{Verdict: VerdictSafe}
	}
	var und *OrderResult
	for p := 1; p <= k && p <= len(a.Orders); p++ {
		o := &a.Orders[p-1]
		switch {
		case o.Safe:
		case o.Undecided == "":
			return Decision{Verdict: VerdictUnsafe, Order: p}
		case und == nil:
			und = o
		}
	}
	if und != nil {
		return Decision{Verdict: VerdictReview, Order: und.P, Reason: und.Undecided}
	}
	return Decision{Verdict: VerdictSafe}
}
