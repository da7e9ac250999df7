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
func countDP(ctx context.Context, p *problem, maxCells int, w *work) (uint64, error) {
	d := newCountDP(p)
	if d == nil {
		return 0, nil
	}
	if d.nrows > int64(maxCells) {
		return 0, errTooBig
	}
	d.reach()
	if err := d.layout(maxCells); err != nil || d.off[0] < 0 {
		return 0, err
	}
	if err := d.fill(ctx, w); err != nil {
		return 0, err
	}
	return d.absorb()
}

// cdp is the state of countDP.
type cdp struct {
	n, K, c        int64
	tLo, tHi       int64
	ulo, uhi       []int64 // U range per T (index T − tLo)
	uLoMin, uHiMax int64
	vals           []int64 // non-absorbed values, innermost first
	dmax           int64
	mMax, uw       int64
	nrows          int64
	tmin, tmax     []int32 // t range per (m, u) row
	off            []int64 // first cell of a row, −1 when unused
	cells          []uint64
}

// newCountDP centres the values and sets the targets; nil when nothing can
// match.
func newCountDP(p *problem) *cdp {
	n, K := int64(p.n), int64(p.K)
	mid := (p.sLo + p.sHi) / 2
	c := (2*mid + n) / (2 * n) // round(mid/n)
	c = min(max(c, 1), K-1)
	d := &cdp{n: n, K: K, c: c, tLo: p.sLo - n*c, tHi: p.sHi - n*c}
	nt := int(d.tHi - d.tLo + 1)
	if nt <= 0 {
		return nil
	}
	d.ulo, d.uhi = make([]int64, nt), make([]int64, nt)
	d.uLoMin, d.uHiMax = int64(math.MaxInt64), int64(-1)
	for i := range nt {
		S := p.sLo + int64(i)
		qlo, qhi := p.qRange(S)
		shift := -2*c*S + n*c*c
		d.ulo[i], d.uhi[i] = max(qlo+shift, 0), qhi+shift
		if d.ulo[i] <= d.uhi[i] {
			d.uLoMin = min(d.uLoMin, d.ulo[i])
			d.uHiMax = max(d.uHiMax, d.uhi[i])
		}
	}
	if d.uHiMax < 0 {
		return nil
	}
	d.dmax = 1
	for dd := int64(2); dd <= K; dd++ {
		for _, e := range []int64{dd, -dd} {
			if c+e >= 0 && c+e <= K && e*e <= d.uHiMax {
				d.vals = append(d.vals, e)
				d.dmax = max(d.dmax, dd)
			}
		}
	}
	if len(d.vals) > 0 {
		d.mMax = min(n, d.uHiMax/4)
	}
	d.uw = d.uHiMax + 1
	d.nrows = (d.mMax + 1) * d.uw
	return d
}

// reach sets the reachable t range per (m, u) row.
func (d *cdp) reach() {
	const inf = math.MaxInt32
	d.tmin, d.tmax = make([]int32, d.nrows), make([]int32, d.nrows)
	for i := range d.tmin {
		d.tmin[i], d.tmax[i] = inf, -inf
	}
	d.tmin[0], d.tmax[0] = 0, 0
	for _, e := range d.vals {
		w := e * e
		for m := int64(1); m <= d.mMax; m++ {
			for u := w; u <= d.uHiMax; u++ {
				src := (m-1)*d.uw + u - w
				if d.tmin[src] > d.tmax[src] {
					continue
				}
				dst := m*d.uw + u
				d.tmin[dst] = min(d.tmin[dst], d.tmin[src]+int32(e))
				d.tmax[dst] = max(d.tmax[dst], d.tmax[src]+int32(e))
			}
		}
	}
}

// layout cuts rows to what can still reach a target and lays out the
// cells.
func (d *cdp) layout(maxCells int) error {
	d.off = make([]int64, d.nrows)
	total := int64(0)
	for m := int64(0); m <= d.mMax; m++ {
		for u := int64(0); u <= d.uHiMax; u++ {
			i := m*d.uw + u
			d.off[i] = -1
			if d.tmin[i] > d.tmax[i] || u < d.uLoMin-(d.n-m)*d.dmax*d.dmax {
				d.tmin[i], d.tmax[i] = 1, 0
				continue
			}
			slack := min(d.uHiMax-u, (d.n-m)*d.dmax)
			lo := max(int64(d.tmin[i]), d.tLo-slack)
			hi := min(int64(d.tmax[i]), d.tHi+slack)
			if lo > hi {
				d.tmin[i], d.tmax[i] = 1, 0
				continue
			}
			d.tmin[i], d.tmax[i] = int32(lo), int32(hi)
			d.off[i] = total
			total += hi - lo + 1
			if total > int64(maxCells) {
				return errTooBig
			}
		}
	}
	d.cells = make([]uint64, total)
	return nil
}

// fill runs one unbounded-knapsack pass per value.
func (d *cdp) fill(ctx context.Context, w *work) error {
	if d.off[0] >= 0 {
		d.cells[d.off[0]-int64(d.tmin[0])] = 1
	}
	ovf := false
	for _, e := range d.vals {
		if ctx.Err() != nil {
			return errTime
		}
		if w.spendN(int64(len(d.cells))/wordsPerNode + 1) {
			return errTime
		}
		w := e * e
		for m := int64(1); m <= d.mMax; m++ {
			for u := w; u <= d.uHiMax; u++ {
				di := m*d.uw + u
				si := (m-1)*d.uw + u - w
				if d.off[di] < 0 || d.off[si] < 0 {
					continue
				}
				dlo, dhi := int64(d.tmin[di]), int64(d.tmax[di])
				slo, shi := int64(d.tmin[si])+e, int64(d.tmax[si])+e
				lo, hi := max(dlo, slo), min(dhi, shi)
				if lo > hi {
					continue
				}
				dst := d.cells[d.off[di]+lo-dlo : d.off[di]+hi-dlo+1]
				src := d.cells[d.off[si]+lo-slo : d.off[si]+hi-slo+1]
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
		return errOverflow
	}
	return nil
}

// absorb sums the table with the closed form for the absorbed values
// c−1, c, c+1.
func (d *cdp) absorb() (uint64, error) {
	var accHi, accLo uint64
	for m := int64(0); m <= d.mMax; m++ {
		r := d.n - m
		for u := int64(0); u <= d.uHiMax; u++ {
			i := m*d.uw + u
			if d.off[i] < 0 || u+r < d.uLoMin {
				continue
			}
			base := d.off[i] - int64(d.tmin[i])
			for t := int64(d.tmin[i]); t <= int64(d.tmax[i]); t++ {
				cnt := d.cells[base+t]
				if cnt == 0 {
					continue
				}
				num := d.completions(t, u, r)
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

// completions counts the ways r values in c−1..c+1 complete (t, u) to a
// target.
func (d *cdp) completions(t, u, r int64) uint64 {
	var num uint64
	for T := max(d.tLo, t-r); T <= min(d.tHi, t+r); T++ {
		h := T - t
		k := T - d.tLo
		a := max(abs(h), d.ulo[k]-u)
		b := min(r, d.uhi[k]-u)
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
	return num
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
