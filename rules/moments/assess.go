package moments

import (
	"errors"
	"math"
)

// Options set the thresholds of an assessment.
type Options struct {
	// MaxRelError is the threshold in percent when the true values are
	// known: an estimate of the largest or second largest value closer than
	// this is a disclosure. Default 10 (like the p% rule).
	MaxRelError float64
	// Interval is the threshold in percent when only the released moments
	// are known: the intruder's bracket for the maximum narrower than
	// Interval% of its upper end is a disclosure. Default 10.
	Interval float64
	// Step is the data's granularity used by the one-pair estimator (L_p
	// rounded up to a multiple of Step); 0 skips the one-pair estimate.
	Step float64
	// DomainMax, when HasDomainMax, is the largest value the data can take
	// (a published measure domain): the intruder's bracket for the maximum
	// never reaches beyond it.
	DomainMax    float64
	HasDomainMax bool
	// Exact, when set, holds the cell's figures exactly: a relative error or
	// bracket width within float precision of its threshold (a tie) is then
	// decided in math/big. Without the figures a tie is undecided (review).
	Exact *Exact
}

func (o Options) norm() Options {
	if o.MaxRelError == 0 {
		o.MaxRelError = 10
	}
	if o.Interval == 0 {
		o.Interval = 10
	}
	return o
}

// Estimate is one estimate of a confidential value, or the reason there is
// none. RelError is 100 (true - estimate) / true, set when the true value is
// known (HasError): positive for an underestimate.
type Estimate struct {
	Value    float64
	Reason   string
	RelError float64
	HasError bool
}

// OK reports whether there is an estimate.
func (e Estimate) OK() bool { return e.Reason == "" }

func estimate(v float64, err error) Estimate {
	if err != nil {
		return Estimate{Reason: reason(err)}
	}
	return Estimate{Value: v}
}

func reason(err error) string {
	switch {
	case errors.Is(err, ErrPrecision):
		return "lost in rounding: the other values are negligible against the largest"
	case errors.Is(err, ErrTooFew):
		return "one value only"
	}
	return err.Error()
}

func (e *Estimate) judge(truth float64) {
	if e.OK() && truth > 0 {
		e.RelError = 100 * (truth - e.Value) / truth
		e.HasError = true
	}
}

// close reports whether the estimate is within thr percent of the truth.
func (e Estimate) close(thr float64) bool { return e.HasError && math.Abs(e.RelError) < thr }

// Bracket is the intruder's interval for the maximum from released
// moments of orders 1..P: Lo = the largest Lehmer mean L_p (p <= P), a lower
// bound; Hi = the smaller of the Samuelson bound mean + s_pop sqrt(n-1)
// (needs P >= 2) and the power-sum bounds S_p^(1/p) (max^p <= S_p).
type Bracket struct {
	Lo, Hi     float64
	Samuelson  float64 // +Inf when P < 2
	PowerBound float64 // min over p <= P of S_p^(1/p)
	// WidthPct is 100 (Hi - Lo) / Hi.
	WidthPct float64
}

// Bracket returns the intruder's bracket for the maximum using orders 1..k.
func (s Sums) Bracket(k int) Bracket {
	k = min(k, len(s.Pow))
	b := Bracket{Samuelson: math.Inf(1), PowerBound: math.Inf(1)}
	n := float64(s.N)
	for p := 1; p <= k; p++ {
		b.Lo = max(b.Lo, s.Scale*s.scaled(p)/s.scaled(p-1))
		b.PowerBound = min(b.PowerBound, s.Scale*math.Pow(s.scaled(p), 1/float64(p)))
	}
	if k >= 2 {
		m1 := s.scaled(1) / n
		v := max(0, s.scaled(2)/n-m1*m1)
		b.Samuelson = s.Scale * (m1 + math.Sqrt(v*(n-1)))
	}
	b.Hi = min(b.Samuelson, b.PowerBound)
	b.Lo = min(b.Lo, b.Hi) // rounding of published moments
	if b.Hi > 0 {
		b.WidthPct = 100 * (b.Hi - b.Lo) / b.Hi
	}
	return b
}

// Clamp lowers the bracket's upper end to max, the largest value the data
// can take, and recomputes its width.
func (b Bracket) Clamp(max float64) Bracket {
	if max < b.Hi {
		b.Hi = max
		b.Lo = min(b.Lo, b.Hi)
		b.WidthPct = 0
		if b.Hi > 0 {
			b.WidthPct = 100 * (b.Hi - b.Lo) / b.Hi
		}
	}
	return b
}

// OrderResult is what moments of orders 1..P give an intruder.
type OrderResult struct {
	P int
	// Largest is L_P, the estimate of the largest value.
	Largest Estimate
	// TwoPair estimates the second largest from (p, p') = (P, PPrime),
	// PPrime = P/2 as the seed recommends; none for P = 1.
	TwoPair Estimate
	PPrime  int
	// OnePair estimates the second largest from L_P rounded up to the
	// step (RoundedLargest); none without a step.
	OnePair        Estimate
	RoundedLargest float64
	Bracket        Bracket
	// Safe is the verdict for releasing moments up to order P alone
	// (Assessment.SafeOrder accounts for every lower order too).
	Safe bool
	// Undecided, when not empty, says why the order is neither safe nor
	// unsafe: a tie with the threshold that exact arithmetic could not
	// decide. Safe is then false.
	Undecided string
}

// Truth holds the true largest and second largest values when the
// microdata are known.
type Truth struct {
	Largest, Second float64
	HasSecond       bool
}

// Assessment is the verdict for every order 1..K.
type Assessment struct {
	// Known says whether the verdict compares estimates with true values
	// (true) or judges the bracket for the maximum (false).
	Known  bool
	Orders []OrderResult
	// SafeOrder is the highest order k such that releasing moments 1..k
	// discloses nothing: every order up to k is safe. 0 when even the mean
	// discloses.
	SafeOrder int
	Options   Options
}

// SafeUpTo reports whether releasing moments of orders 1..k is safe.
func (a Assessment) SafeUpTo(k int) bool { return a.SafeOrder >= k }

// Assess evaluates the attack for orders 1..Order. With truth (known =
// true) an order is unsafe when the estimate of the largest value, or of
// the second largest by either estimator, is within MaxRelError percent of
// the true value; without it, when the bracket for the maximum is narrower
// than Interval percent of its upper end.
func Assess(s Sums, truth *Truth, opt Options) Assessment {
	opt = opt.norm()
	a := Assessment{Known: truth != nil, Options: opt, Orders: make([]OrderResult, len(s.Pow))}
	a.SafeOrder = -1
	ex := newExactState(opt.Exact)
	for p := 1; p <= len(s.Pow); p++ {
		r := OrderResult{P: p}
		r.Largest = estimate(s.Lehmer(p))
		if p >= 2 {
			r.PPrime = p / 2
			r.TwoPair = estimate(s.TwoPair(p, r.PPrime))
		} else {
			r.TwoPair = Estimate{Reason: "needs moments of order 2 or more"}
		}
		if opt.Step > 0 {
			v, l, err := s.OnePair(p, opt.Step)
			r.OnePair, r.RoundedLargest = estimate(v, err), l
		} else {
			r.OnePair = Estimate{Reason: "no granularity step given"}
		}
		r.Bracket = s.Bracket(p)
		if opt.HasDomainMax {
			r.Bracket = r.Bracket.Clamp(opt.DomainMax)
		}
		if truth != nil {
			r.Largest.judge(truth.Largest)
			if truth.HasSecond {
				r.TwoPair.judge(truth.Second)
				r.OnePair.judge(truth.Second)
			}
			r.Safe, r.Undecided = ex.judgeKnown(s, &r, opt)
		} else {
			r.Safe, r.Undecided = ex.judgeBracket(s, &r, opt)
		}
		a.Orders[p-1] = r
		if !r.Safe && a.SafeOrder < 0 {
			a.SafeOrder = p - 1
		}
	}
	if a.SafeOrder < 0 {
		a.SafeOrder = len(s.Pow)
	}
	return a
}

// AllEstimates holds every estimate the sums allow, for orders 1..K:
// Lehmer[p-1] = L_p, TwoPair[(p-1)*K + (q-1)] the two-pair estimate from
// (p, p' = q) for q < p (NaN elsewhere or when lost in rounding), and
// OnePair[p-1] the one-pair estimate (NaN without a step). Its storage is
// reused by EstimateAll.
type AllEstimates struct {
	K       int
	Lehmer  []float64
	TwoPair []float64
	OnePair []float64
	pw      []float64
}

// EstimateAll fills e with every estimate for orders 1..K without
// allocating when e's storage suffices. It is the bulk path for many cells
// and gives the same values as Lehmer, TwoPair and OnePair.
func (s Sums) EstimateAll(step float64, e *AllEstimates) {
	k := len(s.Pow)
	e.K = k
	e.Lehmer = grow(e.Lehmer, k)
	e.TwoPair = grow(e.TwoPair, k*k)
	e.OnePair = grow(e.OnePair, k)
	e.pw = grow(e.pw, 2*(k+1))
	pw, sc := e.pw[:k+1], e.pw[k+1:]
	sc[0] = float64(s.N)
	copy(sc[1:], s.Pow)
	nan := math.NaN()
	const tol = 64 * 0x1p-52
	two := s.N >= 2
	for p := 1; p <= k; p++ {
		l := sc[p] / sc[p-1]
		e.Lehmer[p-1] = s.Scale * l
		row := e.TwoPair[(p-1)*k : p*k]
		pw[0] = 1
		for q := 1; q <= k; q++ {
			if q < p {
				pw[q] = pw[q-1] * l
				num, den := sc[q]-pw[q], sc[q-1]-pw[q-1]
				if two && num > tol*sc[q] && den > tol*sc[q-1] {
					v := l // capped at L_p
					if num < l*den {
						v = num / den
					}
					row[q-1] = s.Scale * v
					continue
				}
			}
			row[q-1] = nan
		}
		e.OnePair[p-1] = nan
		if step > 0 && two {
			ls := RoundUp(s.Scale*l, step) / s.Scale
			t := 1.0 // ls^(p-1)
			for range p - 1 {
				t *= ls
			}
			num, den := sc[p]-t*ls, sc[p-1]-t
			if num > tol*sc[p] && den > tol*sc[p-1] {
				v := ls
				if num < ls*den {
					v = num / den
				}
				e.OnePair[p-1] = s.Scale * v
			}
		}
	}
}

func grow(b []float64, n int) []float64 {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]float64, n)
}
