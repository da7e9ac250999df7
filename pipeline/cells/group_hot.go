package cells

import (
	"math"
	"math/bits"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// The hot slab (docs/performance.md, "Grouping"): while a
// builder groups records, the statistics every record updates (count,
// negatives, sum, sum of squares, minimum, maximum and the largest values)
// are kept for each finest cell as int64 mantissas at one scale per
// builder, in a pointer-free slab of hotStride int64s per cell, indexed by
// the cell's slot. A record whose value is a plain decimal that fits is
// added there (one cache line for the default rules) instead of to the
// cell's cellAcc, whose fields are spread over several lines behind a
// pointer. Any other value (more decimals than the scale, too large, a
// form only NumberFormat.Parse reads, a missing value) takes the exact
// path of before on the cellAcc. flushHot merges the slab into the cellAccs
// before anything reads them; both paths are exact and every Dec is
// normalised, so the cells are the same whichever way each value went.
//
// The fast path is only used when the rules need nothing else per value
// (no power sums, histogram, absolute values or holdings).

// Slab layout of one cell; the top values follow at hotTop.
const (
	hotN = iota
	hotNeg
	hotSum
	hotSq // Σ m², as uint64
	hotMin
	hotMax
	hotTop
)

// maxHotTop bounds the number of top values kept in the slab.
const maxHotTop = 8

// maxHotScale bounds the common scale of the slab's mantissas.
const maxHotScale = 9

// hotRaiseWindow is how many values the slab may hold when a value with
// more decimals than its scale arrives and the scale is raised (flushing
// every cell); after it such values take the exact path.
const hotRaiseWindow = 1 << 16

// useHot reports whether the builder's needs allow the slab.
func (b *microBuilder) useHot() bool {
	n := b.needs
	return b.valIdx >= 0 && b.holdIdx < 0 && n.Powers == 0 && !n.Hist && !n.Absolute && b.measure == nil && n.Top <= maxHotTop
}

// initHot sets the slab up (empty) when the builder can use it.
func (b *microBuilder) initHot() {
	b.hotOn = b.useHot()
	b.hotStride = hotTop + b.needs.Top
	b.hotLimit = math.MaxInt64
	if b.needs.SumSq {
		b.hotLimit = 3037000499 // m² fits int64
	}
}

// newSlot gives a cell created by add its slot in accs and the slab.
func (b *microBuilder) newSlot(a *cellAcc) {
	a.slot = int32(len(b.accs))
	b.accs = append(b.accs, a)
	if b.hotOn {
		b.hot = append(b.hot, make([]int64, b.hotStride)...)
	}
}

// hotText returns the mantissa at the slab's scale of a plain decimal
// text ([-]digits[.digits], at most 18 digits), raising the scale while
// the slab is young; ok is false for any other text or value, which the
// exact path reads. The texts it reads are read by decimal.Parse, and so
// by NumberFormat.Parse, as the same value (with the decimal comma it
// reads integers only).
func (b *microBuilder) hotText(s string) (int64, bool) {
	m, scale, ok := plainDecimal(s, b.num.Comma)
	if !ok {
		return 0, false
	}
	return b.hotMant(m, scale)
}

// plainDecimal reads a plain decimal text ([-]digits[.digits], at most 18
// digits; with the decimal comma, integers only) as m × 10^-scale, with
// no trailing zero after the point ("2.000" has the scale of 2): the value
// decimal.Parse and NumberFormat.Parse read, normalised as their Decs are.
// ok is false for any other text.
func plainDecimal(s string, comma bool) (m int64, scale int32, ok bool) {
	i := 0
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, i = true, 1
	}
	digits, sc := 0, -1
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			m = m*10 + int64(c-'0')
			digits++
			if sc >= 0 {
				sc++
			}
			if digits > 18 {
				return 0, 0, false
			}
			continue
		}
		if c == '.' && sc < 0 && !comma { // with the decimal comma a point groups digits
			sc = 0
			continue
		}
		return 0, 0, false
	}
	if digits == 0 {
		return 0, 0, false
	}
	for sc > 0 && m%10 == 0 {
		m /= 10
		sc--
	}
	if neg {
		m = -m
	}
	return m, int32(max(sc, 0)), true
}

// hotDec returns the mantissa of d at the slab's scale, as hotText.
func (b *microBuilder) hotDec(d decimal.Dec) (int64, bool) {
	m, ok := d.Mantissa()
	if !ok {
		return 0, false
	}
	return b.hotMant(m, int32(d.Scale()))
}

// hotMant returns m × 10^-sc at the slab's scale when it fits the bound.
func (b *microBuilder) hotMant(m int64, sc int32) (int64, bool) {
	if sc > b.hotScale {
		if sc > maxHotScale || b.hotVals >= hotRaiseWindow {
			return 0, false
		}
		b.applyPending() // at the old scale
		b.flushHot()
		b.hotScale = sc
	}
	if k := b.hotScale - sc; k > 0 {
		f := decimal.Pow10(int(k))
		if m > b.hotLimit/f || m < -b.hotLimit/f {
			return 0, false
		}
		m *= f
	}
	if m > b.hotLimit || m < -b.hotLimit {
		return 0, false
	}
	return m, true
}

// hotAdd adds one value (a mantissa at the slab's scale) to a cell's slab.
func (b *microBuilder) hotAdd(slot int32, m int64) {
	b.hotVals++
	base := int(slot) * b.hotStride
	h := b.hot[base : base+b.hotStride : base+b.hotStride]
	if !slabAdd(h, m, b.needs.SumSq) {
		b.flushSlot(slot)
		slabAdd(h, m, b.needs.SumSq)
	}
}

// slabAdd adds one value (a mantissa at the slab's scale) to the slab h of
// one cell (the hot slab's layout, hotStride int64s). It returns false,
// leaving h as it was, when the sum or (with sumSq) the sum of squares
// would overflow: the caller merges the slab into the cell and adds the
// value to the emptied slab, where it fits.
func slabAdd(h []int64, m int64, sumSq bool) bool {
	s, ovf := addInt64(h[hotSum], m)
	var sq uint64
	if sumSq {
		var carry uint64
		sq, carry = bits.Add64(uint64(h[hotSq]), uint64(m*m), 0)
		ovf = ovf || carry != 0 || sq > math.MaxInt64
	}
	if ovf {
		return false
	}
	n := h[hotN]
	h[hotN] = n + 1
	if m < 0 {
		h[hotNeg]++
	}
	h[hotSum] = s
	h[hotSq] = int64(sq)
	if n == 0 {
		h[hotMin], h[hotMax] = m, m
	} else if m < h[hotMin] {
		h[hotMin] = m
	} else if m > h[hotMax] {
		h[hotMax] = m
	}
	k := len(h) - hotTop
	if k == 0 {
		return true
	}
	top := h[hotTop:]
	i := int(min(n, int64(k)))
	if i == k {
		if m <= top[k-1] {
			return true
		}
		i--
	}
	for i > 0 && m > top[i-1] {
		top[i] = top[i-1]
		i--
	}
	top[i] = m
	return true
}

// hotRec is a value waiting in microBuilder.pend for its cell's slab.
type hotRec struct {
	slot int32
	m    int64
}

// applyPending adds the values add found for the slab. They are added
// after the batch's other work, in a loop that does nothing else, so
// that the processor overlaps the cache misses of cells far apart.
func (b *microBuilder) applyPending() {
	for _, p := range b.pend {
		b.hotAdd(p.slot, p.m)
	}
	b.pend = b.pend[:0]
}

// addInt64 returns a + b and whether it overflowed.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (b > 0 && s < a) || (b < 0 && s > a)
}

// flushSlot merges a cell's slab into its cellAcc and empties it.
func (b *microBuilder) flushSlot(slot int32) {
	base := int(slot) * b.hotStride
	h := b.hot[base : base+b.hotStride]
	n := h[hotN]
	if n == 0 {
		return
	}
	a := b.accs[slot]
	a.rows += n
	b.mergeSlab(a, h, b.hotScale)
	clear(h)
}

// mergeSlab adds the values of a slab h at scale sc (hotStride int64s,
// holding at least one value) to a's contributors: count, negatives, sum,
// sum of squares, range and largest values; not its rows.
func (b *microBuilder) mergeSlab(a *cellAcc, h []int64, sc int32) {
	n := h[hotN]
	a.n += n
	a.negative += h[hotNeg]
	a.total.addWide(h[hotSum]>>63, uint64(h[hotSum]), sc)
	if b.needs.SumSq {
		a.sumsq.addWide(0, uint64(h[hotSq]), 2*sc)
	}
	a.widen(decimal.Scaled(h[hotMin], int(sc)), decimal.Scaled(h[hotMax], int(sc)))
	for _, m := range h[hotTop : hotTop+int(min(n, int64(len(h)-hotTop)))] {
		a.top.add(decimal.Scaled(m, int(sc)))
	}
}

// flushHot merges every cell's slab into its cellAcc.
func (b *microBuilder) flushHot() {
	if !b.hotOn {
		return
	}
	for slot := range b.accs {
		b.flushSlot(int32(slot))
	}
}
