package pipeline

import (
	"cmp"
	"math/big"
	"slices"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Holdings of a cell (docs/performance.md, "Grouping, this session"): a
// slice of (holding id, sum, rows) instead of a map from id to a pointer.
// A record appends an entry; merging a cell into a margin appends the
// cell's entries; an entry's holding may thus be in the slice several
// times until compactHoldings adds the entries
// of each holding together (in the order of their first entries, through
// microBuilder.holdPos: no sort). A cell compacts when its slice has doubled
// since the last compaction, so that it holds at most about twice its
// holdings, and always before its holdings are read. Sums are exact and
// normalised (sum.value), so the order in which entries are added does
// not change them.

// holding is the sum of one holding's values in a cell: (hi:lo) ×
// 10^-scale as in sum, or, when scale is bigScale, the big sum
// microBuilder.holdBig[lo]. It holds no pointer, so that slices of
// holdings are copied without write barriers and not scanned by the
// collector.
type holding struct {
	id    uint32
	scale int32
	rows  int64
	hi    int64
	lo    uint64
}

// bigScale marks a holding whose sum is in microBuilder.holdBig.
const bigScale = -1

// holdSum returns the sum of a holding as a sum (sharing its big sum).
func (b *microBuilder) holdSum(h *holding) sum {
	if h.scale == bigScale {
		return sum{big: b.holdBig[h.lo]}
	}
	return sum{hi: h.hi, lo: h.lo, scale: h.scale}
}

// setHoldSum stores s as the sum of h; a big sum not yet in holdBig is
// added to it (own says it is h's already).
func (b *microBuilder) setHoldSum(h *holding, s sum, own bool) {
	if s.big == nil {
		h.hi, h.lo, h.scale = s.hi, s.lo, s.scale
		return
	}
	if own && h.scale == bigScale {
		b.holdBig[h.lo] = s.big
		return
	}
	h.hi, h.lo, h.scale = 0, uint64(len(b.holdBig)), bigScale
	b.holdBig = append(b.holdBig, s.big)
}

// addHoldSum adds the sum of y (of builder yb) into x's.
func (b *microBuilder) addHoldSum(x, y *holding, yb *microBuilder) {
	xs := b.holdSum(x)
	ys := yb.holdSum(y)
	own := xs.big != nil
	xs.merge(&ys) // adds into xs.big in place when it has one: x's own
	b.setHoldSum(x, xs, own)
}

// minCompact is the fewest entries a cell compacts.
const minCompact = 16

// addHolding adds one record of holding id to a cell.
func (b *microBuilder) addHolding(a *cellAcc, id uint32, v decimal.Dec, missing bool) {
	a.holds = append(a.holds, holding{id: id})
	if !missing {
		h := &a.holds[len(a.holds)-1]
		h.rows = 1
		if m, ok := v.Mantissa(); ok {
			h.hi, h.lo, h.scale = m>>63, uint64(m), int32(v.Scale())
		} else {
			b.setHoldSum(h, sum{big: v.Rat()}, false)
		}
	}
	b.maybeCompact(a)
}

// mergeHoldings appends the holdings of src to dst. The big sums are
// copied: compaction adds into them in place.
func (b *microBuilder) mergeHoldings(dst, src *cellAcc) {
	if need := len(dst.holds) + len(src.holds); need > cap(dst.holds) {
		// compact before growing, and grow by doubling (append grows
		// large slices by a quarter: five copies of a margin's holdings)
		b.compactHoldings(dst)
		if need = len(dst.holds) + len(src.holds); need > cap(dst.holds) {
			h := make([]holding, len(dst.holds), max(2*need, minCompact))
			copy(h, dst.holds)
			dst.holds = h
		}
	}
	n := len(dst.holds)
	dst.holds = append(dst.holds, src.holds...)
	for i := n; i < len(dst.holds); i++ {
		if h := &dst.holds[i]; h.scale == bigScale {
			b.setHoldSum(h, sum{big: new(big.Rat).Set(b.holdBig[h.lo])}, false)
		}
	}
	b.maybeCompact(dst)
}

func (b *microBuilder) maybeCompact(a *cellAcc) {
	if len(a.holds) >= max(a.compactAt, minCompact) {
		b.compactHoldings(a)
		a.compactAt = 2 * len(a.holds)
	}
}

// compactHoldings adds the entries of each holding of a cell into its
// first, in place.
func (b *microBuilder) compactHoldings(a *cellAcc) {
	if a.sorted == len(a.holds) {
		return
	}
	for len(b.holdPos) < len(b.holdNames) {
		b.holdPos = append(b.holdPos, -1)
	}
	pos := b.holdPos
	h := a.holds
	out := h[:0]
	for i := range h {
		x := &h[i]
		if p := pos[x.id]; p >= 0 {
			o := &out[p]
			b.addHoldSum(o, x, b)
			o.rows += x.rows
			if x.scale == bigScale {
				b.holdBig[x.lo] = nil // added into o's: let it go
			}
			continue
		}
		pos[x.id] = int32(len(out))
		out = append(out, *x)
	}
	for _, x := range out {
		pos[x.id] = -1
	}
	a.holds, a.sorted = out, len(out)
}

// finishHoldings turns the per-holding sums of a cell into contributions,
// in the order of the holding ids' texts when power sums are kept (their
// floating-point value depends on the order). Without power sums the order
// does not matter: a holding's contribution is its exact sum, normalised,
// so equal contributions are identical and every other statistic is exact.
func (b *microBuilder) finishHoldings(a *cellAcc) {
	b.compactHoldings(a)
	if b.needs.Powers > 0 {
		slices.SortFunc(a.holds, func(x, y holding) int { return cmp.Compare(b.holdRank[x.id], b.holdRank[y.id]) })
	}
	for i := range a.holds {
		b.contributeHolding(a, &a.holds[i])
	}
	a.holds = nil
}

// finishLocalHoldings finishes, in their finest cell, the holdings found
// in no other finest cell: such a holding's sum is the same in every
// margin above the cell, so margins merge its contribution with the
// cell's other contributions instead of merging its sum per margin. Only
// holdings that span finest cells stay to be merged upward. It is not used
// with power sums: their floating-point value depends on the order of the
// contributions, which must stay that of the holdings' ids in every cell.
func (b *microBuilder) finishLocalHoldings(finest []*cellAcc) {
	cells := make([]int32, len(b.holdNames))
	for _, a := range finest {
		b.compactHoldings(a)
		for _, h := range a.holds {
			cells[h.id]++
		}
	}
	for _, a := range finest {
		out := a.holds[:0]
		for i := range a.holds {
			if cells[a.holds[i].id] == 1 {
				b.contributeHolding(a, &a.holds[i])
			} else {
				out = append(out, a.holds[i])
			}
		}
		a.holds, a.sorted = out, len(out)
	}
}
