package meansd

import (
	"math"
	"math/big"
)

// bounds computes the analytic bounds from the published mean and SD (the
// sample SD; a population SD σ is converted with s = σ·sqrt(n/(n−1))):
//   - Samuelson (tight): |x − mean| ≤ s(n−1)/sqrt(n);
//   - Chebyshev as in the seed: at most a share 1/n outside mean ± s·sqrt(n);
//   - Selberg as in the seed: the interval [mean − α, mean + β] whose
//     Selberg bound on the share outside is at most 1/n, with the upper end
//     (and separately the lower end) as tight as possible;
//   - reverse-marching maximum: [mean + s·sqrt((n−1)/n), mean + s(n−1)/sqrt(n)].
//
// Each is rounded inward onto the grid (not clamped to the domain).
func bounds(p *problem) Bounds {
	n := float64(p.n)
	m, s := p.mean, p.sd
	if p.n < 2 {
		s = 0
	}
	min0, _ := p.min.Float64()
	step, _ := p.step.Float64()
	in := func(lo, hi float64) [2]float64 {
		const eps = 1e-9
		a := math.Ceil((lo-min0)/step - eps)
		b := math.Floor((hi-min0)/step + eps)
		return [2]float64{round12(min0 + a*step), round12(min0 + b*step)}
	}
	var b Bounds
	sam := s * (n - 1) / math.Sqrt(n)
	b.Samuelson = in(m-sam, m+sam)
	b.Chebyshev = in(m-s*math.Sqrt(n), m+s*math.Sqrt(n))
	up := selbergReach(s*s, 1/n, s*math.Sqrt(n))
	b.Selberg = in(m-up, m+up)
	b.MarchingMax = in(m+s*math.Sqrt((n-1)/n), m+sam)
	return b
}

func round12(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// selberg is Selberg's bound on the share of a distribution with variance
// v outside (mean − α, mean + β).
func selberg(v, alpha, beta float64) float64 {
	a, b := min(alpha, beta), max(alpha, beta)
	switch {
	case a*(b-a) >= 2*v:
		return v / (v + a*a)
	case a*b >= v:
		return ((b-a)*(b-a) + 4*v) / ((a + b) * (a + b))
	}
	return 1
}

// selbergReach is the least β such that some α gives a Selberg bound of at
// most share for (mean − α, mean + β); cheb is a β known to work.
func selbergReach(v, share, cheb float64) float64 {
	if v == 0 {
		return 0
	}
	ok := func(beta float64) bool {
		best := 1.0
		for i := 0; i <= 400; i++ {
			alpha := beta * math.Pow(10, -2+4*float64(i)/400)
			best = min(best, selberg(v, alpha, beta))
		}
		// the bound falls as α grows past the first regime; try α → ∞
		best = min(best, selberg(v, 1e12*beta, beta))
		return best <= share
	}
	lo, hi := 0.0, cheb*(1+1e-12)
	for range 60 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// indexOf is the grid index of an exact decimal value.
func (p *problem) indexOf(v string) int {
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return -1
	}
	r.Sub(r, p.min).Quo(r, p.step)
	if !r.IsInt() {
		return -1
	}
	return int(r.Num().Int64())
}
