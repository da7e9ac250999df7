package pipeline

import (
	"math"
	"math/big"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// sum accumulates decimals exactly in a compact form: one int64 mantissa
// at the largest scale seen so far (rescaled when a value with more
// decimals arrives), falling back to a big.Rat on overflow. It is small on
// purpose: every record updates one cell's sums, and small accumulators
// stay in cache.
type sum struct {
	m     int64
	scale int32
	big   *big.Rat
}

func (s *sum) add(d decimal.Dec) {
	if s.big == nil {
		if m, ok := d.Mantissa(); ok {
			sc := int32(d.Scale())
			if sc > s.scale {
				if r, ok := scaleUp(s.m, sc-s.scale); ok {
					s.m, s.scale = r, sc
				} else {
					s.spill()
				}
			}
			if s.big == nil {
				if v, ok := scaleUp(m, s.scale-sc); ok {
					if r := s.m + v; (v >= 0 && r >= s.m) || (v < 0 && r < s.m) {
						s.m = r
						return
					}
				}
				s.spill()
			}
		} else {
			s.spill()
		}
	}
	s.big.Add(s.big, d.Rat())
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

// spill moves the sum to exact big arithmetic.
func (s *sum) spill() {
	if s.big == nil {
		s.big = decimal.Scaled(s.m, int(s.scale)).Rat()
		s.m, s.scale = 0, 0
	}
}

func (s *sum) merge(o *sum) {
	if o.big != nil {
		s.spill()
		s.big.Add(s.big, o.big)
		return
	}
	s.add(decimal.Scaled(o.m, int(o.scale)))
}

// value returns the exact sum.
func (s *sum) value() decimal.Dec {
	if s.big != nil {
		return decimal.FromRat(s.big)
	}
	return decimal.Scaled(s.m, int(s.scale))
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
