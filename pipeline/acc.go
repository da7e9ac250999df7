package pipeline

import (
	"math"
	"math/big"

	"github.com/sdcaudit/sdcaudit/audit"
)

// sum accumulates decimals exactly: one int64 bucket per scale, falling back
// to a big.Rat when a bucket would overflow.
type sum struct {
	buckets [audit.MaxScale + 1]int64
	used    uint32 // bit i set when bucket i is non-zero
	big     *big.Rat
}

func (s *sum) add(d audit.Dec) {
	sc := d.Scale()
	if m, ok := d.Mantissa(); ok {
		b := s.buckets[sc]
		r := b + m
		if (m > 0 && r < b) || (m < 0 && r > b) {
			s.spill(sc)
			r = m
		}
		s.buckets[sc] = r
		s.used |= 1 << sc
		return
	}
	if s.big == nil {
		s.big = new(big.Rat)
	}
	s.big.Add(s.big, d.Rat())
}

func (s *sum) spill(sc int) {
	if s.big == nil {
		s.big = new(big.Rat)
	}
	s.big.Add(s.big, audit.DecScaled(s.buckets[sc], sc).Rat())
	s.buckets[sc] = 0
}

func (s *sum) merge(o *sum) {
	for sc := 0; sc <= audit.MaxScale; sc++ {
		if o.used&(1<<sc) != 0 {
			s.add(audit.DecScaled(o.buckets[sc], sc))
		}
	}
	if o.big != nil {
		if s.big == nil {
			s.big = new(big.Rat)
		}
		s.big.Add(s.big, o.big)
	}
}

// value returns the exact sum.
func (s *sum) value() audit.Dec {
	var d audit.Dec
	for sc := 0; sc <= audit.MaxScale; sc++ {
		if s.used&(1<<sc) != 0 {
			d = d.Add(audit.DecScaled(s.buckets[sc], sc))
		}
	}
	if s.big != nil {
		d = d.Add(audit.DecFromRat(s.big))
	}
	return d
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

// topK keeps the k largest values in descending order.
type topK struct {
	k int
	v []audit.Dec
}

func (t *topK) add(d audit.Dec) {
	if t.k == 0 {
		return
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
		t.v = append(t.v, audit.Dec{})
	} else {
		n--
	}
	copy(t.v[i+1:], t.v[i:n])
	t.v[i] = d
}
