package meansd

import (
	"math/big"
	"strings"
)

// This file is an independent oracle: it rounds the exact mean and SD of a
// sample to a published string and compares, without the interval algebra
// the solver uses.

// roundRat rounds x to d decimals under r (HalfUp or HalfEven), as a string.
func roundRat(x *big.Rat, d int, r Rounding) string {
	neg := x.Sign() < 0
	a := new(big.Rat).Abs(x)
	a.Mul(a, new(big.Rat).SetInt(pow10(d)))
	f := new(big.Int).Quo(a.Num(), a.Denom())
	frac := new(big.Rat).Sub(a, new(big.Rat).SetInt(f))
	switch frac.Cmp(big.NewRat(1, 2)) {
	case 1:
		f.Add(f, big.NewInt(1))
	case 0:
		if r == HalfUp || f.Bit(0) == 1 {
			f.Add(f, big.NewInt(1))
		}
	}
	return fmtScaled(f, d, neg)
}

// roundSqrt rounds sqrt(x) (x ≥ 0 rational) to d decimals under r.
func roundSqrt(x *big.Rat, d int, r Rounding) string {
	X := new(big.Rat).Mul(x, new(big.Rat).SetInt(pow10(2*d)))
	fl := new(big.Int).Quo(X.Num(), X.Denom())
	f := new(big.Int).Sqrt(fl) // floor(sqrt(X))
	// compare X with (f + 1/2)^2
	h := new(big.Rat).SetFrac(new(big.Int).Add(new(big.Int).Mul(f, big.NewInt(2)), big.NewInt(1)), big.NewInt(2))
	h.Mul(h, h)
	switch X.Cmp(h) {
	case 1:
		f.Add(f, big.NewInt(1))
	case 0:
		if r == HalfUp || f.Bit(0) == 1 {
			f.Add(f, big.NewInt(1))
		}
	}
	return fmtScaled(f, d, false)
}

func fmtScaled(f *big.Int, d int, neg bool) string {
	s := f.String()
	if d > 0 {
		for len(s) <= d {
			s = "0" + s
		}
		s = s[:len(s)-d] + "." + s[len(s)-d:]
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// within reports |x - v| <= 5·10^-(d+1) (closed) or x == v (exact) for
// the mean; for the SD x is a square (sqrt taken implicitly).
func withinMean(x, v *big.Rat, d int, exact bool) bool {
	if exact {
		return x.Cmp(v) == 0
	}
	h := new(big.Rat).SetFrac(big.NewInt(5), pow10(d+1))
	diff := new(big.Rat).Sub(x, v)
	return diff.Abs(diff).Cmp(h) <= 0
}

func withinSqrt(x2, v *big.Rat, d int, exact bool) bool {
	if exact {
		return x2.Cmp(new(big.Rat).Mul(v, v)) == 0
	}
	h := new(big.Rat).SetFrac(big.NewInt(5), pow10(d+1))
	lo := new(big.Rat).Sub(v, h)
	hi := new(big.Rat).Add(v, h)
	if lo.Sign() > 0 && x2.Cmp(new(big.Rat).Mul(lo, lo)) < 0 {
		return false
	}
	return x2.Cmp(new(big.Rat).Mul(hi, hi)) <= 0
}

// stats returns the exact mean, variance and median of a sample.
func stats(vals []*big.Rat, population bool) (mean, variance, median *big.Rat) {
	n := int64(len(vals))
	S := new(big.Rat)
	for _, v := range vals {
		S.Add(S, v)
	}
	mean = new(big.Rat).Quo(S, big.NewRat(n, 1))
	ss := new(big.Rat)
	for _, v := range vals {
		d := new(big.Rat).Sub(v, mean)
		ss.Add(ss, d.Mul(d, d))
	}
	div := n - 1
	if population {
		div = n
	}
	variance = ss.Quo(ss, big.NewRat(div, 1))
	if n%2 == 1 {
		median = new(big.Rat).Set(vals[n/2])
	} else {
		median = new(big.Rat).Add(vals[n/2-1], vals[n/2])
		median.Quo(median, big.NewRat(2, 1))
	}
	return
}

// oracleMatch says whether an ascending sample fits the request.
func oracleMatch(req Request, vals []*big.Rat) bool {
	mean, variance, median := stats(vals, req.Population)
	md, sd := decimals(req.Mean), decimals(req.SD)
	if req.MeanDP > 0 {
		md = req.MeanDP
	}
	if req.SDDP > 0 {
		sd = req.SDDP
	}
	pm, _ := new(big.Rat).SetString(req.Mean)
	ps, _ := new(big.Rat).SetString(req.SD)
	r := req.Rounding
	if r == "" {
		r = HalfUp
	}
	check := func(x, v *big.Rat, d int, str string, sqrt bool) bool {
		switch r {
		case Closed, Exact:
			if sqrt {
				return withinSqrt(x, v, d, r == Exact)
			}
			return withinMean(x, v, d, r == Exact)
		}
		var got string
		if sqrt {
			got = roundSqrt(x, d, r)
		} else {
			got = roundRat(x, d, r)
		}
		want := fmtScaled(new(big.Int).Quo(new(big.Rat).Mul(v, new(big.Rat).SetInt(pow10(d))).Num(), new(big.Rat).Mul(v, new(big.Rat).SetInt(pow10(d))).Denom()), d, v.Sign() < 0)
		if v.Sign() < 0 {
			a := new(big.Rat).Neg(v)
			a.Mul(a, new(big.Rat).SetInt(pow10(d)))
			want = fmtScaled(new(big.Int).Quo(a.Num(), a.Denom()), d, true)
		}
		return got == want
	}
	if !check(mean, pm, md, req.Mean, false) || !check(variance, ps, sd, req.SD, true) {
		return false
	}
	if req.Median != "" {
		pmed, _ := new(big.Rat).SetString(req.Median)
		if !check(median, pmed, decimals(req.Median), req.Median, false) {
			return false
		}
	}
	return true
}

// bruteForce enumerates every multiset and returns the matching count
// vectors.
func bruteForce(req Request) [][]int {
	mn, _ := new(big.Rat).SetString(req.Min)
	mx, _ := new(big.Rat).SetString(req.Max)
	step := big.NewRat(1, 1)
	if req.Step != "" {
		step, _ = new(big.Rat).SetString(req.Step)
	}
	kr := new(big.Rat).Quo(new(big.Rat).Sub(mx, mn), step)
	K := int(kr.Num().Int64())
	grid := make([]*big.Rat, K+1)
	for k := range grid {
		grid[k] = new(big.Rat).Add(mn, new(big.Rat).Mul(step, big.NewRat(int64(k), 1)))
	}
	var out [][]int
	c := make([]int, K+1)
	var rec func(k, r int)
	rec = func(k, r int) {
		if k == K {
			c[K] = r
			vals := make([]*big.Rat, 0, req.N)
			for j, x := range c {
				for range x {
					vals = append(vals, grid[j])
				}
			}
			if oracleMatch(req, vals) {
				out = append(out, append([]int(nil), c...))
			}
			return
		}
		for x := r; x >= 0; x-- {
			c[k] = x
			rec(k+1, r-x)
		}
		c[k] = 0
	}
	rec(0, req.N)
	return out
}
