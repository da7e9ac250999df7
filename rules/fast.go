package rules

import (
	"math/big"
	"math/bits"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// The magnitude rules test their inequalities on int64 mantissas at one
// common decimal scale when every figure fits with room for sums (the
// usual case), and fall back to exact decimal.Dec arithmetic otherwise. Both
// paths are exact; the fast one only avoids allocation and normalisation.

// fastLimit bounds the mantissas of the fast path so that sums of a few
// of them cannot overflow int64.
const fastLimit = 1 << 58

// mantAt returns d's mantissa at scale s (s >= d.Scale()) when it is
// below fastLimit in magnitude.
func mantAt(d decimal.Dec, s int) (int64, bool) {
	m, ok := d.MantissaAt(s)
	if !ok || m >= fastLimit || m <= -fastLimit {
		return 0, false
	}
	return m, true
}

// top2 returns X, x1 and x2 as mantissas at their common scale.
func (m *magInput) top2() (X, x1, x2 int64, ok bool) {
	var a, b decimal.Dec
	switch len(m.top) {
	default:
		a, b = m.top[0], m.top[1]
	case 1:
		a = m.top[0]
	case 0:
	}
	if s := m.X.Scale(); a.Scale() == s && (b.Scale() == s || b.IsZero()) {
		// the usual case: one scale, nothing to rescale
		X, ok1 := m.X.Mantissa()
		x1, ok2 := a.Mantissa()
		x2, ok3 := b.Mantissa()
		if ok1 && ok2 && ok3 && X < fastLimit && X > -fastLimit && x1 < fastLimit && x1 > -fastLimit && x2 < fastLimit && x2 > -fastLimit {
			return X, x1, x2, true
		}
	}
	s := max(m.X.Scale(), a.Scale(), b.Scale())
	if X, ok = mantAt(m.X, s); !ok {
		return
	}
	if x1, ok = mantAt(a, s); !ok {
		return
	}
	x2, ok = mantAt(b, s)
	return
}

// restBelow tests X - x1 - x2 < f × x1, the p% and p-q inequality.
func (m *magInput) restBelow(f frac) bool {
	if X, x1, x2, ok := m.top2(); ok {
		return decimal.MulCmpInt(X-x1-x2, f.den, x1, f.num) < 0
	}
	return decimal.MulCmp(m.X.Sub(m.x(0)).Sub(m.x(1)), f.den, m.x(0), f.num) < 0
}

// topAbove tests x1 + ... + xn > f × X, the dominance inequality.
func (m *magInput) topAbove(n int, f frac) bool {
	if n <= 2 {
		if X, x1, x2, ok := m.top2(); ok {
			s := x1
			if n == 2 {
				s += x2
			}
			return decimal.MulCmpInt(s, f.den, X, f.num) > 0
		}
	}
	return decimal.MulCmp(m.sumTop(n), f.den, m.X, f.num) > 0
}

// widthBelow tests (X - x2) - max(x2, X - (n-1) x2) < f × X, the interval
// inequality (n >= 2).
func (m *magInput) widthBelow(n int64, f frac) bool {
	if X, _, x2, ok := m.top2(); ok && n < fastLimit {
		if hi, lo := bits.Mul64(decimal.UAbs(x2), uint64(n-1)); hi == 0 && lo < fastLimit && x2 >= 0 {
			low := max(x2, X-int64(lo))
			return decimal.MulCmpInt(X-x2-low, f.den, X, f.num) < 0
		}
	}
	lo, hi := intervalBounds(m, n)
	return decimal.MulCmp(hi.Sub(lo), f.den, m.X, f.num) < 0
}

// shortDec returns r exactly when it is a decimal with at most 6 places,
// else rounded half-up to 6 places; for the figures of a finding.
func shortDec(r *big.Rat) decimal.Dec {
	if r.Num().IsInt64() && r.Denom().IsInt64() {
		num, den := r.Num().Int64(), r.Denom().Int64()
		if decimal.Pow10(6)%den == 0 {
			if hi, lo := bits.Mul64(decimal.UAbs(num), uint64(decimal.Pow10(6)/den)); hi == 0 && lo < 1<<63 {
				v := int64(lo)
				if num < 0 {
					v = -v
				}
				return decimal.Scaled(v, 6)
			}
		}
	}
	d, _ := decimal.Parse(decimal.RoundRat(r, 6))
	return d
}
