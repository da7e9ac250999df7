package suppress

import (
	"math"
	"slices"
)

// The joint search's lower bound is proven whatever the float simplex
// returns: it is never the master LP's objective z, but the Lagrangian
// (duality) bound of the master's dual values, evaluated with a rigorous
// bound on its rounding error.
//
// For a search node (fixings fx: F1 cells suppressed, F0 published, the
// free cells F) every protected pattern y of the candidates meets every
// cut k of the pool, Σ_j a_kj·y_j ≥ r_k, with y_j ∈ {0,1}. For any
// multipliers λ ≥ 0,
//
//	c·y ≥ c·y − Σ_k λ_k(a_k·y − r_k)
//	    = Σ_k λ_k r_k + Σ_j (c_j − (λᵀA)_j)·y_j
//	    ≥ Σ_k λ_k (r_k − Σ_{j∈F1} a_kj) + Σ_{j∈F1} c_j + Σ_{j∈F} min(0, c_j − (λᵀA)_j)
//
// (y_j = 1 on F1, 0 on F0, and 0 ≤ y_j ≤ 1 on F). The right-hand side is
// lagrangeBound: valid for ANY λ ≥ 0, so a master LP that stopped at an
// infeasible point, on "unbounded" or at an iteration limit, or whose
// duals are off, gives a weaker bound, never a wrong one. With the
// master's optimal duals (λ_k = u_k / r_k: master scales cut k to rhs 1)
// it is the LP optimum within the simplex's tolerances. The order of
// Minimize and Vertex therefore does not matter to the bound either.
//
// It holds for the relaxation y ∈ [0,1] even where master leaves out the
// bounds y ≤ 1 (large masters): the min(0, ·) terms are those bounds'
// multipliers.

// fpUnit is the unit roundoff of float64 (round to nearest).
const fpUnit = 0x1p-53

// lagrangeBound returns a proven lower bound on the cost of every pattern
// of the candidates with the fixings fx that meets every cut of the pool:
// the Lagrangian bound above for the multipliers lam (one per cut of
// js.cuts; negative, NaN or infinite entries are taken as 0, a missing
// tail as 0), computed in float64 and then lowered by a bound on its
// rounding error, so that the value returned is at most the exact
// (rational) value of the formula for those multipliers.
//
// Error bound: every term of the result (λ_k·r_k, λ_k·a_kj, c_j, and
// min(0, c_j − s_j) with s_j = Σ_k λ_k·a_kj) passes through at most K
// roundings, K the number of float operations done (counted in ops), so
// each computed term is the exact one times (1+θ), |θ| ≤ γ_K = K·u/(1−K·u)
// ≤ 2K·u (Higham, Accuracy and Stability, §3.1), and min(0, ·) is
// 1-Lipschitz, so its error is at most that of its argument,
// γ_K·(c_j + Σ_k |λ_k·a_kj|). The sum of all these magnitudes is absM:
// the computed value is within 2·γ_K·absM ≤ 4K·u·absM of the exact one,
// plus at most K·2⁻¹⁰⁷⁴ from products in the subnormal range. The last
// subtraction is rounded down by one float (math.Nextafter).
func (js *jointSolver) lagrangeBound(fx fixing, lam []float64) float64 {
	n := len(js.cost)
	if len(js.lbS) != n {
		js.lbS = make([]float64, n)
		js.lbAbs = make([]float64, n)
		js.lbMark = make([]bool, n)
	}
	s, sAbs, mark := js.lbS, js.lbAbs, js.lbMark
	var touched []int
	acc, absM, ops := 0.0, 0.0, 0
	for i := range n {
		if js.cand[i] && fx[i] == 1 {
			acc += js.cost[i]
			absM += math.Abs(js.cost[i])
			ops++
		}
	}
	for k, l := range lam {
		if k >= len(js.cuts) {
			break
		}
		if !(l > 0) || math.IsInf(l, 1) {
			continue
		}
		c := &js.cuts[k]
		t := l * c.rhs
		acc += t
		absM += math.Abs(t)
		ops += 2
		for m, i := range c.idx {
			a := l * c.coef[m]
			ops++
			switch fx[i] {
			case 1:
				acc -= a
				absM += math.Abs(a)
				ops++
			case 0:
			default:
				if !mark[i] {
					mark[i] = true
					touched = append(touched, i)
				}
				s[i] += a
				sAbs[i] += math.Abs(a)
				ops++
			}
		}
	}
	for _, i := range touched {
		if v := js.cost[i] - s[i]; v < 0 {
			acc += v
		}
		absM += math.Abs(js.cost[i]) + sAbs[i]
		ops += 2
		s[i], sAbs[i], mark[i] = 0, 0, false
	}
	k := float64(ops + 4)
	lb := acc - (4*k*fpUnit*absM + k*0x1p-1074)
	if math.IsNaN(lb) || math.IsInf(lb, 0) {
		return math.Inf(-1)
	}
	return math.Nextafter(lb, math.Inf(-1))
}

// allOnesMeets decides, for the fixings fx, whether y = 1 on every free
// candidate meets every cut of the pool. The cuts' coefficients are
// non-negative, so y = 1 maximises every left-hand side at once: the
// node's relaxation (and its integer problem) is feasible exactly when
// it is. proven is false when rounding leaves it undecided (then the
// node is treated as feasible: nothing is pruned on an unproven claim).
func (js *jointSolver) allOnesMeets(fx fixing) (meets, proven bool) {
	meets, proven = true, true
	for k := range js.cuts {
		c := &js.cuts[k]
		// lhs − rhs = Σ_{F ∪ F1} a_j − r: a sum of len(idx)+1 terms.
		d, abs, ops := -c.rhs, math.Abs(c.rhs), 1
		for m, i := range c.idx {
			if fx[i] != 0 {
				d += c.coef[m]
				abs += math.Abs(c.coef[m])
				ops++
			}
		}
		e := 4*float64(ops+4)*fpUnit*abs + 0x1p-1000
		switch {
		case d+e < 0:
			return false, true
		case d-e < 0:
			proven = false
		}
	}
	return meets, proven
}

// costGranularity returns the margin g' of the joint search's pruning and
// of its "optimal" claim (see prunes): with every candidate's cost within
// float rounding of a multiple of g = 10^-k (k = 0..6, the coarsest that
// fits: integer costs, frequencies, values with up to six decimals), every
// pattern's cost in those decimals is a multiple of g, so a pattern whose
// float cost is provably above best − g' costs at least best in decimals:
// g' = g − 4E, E bounding the float costs' distance from the decimal ones
// (Σ_j |c_j − d_j|) plus the rounding of a pattern's float cost sum
// ((n+8)·2⁻⁵²·Σ_j |c_j|). 0 when no such g fits (or g' ≤ 0): then only a
// bound at least best prunes.
func (js *jointSolver) costGranularity() float64 {
	var costs []float64
	sum := 0.0
	for i, c := range js.cost {
		if i < len(js.cand) && js.cand[i] {
			costs = append(costs, c)
			sum += math.Abs(c)
		}
	}
	if len(costs) == 0 {
		return 0
	}
	round := float64(len(costs)+8) * 0x1p-52 * sum
	for k := 0; k <= 6; k++ {
		g := math.Pow(10, -float64(k))
		e, fits := 0.0, true
		for _, c := range costs {
			q := math.Round(c / g)
			dist := math.Abs(c - q*g)
			if dist > 1e-9*g || math.Abs(q) > 1<<50 {
				fits = false
				break
			}
			// q·g is the decimal d_j up to the rounding of the product.
			e += dist + 2*fpUnit*math.Abs(c)
		}
		if fits {
			if gp := g - 4*(e+round); gp > 0 {
				return gp
			}
			return 0
		}
	}
	return 0
}

// prunes reports whether a proven bound lb on a node's patterns shows
// that none of them costs less than the best pattern (sr.best): lb above
// best − g' with the costs' granularity g' (costGranularity), else lb at
// least best.
func (sr *jointSearch) prunes(lb float64) bool {
	if math.IsInf(sr.best, 1) {
		return false
	}
	if g := sr.js.gran; g > 0 {
		return lb > sr.best-g
	}
	return lb >= sr.best
}

// cgMaxRHS bounds the right-hand side of a rounded cut (roundedCut): its
// coefficients are integers up to it, so a divisor d far below the cut's
// right-hand side (a tiny coefficient) gives no cut.
const cgMaxRHS = 64

// cgMaxDivisors bounds the divisors tried per cut: the smallest
// coefficients below the right-hand side (the rounding gains most where
// the coefficients are near a fraction of it).
const cgMaxDivisors = 8

// roundedCut returns the Chvátal-Gomory rounding of cut c that the
// fractional point y violates most (nil: none; JointOptions.Rounding).
// c (Σ a_i·y_i ≥ b, a_i ≥ 0) holds for every protected pattern, whose y
// is 0 or 1; for any d > 0
//
//	Σ ⌈a_i/d⌉·y_i ≥ Σ (a_i/d)·y_i ≥ b/d,
//
// and the left-hand side is an integer for an integral y, so
// Σ ⌈a_i/d⌉·y_i ≥ ⌈b/d⌉ holds for every protected pattern too; a
// coefficient above ⌈b/d⌉ may be lowered to it (y_i ≤ 1: the cell alone
// meets the cut). The capacity cuts' coefficients are capped at the
// level, so the LP relaxation may meet a cut with fractions of cells whose
// capacities add up to the level; the rounding asks for whole cells.
//
// The divisors are c's own coefficients below b (the smallest
// cgMaxDivisors with ⌈b/d⌉ ≤ cgMaxRHS). ⌈a/d⌉ and ⌈b/d⌉ are computed
// exactly (ceilDiv: integer results checked by a fused multiply-add), so
// the rounded cut is valid in exact arithmetic, as the bound needs
// (lagrangeBound).
func (js *jointSolver) roundedCut(c *cut, y []float64) *cut {
	if !(c.rhs > 0) || math.IsInf(c.rhs, 0) {
		return nil
	}
	// A cell of value 0 whose coefficient is below the level has the
	// exact coefficient β·0 = 0 (capacityCut adds a float margin): 0 here.
	coef := make([]float64, len(c.coef))
	for m, a := range c.coef {
		if a < c.level && js.s.Val[c.idx[m]] == 0 {
			a = 0
		}
		coef[m] = a
	}
	var ds []float64
	for _, a := range coef {
		if a > 0 && a < c.rhs && c.rhs <= cgMaxRHS*a && !slices.Contains(ds, a) {
			ds = append(ds, a)
		}
	}
	slices.Sort(ds)
	if len(ds) > cgMaxDivisors {
		ds = ds[:cgMaxDivisors]
	}
	var out *cut
	best := 0.0
	for _, d := range ds {
		// Any d > 0 gives a valid cut: d a little above the coefficient,
		// so that coefficients that are float multiples of it (each
		// rounded up by 1e-9 and a few ulps, capacityCut) do not round up
		// to the next integer.
		d *= 1 + 0x1p-40
		r, ok := ceilDiv(c.rhs, d)
		if !ok || r < 2 || r > cgMaxRHS {
			continue
		}
		g := &cut{rhs: r, com: c.com, level: r, idx: slices.Clone(c.idx), coef: make([]float64, len(c.coef))}
		lhs := 0.0
		for m, a := range coef {
			q := 0.0
			switch {
			case a <= 0:
			case a <= d:
				q = 1 // 0 < a/d ≤ 1
			default:
				var ok bool
				if q, ok = ceilDiv(a, d); !ok {
					q = r // a coefficient at the rhs is valid whatever a is
				}
			}
			g.coef[m] = min(q, r)
			lhs += g.coef[m] * y[g.idx[m]]
		}
		// the most violated rounding only (relative to its rhs): each
		// cut added makes every later master larger
		if v := 1 - lhs/r; v > 1e-7 && v > best {
			out, best = g, v
		}
	}
	return out
}

// ceilDiv returns ⌈a/d⌉ exactly for a, d > 0 (normal floats, the
// quotient at most 2^40), or ok false. The float quotient's ceiling is
// corrected with fma(q, d, −a), whose sign is that of the exact q·d − a
// (one rounding keeps the sign, and the exact value, a multiple of the
// smaller operand's ulp, is not tiny enough to round to zero).
func ceilDiv(a, d float64) (float64, bool) {
	const tiny = 0x1p-900
	if !(a >= tiny && d >= tiny) || math.IsInf(a, 0) || math.IsInf(d, 0) || a/d > 0x1p40 {
		return 0, false
	}
	q := math.Ceil(a / d)
	for q > 1 && math.FMA(q-1, d, -a) >= 0 {
		q--
	}
	for math.FMA(q, d, -a) < 0 {
		q++
	}
	return q, true
}
