// Package moments implements the Lehmer-mean attack on released power
// moments (Stander and Stander 2024): from the power sums S_p = Σ x^p of a
// non-negative sample an intruder estimates the largest value by the Lehmer
// mean L_p = S_p / S_{p-1}, the second largest by the two-pair and one-pair
// estimators, and iteratively every value. The package also converts
// between raw moments, central moments and the standardized statistics
// (SD, skewness, kurtosis) under a stated definition, judges the estimates
// against thresholds, and runs the seed's Poisson recovery experiment.
//
// Power sums are kept scaled (Sums): S_p = Scale^p * Pow[p-1], with Scale
// near the sample maximum, so that x^p never overflows float64 (x = 1e12,
// p = 100 is fine). Exact integer arithmetic (math/big) is used where the
// attack subtracts nearly equal quantities over many steps: the recovery of
// every value of an integer sample.
//
// The package knows nothing of tables; rules/moments.go adapts it to cells.
package moments

import (
	"errors"
	"fmt"
	"math"
	"math/big"
)

// Errors returned by the estimators.
var (
	// ErrSamePower: the two-pair estimator with p' = p returns L_p itself.
	ErrSamePower = errors.New("two-pair estimator needs p' != p (p' = p gives the largest estimate again)")
	// ErrOrder: a power outside the orders the sums hold.
	ErrOrder = errors.New("power outside the available orders")
	// ErrPrecision: the estimate is lost in rounding, because the values
	// other than the largest contribute less than float64 precision to the
	// power sums. The largest value is then estimated almost exactly.
	ErrPrecision = errors.New("estimate lost in floating-point rounding")
	// ErrInput: the sample or the sums cannot come from non-negative data.
	ErrInput = errors.New("invalid input")
	// ErrTooFew: the estimate needs at least two values.
	ErrTooFew = errors.New("needs at least two values")
	// ErrTooMany: the recovery of every value is not attempted for more
	// than MaxRecover values.
	ErrTooMany = fmt.Errorf("more than %d values to recover", MaxRecover)
)

// MaxRecover is the largest number of values Recover and RecoverInts list:
// n comes from the input (a published count), so it bounds their memory.
const MaxRecover = 1 << 20

// Sums holds the power sums S_0..S_K of a non-negative sample in scaled
// form: S_0 = N and S_p = Scale^p * Pow[p-1] for p = 1..K = len(Pow).
// Scale is positive; it is the sample maximum when the values are known and
// a value just above it when the sums come from published moments.
type Sums struct {
	N     int64
	Scale float64
	Pow   []float64
}

// Order is the highest power sum held, K.
func (s Sums) Order() int { return len(s.Pow) }

// scaled returns S_p / Scale^p for p = 0..K.
func (s Sums) scaled(p int) float64 {
	if p == 0 {
		return float64(s.N)
	}
	return s.Pow[p-1]
}

// Truncate returns the sums of orders 1..k only (k <= Order).
func (s Sums) Truncate(k int) Sums {
	if k < len(s.Pow) {
		s.Pow = s.Pow[:k:k]
	}
	return s
}

// FromValues computes the power sums of orders 1..order of non-negative
// values, scaled by their maximum. At least one value must be positive.
func FromValues(x []float64, order int) (Sums, error) {
	if len(x) == 0 {
		return Sums{}, fmt.Errorf("%w: no values", ErrInput)
	}
	if order < 1 {
		return Sums{}, fmt.Errorf("%w: order %d < 1", ErrInput, order)
	}
	m := 0.0
	for _, v := range x {
		if !(v >= 0) || math.IsInf(v, 1) {
			return Sums{}, fmt.Errorf("%w: value %v is not a finite non-negative number", ErrInput, v)
		}
		m = max(m, v)
	}
	if m == 0 {
		return Sums{}, fmt.Errorf("%w: every value is zero", ErrInput)
	}
	s := Sums{N: int64(len(x)), Scale: m, Pow: make([]float64, order)}
	accumulate(s.Pow, x, 1/m)
	return s, nil
}

// accumulate adds Σ (x*inv)^p to pow[p-1] for p = 1..len(pow).
func accumulate(pow []float64, x []float64, inv float64) {
	for _, v := range x {
		r := v * inv
		t := r
		for p := range pow {
			pow[p] += t
			t *= r
		}
	}
}

// FromPowerSums builds Sums from exact or high-precision power sums
// sums[p-1] = S_p, p = 1..K, of n values (published raw sums may be far
// beyond float64 range, e.g. S_100 of values near 1e12). Every sum must be
// positive.
func FromPowerSums(n int64, sums []*big.Float) (Sums, error) {
	if n < 1 {
		return Sums{}, fmt.Errorf("%w: n = %d", ErrInput, n)
	}
	k := len(sums)
	if k == 0 {
		return Sums{}, fmt.Errorf("%w: no power sums", ErrInput)
	}
	for p, v := range sums {
		if v == nil || v.Sign() <= 0 || v.IsInf() {
			return Sums{}, fmt.Errorf("%w: S_%d must be positive and finite", ErrInput, p+1)
		}
	}
	// Scale c = S_K^(1/K) >= max, so that S_p / c^p lies in [1/n, n].
	c := math.Exp(logBig(sums[k-1]) / float64(k))
	if math.IsInf(c, 0) || c == 0 {
		return Sums{}, fmt.Errorf("%w: power sums out of range", ErrInput)
	}
	const prec = 256
	cb := new(big.Float).SetPrec(prec).SetFloat64(c)
	cp := new(big.Float).SetPrec(prec).SetInt64(1)
	q := new(big.Float).SetPrec(prec)
	s := Sums{N: n, Scale: c, Pow: make([]float64, k)}
	for p := 1; p <= k; p++ {
		cp.Mul(cp, cb)
		q.Quo(sums[p-1], cp)
		s.Pow[p-1], _ = q.Float64()
	}
	return s, nil
}

// FromMoments builds Sums from raw moment means m[p-1] = S_p / n.
func FromMoments(n int64, m []*big.Float) (Sums, error) {
	nb := new(big.Float).SetInt64(n)
	sums := make([]*big.Float, len(m))
	for i, v := range m {
		if v == nil {
			return Sums{}, fmt.Errorf("%w: m%d missing", ErrInput, i+1)
		}
		sums[i] = new(big.Float).SetPrec(max(v.Prec(), 256)).Mul(v, nb)
	}
	return FromPowerSums(n, sums)
}

// logBig is the natural logarithm of a positive big.Float.
func logBig(x *big.Float) float64 {
	mant := new(big.Float)
	e := x.MantExp(mant)
	f, _ := mant.Float64()
	return math.Log(f) + float64(e)*math.Ln2
}

// Lehmer returns the Lehmer mean L_p = S_p / S_{p-1}, p = 1..Order: the
// intruder's estimate of the largest value. L_1 is the mean.
func (s Sums) Lehmer(p int) (float64, error) {
	if p < 1 || p > len(s.Pow) {
		return 0, fmt.Errorf("%w: L_%d with orders 1..%d", ErrOrder, p, len(s.Pow))
	}
	return s.Scale * (s.scaled(p) / s.scaled(p-1)), nil
}

// LehmerAll returns L_1..L_K.
func (s Sums) LehmerAll() []float64 {
	out := make([]float64, len(s.Pow))
	for p := range out {
		out[p] = s.Scale * (s.scaled(p+1) / s.scaled(p))
	}
	return out
}

// LehmerOf returns the Lehmer mean Σ x^p / Σ x^(p-1) of non-negative values
// for any real p: L_0 is the harmonic mean (0 when a value is zero), L_1
// the mean. It works on values scaled by the maximum (p >= 1) or the
// minimum (p < 1), so it neither overflows nor underflows.
func LehmerOf(x []float64, p float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi == 0 {
		return 0
	}
	if p < 1 && lo == 0 {
		return 0
	}
	c := hi
	if p < 1 {
		c = lo
	}
	var num, den float64
	for _, v := range x {
		r := v / c
		num += math.Pow(r, p)
		den += math.Pow(r, p-1)
	}
	return c * num / den
}

// TwoPair returns the two-pair estimate of the second largest value (seed
// eq. 2) from L_p and the pair (S_p', S_{p'-1}):
//
//	(S_p' - L_p^p') / (S_{p'-1} - L_p^(p'-1)),
//
// capped at L_p. p' = p is rejected (ErrSamePower); the seed recommends
// p' < p, for example p' = p/2. The estimate converges for p' < p.
func (s Sums) TwoPair(p, q int) (float64, error) {
	if p == q {
		return 0, ErrSamePower
	}
	k := len(s.Pow)
	if p < 1 || p > k || q < 1 || q > k {
		return 0, fmt.Errorf("%w: (p, p') = (%d, %d) with orders 1..%d", ErrOrder, p, q, k)
	}
	if s.N < 2 {
		return 0, ErrTooFew
	}
	l := s.scaled(p) / s.scaled(p-1) // L_p / Scale
	return s.residual(q, l, l)
}

// residual returns Scale * (P_q - l^q) / (P_{q-1} - l^(q-1)) capped at
// cap*Scale, where P are the scaled sums and l an estimate over Scale.
func (s Sums) residual(q int, l, limit float64) (float64, error) {
	lq1 := math.Pow(l, float64(q-1))
	pq, pq1 := s.scaled(q), s.scaled(q-1)
	num := pq - lq1*l
	den := pq1 - lq1
	// Both differences are sums of positive terms in exact arithmetic;
	// below a few ulps of the sums they are rounding noise.
	const tol = 64 * 0x1p-52
	if num <= tol*pq || den <= tol*pq1 {
		return 0, ErrPrecision
	}
	return s.Scale * min(num/den, limit), nil
}

// RoundUp rounds v up to the grid step, 2·step, ...; a value above a grid
// point by float noise, within a relative 1e-9 and at most a thousandth of
// a step, is taken as that point, so that float rounding of an exact grid
// value does not push it one step up. The cap keeps large values
// (v/step > 1e6) from being rounded down: an estimate is never lowered by
// more than a thousandth of a step.
func RoundUp(v, step float64) float64 {
	r := v / step
	f := math.Floor(r)
	if r-f <= min(1e-9*max(1, math.Abs(r)), 1e-3) {
		return f * step
	}
	return (f + 1) * step
}

// OnePair returns the one-pair estimate of the second largest value (seed
// eq. 3): L*_p is L_p rounded up to the data's granularity step, and
//
//	(S_p - L*_p^p) / (S_{p-1} - L*_p^(p-1)),
//
// capped at L*_p, since the second largest is at most the largest. It
// returns the estimate and L*_p.
func (s Sums) OnePair(p int, step float64) (second, largest float64, err error) {
	if p < 1 || p > len(s.Pow) {
		return 0, 0, fmt.Errorf("%w: p = %d with orders 1..%d", ErrOrder, p, len(s.Pow))
	}
	if !(step > 0) {
		return 0, 0, fmt.Errorf("%w: step must be positive", ErrInput)
	}
	if s.N < 2 {
		return 0, 0, ErrTooFew
	}
	lstar := RoundUp(s.Scale*s.scaled(p)/s.scaled(p-1), step)
	est, err := s.residual(p, lstar/s.Scale, lstar/s.Scale)
	return est, lstar, err
}

// Recover runs the iteration of seed eq. (3)-(4) in floating point: the
// largest value is L_p rounded up to step, each next value is the Lehmer
// mean of what remains of (S_p, S_{p-1}) after subtracting the values found
// so far, rounded up to step and capped at the previous one. It returns the
// estimates in descending order; when the remainder is lost in rounding
// before all N values are found it returns those found with ErrPrecision.
// For integer data RecoverInts does the same in exact arithmetic. More
// than MaxRecover values are not attempted (ErrTooMany).
func (s Sums) Recover(p int, step float64) ([]float64, error) {
	if p < 1 || p > len(s.Pow) {
		return nil, fmt.Errorf("%w: p = %d with orders 1..%d", ErrOrder, p, len(s.Pow))
	}
	if !(step > 0) {
		return nil, fmt.Errorf("%w: step must be positive", ErrInput)
	}
	if s.N > MaxRecover {
		return nil, ErrTooMany
	}
	rp, rq := s.scaled(p), s.scaled(p-1)
	const tol = 64 * 0x1p-52
	tp, tq := tol*rp, tol*rq
	out := make([]float64, 0, s.N)
	prev := math.Inf(1)
	for int64(len(out)) < s.N {
		if rq <= tq || rp <= tp {
			if p > 1 && rp <= tp && rq <= tq && rp >= -tp {
				// what remains is zero: the other values are 0 (within rounding)
				for int64(len(out)) < s.N {
					out = append(out, 0)
				}
				break
			}
			return out, ErrPrecision
		}
		est := min(RoundUp(s.Scale*rp/rq, step), prev)
		out = append(out, est)
		prev = est
		e := est / s.Scale
		eq := math.Pow(e, float64(p-1))
		rp -= eq * e
		rq -= eq
	}
	return out, nil
}
