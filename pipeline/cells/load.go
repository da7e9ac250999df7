package cells

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
)

// builder turns batches of rows into a table's cells.
type builder interface {
	add(*readers.Batch) error
	finish() error
}

// shardable builders can build parts of the input in parallel.
type shardable interface {
	builder
	newShard() builder
	absorb(shard builder)
}

// parallelAbsorber builders merge their shards on several goroutines,
// with the result of absorbing them one by one in order.
type parallelAbsorber interface {
	absorbAll(ctx context.Context, shards []builder, workers int) error
}

// firstError returns the input error at the smallest row, so that the
// error reported does not depend on which shard met it first.
func firstError(errs []error) error {
	var best error
	bestRow := -1
	for _, err := range errs {
		if err == nil {
			continue
		}
		row := 1 << 62
		var re *readers.Error
		if errors.As(err, &re) && re.Row > 0 {
			row = re.Row
		}
		if best == nil || row < bestRow {
			best, bestRow = err, row
		}
	}
	return best
}

// Input is one table to build: its source, its settings compiled into a
// schema, and what the rules need of each cell.
type Input struct {
	Src      readers.Source
	Settings *configs.Settings
	Schema   *Schema
	// Needs is what the rules and the published statistics need per cell
	// (PublishedNeeds).
	Needs rules.Needs
	// Workers bounds the goroutines that build the cells (0: one).
	Workers int
	// Rows, when set, is told how many rows have been read.
	Rows func(n int64)
	// Finishing, when set, is called when reading ends and the cells are
	// merged and finished.
	Finishing func()
	// Tuning turns fast paths off, for tests (the zero value: all on).
	Tuning Tuning
}

// A Builder reads the rows of one table's source to its end and returns
// the table's cells: every cell of the table (margins and hierarchy
// parents included) with the figures the rules need, and the table's
// warnings. Errors are input errors (*readers.Error naming the file,
// sheet, row and column) or configuration errors (*configs.Error).
type Builder interface {
	Build(ctx context.Context, in Input) (*audit.Table, error)
}

// Microdata builds the cells of microdata: one record per contributor,
// summed into every cell of the dimensions' cross (margins derived).
type Microdata struct{}

// Summary builds the cells of a cell summary of microdata (docs/cells.md):
// one row per finest cell or margin, checked against each other.
type Summary struct{}

// Aggregate builds the cells of a published table, long or wide
// (crosstab), and infers its structure (margins, rows that are sums).
type Aggregate struct{}

// For is the builder a schema asks for.
func For(sc *Schema) Builder {
	switch {
	case sc.cells:
		return Summary{}
	case sc.mode == audit.Microdata:
		return Microdata{}
	}
	return Aggregate{}
}

// Load builds a table with the builder its schema asks for.
func Load(ctx context.Context, in Input) (*audit.Table, error) {
	return For(in.Schema).Build(ctx, in)
}

// newTable is the empty table of an input.
func (in Input) newTable() *audit.Table {
	file, sheet := in.Src.Where()
	t := in.Schema.newTable(in.Src.Name(), file, sheet, in.Settings)
	t.Input = inputInfo(in.Src)
	return t
}

// Build implements Builder.
func (Summary) Build(ctx context.Context, in Input) (*audit.Table, error) {
	t := in.newTable()
	file, _ := in.Src.Where()
	cb, err := newCellsBuilder(t, file, in.Src.Header(), in.Schema, in.Needs)
	if err != nil {
		return nil, atHeaderRow(err, in.Src)
	}
	cb.limits = limitsOf(in.Settings)
	return t, in.run(ctx, t, cb)
}

// Build implements Builder.
func (Microdata) Build(ctx context.Context, in Input) (*audit.Table, error) {
	t := in.newTable()
	src, s := in.Src, in.Settings
	file, _ := src.Where()
	mb, err := newMicroBuilder(t, file, src.Header(), in.Schema.value, in.Schema.holding, in.Needs)
	if err != nil {
		return nil, classify(atHeaderRow(err, src))
	}
	if mb.hier, err = newMicroHier(t, s, file, src.Header()); err != nil {
		return nil, atHeaderRow(err, src)
	}
	mb.limits = limitsOf(s)
	if typed, ok := readers.As[readers.Typed](src); ok && mb.valueOnly() {
		typed.ReadNumbers(mb.valIdx) // exact numbers without a text round trip
	}
	noteUnused(t, src.Header(), mb)
	return t, in.run(ctx, t, mb)
}

// Build implements Builder.
func (Aggregate) Build(ctx context.Context, in Input) (*audit.Table, error) {
	t := in.newTable()
	src, s := in.Src, in.Settings
	file, _ := src.Where()
	ab, err := newAggBuilder(t, file, src.Header(), in.Schema, s.Markers)
	if err != nil {
		return nil, classify(atHeaderRow(err, src))
	}
	if err := build(ctx, src, ab, in); err != nil {
		return nil, wideError(src, err)
	}
	text := map[string]bool{}
	for j, i := range ab.extra {
		text[ab.header[i]] = ab.extraText[j]
	}
	var uncoded map[string][]string
	var indent map[string]map[string]int
	var repeats map[string]map[string]string
	if ws, ok := readers.As[readers.WideSource](src); ok {
		for d, labels := range ws.Layout().Uncoded() {
			if d < len(t.Dims) {
				if uncoded == nil {
					uncoded = map[string][]string{}
				}
				uncoded[t.Dims[d]] = labels
			}
		}
		for d, same := range ws.Layout().Repeats() {
			if d < len(t.Dims) {
				if repeats == nil {
					repeats = map[string]map[string]string{}
				}
				repeats[t.Dims[d]] = same
			}
		}
		for d, levels := range ws.Layout().Indents() {
			if d < len(t.Dims) {
				if indent == nil {
					indent = map[string]map[string]int{}
				}
				indent[t.Dims[d]] = levels
			}
		}
	}
	if err := inferStructure(t, s, src.Header(), text, uncoded, indent, repeats); err != nil {
		return nil, err
	}
	if ws, ok := readers.As[readers.WideSource](src); ok {
		if err := noteUnread(t, ws.Layout(), s); err != nil {
			return nil, err
		}
		noteQualified(t, ws.Layout())
	}
	in.sourceWarnings(t)
	return t, nil
}

// run builds t's cells with b and adds the source's warnings.
func (in Input) run(ctx context.Context, t *audit.Table, b builder) error {
	if err := build(ctx, in.Src, b, in); err != nil {
		return wideError(in.Src, err)
	}
	in.sourceWarnings(t)
	return nil
}

// sourceWarnings adds the warnings of the source (readers.Warner) to t.
func (in Input) sourceWarnings(t *audit.Table) {
	if w, ok := readers.As[readers.Warner](in.Src); ok {
		t.Warnings = append(t.Warnings, w.Warnings()...)
		if t.Structure != nil {
			t.Structure.Layout = append(t.Structure.Layout, w.Warnings()...)
		}
	}
}

// build is the stage that reads batches concurrently with building cells.
// Microdata is built by several shards (batch i goes to shard i mod n, so
// the partition is deterministic; n is the number of workers, see
// partitions) that are merged in a fixed order. When
// the source can cut its text into chunks of whole records
// (readers.Chunker, delimited files), the reading goroutine only cuts
// them and each shard parses its chunks itself (parse_chunks.go): chunk i
// holds the records of batch i, so the partition and the results are the
// same. Every error is kept with its row and the smallest row wins; an
// error does not cancel the shards, so that an earlier row still being
// built is not lost. in.Finishing, when not nil, is called when reading
// ends and the shards' cells are merged and finished.
func build(ctx context.Context, src readers.Source, b builder, in Input) error {
	_, sheet := src.Where()
	workers := max(1, in.Workers)
	if mb, ok := b.(*microBuilder); ok {
		mb.tune = in.Tuning // before the shards, which copy it
	}
	r := newBuildRun(src, sheet, b, in.Rows, workers)
	g, gctx := errgroup.WithContext(ctx)
	if r.chunks == nil {
		if !in.Tuning.AllColumns {
			skipUnread(src, b)
		}
		if !in.Tuning.SerialDecode {
			decodeInParallel(gctx, src, workers)
		}
	}
	g.Go(func() error { return r.read(gctx) })
	for _, ch := range r.chans {
		g.Go(func() error { return r.buildShards(gctx, ch) })
	}
	waitErr := g.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := firstError(append(r.errs, r.readErr, waitErr)); err != nil {
		return err
	}
	if r.records == 0 {
		// an empty export is not a table without risk: nothing was audited
		file, _ := src.Where()
		return &readers.Error{File: file, Sheet: sheet, Err: fmt.Errorf("%w: the input has a header and no records, so there is nothing to audit", readers.ErrNoRows)}
	}
	if in.Finishing != nil {
		in.Finishing()
	}
	if pb, ok := b.(parallelAbsorber); ok && !in.Tuning.SerialAbsorb {
		if err := pb.absorbAll(ctx, r.shards[1:], workers); err != nil {
			return err
		}
	} else if sb, ok := b.(shardable); ok {
		for _, sh := range r.shards[1:] {
			sb.absorb(sh)
		}
	}
	if err := b.finish(); err != nil {
		return withSheet(err, sheet)
	}
	return nil
}

// buildRun is what build's reading goroutine and its shard goroutines
// share.
type buildRun struct {
	src      readers.Source
	sheet    string
	progress func(n int64) // Input.Rows
	chunks   *chunkReader  // nil: the source is read in batches
	shards   []builder     // shards[0] is the builder itself
	// chans: one per shard goroutine; goroutine k builds the shards k,
	// k+n, k+2n, ... (see partitions).
	chans   []chan work
	errs    []error // per shard, its first error
	readErr error   // the reading goroutine's error
	records int64   // data records read (by the reading goroutine)
	failed  atomic.Bool
}

// newBuildRun makes b's shards (one per partition when b is shardable,
// reading the source in chunks then) and the channels of the shard
// goroutines: one per worker, at most one per shard.
func newBuildRun(src readers.Source, sheet string, b builder, progress func(int64), workers int) *buildRun {
	r := &buildRun{src: src, sheet: sheet, progress: progress, shards: []builder{b}}
	if sb, ok := b.(shardable); ok {
		for len(r.shards) < partitions(b, workers) {
			r.shards = append(r.shards, sb.newShard())
		}
		r.chunks = newChunkReader(src)
	}
	if mb, ok := b.(*microBuilder); ok {
		mb.workers = workers
	}
	r.chans = make([]chan work, min(workers, len(r.shards)))
	for i := range r.chans {
		r.chans[i] = make(chan work, 2)
	}
	r.errs = make([]error, len(r.shards))
	return r
}

// read is the reading goroutine: it reads the source's batches (or cuts
// its chunks), counts the records and sends batch i to shard i mod n,
// until the end, a read error or a shard's error; then it closes the
// channels.
func (r *buildRun) read(gctx context.Context) error {
	defer func() {
		for _, c := range r.chans {
			close(c)
		}
	}()
	for i := 0; !r.failed.Load(); i++ {
		var w work
		var err error
		if r.chunks != nil {
			w.chunk, err = r.chunks.next()
		} else {
			w.batch, err = r.src.Next()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			r.readErr = withSheet(err, r.sheet)
			r.failed.Store(true)
			return nil
		}
		if w.chunk != nil {
			r.records += int64(w.chunk.Rows())
		} else {
			r.records += int64(len(w.batch.Rows))
		}
		if w.batch != nil && r.progress != nil {
			r.progress(int64(len(w.batch.Rows)))
		}
		w.shard = i % len(r.shards)
		select {
		case r.chans[w.shard%len(r.chans)] <- w:
		case <-gctx.Done():
			return gctx.Err()
		}
	}
	return nil
}

// buildShards is a shard goroutine: it parses the chunks it receives and
// adds the batches to their shards, keeping each shard's first error
// (and draining the shard's later work).
func (r *buildRun) buildShards(gctx context.Context, ch chan work) error {
	for w := range ch {
		k := w.shard
		if r.errs[k] != nil {
			continue // drain: the reader stops soon
		}
		bt, err := w.batch, error(nil)
		if w.chunk != nil {
			if bt, err = r.chunks.parse(w.chunk, r.progress); err != nil {
				r.errs[k] = withSheet(err, r.sheet)
				r.failed.Store(true)
				continue
			}
		}
		if err := r.shards[k].add(bt); err != nil {
			r.errs[k] = withSheet(err, r.sheet)
			r.failed.Store(true)
		}
		if err := gctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func withSheet(err error, sheet string) error {
	var re *readers.Error
	if sheet != "" && errors.As(err, &re) && re.Sheet == "" {
		re.Sheet = sheet
	}
	return err
}

// classify marks builder set-up errors that are not input errors as
// configuration errors.
func classify(err error) error {
	var re *readers.Error
	if errors.As(err, &re) {
		return err
	}
	return &configs.Error{Err: err}
}
