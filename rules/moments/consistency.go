package moments

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Moments that no non-negative data can have. For non-negative values the
// Hankel matrices [m_{i+j}] and [m_{i+j+1}] of the raw moment means are
// positive semidefinite (Stieltjes), so every contiguous Hankel minor
//
//	det [m_{a+i+j}]_{i,j=0..r},  a + 2r <= K,
//
// is non-negative. For r = 1 that is m_a m_{a+2} >= m_{a+1}^2, the Lehmer
// means rising (L_{a+2} >= L_{a+1}; a = 0 is a non-negative variance); for
// a = 0, r = 2 it is c2 c4 >= c3^2 + c2^3, kurtosis g2 >= skewness g1^2 + 1.
// The checks are exact: raw moments are rationals, and the moments from a
// published skewness lie in Q(√d) (c3 = α√d with α, d rational), whose
// signs are decided exactly. Published statistics are taken as exact
// decimals: statistics rounded right at a boundary (data with a single
// non-zero value) can fail a check and then go to review.

// Inconsistency says why a set of moments cannot come from non-negative
// data. It is not an input error: the statistics can be read, but they
// contradict each other, so the cell needs a person.
type Inconsistency struct {
	Reason string
}

func (e *Inconsistency) Error() string { return e.Reason }

// CheckRaw checks raw moment means m[p-1] = S_p/n, p = 1..K, exactly. It
// returns nil when they pass every check (which does not prove that some
// non-negative sample has them).
func CheckRaw(m []*big.Rat) *Inconsistency {
	q := make([]quad, len(m)+1)
	q[0] = quad{a: big.NewRat(1, 1)}
	for i, v := range m {
		q[i+1] = quad{a: v}
	}
	return checkHankel(q, new(big.Rat))
}

// Check checks the summary's statistics under the definition exactly (see
// CheckRaw). Errors in the summary itself (a missing mean, n too small for
// the definition) are returned as errors, as by RawMoments.
func (s Summary) Check(def Definition) (*Inconsistency, error) {
	c, alpha, d, err := s.central(def)
	if err != nil {
		return nil, err
	}
	rat := CentralToRaw(s.Mean, c)
	q := make([]quad, len(c))
	for p := range q {
		q[p] = quad{a: rat[p]}
	}
	if alpha != nil {
		e := make([]*big.Rat, len(c))
		for p := range e {
			e[p] = new(big.Rat)
		}
		e[3] = alpha
		irr := CentralToRaw(s.Mean, e)
		for p := range q {
			q[p].b = irr[p]
		}
	} else {
		d = new(big.Rat)
	}
	inc := checkHankel(q, d)
	if inc != nil && s.Kurtosis != nil && strings.Contains(inc.Reason, "kurtosis") {
		inc.Reason += fmt.Sprintf(" (published statistics read as %s)", def)
	}
	return inc, nil
}

// checkHankel runs the checks on m_0..m_K (m_0 = 1) in Q(√d).
func checkHankel(m []quad, d *big.Rat) *Inconsistency {
	k := len(m) - 1
	for p := 1; p <= k; p++ {
		if m[p].sign(d) < 0 {
			return &Inconsistency{fmt.Sprintf("the moments cannot come from non-negative data: the raw moment m%d (S_%d/n) is negative", p, p)}
		}
	}
	for a := 0; a+2 <= k; a++ {
		det := m[a].mul(m[a+2], d).sub(m[a+1].mul(m[a+1], d))
		if det.sign(d) >= 0 {
			continue
		}
		if a == 0 {
			return &Inconsistency{"the moments cannot come from non-negative data: the variance is negative (L_2 < L_1)"}
		}
		return &Inconsistency{fmt.Sprintf("the moments cannot come from non-negative data: the Lehmer means fall, L_%d = %.6g < L_%d = %.6g (S_%d² > S_%d·S_%d)", a+2, ratio(m[a+2], m[a+1], d), a+1, ratio(m[a+1], m[a], d), a+1, a, a+2)}
	}
	for a := 0; a+4 <= k; a++ {
		det := hankel3(m[a:a+5], d)
		if det.sign(d) >= 0 {
			continue
		}
		if a == 0 {
			g1sq, g2 := shape(m, d)
			return &Inconsistency{fmt.Sprintf("the moments cannot come from any data: the kurtosis g2 = %.6g is below the skewness squared plus one, g1² + 1 = %.6g", g2, g1sq+1)}
		}
		return &Inconsistency{fmt.Sprintf("the moments cannot come from non-negative data: the moments of orders %d..%d violate the Stieltjes condition (a negative Hankel determinant)", a, a+4)}
	}
	return nil
}

// hankel3 is det [m_{i+j}], i, j = 0..2.
func hankel3(m []quad, d *big.Rat) quad {
	mul := func(x, y quad) quad { return x.mul(y, d) }
	// m0(m2 m4 - m3²) - m1(m1 m4 - m2 m3) + m2(m1 m3 - m2²)
	t1 := mul(m[0], mul(m[2], m[4]).sub(mul(m[3], m[3])))
	t2 := mul(m[1], mul(m[1], m[4]).sub(mul(m[2], m[3])))
	t3 := mul(m[2], mul(m[1], m[3]).sub(mul(m[2], m[2])))
	return t1.sub(t2).add(t3)
}

// shape returns g1² and g2 from m_0..m_4, for messages.
func shape(m []quad, d *big.Rat) (g1sq, g2 float64) {
	mean := m[1].float(d)
	m2, m3, m4 := m[2].float(d), m[3].float(d), m[4].float(d)
	c2 := m2 - mean*mean
	c3 := m3 - 3*mean*m2 + 2*mean*mean*mean
	c4 := m4 - 4*mean*m3 + 6*mean*mean*m2 - 3*mean*mean*mean*mean
	return c3 * c3 / (c2 * c2 * c2), c4 / (c2 * c2)
}

func ratio(x, y quad, d *big.Rat) float64 { return x.float(d) / y.float(d) }

// quad is a + b√d for a fixed rational d >= 0 (b nil: zero).
type quad struct{ a, b *big.Rat }

func (x quad) bOr0() *big.Rat {
	if x.b == nil {
		return new(big.Rat)
	}
	return x.b
}

func (x quad) add(y quad) quad {
	return quad{new(big.Rat).Add(x.a, y.a), new(big.Rat).Add(x.bOr0(), y.bOr0())}
}

func (x quad) sub(y quad) quad {
	return quad{new(big.Rat).Sub(x.a, y.a), new(big.Rat).Sub(x.bOr0(), y.bOr0())}
}

func (x quad) mul(y quad, d *big.Rat) quad {
	xb, yb := x.bOr0(), y.bOr0()
	a := new(big.Rat).Mul(x.a, y.a)
	t := new(big.Rat).Mul(xb, yb)
	a.Add(a, t.Mul(t, d))
	b := new(big.Rat).Mul(x.a, yb)
	b.Add(b, new(big.Rat).Mul(xb, y.a))
	return quad{a, b}
}

// sign is the exact sign of a + b√d.
func (x quad) sign(d *big.Rat) int {
	sa := x.a.Sign()
	sb := 0
	if x.b != nil && d.Sign() > 0 {
		sb = x.b.Sign()
	}
	switch {
	case sb == 0:
		return sa
	case sa == 0 || sa == sb:
		return sb
	}
	// opposite signs: compare a² with b²d
	a2 := new(big.Rat).Mul(x.a, x.a)
	b2 := new(big.Rat).Mul(x.b, x.b)
	b2.Mul(b2, d)
	switch a2.Cmp(b2) {
	case 1:
		return sa
	case -1:
		return sb
	}
	return 0
}

func (x quad) float(d *big.Rat) float64 {
	f := new(big.Float).SetPrec(256).SetRat(x.a)
	if x.b != nil && d.Sign() > 0 {
		r := new(big.Float).SetPrec(256).SetRat(d)
		r.Sqrt(r)
		r.Mul(r, new(big.Float).SetPrec(256).SetRat(x.b))
		f.Add(f, r)
	}
	v, _ := f.Float64()
	return v
}

// CheckCount checks raw moment means m[p-1] = S_p/n, p = 1..K, exactly
// against what n non-negative values allow beyond the Hankel conditions of
// CheckRaw (which hold for any distribution): no Lehmer mean L_p =
// S_p/S_{p-1} exceeds the largest value, and the largest value is at most
// S_q^(1/q) for every q and at most the Samuelson bound mean + SD·√(n−1)
// (SD with divisor n). So S_p^q <= S_q·S_{p-1}^q for all p, q (S_0 = n;
// p = 2, q = 1 is S_2 <= S_1²) and (L_p − mean)² <= (n−1)·c2 where L_p
// exceeds the mean. It returns nil when the means pass (or n < 1), and
// leaves negative means to CheckRaw.
func CheckCount(n int64, m []*big.Rat) *Inconsistency {
	if n < 1 || len(m) == 0 {
		return nil
	}
	for _, v := range m {
		if v == nil || v.Sign() < 0 {
			return nil
		}
	}
	nr := new(big.Rat).SetInt64(n)
	mm := append([]*big.Rat{big.NewRat(1, 1)}, m...) // mm[p] = m_p, m_0 = 1
	k := len(m)
	pow := func(x *big.Rat, e int) *big.Rat {
		num := new(big.Int).Exp(x.Num(), big.NewInt(int64(e)), nil)
		den := new(big.Int).Exp(x.Denom(), big.NewInt(int64(e)), nil)
		return new(big.Rat).SetFrac(num, den)
	}
	fl := func(x *big.Rat) float64 { f, _ := x.Float64(); return f }
	for p := 1; p <= k; p++ {
		for q := 1; q <= k; q++ {
			lhs := pow(mm[p], q)
			rhs := new(big.Rat).Mul(nr, mm[q])
			rhs.Mul(rhs, pow(mm[p-1], q))
			if lhs.Cmp(rhs) <= 0 {
				continue
			}
			sp := new(big.Rat).Mul(mm[p], nr)
			sq := new(big.Rat).Mul(mm[q], nr)
			if p == 1 {
				return &Inconsistency{fmt.Sprintf("the moments cannot come from %d non-negative values: the mean %.6g exceeds S_%d^(1/%d) = %.6g, the most one of them can be (S_1%s > n%s·S_%d)", n, fl(mm[1]), q, q, math.Pow(fl(sq), 1/float64(q)), sup(q), sup(q-1), q)}
			}
			sp1 := new(big.Rat).Mul(mm[p-1], nr)
			of := fmt.Sprintf("S_%d^(1/%d)", q, q)
			if q == 1 {
				of = "S_1"
			}
			return &Inconsistency{fmt.Sprintf("the moments cannot come from %d non-negative values: the Lehmer mean L_%d = S_%d/S_%d = %.6g exceeds %s = %.6g, the most one of them can be (S_%d%s > S_%d·S_%d%s)", n, p, p, p-1, fl(sp)/fl(sp1), of, math.Pow(fl(sq), 1/float64(q)), p, sup(q), q, p-1, sup(q))}
		}
	}
	if k < 2 {
		return nil
	}
	c2 := new(big.Rat).Sub(mm[2], new(big.Rat).Mul(mm[1], mm[1]))
	if c2.Sign() < 0 {
		return nil // CheckRaw: a negative variance
	}
	bound := new(big.Rat).Mul(c2, new(big.Rat).SetInt64(n-1))
	for p := 2; p <= k; p++ {
		if mm[p-1].Sign() == 0 {
			continue
		}
		d := new(big.Rat).Quo(mm[p], mm[p-1])
		d.Sub(d, mm[1])
		if d.Sign() <= 0 || new(big.Rat).Mul(d, d).Cmp(bound) <= 0 {
			continue
		}
		sam := fl(mm[1]) + math.Sqrt(fl(bound))
		return &Inconsistency{fmt.Sprintf("the moments cannot come from %d non-negative values: the Lehmer mean L_%d = %.6g exceeds the Samuelson bound mean + SD·√(n−1) = %.6g, the most any of them can be", n, p, fl(mm[p])/fl(mm[p-1]), sam)}
	}
	return nil
}

// sup writes an exponent ("" for 1, "^e" otherwise).
func sup(e int) string {
	if e == 1 {
		return ""
	}
	return fmt.Sprintf("^%d", e)
}
