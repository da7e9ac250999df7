package moments

import (
	"fmt"
	"math"
	"math/big"
	"sort"
)

// IntSums returns the exact power sums S_0..S_p of non-negative integers
// (values on a grid, counted in steps): sums[q] = Σ k^q.
func IntSums(k []int64, p int) ([]*big.Int, error) {
	counts := map[int64]int64{}
	for _, v := range k {
		if v < 0 {
			return nil, fmt.Errorf("%w: negative value %d", ErrInput, v)
		}
		counts[v]++
	}
	sums := make([]*big.Int, p+1)
	for q := range sums {
		sums[q] = new(big.Int)
	}
	pw, t := new(big.Int), new(big.Int)
	for v, c := range counts {
		pw.SetInt64(1)
		bv, bc := big.NewInt(v), big.NewInt(c)
		for q := 0; q <= p; q++ {
			sums[q].Add(sums[q], t.Mul(pw, bc))
			pw.Mul(pw, bv)
		}
	}
	return sums, nil
}

// RecoverInts runs the iteration of seed eq. (3)-(4) in exact integer
// arithmetic on the power sums sums[q] = S_q, q = 0..p, of non-negative
// integers: each value is the Lehmer mean of what remains of (S_p,
// S_{p-1}), rounded up to an integer and capped at the previous value;
// then its p-th and (p-1)-th powers are subtracted. It returns the S_0
// estimates in descending order. The estimates equal the sample exactly
// when p is large enough (SmallestRecoveryPower). More than MaxRecover
// values are not attempted (ErrTooMany).
func RecoverInts(sums []*big.Int, p int) ([]*big.Int, error) {
	if p < 1 || p >= len(sums) {
		return nil, fmt.Errorf("%w: p = %d with sums S_0..S_%d", ErrOrder, p, len(sums)-1)
	}
	if !sums[0].IsInt64() || sums[0].Sign() < 0 {
		return nil, fmt.Errorf("%w: S_0 = %v is not a count", ErrInput, sums[0])
	}
	n := sums[0].Int64()
	if n > MaxRecover {
		return nil, ErrTooMany
	}
	rp := new(big.Int).Set(sums[p])
	rq := new(big.Int).Set(sums[p-1])
	out := make([]*big.Int, 0, n)
	var prev *big.Int
	q, r, t := new(big.Int), new(big.Int), new(big.Int)
	for int64(len(out)) < n {
		var est *big.Int
		switch {
		case rq.Sign() == 0 && rp.Sign() == 0:
			// what remains is zero (only possible for p >= 2)
			est = new(big.Int)
		case rq.Sign() <= 0 || rp.Sign() < 0:
			return out, fmt.Errorf("%w: the remainder became negative after %d values: earlier estimates were wrong", ErrInput, len(out))
		default:
			q.QuoRem(rp, rq, r)
			if r.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			}
			est = new(big.Int).Set(q)
		}
		if prev != nil && est.Cmp(prev) > 0 {
			est.Set(prev)
		}
		out = append(out, est)
		prev = est
		t.Exp(est, big.NewInt(int64(p-1)), nil)
		rq.Sub(rq, t)
		rp.Sub(rp, t.Mul(t, est))
	}
	return out, nil
}

// SmallestRecoveryPower returns the smallest p for which RecoverInts on the
// sums of the non-negative integers k recovers every value exactly, and
// the smallest p for which it recovers the largest value.
//
// The iteration finds the largest remaining value v exactly while the
// earlier estimates are right and the Lehmer mean of what remains exceeds
// v - 1, that is (for the last copy of v, the hardest case)
//
//	v^(p-1) > Σ_{y < v} y^(p-1) (v - 1 - y).
//
// The right side falls with p relative to the left, so each value has a
// smallest power, found by bisection in floating point and confirmed in
// exact arithmetic near the boundary; the sample needs the largest of them.
func SmallestRecoveryPower(k []int64) (all, largest int, err error) {
	if len(k) == 0 {
		return 0, 0, fmt.Errorf("%w: no values", ErrInput)
	}
	vals := append([]int64(nil), k...)
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	if vals[0] < 0 {
		return 0, 0, fmt.Errorf("%w: negative value %d", ErrInput, vals[0])
	}
	// distinct values ascending with counts
	var dv, dc []int64
	for _, v := range vals {
		if len(dv) > 0 && dv[len(dv)-1] == v {
			dc[len(dc)-1]++
			continue
		}
		dv = append(dv, v)
		dc = append(dc, 1)
	}
	below := make([]int64, len(dc)+1) // below[j]: values smaller than dv[j]
	for j, c := range dc {
		below[j+1] = below[j] + c
	}
	all, largest = 1, 1
	for i := len(dv) - 1; i >= 1; i-- {
		all = max(all, smallestFor(dv[i], 1, dv[:i], dc[:i], below))
	}
	if top := len(dv) - 1; top >= 1 {
		// the first estimate sees every copy of the maximum
		largest = smallestFor(dv[top], dc[top], dv[:top], dc[:top], below)
	}
	return all, largest, nil
}

// smallestFor returns the smallest p >= 1 with
// m v^(p-1) > Σ c_y y^(p-1) (v-1-y) over the smaller values y (ascending
// in ys, with counts cs; below[j] is the number of values smaller than
// ys[j]), where m is the number of copies of v that remain.
//
// The condition is r(p) < 1 with r(p) = Σ c_y (y/v)^(p-1) (v-1-y) / m,
// which falls with p: doubling, then bisection. Each evaluation sums from
// the largest y down and stops once the partial sum, or the partial sum
// plus a bound on the rest, decides it with a margin; only a sum within
// the margin of 1 is decided in exact arithmetic. The nearest values
// dominate at large p, so an evaluation rarely reads more than a few.
func smallestFor(v, m int64, ys, cs, below []int64) int {
	ok := func(p int) bool { return holds(v, m, ys, cs, below, p) }
	if ok(1) {
		return 1
	}
	lo, hi := 1, 2 // ok(lo) fails, find hi with ok(hi)
	for !ok(hi) {
		lo, hi = hi, hi*2
		if hi > 1<<30 {
			return hi
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// recMargin is the relative margin within which the floating-point sum
// does not decide and the exact comparison does.
const recMargin = 1e-9

// holds evaluates the condition at p: in floating point when the margin is
// clear, exactly otherwise. below[j] is the number of values smaller than
// ys[j].
func holds(v, m int64, ys, cs, below []int64, p int) bool {
	lim := float64(m)
	s, e, fv := 0.0, float64(p-1), float64(v)
	for j := len(ys) - 1; j >= 0; j-- {
		w := v - 1 - ys[j]
		if w <= 0 {
			continue
		}
		f := math.Pow(float64(ys[j])/fv, e)
		s += float64(cs[j]) * f * float64(w)
		if s > lim*(1+recMargin) {
			return false
		}
		// every smaller y adds at most f·(v−1) per copy
		if s+float64(below[j])*f*float64(v-1) < lim*(1-recMargin) {
			return true
		}
	}
	if x := s / lim; math.Abs(x-1) > recMargin {
		return x < 1
	}
	return holdsExact(v, m, ys, cs, p)
}

// holdsExact evaluates the condition at p in exact arithmetic.
func holdsExact(v, m int64, ys, cs []int64, p int) bool {
	e := big.NewInt(int64(p - 1))
	lhs := new(big.Int).Exp(big.NewInt(v), e, nil)
	lhs.Mul(lhs, big.NewInt(m))
	rhs, t := new(big.Int), new(big.Int)
	for j, y := range ys {
		w := v - 1 - y
		if w <= 0 {
			continue
		}
		t.Exp(big.NewInt(y), e, nil)
		t.Mul(t, big.NewInt(cs[j]*w))
		rhs.Add(rhs, t)
	}
	return lhs.Cmp(rhs) > 0
}
