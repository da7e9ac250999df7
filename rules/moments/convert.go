package moments

import (
	"fmt"
	"math/big"
)

// Raw and central moments (seed appendix A). Raw moment means are
// M_p = S_p / n, central moments c_p = Σ (x - mean)^p / n, both with the
// divisor n, and indexed from p = 0 (M_0 = c_0 = 1, c_1 = 0):
//
//	c_p = Σ_{l=0..p} C(p,l) (-1)^(p-l) M_l mean^(p-l)   (5)
//	M_p = Σ_{l=0..p} C(p,l) c_l mean^(p-l)              (6)

// RawToCentral converts raw moment means m[0..K] (m[0] = 1, m[1] = mean)
// to central moments c[0..K], exactly.
func RawToCentral(m []*big.Rat) []*big.Rat {
	c := make([]*big.Rat, len(m))
	if len(m) < 2 {
		copy(c, m)
		return c
	}
	mean := m[1]
	negMean := new(big.Rat).Neg(mean)
	for p := range m {
		c[p] = binomSum(p, m, negMean)
	}
	return c
}

// CentralToRaw converts central moments c[0..K] (c[0] = 1, c[1] = 0) and
// the mean to raw moment means m[0..K], exactly.
func CentralToRaw(mean *big.Rat, c []*big.Rat) []*big.Rat {
	m := make([]*big.Rat, len(c))
	for p := range c {
		m[p] = binomSum(p, c, mean)
	}
	return m
}

// binomSum returns Σ_{l=0..p} C(p,l) a[l] b^(p-l).
func binomSum(p int, a []*big.Rat, b *big.Rat) *big.Rat {
	sum := new(big.Rat)
	bp := big.NewRat(1, 1) // b^(p-l), built from l = p downwards
	t := new(big.Rat)
	binom := new(big.Int)
	for l := p; l >= 0; l-- {
		binom.Binomial(int64(p), int64(l))
		t.SetInt(binom)
		t.Mul(t, a[l])
		t.Mul(t, bp)
		sum.Add(sum, t)
		bp = new(big.Rat).Mul(bp, b)
	}
	return sum
}

// RawToCentralFloat is RawToCentral in float64. It loses precision when the
// mean is large against the spread, as every such formula does; use the
// exact version for published decimals.
func RawToCentralFloat(m []float64) []float64 {
	c := make([]float64, len(m))
	if len(m) < 2 {
		copy(c, m)
		return c
	}
	for p := range m {
		c[p] = binomSumFloat(p, m, -m[1])
	}
	return c
}

// CentralToRawFloat is CentralToRaw in float64.
func CentralToRawFloat(mean float64, c []float64) []float64 {
	m := make([]float64, len(c))
	for p := range c {
		m[p] = binomSumFloat(p, c, mean)
	}
	return m
}

func binomSumFloat(p int, a []float64, b float64) float64 {
	sum, bp, binom := 0.0, 1.0, 1.0 // binom = C(p, l) for l from p down
	for l := p; l >= 0; l-- {
		sum += binom * a[l] * bp
		bp *= b
		binom = binom * float64(l) / float64(p-l+1)
	}
	return sum
}

// SDKind says which standard deviation is published.
type SDKind string

// The SD definitions.
const (
	SampleSD     SDKind = "sample"     // divisor n-1 (the default: R, SAS, Stata, Excel STDEV)
	PopulationSD SDKind = "population" // divisor n: sqrt(c_2)
)

// ShapeKind says which estimator of skewness or kurtosis is published.
type ShapeKind string

// The skewness and kurtosis definitions (Joanes and Gill 1998).
const (
	// FisherPearson: g1 = c3/c2^(3/2), g2 = c4/c2^2 with the divisor-n
	// central moments (the seed's definition; scipy default, R moments,
	// Stata).
	FisherPearson ShapeKind = "g"
	// Adjusted: G1 = g1 sqrt(n(n-1))/(n-2) and
	// G2 = ((n+1)(g2-3) + 6)(n-1)/((n-2)(n-3)) (Excel SKEW/KURT, SAS,
	// SPSS); G2 is an excess kurtosis by construction.
	Adjusted ShapeKind = "G"
	// SampleSDBased: b1 = c3/s^3, b2 = c4/s^4 with the sample SD s
	// (R e1071 type 3, Minitab).
	SampleSDBased ShapeKind = "b"
)

// Definition states how published SD, skewness and kurtosis are defined.
// The zero value is the seed's: sample SD, Fisher-Pearson skewness and
// kurtosis, kurtosis not in excess form.
type Definition struct {
	SD       SDKind
	Skewness ShapeKind
	Kurtosis ShapeKind
	// Excess says the published kurtosis has 3 subtracted (the normal
	// distribution has 0).
	Excess bool
}

func (d Definition) norm() Definition {
	if d.SD == "" {
		d.SD = SampleSD
	}
	if d.Skewness == "" {
		d.Skewness = FisherPearson
	}
	if d.Kurtosis == "" {
		d.Kurtosis = FisherPearson
	}
	return d
}

// String describes the definition in words, for reports.
func (d Definition) String() string {
	d = d.norm()
	k := string(d.Kurtosis) + "2"
	if d.Excess {
		k += " (excess)"
	}
	return fmt.Sprintf("SD %s, skewness %s1, kurtosis %s", d.SD, d.Skewness, k)
}

// Validate reports an unknown kind.
func (d Definition) Validate() error {
	d = d.norm()
	if d.SD != SampleSD && d.SD != PopulationSD {
		return fmt.Errorf("%w: SD definition %q (sample or population)", ErrInput, d.SD)
	}
	for _, k := range []ShapeKind{d.Skewness, d.Kurtosis} {
		if k != FisherPearson && k != Adjusted && k != SampleSDBased {
			return fmt.Errorf("%w: skewness/kurtosis definition %q (g, G or b)", ErrInput, k)
		}
	}
	return nil
}

// Summary is what a released table shows of one cell: n, the mean, and
// optionally the SD (or variance), skewness and kurtosis. A nil field is
// not published. Decimals convert exactly with new(big.Rat).SetString.
type Summary struct {
	N        int64
	Mean     *big.Rat
	SD       *big.Rat
	Variance *big.Rat // used when SD is nil; same divisor as the SD kind
	Skewness *big.Rat
	Kurtosis *big.Rat
}

// RawMoments converts the summary to raw moment means M_1..M_K under the
// definition, K = 1 (mean), 2 (SD or variance), 3 (skewness), 4 (kurtosis)
// as far as consecutive statistics are published. The third moment
// involves a square root and is computed with 256-bit precision; the
// others are exact.
func (s Summary) RawMoments(def Definition) ([]*big.Rat, error) {
	c, alpha, d, err := s.central(def)
	if err != nil {
		return nil, err
	}
	if alpha != nil { // c3 = alpha sqrt(d)
		cf := new(big.Float).SetPrec(256).SetRat(d)
		cf.Sqrt(cf)
		cf.Mul(cf, new(big.Float).SetPrec(256).SetRat(alpha))
		c[3], _ = cf.Rat(nil)
	}
	m := CentralToRaw(s.Mean, c)
	return m[1:], nil
}

// central returns the central moments c_0..c_K (divisor n) of the summary
// under the definition, exactly except c_3 = alpha·√d, which involves a
// square root: c[3] is then left zero and alpha, d (rationals) are
// returned; alpha is nil when no skewness is used.
func (s Summary) central(def Definition) (c []*big.Rat, alpha, d *big.Rat, err error) {
	def = def.norm()
	if err := def.Validate(); err != nil {
		return nil, nil, nil, err
	}
	if s.N < 1 || s.Mean == nil {
		return nil, nil, nil, fmt.Errorf("%w: n and the mean are needed", ErrInput)
	}
	n := new(big.Rat).SetInt64(s.N)
	c = []*big.Rat{big.NewRat(1, 1), new(big.Rat)}
	var c2 *big.Rat
	switch {
	case s.SD != nil:
		c2 = new(big.Rat).Mul(s.SD, s.SD)
	case s.Variance != nil:
		c2 = new(big.Rat).Set(s.Variance)
	}
	if c2 != nil {
		if c2.Sign() < 0 {
			return nil, nil, nil, fmt.Errorf("%w: negative variance", ErrInput)
		}
		if def.SD == SampleSD {
			if s.N < 2 {
				return nil, nil, nil, fmt.Errorf("%w: a sample SD needs n >= 2", ErrInput)
			}
			c2.Mul(c2, new(big.Rat).Quo(new(big.Rat).SetInt64(s.N-1), n)) // c2 = s^2 (n-1)/n
		}
		c = append(c, c2)
	}
	if c2 == nil || s.Skewness == nil {
		return c, nil, nil, nil
	}
	if c2.Sign() == 0 {
		return nil, nil, nil, fmt.Errorf("%w: skewness with zero variance", ErrInput)
	}
	// c3 = g1 c2^(3/2) = alpha sqrt(d)
	alpha = new(big.Rat).Mul(s.Skewness, c2)
	d = new(big.Rat).Set(c2)
	switch def.Skewness {
	case Adjusted: // g1 = G1 (n-2) / sqrt(n(n-1))
		if s.N < 3 {
			return nil, nil, nil, fmt.Errorf("%w: adjusted skewness needs n >= 3", ErrInput)
		}
		alpha.Mul(alpha, new(big.Rat).SetInt64(s.N-2))
		d.Quo(d, new(big.Rat).SetInt64(s.N*(s.N-1)))
	case SampleSDBased: // b1 = g1 ((n-1)/n)^(3/2), so g1 = b1 r sqrt(r) with r = n/(n-1)
		if s.N < 2 {
			return nil, nil, nil, fmt.Errorf("%w: skewness b1 needs n >= 2", ErrInput)
		}
		r := new(big.Rat).Quo(n, new(big.Rat).SetInt64(s.N-1))
		alpha.Mul(alpha, r)
		d.Mul(d, r)
	}
	c = append(c, new(big.Rat))
	if s.Kurtosis != nil {
		k := new(big.Rat).Set(s.Kurtosis)
		three := big.NewRat(3, 1)
		switch def.Kurtosis {
		case Adjusted: // G2 excess: g2e = (G2 (n-2)(n-3)/(n-1) - 6)/(n+1)
			if s.N < 4 {
				return nil, nil, nil, fmt.Errorf("%w: adjusted kurtosis needs n >= 4", ErrInput)
			}
			if !def.Excess {
				k.Sub(k, three)
			}
			k.Mul(k, big.NewRat((s.N-2)*(s.N-3), s.N-1))
			k.Sub(k, big.NewRat(6, 1))
			k.Quo(k, new(big.Rat).SetInt64(s.N+1))
			k.Add(k, three)
		case SampleSDBased: // b2 = g2 ((n-1)/n)^2
			if def.Excess {
				k.Add(k, three)
			}
			r := new(big.Rat).Quo(n, new(big.Rat).SetInt64(s.N-1))
			k.Mul(k, r)
			k.Mul(k, r)
		default:
			if def.Excess {
				k.Add(k, three)
			}
		}
		// c4 = g2 c2^2 (g2 not in excess form here)
		c4 := new(big.Rat).Mul(c2, c2)
		c4.Mul(c4, k)
		c = append(c, c4)
	}
	return c, alpha, d, nil
}

// ratFloat converts a big.Rat to a big.Float with 256 bits.
func ratFloat(r *big.Rat) *big.Float { return new(big.Float).SetPrec(256).SetRat(r) }

// RatsToFloats converts exact moments to big.Float for FromMoments.
func RatsToFloats(r []*big.Rat) []*big.Float {
	out := make([]*big.Float, len(r))
	for i, v := range r {
		out[i] = ratFloat(v)
	}
	return out
}
