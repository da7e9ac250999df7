package cells

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// Holdings of a cell (docs/performance.md, "Grouping"): a
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

// holdRec is a record waiting in microBuilder.holdPend for its cell:
// its holding and its value m × 10^-sc, or sc < 0 when the value is
// missing.
type holdRec struct {
	slot int32
	id   uint32
	sc   int32
	m    int64
}

// pendHolding leaves record r of batch (row), of the cell in slot, for
// applyHoldings when its value is a plain decimal, a typed number with an
// int64 mantissa, or missing (ok); any other value takes addValue. An
// empty holding id is an error.
func (b *microBuilder) pendHolding(slot int32, row []string, batch *readers.Batch, r int) (ok bool, err error) {
	p := holdRec{slot: slot, id: b.holdBatch[r]}
	if p.id == noHolding {
		return false, &readers.Error{File: b.file, Row: batch.Lines[r], Column: header(b, b.holdIdx), Err: fmt.Errorf("the holding id is empty")}
	}
	if b.valIdx >= 0 {
		s := row[b.valIdx]
		if s == readers.NumberField {
			d := batch.Numbers[b.valIdx][r]
			if p.m, ok = d.Mantissa(); !ok {
				return false, nil
			}
			p.sc = int32(d.Scale())
		} else if p.m, p.sc, ok = plainDecimal(s, b.num.Comma); !ok {
			if !configs.IsMissing(s) {
				return false, nil
			}
			p.sc = -1
		}
	}
	b.holdPend = append(b.holdPend, p)
	return true, nil
}

// applyHoldings adds the records pendHolding left to their cells, in
// their order, as addValue and addHolding would have. They are added
// after the batch's other work, in a loop that does nothing else, so
// that the processor overlaps the cache misses of cells far apart (as
// applyPending does the hot slab's).
func (b *microBuilder) applyHoldings() {
	for i := range b.holdPend {
		p := &b.holdPend[i]
		a := b.accs[p.slot]
		a.rows++
		h := holding{id: p.id}
		if p.sc < 0 {
			a.missing++
		} else {
			h.rows, h.hi, h.lo, h.scale = 1, p.m>>63, uint64(p.m), p.sc
		}
		a.holds = append(a.holds, h)
		b.maybeCompact(a)
	}
	b.holdPend = b.holdPend[:0]
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
	if len(a.holds) >= max(int(a.compactAt), minCompact) {
		b.compactHoldings(a)
		a.compactAt = int32(min(2*len(a.holds), math.MaxInt32))
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
// holdings that span finest cells stay, for takeSpanning (or, with a
// hierarchy, to be merged upward). It is not used
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

// Holdings that span cells (issue 28): instead of merging every cell's
// holdings into its margins (each margin then holding a slice entry per
// holding below it, all of them alive until the cells are finished), the
// entries left in the finest cells by finishLocalHoldings are taken out,
// grouped by holding (a counting sort: pairs of a finest cell and an
// entry), and once the margins are derived without them each holding in
// turn adds its sums over the finest cells below every cell it reaches
// and contributes them to that cell at once. Memory: one entry per
// (holding, finest cell) pair, none per (holding, margin) pair; two
// int32s of scratch per cell. Without power sums a cell's statistics do
// not depend on the order of its contributions (finishHoldings), so the
// cells are those of the merges.

// maxSpanDims bounds the dimensions for which spanning holdings are
// contributed by holding (2^d cells per pair); beyond it, and with a
// hierarchy or power sums, they are merged into the margins as before.
const maxSpanDims = 10

// spanEntry is a holding's sum in one finest cell.
type spanEntry struct {
	cell uint64 // the finest cell's key, packed (cellPacker)
	h    holding
}

// spanning holds the spanning holdings' entries grouped by holding id:
// entries[off[id]:off[id+1]].
type spanning struct {
	off     []int32
	entries []spanEntry
}

// takeSpanning moves the holdings left in the finest cells into a
// spanning, or returns nil where the holdings are merged into the margins
// instead (see maxSpanDims) or where a cell's key cannot be packed.
func (b *microBuilder) takeSpanning(finest []*cellAcc) *spanning {
	if b.tune.SpanOff || b.needs.Powers > 0 || b.hier != nil || len(b.dimIdx) > maxSpanDims {
		return nil
	}
	p := b.packCells()
	if p == nil {
		return nil
	}
	sp := &spanning{off: make([]int32, len(b.holdNames)+1)}
	total := 0
	for _, a := range finest {
		b.compactHoldings(a)
		for _, h := range a.holds {
			sp.off[h.id+1]++
		}
		total += len(a.holds)
	}
	for i := 1; i < len(sp.off); i++ {
		sp.off[i] += sp.off[i-1]
	}
	sp.entries = make([]spanEntry, total)
	next := slices.Clone(sp.off[:len(sp.off)-1])
	for _, a := range finest {
		x := p.pack(a.key)
		for _, h := range a.holds {
			sp.entries[next[h.id]] = spanEntry{cell: x, h: h}
			next[h.id]++
		}
		a.holds, a.sorted, a.compactAt = nil, 0, 0
	}
	return sp
}

// cellPacker gives each cell key (a level id or the total per dimension)
// its index in mixed radix: level ids as they are, the total as the
// dimension's number of levels.
type cellPacker struct {
	stride []uint64
	total  []uint64 // the digit of the total in each dimension
}

// packCells returns the packer of the builder's keys, or nil when the
// product of the radixes does not fit 62 bits.
func (b *microBuilder) packCells() *cellPacker {
	p := &cellPacker{stride: make([]uint64, len(b.names)), total: make([]uint64, len(b.names))}
	s := uint64(1)
	for d := len(b.names) - 1; d >= 0; d-- {
		r := uint64(len(b.names[d])) + 1
		p.stride[d], p.total[d] = s, r-1
		hi, lo := bits.Mul64(s, r)
		if hi != 0 || lo > 1<<62 {
			return nil
		}
		s = lo
	}
	return p
}

func (p *cellPacker) pack(key []uint32) uint64 {
	var k uint64
	for d, id := range key {
		v := uint64(id)
		if id == 1<<32-1 {
			v = p.total[d]
		}
		k += v * p.stride[d]
	}
	return k
}

// contributeSpanning contributes the spanning holdings to every cell they
// reach; accs is every cell.
func (b *microBuilder) contributeSpanning(sp *spanning, accs []*cellAcc) {
	p := b.packCells()
	var dense []int32
	var index map[uint64]int32
	size := uint64(1)
	for d := range p.stride {
		size *= p.total[d] + 1
	}
	if !b.tune.SpanMap && size <= uint64(4*len(accs)+1024) {
		dense = make([]int32, size)
		for i, a := range accs {
			dense[p.pack(a.key)] = int32(i)
		}
	} else {
		index = make(map[uint64]int32, len(accs))
		for i, a := range accs {
			index[p.pack(a.key)] = int32(i)
		}
	}
	nd := len(p.stride)
	// mark[c] is the pass (of its worker) that last added a holding to
	// cell c, slot[c] its sum in the worker's sums. Worker w adds the
	// holdings into the cells whose set of total dimensions (a mask) is w
	// modulo the workers: every cell is one worker's, which adds its
	// holdings in the order of their ids.
	mark := make([]uint32, len(accs))
	slot := make([]int32, len(accs))
	sl := b.spanSlab(sp, len(accs))
	workers := max(1, min(b.workers, 1<<nd))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// target is a holding's sum in one cell: m, a mantissa at the
			// slab's scale, on the fast pass, else s.
			type target struct {
				cell int32
				rows int64
				m    int64
				s    sum
			}
			var sums []target
			var masks []int
			for m := w; m < 1<<nd; m += workers {
				masks = append(masks, m)
			}
			idx := make([]uint64, 1<<nd) // the index of each margin of a cell, by the set of its total dimensions
			delta := make([]uint64, nd)
			var ms []int64 // the entries' sums as mantissas at the slab's scale
			pass := uint32(0)
			// gather adds the entries es of a holding into sums, one per
			// cell they reach: as int64 mantissas (ms) when fast, false when
			// such a sum would overflow.
			gather := func(es []spanEntry, fast bool) bool {
				pass++
				sums = sums[:0]
				for e := range es {
					en := &es[e]
					idx[0] = en.cell
					for d := range delta { // the margin over d adds delta[d] to a cell's index
						delta[d] = (p.total[d] - en.cell/p.stride[d]%(p.total[d]+1)) * p.stride[d]
					}
					for m := 1; m < len(idx); m++ {
						idx[m] = idx[m&(m-1)] + delta[bits.TrailingZeros(uint(m))]
					}
					var hs sum
					if !fast {
						hs = b.holdSum(&en.h)
					}
					for _, m := range masks {
						x := idx[m]
						var c int32
						if dense != nil {
							c = dense[x]
						} else {
							c = index[x]
						}
						if mark[c] != pass {
							mark[c], slot[c] = pass, int32(len(sums))
							sums = append(sums, target{cell: c})
						}
						t := &sums[slot[c]]
						t.rows += en.h.rows
						if !fast {
							t.s.merge(&hs)
							continue
						}
						s, ovf := addInt64(t.m, ms[e])
						if ovf {
							return false
						}
						t.m = s
					}
				}
				return true
			}
			for id := 0; id+1 < len(sp.off); id++ {
				es := sp.entries[sp.off[id]:sp.off[id+1]]
				if len(es) == 0 {
					continue
				}
				// fast: every entry's sum is a mantissa at the slab's scale
				fast := sl != nil
				ms = ms[:0]
				for e := 0; fast && e < len(es); e++ {
					h := &es[e].h
					m, ok := int64(0), false
					if h.scale != bigScale {
						m, ok = sl.mant(&sum{hi: h.hi, lo: h.lo, scale: h.scale})
					}
					ms = append(ms, m)
					fast = ok
				}
				if !gather(es, fast) {
					fast = false
					gather(es, false)
				}
				for i := range sums {
					t := &sums[i]
					if b.valIdx >= 0 && t.rows == 0 {
						continue // every value of this holding is missing: not a contributor
					}
					if fast {
						if t.m <= sl.limit && t.m >= -sl.limit {
							sl.add(b, accs[t.cell], t.cell, t.m)
						} else {
							b.contribute(accs[t.cell], decimal.Scaled(t.m, int(sl.scale)))
						}
						continue
					}
					if sl != nil {
						if m, ok := sl.mant(&t.s); ok {
							sl.add(b, accs[t.cell], t.cell, m)
							continue
						}
					}
					b.contribute(accs[t.cell], t.s.value())
				}
			}
		})
	}
	wg.Wait()
	if sl != nil {
		for c, a := range accs {
			if h := sl.cell(int32(c)); h[hotN] > 0 {
				b.mergeSlab(a, h, sl.scale)
			}
		}
	}
}

// contribSlab keeps the contributions of the spanning holdings to every
// cell as the hot slab keeps a finest cell's values (group_hot.go): count,
// negatives, sum, sum of squares, range and largest values as int64
// mantissas at one scale, one cache line per cell for the default rules,
// instead of on the cell's cellAcc, whose fields are spread over several
// lines behind a pointer: a holding's contributions go to cells far
// apart. A contribution that does not fit (a big sum, more decimals than
// the scale, beyond the bound) takes the exact path (contribute); the
// slab is merged into the cells once every holding has contributed (or a
// cell's slab when its sum would overflow). Both paths are exact and
// every Dec normalised, so the cells are the same whichever way each
// contribution went (TestSpanningHoldingsMatchMerges,
// TestHoldingsAgreeWithOracle).
type contribSlab struct {
	h      []int64
	stride int
	scale  int32
	limit  int64
	sumSq  bool
}

// spanSlab returns the slab for cells cells, or nil when the rules need
// more per contribution than it keeps (as useHot) or there is no value.
func (b *microBuilder) spanSlab(sp *spanning, cells int) *contribSlab {
	n := b.needs
	if b.tune.SpanExact || b.valIdx < 0 || n.Powers > 0 || n.Hist || n.Absolute || b.measure != nil || n.Top > maxHotTop {
		return nil
	}
	sl := &contribSlab{stride: hotTop + n.Top, limit: math.MaxInt64, sumSq: n.SumSq}
	if n.SumSq {
		sl.limit = 3037000499 // m² fits int64
	}
	for i := range sp.entries {
		if sc := sp.entries[i].h.scale; sc != bigScale {
			sl.scale = max(sl.scale, min(sc, maxHotScale))
		}
	}
	sl.h = make([]int64, cells*sl.stride)
	return sl
}

// cell is the slab of cell c.
func (sl *contribSlab) cell(c int32) []int64 {
	base := int(c) * sl.stride
	return sl.h[base : base+sl.stride : base+sl.stride]
}

// mant returns s as a mantissa at the slab's scale, when it fits.
func (sl *contribSlab) mant(s *sum) (int64, bool) {
	if s.big != nil || s.hi != int64(s.lo)>>63 || s.scale > sl.scale {
		return 0, false
	}
	m := int64(s.lo)
	if k := sl.scale - s.scale; k > 0 {
		f := decimal.Pow10(int(k))
		if m > sl.limit/f || m < -sl.limit/f {
			return 0, false
		}
		m *= f
	}
	if m > sl.limit || m < -sl.limit {
		return 0, false
	}
	return m, true
}

// add adds the contribution m (from mant) to cell c, whose cellAcc is a.
func (sl *contribSlab) add(b *microBuilder, a *cellAcc, c int32, m int64) {
	h := sl.cell(c)
	if !slabAdd(h, m, sl.sumSq) {
		b.mergeSlab(a, h, sl.scale)
		clear(h)
		slabAdd(h, m, sl.sumSq)
	}
}

// noHolding is the id internBatch gives a record whose holding id is
// empty (an error, reported by addValue in the record's turn).
const noHolding = 1<<32 - 1

// internBatch interns the holding ids of a batch's records, in their
// order, into b.holdBatch (internTexts).
func (b *microBuilder) internBatch(batch *readers.Batch) {
	texts := b.holdTexts[:0]
	for _, row := range batch.Rows {
		texts = append(texts, row[b.holdIdx])
	}
	b.holdBatch = b.holdIDs.internTexts(texts, &b.holdNames, b.holdBatch[:0])
	clear(texts) // not the records' lines
	b.holdTexts = texts
}

// internTexts appends the ids of texts to ids, interned in their order,
// and returns ids; an empty text has the id noHolding. It works
// internAhead texts at a time: it hashes them and loads each one's first
// slot in a loop of independent loads, so that the processor overlaps
// their cache misses (the table of a million ids is tens of megabytes),
// and then interns them, finding the slots in cache. Ids are given in
// the order texts are first seen, as when each was interned alone.
func (t *holdTable) internTexts(texts []string, names *[]string, ids []uint32) []uint32 {
	var hashes [internAhead]uint64
	for start := 0; start < len(texts); start += internAhead {
		part := texts[start:min(start+internAhead, len(texts))]
		mask := uint64(len(t.slots) - 1)
		var touch uint64
		for i, s := range part {
			h := maphash.String(t.seed, s)
			hashes[i] = h
			touch += t.slots[h&mask].meta
		}
		t.touched += touch
		for i, s := range part {
			id := uint32(noHolding)
			if s != "" {
				id = t.internHash(s, hashes[i], names)
			}
			ids = append(ids, id)
		}
	}
	return ids
}

// internAhead is how many records' slots internBatch loads ahead.
const internAhead = 256

// holdTable interns holding ids (issue 28: compact ids, no per-record
// maps): an open-addressing table of two-word slots over the texts in
// names. A slot holds the upper half of the text's hash with 1 + its
// interned id, and the text itself when it has at most 7 bytes (its
// bytes and length, inlineText), else its first 7 bytes and a mark: a
// lookup of a short id reads one slot and no string, a long one compares
// the text only when the hash tag and prefix agree. Ids are given in the
// order texts are first seen, as the map of strings this replaces gave
// them; the hash seed is random but only places slots, so ids do not
// depend on it.
type holdTable struct {
	seed    maphash.Seed
	slots   []holdSlot
	n       int
	touched uint64 // the sum of internTexts' early loads, kept so that they are not left out
}

type holdSlot struct {
	meta uint64 // hash tag | id+1; 0: empty
	text uint64 // inlineText
}

func newHoldTable() *holdTable {
	return &holdTable{seed: maphash.MakeSeed(), slots: make([]holdSlot, 1024)}
}

// inlineText packs the first 7 bytes of s with its length in the top
// byte, or 0xFF there when s is longer than 7 bytes: two texts of at
// most 7 bytes are equal exactly when their words are.
func inlineText(s string) uint64 {
	n := min(len(s), 7)
	var w uint64
	for i := range n {
		w |= uint64(s[i]) << (8 * i)
	}
	if len(s) > 7 {
		return w | 0xFF<<56
	}
	return w | uint64(len(s))<<56
}

// intern returns the id of s, adding it (cloned) to *names when new.
func (t *holdTable) intern(s string, names *[]string) uint32 {
	return t.internHash(s, maphash.String(t.seed, s), names)
}

// internHash is intern with h, the hash of s.
func (t *holdTable) internHash(s string, h uint64, names *[]string) uint32 {
	tag := h &^ (1<<32 - 1)
	w := inlineText(s)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		v := &t.slots[i]
		if v.meta == 0 {
			id := uint32(len(*names))
			*names = append(*names, strings.Clone(s)) // not the record's line
			*v = holdSlot{meta: tag | uint64(id+1), text: w}
			t.n++
			if 2*t.n > len(t.slots) {
				t.grow(*names)
			}
			return id
		}
		if v.meta&^(1<<32-1) == tag && v.text == w {
			id := uint32(v.meta) - 1
			if len(s) <= 7 || (*names)[id] == s {
				return id
			}
		}
	}
}

// grow doubles the table.
func (t *holdTable) grow(names []string) {
	t.slots = make([]holdSlot, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id, s := range names {
		h := maphash.String(t.seed, s)
		i := h & mask
		for t.slots[i].meta != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = holdSlot{meta: h&^(1<<32-1) | uint64(id+1), text: inlineText(s)}
	}
}
