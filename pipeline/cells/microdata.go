package cells

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"

	"golang.org/x/sync/errgroup"
)

// microBuilder groups record-level rows into the cells of a table with every
// margin. It keeps one accumulator per finest cell, so memory grows with
// the number of cells (and, with a holding column, with the holdings per
// cell), not with the number of rows.
type microBuilder struct {
	t       *audit.Table
	file    string
	dimIdx  []int
	valIdx  int // -1 for a frequency table
	holdIdx int // -1 without holdings
	needs   rules.Needs
	tune    Tuning // fast paths off, for tests (Input.Tuning)
	levels  []map[string]uint32
	names   [][]string
	cells   map[string]*cellAcc
	keyBuf  []byte
	// packed indexes the cells by a uint64 key (16 bits per dimension)
	// while every dimension has fewer than 65,536 levels and there are at
	// most four dimensions: faster than string keys on every record.
	packed  map[uint64]*cellAcc
	usePack bool
	// grid indexes the cells by their level ids in mixed radix, gridBits[d]
	// bits for dimension d, while the grid has at most 1<<maxGridBits
	// entries: one array access per record instead of a map lookup
	// (see growGrid).
	// grid holds slot+1 of each cell (0: none yet); accs[slot] is the
	// cell and, with the hot slab (group_hot.go), hot[slot*hotStride:]
	// its hot statistics.
	grid     []int32
	gridBits []int
	accs     []*cellAcc
	hot      []int64
	hotOn    bool
	// hotStride is the int64s per cell in hot; hotScale the scale of its
	// mantissas, hotLimit their bound, hotVals the values it took.
	hotStride int
	hotScale  int32
	hotLimit  int64
	hotVals   int64
	pend      []hotRec // values of the batch for the slab (applyPending)
	useGrid   bool
	measure   *domainGrid
	warnings  map[string]int
	num       readers.NumberFormat
	empty     emptyLevels
	hier      *microHier // nil when no dimension has a hierarchy (hierarchy.go)
	limits    cellLimits // on the cells the records imply (celllimit.go)
	// holdIDs interns the holding ids of the records (holdNames[id] is the
	// text), so that cells key their holdings by a small integer.
	holdIDs   *holdTable
	holdNames []string
	holdRank  []uint32   // set by finish: see rankHoldings
	holdPos   []int32    // by holding id, -1: scratch of compactHoldings
	holdBig   []*big.Rat // the big sums of holdings (holding.lo)
	holdBatch []uint32   // the interned ids of a batch's records (internBatch)
	holdTexts []string   // scratch of internBatch
	holdPend  []holdRec  // records for applyHoldings
	// workers is how many goroutines finish may use (set by build).
	workers int
}

// cellAcc accumulates one cell.
type cellAcc struct {
	// holds are the cell's holdings (group_hold.go): sums by interned id
	// (microBuilder.holdNames), each id once in holds[:sorted];
	// compactAt is the length at which they are compacted next. They
	// come first, with rows, so that a record with a holding reaches
	// one or two cache lines of its cell (the cell's fields are 32-byte
	// aligned).
	holds     []holding
	rows      int64
	compactAt int32
	slot      int32 // in microBuilder.accs, or -1
	sorted    int
	missing   int64
	key       []uint32
	n         int64
	negative  int64
	total     sum
	sumsq     sum
	top       topK
	absTotal  sum
	absTop    topK
	hasRange  bool
	min, max  decimal.Dec
	pow       powSums
	hist      []int64
	offGrid   int64
}

// domainGrid maps values onto the measure grid.
type domainGrid struct {
	min, step decimal.Dec
	size      int
}

func (g *domainGrid) index(d decimal.Dec) (int, bool) {
	q := new(big.Rat).Quo(d.Sub(g.min).Rat(), g.step.Rat())
	if !q.IsInt() || q.Sign() < 0 || !q.Num().IsInt64() || q.Num().Int64() >= int64(g.size) {
		return 0, false
	}
	return int(q.Num().Int64()), true
}

const maxHist = 100000

func newMicroBuilder(t *audit.Table, file string, header []string, value, holdingCol string, needs rules.Needs) (*microBuilder, error) {
	var missing []error
	col := func(name, role string) (int, error) {
		i, ok, amb := findColumn(header, name)
		if ok {
			return i, nil
		}
		missing = append(missing, missingColumnAmb(file, name, role, header, amb, len(missing) == 0))
		return -1, nil // every missing column is reported at once, below
	}
	b := &microBuilder{t: t, file: file, valIdx: -1, holdIdx: -1, needs: needs, cells: map[string]*cellAcc{}, warnings: map[string]int{}, num: numberFormat(t, nil), empty: newEmptyLevels(len(t.Dims))}
	if len(t.Dims) == 0 {
		return nil, fmt.Errorf("microdata mode needs at least one dimension (--dims)")
	}
	seen := map[string]bool{}
	for _, d := range t.Dims {
		if seen[d] {
			return nil, fmt.Errorf("dimension %q given twice", d)
		}
		seen[d] = true
		i, err := col(d, "dimension")
		if err != nil {
			return nil, err
		}
		b.dimIdx = append(b.dimIdx, i)
		b.levels = append(b.levels, map[string]uint32{})
		b.names = append(b.names, nil)
	}
	if value != "" {
		i, err := col(value, "value")
		if err != nil {
			return nil, err
		}
		b.valIdx = i
	}
	if holdingCol != "" {
		i, err := col(holdingCol, "holding")
		if err != nil {
			return nil, err
		}
		b.holdIdx = i
		b.holdIDs = newHoldTable()
	}
	if len(missing) > 0 {
		return nil, errors.Join(missing...)
	}
	if m := t.Measure; m != nil && needs.Hist {
		q := new(big.Rat).Quo(m.Max.Sub(m.Min).Rat(), m.Step.Rat())
		if q.IsInt() && q.Num().IsInt64() && q.Num().Int64() < maxHist {
			b.measure = &domainGrid{min: m.Min, step: m.Step, size: int(q.Num().Int64()) + 1}
		}
	}
	b.keyBuf = make([]byte, 4*len(t.Dims))
	if len(t.Dims) <= 4 {
		b.usePack = true
		b.packed = map[uint64]*cellAcc{}
	}
	b.startGrid()
	b.initHot()
	return b, nil
}

// maxGridBits bounds the grid of a builder (growGrid): 1<<20 pointers.
const maxGridBits = 20

// startGrid starts an empty grid with 16 levels per dimension, or none
// when even that would be too large.
func (b *microBuilder) startGrid() {
	b.gridBits = make([]int, len(b.dimIdx))
	for d := range b.gridBits {
		b.gridBits[d] = 4
	}
	b.useGrid = 4*len(b.dimIdx) <= maxGridBits
	if b.useGrid {
		b.grid = make([]int32, 1<<(4*len(b.dimIdx)))
	}
}

// growGrid widens the grid to the levels seen so far (with room for as
// many again) and puts every cell back in it, or gives the grid up when it
// would exceed 1<<maxGridBits entries.
func (b *microBuilder) growGrid() {
	total := 0
	for d := range b.gridBits {
		b.gridBits[d] = max(b.gridBits[d], bits.Len(uint(2*len(b.names[d])-1)))
		total += b.gridBits[d]
	}
	if total > maxGridBits {
		b.useGrid, b.grid = false, nil
		return
	}
	b.grid = make([]int32, 1<<total)
	for _, a := range b.cells {
		b.grid[b.gridIndex(a.key)] = a.slot + 1
	}
}

func (b *microBuilder) gridIndex(key []uint32) int {
	gi := 0
	for d, id := range key {
		gi = gi<<b.gridBits[d] | int(id)
	}
	return gi
}

func (b *microBuilder) newAcc(key []uint32) *cellAcc {
	a := &cellAcc{key: key, slot: -1, top: topK{k: b.needs.Top}}
	if b.needs.Absolute {
		a.absTop.k = b.needs.Top
	}
	if b.needs.Powers > 0 {
		a.pow.v = make([]float64, b.needs.Powers)
	}
	if b.measure != nil {
		a.hist = make([]int64, b.measure.size)
	}
	return a
}

// add consumes one batch of rows.
func (b *microBuilder) add(batch *readers.Batch) error {
	err := b.addRows(batch)
	if err != nil {
		b.pend = b.pend[:0] // the run fails: nothing more is read
		b.holdPend = b.holdPend[:0]
		return err
	}
	b.applyPending()
	b.applyHoldings()
	return nil
}

// addRows groups the rows of a batch, leaving the values for the hot slab
// in b.pend.
func (b *microBuilder) addRows(batch *readers.Batch) error {
	if b.holdIdx >= 0 {
		b.internBatch(batch)
	}
	for r, row := range batch.Rows {
		if b.hier != nil && b.hier.found != nil {
			if err := b.hier.record(b.file, row, batch.Lines[r]); err != nil {
				return err
			}
		}
		pk, gi, err := b.cellKey(row, batch.Lines[r])
		if err != nil {
			return err
		}
		// the cell's slot; its cellAcc is loaded only off the hot path
		var a *cellAcc
		slot := int32(-1)
		switch {
		case b.useGrid:
			slot = b.grid[gi] - 1
		case b.usePack:
			a = b.packed[pk]
		default:
			a = b.cells[string(b.keyBuf)]
		}
		if slot < 0 {
			if a == nil {
				if a = b.cells[string(b.keyBuf)]; a == nil {
					key := make([]uint32, len(b.dimIdx))
					for d := range key {
						key[d] = binary.LittleEndian.Uint32(b.keyBuf[4*d:])
					}
					a = b.newAcc(key)
					b.newSlot(a)
					b.cells[string(b.keyBuf)] = a
				}
				if b.usePack {
					b.packed[pk] = a
				}
			}
			slot = a.slot
			if b.useGrid {
				b.grid[gi] = slot + 1
			}
		}
		if b.hotOn {
			s := row[b.valIdx]
			var m int64
			var ok bool
			if s == readers.NumberField {
				m, ok = b.hotDec(batch.Numbers[b.valIdx][r])
			} else {
				m, ok = b.hotText(s)
			}
			if ok {
				b.pend = append(b.pend, hotRec{slot, m})
				continue
			}
		}
		if b.holdIdx >= 0 {
			ok, err := b.pendHolding(slot, row, batch, r)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
			b.applyHoldings() // the records before this one first, in order
		}
		if a == nil {
			a = b.accs[slot]
		}
		if err := b.addValue(a, row, batch, r); err != nil {
			return err
		}
	}
	return nil
}

// cellKey reads the dimension levels of a record (at line) into b.keyBuf,
// adding the levels not seen yet (checked against the margin label and
// the hierarchies). It returns the key packed 16 bits a dimension (valid
// while b.usePack) and the record's index in the grid (valid while
// b.useGrid), growing the grid when a level outgrows it.
func (b *microBuilder) cellKey(row []string, line int) (pk uint64, gi int, err error) {
	total := b.t.TotalLabel
	fits := b.useGrid
	for d, i := range b.dimIdx {
		v := b.empty.level(d, row[i], line)
		id, ok := b.levels[d][v]
		if !ok {
			if v == total {
				return 0, 0, &readers.Error{File: b.file, Row: line, Column: b.t.Dims[d], Value: v, Err: fmt.Errorf("a dimension value equals the margin label %q (set total_label in the config)", total)}
			}
			if b.hier != nil {
				if err := b.hier.check(b.file, d, v, line); err != nil {
					return 0, 0, err
				}
			}
			id = uint32(len(b.names[d]))
			b.levels[d][v] = id
			b.names[d] = append(b.names[d], v)
		}
		binary.LittleEndian.PutUint32(b.keyBuf[4*d:], id)
		if id >= 1<<16 {
			b.usePack = false
		}
		pk = pk<<16 | uint64(id)
		if fits {
			if id>>b.gridBits[d] != 0 {
				fits = false
			}
			gi = gi<<b.gridBits[d] | int(id)
		}
	}
	if b.useGrid && !fits {
		b.growGrid()
		if b.useGrid {
			gi = 0
			for d := range b.dimIdx {
				gi = gi<<b.gridBits[d] | int(binary.LittleEndian.Uint32(b.keyBuf[4*d:]))
			}
		}
	}
	return pk, gi, nil
}

// addValue adds the value of record r of batch (row) to its cell a, or
// the value to the record's holding: the path of the values that the hot
// slab does not take (missing, not plain, or with holdings).
func (b *microBuilder) addValue(a *cellAcc, row []string, batch *readers.Batch, r int) error {
	a.rows++
	var v decimal.Dec
	missing := false
	if b.valIdx >= 0 {
		s := row[b.valIdx]
		if s == readers.NumberField { // a typed number (Arrow, Parquet)
			v = batch.Numbers[b.valIdx][r]
		} else if m, sc, ok := plainDecimal(s, b.num.Comma); ok {
			v = decimal.Scaled(m, int(sc)) // as b.num.Parse reads it, without its checks
		} else if configs.IsMissing(s) {
			missing = true
			a.missing++
		} else {
			d, err := b.num.Parse(s)
			if err != nil {
				return &readers.Error{File: b.file, Row: batch.Lines[r], Column: b.t.Value, Value: s, Err: err}
			}
			v = d
		}
	}
	if b.holdIdx >= 0 {
		id := b.holdBatch[r]
		if id == noHolding {
			return &readers.Error{File: b.file, Row: batch.Lines[r], Column: header(b, b.holdIdx), Err: fmt.Errorf("the holding id is empty")}
		}
		b.addHolding(a, id, v, missing)
		return nil
	}
	if missing {
		return nil
	}
	b.contribute(a, v)
	return nil
}

// valueOnly reports that the value column is read as nothing but the
// value (not a dimension, the holding or a hierarchy's parent), so that
// it may be taken as typed numbers (readers.Typed) whose text is then
// readers.NumberField.
func (b *microBuilder) valueOnly() bool {
	if b.valIdx < 0 || b.valIdx == b.holdIdx || slices.Contains(b.dimIdx, b.valIdx) {
		return false
	}
	if b.hier != nil {
		for _, cols := range b.hier.cols {
			if slices.Contains(cols, b.valIdx) {
				return false
			}
		}
	}
	return true
}

func header(b *microBuilder, i int) string {
	if i == b.valIdx {
		return b.t.Value
	}
	return "holding"
}

// widen extends a's range to take in lo..hi.
func (a *cellAcc) widen(lo, hi decimal.Dec) {
	if !a.hasRange {
		a.min, a.max, a.hasRange = lo, hi, true
		return
	}
	if lo.Cmp(a.min) < 0 {
		a.min = lo
	}
	if hi.Cmp(a.max) > 0 {
		a.max = hi
	}
}

// contribute adds one contributor's value to a cell.
func (b *microBuilder) contribute(a *cellAcc, v decimal.Dec) {
	a.n++
	if b.valIdx < 0 {
		return
	}
	a.total.add(v)
	if v.Sign() < 0 {
		a.negative++
	}
	if b.needs.SumSq {
		a.sumsq.add(v.Mul(v))
	}
	a.top.add(v)
	if b.needs.Absolute {
		av := v.Abs()
		a.absTotal.add(av)
		a.absTop.add(av)
	}
	a.widen(v, v)
	if a.pow.v != nil {
		a.pow.add(v.Float64())
	}
	if a.hist != nil {
		if i, ok := b.measure.index(v); ok {
			a.hist[i]++
		} else {
			a.offGrid++
		}
	}
}

// merge adds a child cell into a margin cell. Holdings still in the
// child's map are merged, not finished, so that a holding in several child
// cells counts once; the contributions the child already holds (holdings
// found in no other finest cell, see finish) are merged like any others.
func (b *microBuilder) merge(dst, src *cellAcc) {
	dst.rows += src.rows
	dst.missing += src.missing
	if len(src.holds) > 0 {
		b.mergeHoldings(dst, src)
	}
	dst.n += src.n
	dst.negative += src.negative
	dst.total.merge(&src.total)
	dst.sumsq.merge(&src.sumsq)
	for _, v := range src.top.v {
		dst.top.add(v)
	}
	if b.needs.Absolute {
		dst.absTotal.merge(&src.absTotal)
		for _, v := range src.absTop.v {
			dst.absTop.add(v)
		}
	}
	if src.hasRange {
		dst.widen(src.min, src.max)
	}
	if dst.pow.v != nil {
		dst.pow.merge(&src.pow)
	}
	for i, c := range src.hist {
		dst.hist[i] += c
	}
	dst.offGrid += src.offGrid
}

// finish turns accumulators into the table's cells, with every margin.
func (b *microBuilder) finish() error {
	if err := b.empty.check(b.file, b.t.Dims); err != nil {
		return err
	}
	b.flushHot()
	b.hot, b.accs = nil, nil
	if err := b.checkImplied(); err != nil {
		return err
	}
	totalID := uint32(1<<32 - 1)
	// Iterate finest cells in a fixed order so that merges (and with them
	// float power sums) are deterministic.
	b.addEmptyCells()
	finest := make([]*cellAcc, 0, len(b.cells))
	for _, a := range b.cells {
		finest = append(finest, a)
	}
	sortAccs(finest)
	if b.hier != nil {
		if err := b.hier.expand(b); err != nil { // parent codes become levels (hierarchy.go)
			return err
		}
	}
	if b.holdIdx >= 0 {
		if b.needs.Powers > 0 {
			b.rankHoldings()
		} else {
			b.finishLocalHoldings(finest)
		}
	}
	var span *spanning
	if b.holdIdx >= 0 {
		span = b.takeSpanning(finest) // nil: merged into the margins
	}
	var accs []*cellAcc
	if b.needs.Powers == 0 && b.hier == nil {
		accs = b.deriveMargins(finest)
		if span != nil {
			b.contributeSpanning(span, accs)
			span = nil
		}
		// accs holds every cell now: the finest cells' indexes let go
		b.cells, b.packed = nil, nil
	} else {
		accs = b.mergeMargins(finest, totalID)
	}
	cells := make([]*audit.Cell, 0, len(accs))
	for i, a := range accs {
		accs[i] = nil // the cell replaces it: let the collector have it
		if b.holdIdx >= 0 {
			b.finishHoldings(a)
		}
		c := b.newCell(a, totalID)
		publishStats(b.t, c)
		cells = append(cells, c)
	}
	b.t.Cells = cells
	b.t.SortCells()
	b.finishWarnings()
	return nil
}

// mergeMargins merges each of the finest cells (in their fixed order)
// into every margin above it, a margin level of a dimension being each
// ancestor of the code in its hierarchy and the total (totalID). It
// returns the finest cells and the margins, in no particular order.
func (b *microBuilder) mergeMargins(finest []*cellAcc, totalID uint32) []*cellAcc {
	all := make(map[string]*cellAcc, len(b.cells)*2) // by keyOf
	keyOf := func(k []uint32) string {
		buf := make([]byte, 4*len(k))
		for d, v := range k {
			binary.LittleEndian.PutUint32(buf[4*d:], v)
		}
		return string(buf)
	}
	for _, a := range finest {
		all[keyOf(a.key)] = a
		// Margin levels of a dimension: each ancestor of the code in its
		// hierarchy, and the total.
		eachMargin(b.hier, a.key, totalID, func(k []uint32) {
			ks := keyOf(k)
			m := all[ks]
			if m == nil {
				m = b.newAcc(append([]uint32(nil), k...))
				all[ks] = m
			}
			b.merge(m, a)
		})
	}
	accs := make([]*cellAcc, 0, len(all))
	for _, a := range all {
		accs = append(accs, a)
	}
	clear(all)
	return accs
}

// newCell is the table's cell of the accumulator a (its key's totalID
// levels are the total), with the figures the rules need; values off the
// measure grid are counted in b.warnings.
func (b *microBuilder) newCell(a *cellAcc, totalID uint32) *audit.Cell {
	c := &audit.Cell{Key: make([]string, len(b.dimIdx)), HasN: true, N: a.n, Rows: a.rows, Missing: a.missing, Negative: a.negative}
	for d, id := range a.key {
		if id == totalID {
			c.Key[d] = b.t.TotalLabel
		} else {
			c.Key[d] = b.names[d][id]
		}
	}
	if b.valIdx >= 0 {
		c.HasTotal = true
		c.Total = a.total.value()
		c.Top = a.top.v
		c.AllTop = int64(len(a.top.v)) >= a.n
		if b.needs.Absolute {
			c.HasAbs, c.AbsTotal, c.AbsTop = true, a.absTotal.value(), a.absTop.v
		}
		c.HasRange = a.hasRange
		c.Min, c.Max = a.min, a.max
		if b.needs.SumSq {
			c.HasSumSq = true
			c.SumSq = a.sumsq.value()
		}
		if a.pow.v != nil {
			c.Pow, c.PowScale = a.pow.v, a.pow.scale
		}
		if a.hist != nil && a.offGrid == 0 {
			c.Hist = a.hist
		}
		if a.offGrid > 0 {
			b.warnings[fmt.Sprintf("values off the measure grid %s..%s step %s; the histogram is not used", b.t.Measure.Min, b.t.Measure.Max, b.t.Measure.Step)] += int(a.offGrid)
		}
	}
	return c
}

// finishWarnings adds the builder's counted warnings and the empty
// levels' warnings to the table's, sorted.
func (b *microBuilder) finishWarnings() {
	for w, n := range b.warnings {
		b.t.Warnings = append(b.t.Warnings, fmt.Sprintf("%s (%d values)", w, n))
	}
	b.t.Warnings = append(b.t.Warnings, b.empty.warnings(b.t.Dims)...)
	sortStrings(b.t.Warnings)
}

// deriveMargins returns the finest cells and every margin cell, derived
// one dimension at a time from the cells already built: first the finest
// cells are merged into their margins over dimension 0, then every cell so
// far into its margin over dimension 1, and so on. A margin is thus merged
// from the cells one level below it, about d merges per finest cell
// instead of 2^d - 1, and a holding that spans cells is merged into each
// margin once per child rather than once per finest cell. Not used with
// power sums (see finishLocalHoldings): their floating-point value depends
// on the order of the merges, which must stay finest cell by finest cell.
// With a hierarchy (b.hier) the margins are built finest cell by finest
// cell through eachMargin instead.
//
// The margins of dimension d are found by their key packed into an
// integer (marginIndex), not by a string per cell: the cells built before
// step d have a level in dimension d, so a margin over d is only ever
// looked up among those made at step d.
func (b *microBuilder) deriveMargins(finest []*cellAcc) []*cellAcc {
	const totalID = uint32(1<<32 - 1)
	// cur holds, in a fixed order, every cell whose Total dimensions are
	// among those already done.
	cur := slices.Clone(finest)
	for d := range b.dimIdx {
		n := len(cur)
		idx := newMarginIndex(b.names, d, b.tune.maxPackedBits())
		for _, a := range cur[:n] {
			m := idx.get(a.key)
			if m == nil {
				k := slices.Clone(a.key)
				k[d] = totalID
				m = b.newAcc(k)
				idx.put(a.key, m)
				cur = append(cur, m)
			}
			b.merge(m, a)
		}
	}
	return cur
}

// marginIndex finds the margin over one dimension of a cell by the cell's
// key without that dimension: packed into a uint64 when the levels fit
// (two dimensions of a million levels do), else as a string.
type marginIndex struct {
	d      int
	shift  []uint
	total  []uint64 // the id of the total in each dimension when packed
	packed map[uint64]*cellAcc
	text   map[string]*cellAcc
	buf    []byte
}

func newMarginIndex(names [][]string, d int, maxPackedBits uint) *marginIndex {
	x := &marginIndex{d: d, shift: make([]uint, len(names)), total: make([]uint64, len(names))}
	var used uint
	for i, n := range names {
		if i == d {
			continue
		}
		x.shift[i] = used
		x.total[i] = uint64(len(n))
		used += uint(bits.Len(uint(len(n)))) // ids 0..len-1, and the total as len
	}
	if used <= maxPackedBits {
		x.packed = map[uint64]*cellAcc{}
	} else {
		x.text = map[string]*cellAcc{}
		x.buf = make([]byte, 4*len(names))
	}
	return x
}

// pack is the key of dimensions other than d; the total (1<<32-1) is
// given the id after the dimension's last level.
func (x *marginIndex) pack(key []uint32) uint64 {
	var k uint64
	for i, id := range key {
		if i == x.d {
			continue
		}
		v := uint64(id)
		if id == 1<<32-1 {
			v = x.total[i]
		}
		k |= v << x.shift[i]
	}
	return k
}

func (x *marginIndex) textKey(key []uint32) []byte {
	for i, id := range key {
		if i == x.d {
			id = 0
		}
		binary.LittleEndian.PutUint32(x.buf[4*i:], id)
	}
	return x.buf
}

func (x *marginIndex) get(key []uint32) *cellAcc {
	if x.packed != nil {
		return x.packed[x.pack(key)]
	}
	return x.text[string(x.textKey(key))]
}

func (x *marginIndex) put(key []uint32, m *cellAcc) {
	if x.packed != nil {
		x.packed[x.pack(key)] = m
		return
	}
	x.text[string(x.textKey(key))] = m
}

// contributeHolding adds one holding's sum to a cell as one contributor.
func (b *microBuilder) contributeHolding(a *cellAcc, hd *holding) {
	if b.valIdx >= 0 && hd.rows == 0 {
		return // every value of this holding is missing: not a contributor
	}
	s := b.holdSum(hd)
	b.contribute(a, s.value())
}

// rankHoldings sets holdRank: the position of each interned holding id
// among the ids' texts in sorted order.
func (b *microBuilder) rankHoldings() {
	order := make([]uint32, len(b.holdNames))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int { return strings.Compare(b.holdNames[x], b.holdNames[y]) })
	b.holdRank = make([]uint32, len(order))
	for r, id := range order {
		b.holdRank[id] = uint32(r)
	}
}

// publishStats fills the statistics the released table shows, as text
// rounded to the table's decimals.
func publishStats(t *audit.Table, c *audit.Cell) {
	c.Stats = audit.Stats{}
	c.Stats.Grow(len(t.Publish))
	set := func(k, text string) {
		d, _ := decimal.Parse(text)
		c.Stats.Set(k, audit.Stat{Text: text, Value: d})
	}
	miss := func(k string) { c.Stats.Set(k, audit.Stat{Missing: true}) }
	for _, s := range t.Publish {
		switch s {
		case "count":
			set("count", strconv.FormatInt(c.N, 10))
		case "total":
			if c.HasTotal {
				set("total", c.Total.String())
			}
		case "mean":
			if c.N > 0 && c.HasTotal {
				set("mean", decimal.RoundRat(new(big.Rat).Quo(c.Total.Rat(), big.NewRat(c.N, 1)), t.Decimals))
			} else {
				miss("mean")
			}
		case "sd", "variance":
			if v := sampleVariance(c); v != nil {
				if s == "sd" {
					set("sd", decimal.RoundSqrt(v, t.Decimals))
				} else {
					set("variance", decimal.RoundRat(v, t.Decimals))
				}
			} else {
				miss(s)
			}
		case "min":
			if c.HasRange {
				set("min", c.Min.String())
			} else {
				miss("min")
			}
		case "max":
			if c.HasRange {
				set("max", c.Max.String())
			} else {
				miss("max")
			}
		case "median":
			if m, ok := histMedian(t, c); ok {
				set("median", decimal.RoundRat(m, t.Decimals))
			} else {
				miss("median")
			}
		case "skewness", "kurtosis":
			if v, ok := shapeStat(c, s); ok {
				set(s, strconv.FormatFloat(v, 'f', t.Decimals, 64))
			} else {
				miss(s)
			}
		}
	}
	for p := 1; p <= t.MomentOrder && p <= len(c.Pow); p++ {
		if c.N == 0 {
			miss(fmt.Sprintf("m%d", p))
			continue
		}
		v := momentMean(c, p)
		set(fmt.Sprintf("m%d", p), strconv.FormatFloat(v, 'g', 15, 64))
	}
}

// sampleVariance returns (Q - S²/n)/(n-1) exactly, or nil when n < 2.
func sampleVariance(c *audit.Cell) *big.Rat {
	if c.N < 2 || !c.HasSumSq {
		return nil
	}
	n := big.NewRat(c.N, 1)
	s := c.Total.Rat()
	v := new(big.Rat).Sub(c.SumSq.Rat(), new(big.Rat).Quo(new(big.Rat).Mul(s, s), n))
	return v.Quo(v, big.NewRat(c.N-1, 1))
}

// maxCrossCells bounds the full cross product of dimension levels.
const maxCrossCells = 5_000_000

// crossSize is the number of cells in the cross product of the levels of
// each dimension (levels[d], a dimension without any counting as one), and
// whether it is at most maxCrossCells: when not, t warns that only the
// observed combinations are audited. The microdata and the cell summaries
// fill their empty cross cells within it.
func crossSize(t *audit.Table, levels [][]string) (int, bool) {
	total := 1
	for _, l := range levels {
		total *= max(len(l), 1)
		if total > maxCrossCells {
			t.Warnings = append(t.Warnings, fmt.Sprintf("the cross product of the dimension levels exceeds %d cells; only observed combinations are audited", maxCrossCells))
			return total, false
		}
	}
	return total, true
}

// addEmptyCells adds the combinations of observed levels that no record
// falls into, so that the table has the empty cells a published cross
// table shows (zeros can be disclosive). Very sparse tables whose cross
// product exceeds maxCrossCells keep only observed combinations, with a
// warning.
func (b *microBuilder) addEmptyCells() {
	total, ok := crossSize(b.t, b.names)
	if !ok {
		return
	}
	if total == len(b.cells) || len(b.cells) == 0 {
		return
	}
	ids := make([][]uint32, len(b.names))
	for d, n := range b.names {
		ids[d] = make([]uint32, len(n))
		for i := range ids[d] {
			ids[d][i] = uint32(i)
		}
	}
	eachCross(ids, func(key []uint32, _ []int) {
		for i, v := range key {
			binary.LittleEndian.PutUint32(b.keyBuf[4*i:], v)
		}
		if b.cells[string(b.keyBuf)] == nil {
			b.cells[string(b.keyBuf)] = b.newAcc(append([]uint32(nil), key...))
		}
	})
}

// eachCross calls fn with every key of the cross product of opts (one of
// opts[d] in each dimension d), the first dimension varying slowest; idx[d]
// is the option key[d] is. key and idx are reused between calls. The
// microdata (level ids) and the cell summaries (codes and the total) fill
// their empty cells with it, within crossSize.
func eachCross[T any](opts [][]T, fn func(key []T, idx []int)) {
	key := make([]T, len(opts))
	idx := make([]int, len(opts))
	var rec func(d int)
	rec = func(d int) {
		if d == len(opts) {
			fn(key, idx)
			return
		}
		for i, o := range opts[d] {
			key[d], idx[d] = o, i
			rec(d + 1)
		}
	}
	rec(0)
}

// newShard returns an empty builder with the same settings, for building
// part of the records in parallel; absorb merges it back.
func (b *microBuilder) newShard() builder {
	s := &microBuilder{t: b.t, file: b.file, dimIdx: b.dimIdx, valIdx: b.valIdx, holdIdx: b.holdIdx, needs: b.needs, tune: b.tune,
		measure: b.measure, cells: map[string]*cellAcc{}, warnings: map[string]int{}, keyBuf: make([]byte, len(b.keyBuf)),
		num: b.num, empty: newEmptyLevels(len(b.dimIdx)), hier: b.hier.forShard()}
	if b.holdIDs != nil {
		s.holdIDs = newHoldTable()
	}
	for range b.dimIdx {
		s.levels = append(s.levels, map[string]uint32{})
		s.names = append(s.names, nil)
	}
	if len(b.dimIdx) <= 4 {
		s.usePack = true
		s.packed = map[uint64]*cellAcc{}
	}
	s.startGrid()
	s.initHot()
	return s
}

// absorb merges the cells of a shard into b (before finish), mapping the
// shard's level ids to b's by name. Shards are absorbed in a fixed order and
// their cells in key order, so the result is deterministic.
func (b *microBuilder) absorb(other builder) {
	o := other.(*microBuilder)
	b.absorbSorted(o, o.sortedCells())
}

// sortedCells flushes a shard's slab into its cells and returns them in
// key order (its own level ids), the order absorb takes them in. It
// touches only the shard, so shards are prepared in parallel.
func (o *microBuilder) sortedCells() []*cellAcc {
	o.flushHot()
	o.hot, o.accs = nil, nil
	accs := make([]*cellAcc, 0, len(o.cells))
	for _, a := range o.cells {
		accs = append(accs, a)
	}
	sortAccs(accs)
	return accs
}

// absorbSorted merges a shard's cells, in the order sortedCells gives, into
// b, one at a time.
func (b *microBuilder) absorbSorted(o *microBuilder, accs []*cellAcc) {
	b.empty.merge(&o.empty)
	b.hier.absorb(o.hier)
	// the shard's holding ids, as b's
	holdID := b.holdIDs.internTexts(o.holdNames, &b.holdNames, make([]uint32, 0, len(o.holdNames)))
	for _, a := range accs {
		for i := range a.holds {
			h := &a.holds[i]
			h.id = holdID[h.id]
			if h.scale == bigScale { // o's big sum, now b's
				b.setHoldSum(h, sum{big: o.holdBig[h.lo]}, false)
			}
		}
		a.sorted = 0 // ids changed: compacted again before use
		for d, id := range a.key {
			nid := b.levelID(d, o.names[d][id])
			a.key[d] = nid
			binary.LittleEndian.PutUint32(b.keyBuf[4*d:], nid)
		}
		if dst := b.cells[string(b.keyBuf)]; dst != nil {
			b.merge(dst, a)
		} else {
			b.cells[string(b.keyBuf)] = a
		}
	}
	b.usePack, b.packed = false, nil // the indexes no longer cover every cell
	b.useGrid, b.grid = false, nil
}

// absorbAll merges every shard into b (before finish) as absorb does shard
// by shard, with the same result, on up to workers goroutines: the shards
// are flushed and sorted in parallel; their level ids are mapped to b's in
// shard order (one goroutine, an array look-up per key part once a name is
// mapped); then the cells are merged in parallel, each goroutine owning
// the cells whose key falls in its part, merging into each the shards'
// cells in shard order. A cell's merges, and so every figure of it
// (floating-point power sums included), are those of absorb. With
// holdings, whose ids are interned into b's table, the shards are merged
// one by one (absorbSorted).
func (b *microBuilder) absorbAll(ctx context.Context, shards []builder, workers int) error {
	if len(shards) == 0 {
		return nil
	}
	sorted := make([][]*cellAcc, len(shards))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	for i, sh := range shards {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			sorted[i] = sh.(*microBuilder).sortedCells()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if b.holdIDs != nil || workers <= 1 {
		for i, sh := range shards {
			if err := ctx.Err(); err != nil {
				return err
			}
			b.absorbSorted(sh.(*microBuilder), sorted[i])
			sorted[i] = nil
		}
		return nil
	}
	// b's level ids, in the order absorb would give them; each cell to the
	// part of its key
	parts := make([][]*cellAcc, workers)
	trans := make([][]uint32, len(b.names))
	for i, sh := range shards {
		o := sh.(*microBuilder)
		b.empty.merge(&o.empty)
		b.hier.absorb(o.hier)
		for d := range trans {
			trans[d] = slices.Grow(trans[d][:0], len(o.names[d]))[:len(o.names[d])]
			for j := range trans[d] {
				trans[d][j] = unmapped
			}
		}
		for _, a := range sorted[i] {
			a.sorted = 0
			h := uint64(0)
			for d, id := range a.key {
				nid := trans[d][id]
				if nid == unmapped {
					nid = b.levelID(d, o.names[d][id])
					trans[d][id] = nid
				}
				a.key[d] = nid
				h = (h ^ uint64(nid)) * 0x9E3779B97F4A7C15 // mixed into the high bits
			}
			p := (h >> 32) % uint64(workers)
			parts[p] = append(parts[p], a)
		}
		sorted[i] = nil
	}
	// b's own cells are only read while the parts merge (each dst belongs
	// to one part); cells new to b are kept per part and added after
	added := make([]map[string]*cellAcc, workers)
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for p := range parts {
		g.Go(func() error {
			buf := make([]byte, 4*len(b.names))
			mine := map[string]*cellAcc{}
			for j, a := range parts[p] {
				if j%4096 == 0 {
					if err := gctx.Err(); err != nil {
						return err
					}
				}
				for d, nid := range a.key {
					binary.LittleEndian.PutUint32(buf[4*d:], nid)
				}
				dst := b.cells[string(buf)]
				if dst == nil {
					dst = mine[string(buf)]
				}
				if dst != nil {
					b.merge(dst, a)
				} else {
					mine[string(buf)] = a
				}
			}
			added[p] = mine
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, mine := range added {
		maps.Copy(b.cells, mine)
	}
	b.usePack, b.packed = false, nil // the indexes no longer cover every cell
	b.useGrid, b.grid = false, nil
	return nil
}

// levelID returns b's id of the level name of dimension d, the next id
// when b has not met it (as a shard's levels are mapped to b's).
func (b *microBuilder) levelID(d int, name string) uint32 {
	nid, ok := b.levels[d][name]
	if !ok {
		nid = uint32(len(b.names[d]))
		b.levels[d][name] = nid
		b.names[d] = append(b.names[d], name)
	}
	return nid
}

// unmapped marks a shard's level id not yet mapped to b's.
const unmapped = ^uint32(0)
