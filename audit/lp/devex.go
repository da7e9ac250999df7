package lp

import (
	"context"
	"fmt"
	"math"
)

// checkNext makes minimizeDevex check the entering column found by the
// pivot row's pass against devexEntering's (tests).
var checkNext bool

// devexState is the pricing state of one run of minimizeDevex: the reduced
// cost of every variable (zero for basic ones), kept up to date from the
// pivot row instead of pricing every column afresh, and the devex
// reference weights.
type devexState struct {
	d, gamma []float64 // by variable
	rho      []float64 // row p of B⁻¹ (over rows)
	alpha    []float64 // pivot row entries of the non-basic variables
	touched  []int32
	mark     []bool
	// next is the entering column of the next iteration (nextQ, nextDir;
	// nextQ < 0: none eligible), found by the dense pivot row's pass over
	// the non-basic columns as it updates them (nextOK), so that
	// devexEntering need not scan them again: the same choice, since it
	// reads the same reduced costs and weights in the same order.
	nextQ   int
	nextDir float64
	nextOK  bool
}

// devexBland is the number of consecutive degenerate pivots after which
// minimizeDevex falls back to Bland's rule (smallest eligible variable
// enters; it cannot cycle) until a pivot makes progress. The Dantzig
// simplex falls back after 30; on the exact bounds of a received 50 x 40 x
// 10 table at 20% that spent 193,365 of 227,123 iterations in Bland's
// rule (173 LPs); with devex and no fallback, 955 LPs in 210,726
// iterations (17,014 degenerate), the same work. The threshold only
// guards against cycling.
const devexBland = 1000

// minimizeDevex is the primal simplex with devex pricing (Forrest and
// Goldfarb's approximation of steepest edge: the entering column maximises
// d_j²/γ_j) and reduced costs updated from the pivot row. The pivot row
// ρ = e_pᵀB⁻¹ is one BTRAN; its entries α_pj = ρ·A_j are gathered through
// the rows of A where ρ is non-zero (row-wise storage) when ρ is sparse,
// and column by column otherwise (ρ is nearly dense on table systems: 95%
// of its entries non-zero on 30 x 25 x 8 hypercube patterns, although the
// LU factors of B are sparse). The reduced costs are recomputed from
// scratch at every refactorisation and before optimality is declared, so that rounding
// in the updates can neither stop the run early nor send it astray for
// long.
func (s *Sparse) minimizeDevex(ctx context.Context, cidx []int, reached func() bool) (bool, error) {
	d, gamma := s.devexStart()
	price := func() { s.devexPrice(cidx, d) }
	price()
	fresh := true
	limit := 50*(s.m+s.n) + 1000
	degenerate := 0
	for it := 0; ; it++ {
		done, refactored, err := s.iteration(ctx, it, limit, reached)
		if done || err != nil {
			return false, err
		}
		if refactored {
			price()
			fresh = true
		}
		bland := degenerate > devexBland
		var q int
		var dir float64
		if s.dx.nextOK && !refactored && !bland {
			q, dir = s.dx.nextQ, s.dx.nextDir
			if checkNext {
				if q2, dir2 := s.devexEntering(d, gamma, bland); q2 != q || dir2 != dir {
					panic(fmt.Sprintf("lp: entering column %d (%v) from the pivot row, %d (%v) by devexEntering; d %v %v gamma %v %v x %v %v pos %v %v", q, dir, q2, dir2, d[q], d[q2], gamma[q], gamma[q2], s.x[q], s.x[q2], s.pos[q], s.pos[q2]))
				}
			}
		} else {
			q, dir = s.devexEntering(d, gamma, bland)
		}
		s.dx.nextOK = false
		if q < 0 {
			if fresh {
				return false, nil
			}
			// Confirm with reduced costs computed afresh.
			price()
			fresh = true
			continue
		}
		w, p, unbounded := s.step(q, dir, bland, &degenerate)
		if unbounded {
			return true, nil
		}
		if p < 0 {
			continue // the entering variable reached zero: no exchange
		}
		s.pivotRow(p, q, w[p])
		s.exchange(p, q, w)
		fresh = false
	}
}

// devexStart makes the devex workspace on first use and returns its
// reduced costs d and reference weights gamma, every weight reset to 1.
func (s *Sparse) devexStart() (d, gamma []float64) {
	dx := s.dx
	if dx == nil {
		dx = &devexState{d: make([]float64, s.n), gamma: make([]float64, s.n), rho: make([]float64, s.m),
			alpha: make([]float64, s.n), mark: make([]bool, s.n)}
		s.dx = dx
	}
	d, gamma = dx.d, dx.gamma
	dx.nextOK = false // a new objective: priced afresh
	for j := range gamma {
		gamma[j] = 1
	}
	return d, gamma
}

// devexPrice computes the reduced costs d from scratch for the objective
// that costs the variables of cidx: the duals y by one BTRAN, then
// d_j = c_j - yᵀA_j for every non-basic j (0 for basic ones).
func (s *Sparse) devexPrice(cidx []int, d []float64) {
	clear(s.cb)
	for _, j := range cidx {
		if p := s.pos[j]; p >= 0 {
			s.cb[p] = s.cost[j]
		}
	}
	s.btran(s.cb, s.y)
	pos, cstart, ci, cv, y, cost := s.pos[:s.n], s.cstart[:s.n+1], s.cidxA, s.cvalA, s.y, s.cost[:s.n]
	d = d[:s.n]
	for j := range pos {
		if pos[j] >= 0 {
			d[j] = 0
			continue
		}
		dj := cost[j]
		lo, hi := cstart[j], cstart[j+1]
		cvj := cv[lo:hi]
		for k, i := range ci[lo:hi] {
			dj -= y[i] * cvj[k]
		}
		d[j] = dj
	}
}

// devexEntering chooses the entering column q and its direction dir (+1
// to increase, -1 to decrease): the eligible column maximising d_j²/γ_j,
// or, under bland, the first eligible one. q < 0 when none is eligible.
func (s *Sparse) devexEntering(d, gamma []float64, bland bool) (q int, dir float64) {
	q, dir, best, bestS := -1, 0.0, 0.0, 0.0
	pos, x, noEnter := s.pos[:s.n], s.x[:s.n], s.noEnter
	d, gamma = d[:s.n], gamma[:s.n]
	for j := range pos {
		if pos[j] >= 0 {
			continue
		}
		dj := d[j]
		if screened(dj*dj, 1, bestS*gamma[j]) {
			continue // dj²/γ_j ≤ best (pivotRow's screen; bestS is 0 under bland)
		}
		dd := enterDirOf(dj, x[j])
		if dd == 0 {
			continue
		}
		if noEnter != nil && noEnter[j] && x[j] == 0 {
			continue
		}
		if bland {
			q, dir = j, dd
			break
		}
		if sc := dj * dj / gamma[j]; sc > best {
			q, dir, best = j, dd, sc
			if !s.plain {
				bestS = screenBelow(best)
			}
		}
	}
	return q, dir
}

// pivotRow updates the reduced costs and devex weights for q entering at
// position p (apq = (B⁻¹A_q)_p), before the basis changes.
func (s *Sparse) pivotRow(p, q int, apq float64) {
	dx := s.dx
	d, gamma, rho, alpha := dx.d, dx.gamma, dx.rho, dx.alpha
	clear(s.cb)
	s.cb[p] = 1
	s.btran(s.cb, rho)
	theta := d[q] / apq
	gq := gamma[q]
	nz := 0
	for _, rv := range rho {
		if math.Abs(rv) > 1e-12 {
			nz++
		}
	}
	if nz > s.m/8 && !s.rowGather {
		// A dense pivot row (the usual case on table systems, whose B⁻¹
		// is dense although its LU factors are sparse): column by
		// column, as Dantzig pricing does, without the gather's
		// scattered writes.
		// The same pass chooses the next entering column as
		// devexEntering would (its rule, in its order).
		pos, cstart, ci, cv := s.pos[:s.n], s.cstart[:s.n+1], s.cidxA, s.cvalA
		x, noEnter := s.x[:s.n], s.noEnter
		d, gamma = d[:s.n], gamma[:s.n]
		bq, bdir, best := -1, 0.0, 0.0
		// The divisions of the weight update and of the score are
		// screened by products (screened): only where the product does
		// not prove the comparison false is the division done, so the
		// results are the same bit for bit.
		kq := gq / (apq * apq)
		bestS := 0.0 // best·(1 − screenMargin); 0: no screen
		if s.plain {
			kq = math.Inf(1) // screens nothing
		}
		for j := range pos {
			if pos[j] >= 0 || j == q {
				continue
			}
			a := 0.0
			lo, hi := cstart[j], cstart[j+1]
			cvj := cv[lo:hi]
			for k, i := range ci[lo:hi] {
				a += rho[i] * cvj[k]
			}
			if a != 0 {
				d[j] -= theta * a
				if !screened(a*a, kq, gamma[j]*(1-screenMargin)) {
					if g := (a / apq) * (a / apq) * gq; g > gamma[j] {
						gamma[j] = g
					}
				}
			}
			dj := d[j]
			if screened(dj*dj, 1, bestS*gamma[j]) {
				continue // dj²/γ_j ≤ best: not chosen whatever its direction
			}
			dd := enterDirOf(dj, x[j])
			if dd == 0 {
				continue
			}
			if noEnter != nil && noEnter[j] && x[j] == 0 {
				continue
			}
			if sc := dj * dj / gamma[j]; sc > best {
				bq, bdir, best = j, dd, sc
				if !s.plain {
					bestS = screenBelow(best)
				}
			}
		}
		leave := s.head[p]
		s.finishPivotRow(p, q, theta, apq, gq)
		// The leaving variable, non-basic at zero after the exchange:
		// eligible to increase only; it wins a tie when its index is
		// lower (devexEntering keeps the first of equal scores).
		if dl := d[leave]; dl < -pivTol && (noEnter == nil || !noEnter[leave]) {
			if sc := dl * dl / gamma[leave]; sc > best || sc == best && bq >= 0 && leave < bq {
				bq, bdir = leave, 1
			}
		}
		dx.nextQ, dx.nextDir, dx.nextOK = bq, bdir, true
		return
	}
	dx.touched = dx.touched[:0]
	for r, rv := range rho {
		if math.Abs(rv) <= 1e-12 {
			continue
		}
		for k, j := range s.rowIdx[r] {
			if s.pos[j] >= 0 || int(j) == q {
				continue
			}
			if !dx.mark[j] {
				dx.mark[j] = true
				dx.touched = append(dx.touched, j)
			}
			alpha[j] += rv * s.rowVal[r][k]
		}
	}
	for _, j := range dx.touched {
		a := alpha[j]
		alpha[j], dx.mark[j] = 0, false
		if a == 0 {
			continue
		}
		d[j] -= theta * a
		if g := (a / apq) * (a / apq) * gq; g > gamma[j] {
			gamma[j] = g
		}
	}
	s.finishPivotRow(p, q, theta, apq, gq)
}

// finishPivotRow sets the reduced cost and weight of the leaving variable
// and of q (entering).
func (s *Sparse) finishPivotRow(p, q int, theta, apq, gq float64) {
	d, gamma := s.dx.d, s.dx.gamma
	leave := s.head[p]
	d[leave] = -theta
	gamma[leave] = math.Max(gq/(apq*apq), 1)
	d[q] = 0
}

// screenMargin is the relative margin of screened: far above the rounding
// of a few floating-point operations (about 1e-15), far below any
// difference that matters.
const screenMargin = 1e-9

// screenBelow returns v·(1 − screenMargin), or 0 when v is too small for
// screened's bound to hold (then nothing is screened out).
func screenBelow(v float64) float64 {
	if !(v >= 1e-250) || v > 1e250 {
		return 0
	}
	return v * (1 - screenMargin)
}

// screened reports whether aa·k ≤ lim proves that the same quantity
// computed with divisions, within a few roundings of aa·k, does not exceed
// lim/(1 − screenMargin): aa and k ≥ 0, lim the bound with its margin
// (screenBelow or gamma·(1 − screenMargin)). False (do the exact
// comparison) when aa is too small for products to keep their relative
// accuracy, or lim is not finite, 0 or NaN.
func screened(aa, k, lim float64) bool {
	p := aa * k
	return aa >= 1e-250 && p <= lim && lim > 0 && lim <= 1e250
}
