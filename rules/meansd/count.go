package meansd

import (
	"context"
	"errors"
	"math"
	"math/bits"
)

// errTooBig is returned when the counting tables would exceed the memory
// budget; errOverflow when a count does not fit 64 bits.
var (
	errTooBig   = errors.New("counting tables exceed the memory budget")
	errOverflow = errors.New("count exceeds 64 bits")
)

// countDP counts the solutions exactly (K ≥ 2, no median constraint).
//
// Values are centred on a grid point c (1 ≤ c ≤ K−1) near the mean:
// e = k − c. With T = Σe and U = Σe², the constraint n·Q − S² = n·U − T² is
// unchanged, and U is small (about (n−1)·SD²/step²). The three values
// c−1, c, c+1 are left out of the table and absorbed in closed form at the
// end (their counts z−, z0, z+ follow from the remaining count, T and U);
// every other value adds at least 4 to U, so the table over
// (m = number of values placed, t = Σe, u = Σe²) stays small: only rows
// (m, u) reachable with u ≤ max U are stored, each with the reachable range
// of t cut to what the target can still reach. The table is filled by an
// unbounded-knapsack pass per value in uint64 with overflow detection.
func countDP(ctx context.Context, p *problem, maxCells int) (uint64, error) {
	n := int64(p.n)
	K := int64(p.K)
	mid := (p.sLo + p.sHi) / 2
	c := (2*mid + n) / (2 * n) // round(mid/n)
	c = min(max(c, 1), K-1)

	tLo, tHi := p.sLo-n*c, p.sHi-n*c
	nt := int(tHi - tLo + 1)
	if nt <= 0 {
		return 0, nil
	}
	ulo := make([]int64, nt)
	uhi := make([]int64, nt)
	uLoMin, uHiMax := int64(math.MaxInt64), int64(-1)
	for i := range nt {
		S := p.sLo + int64(i)
		qlo, qhi := p.qRange(S)
		shift := -2*c*S + n*c*c
		ulo[i], uhi[i] = max(qlo+shift, 0), qhi+shift
		if ulo[i] <= uhi[i] {
			uLoMin = min(uLoMin, ulo[i])
			uHiMax = max(uHiMax, uhi[i])
		}
	}
	if uHiMax < 0 {
		return 0, nil
	}
	// non-absorbed values, innermost first
	var vals []int64
	dmax := int64(1)
	for d := int64(2); d <= K; d++ {
		for _, e := range []int64{d, -d} {
			if c+e >= 0 && c+e <= K && e*e <= uHiMax {
				vals = append(vals, e)
				dmax = max(dmax, d)
			}
		}
	}
	mMax := n
	if len(vals) == 0 {
		mMax = 0
	} else {
		mMax = min(n, uHiMax/4)
	}
	uw := uHiMax + 1
	nrows := (mMax + 1) * uw
	if nrows > int64(maxCells) {
		return 0, errTooBig
	}
	// reachable t range per (m, u) row
	const inf = math.MaxInt32
	tmin := make([]int32, nrows)
	tmax := make([]int32, nrows)
	for i := range tmin {
		tmin[i], tmax[i] = inf, -inf
	}
	tmin[0], tmax[0] = 0, 0
	for _, e := range vals {
		w := e * e
		for m := int64(1); m <= mMax; m++ {
			for u := w; u <= uHiMax; u++ {
				src := (m-1)*uw + u - w
				if tmin[src] > tmax[src] {
					continue
				}
				dst := m*uw + u
				tmin[dst] = min(tmin[dst], tmin[src]+int32(e))
				tmax[dst] = max(tmax[dst], tmax[src]+int32(e))
			}
		}
	}
	// cut rows to what can still reach a target, and lay out the cells
	off := make([]int64, nrows)
	total := int64(0)
	for m := int64(0); m <= mMax; m++ {
		for u := int64(0); u <= uHiMax; u++ {
			i := m*uw + u
			off[i] = -1
			if tmin[i] > tmax[i] || u < uLoMin-(n-m)*dmax*dmax {
				tmin[i], tmax[i] = 1, 0
				continue
			}
			slack := min(uHiMax-u, (n-m)*dmax)
			lo := max(int64(tmin[i]), tLo-slack)
			hi := min(int64(tmax[i]), tHi+slack)
			if lo > hi {
				tmin[i], tmax[i] = 1, 0
				continue
			}
			tmin[i], tmax[i] = int32(lo), int32(hi)
			off[i] = total
			total += hi - lo + 1
			if total > int64(maxCells) {
				return 0, errTooBig
			}
		}
	}
	if off[0] < 0 {
		return 0, nil
	}
	cells := make([]uint64, total)
	cells[off[0]-int64(tmin[0])] = 1
	ovf := false
	for _, e := range vals {
		if ctx.Err() != nil {
			return 0, errTime
		}
		w := e * e
		for m := int64(1); m <= mMax; m++ {
			for u := w; u <= uHiMax; u++ {
				di := m*uw + u
				si := (m-1)*uw + u - w
				if off[di] < 0 || off[si] < 0 {
					continue
				}
				dlo, dhi := int64(tmin[di]), int64(tmax[di])
				slo, shi := int64(tmin[si])+e, int64(tmax[si])+e
				lo, hi := max(dlo, slo), min(dhi, shi)
				if lo > hi {
					continue
				}
				dst := cells[off[di]+lo-dlo : off[di]+hi-dlo+1]
				src := cells[off[si]+lo-slo : off[si]+hi-slo+1]
				for j := range dst {
					x := dst[j] + src[j]
					if x < dst[j] {
						ovf = true
					}
					dst[j] = x
				}
			}
		}
	}
	if ovf {
		return 0, errOverflow
	}
	// closed form for the absorbed values c−1, c, c+1
	var accHi, accLo uint64
	for m := int64(0); m <= mMax; m++ {
		r := n - m
		for u := int64(0); u <= uHiMax; u++ {
			i := m*uw + u
			if off[i] < 0 || u+r < uLoMin {
				continue
			}
			base := off[i] - int64(tmin[i])
			for t := int64(tmin[i]); t <= int64(tmax[i]); t++ {
				cnt := cells[base+t]
				if cnt == 0 {
					continue
				}
				var num uint64
				for T := max(tLo, t-r); T <= min(tHi, t+r); T++ {
					h := T - t
					k := T - tLo
					a := max(abs(h), ulo[k]-u)
					b := min(r, uhi[k]-u)
					if (a-h)&1 != 0 {
						a++
					}
					if (b-h)&1 != 0 {
						b--
					}
					if a <= b {
						num += uint64((b-a)/2 + 1)
					}
				}
				if num == 0 {
					continue
				}
				ph, pl := bits.Mul64(cnt, num)
				var carry uint64
				accLo, carry = bits.Add64(accLo, pl, 0)
				accHi += ph + carry
			}
		}
	}
	if accHi != 0 {
		return 0, errOverflow
	}
	return accLo, nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
