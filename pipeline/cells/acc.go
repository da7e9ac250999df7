package cells

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// sum accumulates decimals exactly in a compact form: a 128-bit two's
// complement mantissa (hi:lo) at the largest scale seen so far (rescaled
// when a value with more decimals arrives), falling back to a big.Rat
// beyond 128 bits. It is small on purpose: every record updates one
// cell's sums, and small accumulators stay in cache. 128 bits hold the
// sum of squares of values with many digits (an int64 mantissa does not:
// 1e8 with two decimals, squared, already overflows it).
type sum struct {
	hi    int64
	lo    uint64
	scale int32
	big   *big.Rat
}

func (s *sum) add(d decimal.Dec) {
	if s.big == nil {
		if m, ok := d.Mantissa(); ok {
			s.addWide(m>>63, uint64(m), int32(d.Scale()))
			return
		}
		s.spill()
	}
	s.big.Add(s.big, d.Rat())
}

// addWide adds (hi:lo) × 10^-sc.
func (s *sum) addWide(hi int64, lo uint64, sc int32) {
	if s.big == nil {
		if sc > s.scale {
			if h, l, ok := scaleUp128(s.hi, s.lo, sc-s.scale); ok {
				s.hi, s.lo, s.scale = h, l, sc
			} else {
				s.spill()
			}
		}
		if s.big == nil {
			if h, l, ok := scaleUp128(hi, lo, s.scale-sc); ok {
				if h, l, ok := add128(s.hi, s.lo, h, l); ok {
					s.hi, s.lo = h, l
					return
				}
			}
			s.spill()
		}
	}
	s.big.Add(s.big, ratOf128(hi, lo, sc))
}

// scaleUp returns m × 10^k when it fits int64.
func scaleUp(m int64, k int32) (int64, bool) {
	for ; k > 0; k-- {
		if m > math.MaxInt64/10 || m < math.MinInt64/10 {
			return 0, false
		}
		m *= 10
	}
	return m, true
}

// neg128 returns -(hi:lo).
func neg128(hi int64, lo uint64) (int64, uint64) {
	l, c := bits.Add64(^lo, 1, 0)
	return ^hi + int64(c), l
}

// add128 returns a + b when it fits 128 bits.
func add128(ah int64, al uint64, bh int64, bl uint64) (int64, uint64, bool) {
	l, c := bits.Add64(al, bl, 0)
	hu, _ := bits.Add64(uint64(ah), uint64(bh), c)
	h := int64(hu)
	if (ah < 0) == (bh < 0) && (h < 0) != (ah < 0) {
		return 0, 0, false
	}
	return h, l, true
}

// scaleUp128 returns (hi:lo) × 10^k when it fits 128 bits.
func scaleUp128(hi int64, lo uint64, k int32) (int64, uint64, bool) {
	if k <= 0 || (hi == 0 && lo == 0) {
		return hi, lo, true
	}
	neg := hi < 0
	if neg {
		if hi, lo = neg128(hi, lo); hi < 0 {
			return 0, 0, false // -2^127
		}
	}
	for k > 0 {
		step := min(k, 18)
		k -= step
		f := uint64(decimal.Pow10(int(step)))
		ph, pl := bits.Mul64(lo, f)
		qh, ql := bits.Mul64(uint64(hi), f)
		if qh != 0 {
			return 0, 0, false
		}
		h, c := bits.Add64(ql, ph, 0)
		if c != 0 || h>>63 != 0 {
			return 0, 0, false
		}
		hi, lo = int64(h), pl
	}
	if neg {
		hi, lo = neg128(hi, lo)
	}
	return hi, lo, true
}

// ratOf128 returns (hi:lo) × 10^-sc exactly.
func ratOf128(hi int64, lo uint64, sc int32) *big.Rat {
	n := new(big.Int).Lsh(big.NewInt(hi), 64)
	n.Add(n, new(big.Int).SetUint64(lo))
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sc)), nil)
	return new(big.Rat).SetFrac(n, d)
}

// spill moves the sum to exact big arithmetic.
func (s *sum) spill() {
	if s.big == nil {
		s.big = ratOf128(s.hi, s.lo, s.scale)
		s.hi, s.lo, s.scale = 0, 0, 0
	}
}

func (s *sum) merge(o *sum) {
	if o.big != nil {
		s.spill()
		s.big.Add(s.big, o.big)
		return
	}
	s.addWide(o.hi, o.lo, o.scale)
}

// value returns the exact sum.
func (s *sum) value() decimal.Dec {
	if s.big != nil {
		return decimal.FromRat(s.big)
	}
	if s.hi == int64(s.lo)>>63 {
		return decimal.Scaled(int64(s.lo), int(s.scale))
	}
	return decimal.FromRat(ratOf128(s.hi, s.lo, s.scale))
}

// powSums keeps Σ (x/scale)^p for p = 1..len(v), rescaled whenever a
// larger |x| arrives, so that high powers stay finite.
type powSums struct {
	scale float64
	v     []float64
}

func (p *powSums) add(x float64) {
	ax := math.Abs(x)
	if ax > p.scale {
		p.rescale(ax)
	}
	if p.scale == 0 {
		return
	}
	r := x / p.scale
	t := 1.0
	for i := range p.v {
		t *= r
		p.v[i] += t
	}
}

func (p *powSums) rescale(s float64) {
	if p.scale > 0 {
		r := p.scale / s
		f := 1.0
		for i := range p.v {
			f *= r
			p.v[i] *= f
		}
	}
	p.scale = s
}

func (p *powSums) merge(o *powSums) {
	if o.scale > p.scale {
		p.rescale(o.scale)
	}
	if o.scale == 0 || p.scale == 0 {
		return
	}
	r := o.scale / p.scale
	f := 1.0
	for i := range p.v {
		f *= r
		p.v[i] += o.v[i] * f
	}
}

// topK keeps the k largest values in descending order. The smallest kept
// value is also held as a mantissa and scale, so that the common case (a
// value that does not enter) is decided without touching the slice.
type topK struct {
	k      int
	v      []decimal.Dec
	lastM  int64
	lastSc int32
	fast   bool // lastM/lastSc hold v[k-1] and the slice is full
}

func (t *topK) add(d decimal.Dec) {
	if t.k == 0 {
		return
	}
	if t.fast {
		if m, ok := d.Mantissa(); ok {
			if c, ok := cmpScaled(m, int32(d.Scale()), t.lastM, t.lastSc); ok && c <= 0 {
				return
			}
		}
	}
	n := len(t.v)
	if n == t.k && d.Cmp(t.v[n-1]) <= 0 {
		return
	}
	i := n
	for i > 0 && d.Cmp(t.v[i-1]) > 0 {
		i--
	}
	if n < t.k {
		t.v = append(t.v, decimal.Dec{})
	} else {
		n--
	}
	copy(t.v[i+1:], t.v[i:n])
	t.v[i] = d
	if len(t.v) == t.k {
		last := t.v[t.k-1]
		m, ok := last.Mantissa()
		t.lastM, t.lastSc, t.fast = m, int32(last.Scale()), ok
	}
}

// cmpScaled compares a×10^-as with b×10^-bs when both fit int64 at the
// larger scale; ok is false when they do not.
func cmpScaled(a int64, as int32, b int64, bs int32) (int, bool) {
	var ok bool
	switch {
	case as < bs:
		if a, ok = scaleUp(a, bs-as); !ok {
			return 0, false
		}
	case bs < as:
		if b, ok = scaleUp(b, as-bs); !ok {
			return 0, false
		}
	}
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}
