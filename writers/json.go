package writers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// Report writes NAME.report.json, the checker's report: every cell with its
// status, the findings of every rule with the figures behind them, and the
// table summary. It may contain confidential numbers.
type Report struct {
	// Options shape the rendering of the cells (ReportWorkers,
	// ReportChunk; the zero value: the defaults). The bytes written do
	// not depend on them.
	Options Options
}

// File implements TableWriter.
func (Report) File(t *audit.Table) string { return t.Name + ".report.json" }

// appendCell writes one cell as compact JSON: key (dimensions in table
// order), row, status, n, total, findings, notes.
func appendCell(b []byte, t *audit.Table, c *audit.Cell, s *report.Scratch) ([]byte, error) {
	b = append(b, `{"key":{`...)
	for i, d := range t.Dims {
		if i > 0 {
			b = append(b, ',')
		}
		b = report.AppendString(b, d)
		b = append(b, ':')
		b = report.AppendString(b, c.Key[i])
	}
	b = append(b, '}')
	if c.Row > 0 {
		b = append(b, `,"row":`...)
		b = strconv.AppendInt(b, int64(c.Row), 10)
	}
	b = append(b, `,"status":`...)
	b = report.AppendString(b, string(c.Status))
	if c.HasN {
		b = append(b, `,"n":`...)
		b = strconv.AppendInt(b, c.N, 10)
	}
	if c.HasTotal {
		b = append(b, `,"total":`...)
		b = c.Total.Append(b)
	}
	b = append(b, `,"findings":[`...)
	for i, f := range c.EachFinding() {
		if i > 0 {
			b = append(b, ',')
		}
		b = report.AppendFinding(b, &f, s)
	}
	b = append(b, ']')
	if len(c.Notes) > 0 {
		b = append(b, `,"notes":[`...)
		for i, n := range c.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = report.AppendString(b, n)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// errStopped is what a rendering goroutine returns when another one has
// seen the cancellation: the writer returns that cancellation instead.
var errStopped = errors.New("report: stopped")

// renderCells appends the cells lo..hi-1 of t, each after its separator
// (",\n  ", the first cell of the table "\n  "), as WriteContext writes
// them. look(i) is called before cell i is rendered.
func renderCells(b []byte, t *audit.Table, lo, hi int, s *report.Scratch, look func(i int) error) ([]byte, error) {
	for i := lo; i < hi; i++ {
		if err := look(i); err != nil {
			return b, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
		c := t.Cells[i]
		var err error
		if b, err = appendCell(b, t, c, s); err != nil {
			return b, fmt.Errorf("cell %s: %w", t.KeyString(c.Key), err)
		}
	}
	return b, nil
}

// chunkBuffers keeps the chunks' buffers from one report to the next.
var chunkBuffers sync.Pool

// chunkOut is one rendered chunk of cells, or why it is not.
type chunkOut struct {
	buf []byte
	err error
}

// writeCells writes the cells of report.json to w. Chunks of chunk cells
// are rendered on up to workers goroutines, each into its own buffer, and
// written in cell order: the bytes are those of a sequential write. At
// most 2*workers chunks are rendered or waiting at once (a ring of slots:
// chunk k is started only once chunk k-2*workers is written), so memory
// stays bounded whatever the number of cells. The context is looked at
// every CheckEvery cells (as the other writers do); once one goroutine
// has seen it cancelled, the others stop without looking again.
func writeCells(ctx context.Context, w *bufio.Writer, t *audit.Table, workers, chunk int) error {
	n := len(t.Cells)
	chunk = max(chunk, 1)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nchunks := (n + chunk - 1) / chunk
	workers = min(workers, nchunks)
	if workers <= 1 {
		return writeCellsSerial(ctx, w, t)
	}
	r := newCellRing(ctx, t, workers, chunk, nchunks)
	r.start(workers)
	return r.drain(w)
}

// writeCellsSerial is writeCells on the calling goroutine.
func writeCellsSerial(ctx context.Context, w *bufio.Writer, t *audit.Table) error {
	look := func(i int) error {
		if (i+1)%CheckEvery == 0 {
			return ctx.Err()
		}
		return nil
	}
	var buf []byte
	var s report.Scratch
	for i := range len(t.Cells) {
		var err error
		if buf, err = renderCells(buf[:0], t, i, i+1, &s, look); err != nil {
			return err
		}
		w.Write(buf)
	}
	return nil
}

// cellRing renders writeCells' chunks on several goroutines: a ring of
// 2*workers slots, chunk k going to slot k mod 2*workers, started only
// once a token is free (chunk k-2*workers written).
type cellRing struct {
	ctx            context.Context
	t              *audit.Table
	chunk, nchunks int

	stop     chan struct{}
	stopOnce sync.Once
	stopErr  error

	inflight int
	tokens   chan struct{}
	free     chan []byte
	slots    []chan chunkOut
	jobs     chan int
	wg       sync.WaitGroup
}

func newCellRing(ctx context.Context, t *audit.Table, workers, chunk, nchunks int) *cellRing {
	inflight := 2 * workers
	r := &cellRing{
		ctx: ctx, t: t, chunk: chunk, nchunks: nchunks,
		stop:     make(chan struct{}),
		inflight: inflight,
		tokens:   make(chan struct{}, inflight),
		free:     make(chan []byte, inflight),
		slots:    make([]chan chunkOut, inflight),
		jobs:     make(chan int),
	}
	for i := range r.slots {
		r.slots[i] = make(chan chunkOut, 1)
	}
	return r
}

// halt stops every goroutine of the ring, keeping the first error.
func (r *cellRing) halt(err error) {
	r.stopOnce.Do(func() { r.stopErr = err; close(r.stop) })
}

// look is renderCells' check before cell i: the ring stopped, or (every
// CheckEvery cells) the context cancelled.
func (r *cellRing) look(i int) error {
	select {
	case <-r.stop:
		return errStopped
	default:
	}
	if (i+1)%CheckEvery == 0 {
		if err := r.ctx.Err(); err != nil {
			r.halt(err)
			return err
		}
	}
	return nil
}

// start hands out the chunks in order as tokens free up, to workers
// goroutines that render each into its slot.
func (r *cellRing) start(workers int) {
	r.wg.Go(func() {
		defer close(r.jobs)
		for k := range r.nchunks {
			select {
			case r.tokens <- struct{}{}:
			case <-r.stop:
				return
			}
			select {
			case r.jobs <- k:
			case <-r.stop:
				return
			}
		}
	})
	n := len(r.t.Cells)
	for range workers {
		r.wg.Go(func() {
			var s report.Scratch
			for k := range r.jobs {
				var buf []byte
				select {
				case buf = <-r.free:
				default:
					if p, ok := chunkBuffers.Get().(*[]byte); ok {
						buf = *p
					}
				}
				lo := k * r.chunk
				buf, err := renderCells(buf[:0], r.t, lo, min(lo+r.chunk, n), &s, r.look)
				r.slots[k%r.inflight] <- chunkOut{buf, err}
			}
		})
	}
}

// drain writes the chunks to w in order, then stops the ring and waits
// for its goroutines.
func (r *cellRing) drain(w *bufio.Writer) error {
	var err error
	for k := 0; k < r.nchunks && err == nil; k++ {
		select {
		case o := <-r.slots[k%r.inflight]:
			if o.err != nil {
				err = o.err
				break
			}
			w.Write(o.buf)
			select {
			case r.free <- o.buf:
			default:
			}
			<-r.tokens
		case <-r.stop:
			err = errStopped
		}
	}
	r.halt(errStopped) // no-op when a goroutine saw the cancellation
	r.wg.Wait()
	for len(r.free) > 0 {
		b := <-r.free
		chunkBuffers.Put(&b)
	}
	if errors.Is(err, errStopped) {
		err = r.stopErr
	}
	return err
}

type reportHead struct {
	Table    string           `json:"table"`
	Source   string           `json:"source"`
	Mode     audit.Mode       `json:"mode"`
	Dims     []string         `json:"dims"`
	Value    string           `json:"value,omitempty"`
	Publish  []string         `json:"publish,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	Input    *audit.InputInfo `json:"input,omitempty"`
	Link     *audit.Link      `json:"link,omitempty"`
	// Structure is what the table's layout was taken to mean
	// (*structureJSON), or for a table built from records the input
	// columns it did not use (*recordsStructureJSON); nil when neither.
	Structure any `json:"structure,omitempty"`
	// Overrides are the checker's a-priori decisions, with reason and author.
	Overrides []audit.Override `json:"overrides,omitempty"`
	// AprioriDiffs are the cells whose status differs from the input's
	// a-priori status; Changes those changed since the previous release.
	AprioriDiffs []audit.StatusChange `json:"apriori_differences,omitempty"`
	Changes      []audit.StatusChange `json:"changed_since_previous,omitempty"`
}

// Write writes the report; see WriteContext.
func (r Report) Write(w io.Writer, t *audit.Table) error {
	return r.WriteContext(context.Background(), w, t)
}

// WriteContext implements TableWriter. The document is one JSON object;
// each cell is written compactly on its own line so that large reports
// stay fast to write and easy to grep.
func (r Report) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	head, err := json.Marshal(reportHead{Table: t.Name, Source: t.Source, Mode: t.Mode, Dims: t.Dims, Value: t.Value, Publish: t.Publish, Warnings: t.Warnings, Input: t.Input, Link: t.Link, Structure: structureBlock(t), Overrides: t.Overrides, AprioriDiffs: t.AprioriDiffs, Changes: t.Changes})
	if err != nil {
		return err
	}
	bw.Write(head[:len(head)-1]) // without the closing brace
	bw.WriteString(",\n\"cells\": [")
	if err := writeCells(ctx, bw, t, r.Options.ReportWorkers, r.Options.reportChunk()); err != nil {
		return err
	}
	bw.WriteString("\n],\n\"summary\": ")
	sum, err := json.Marshal(t.Summarize())
	if err != nil {
		return err
	}
	bw.Write(sum)
	if t.Audit != nil {
		bw.WriteString(",\n\"audit\": ")
		bw.Write(report.IntervalsJSON(*t.Audit))
	}
	if err := writeTrail(bw, t.Run); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// TableSummary is one table's line in summary.json. It holds no
// confidential values.
type TableSummary struct {
	Table   string        `json:"table"`
	Source  string        `json:"source"`
	Mode    audit.Mode    `json:"mode"`
	Outputs []string      `json:"outputs"`
	Summary audit.Summary `json:"summary"`
}

// RunSummary is the content of summary.json.
type RunSummary struct {
	Version string         `json:"version"`
	Tables  []TableSummary `json:"tables"`
	Totals  audit.Summary  `json:"totals"`
	// NeedsPerson is true when a cell failed a rule or needs review: the
	// release must stop (exit code 1).
	NeedsPerson bool `json:"needs_person"`
	// Run is the run's audit trail (see audit.Trail).
	Run *audit.Trail `json:"run,omitempty"`
	// LinkGroups lists the groups of tables that share cells (issue 17).
	LinkGroups []LinkGroup `json:"link_groups,omitempty"`
}

// LinkGroup is one group of tables that share cells, in summary.json.
type LinkGroup struct {
	Tables []string `json:"tables"`
	Linked bool     `json:"linked"`
	Exact  bool     `json:"exact"`
	Reason string   `json:"reason,omitempty"`
}

// Add appends a table and updates the totals.
func (r *RunSummary) Add(ts TableSummary) {
	r.Tables = append(r.Tables, ts)
	s := ts.Summary
	if r.Totals.ByRule == nil {
		r.Totals.ByRule = map[string]int{}
	}
	r.Totals.Cells += s.Cells
	r.Totals.OK += s.OK
	r.Totals.Primary += s.Primary
	r.Totals.Secondary += s.Secondary
	r.Totals.Review += s.Review
	for k, v := range s.ByRule {
		r.Totals.ByRule[k] += v
	}
	r.NeedsPerson = r.NeedsPerson || s.NeedsPerson()
}

// WriteSummary writes summary.json.
func WriteSummary(w io.Writer, r *RunSummary) error {
	if r.Totals.ByRule == nil {
		r.Totals.ByRule = map[string]int{}
	}
	if r.Tables == nil {
		r.Tables = []TableSummary{}
	}
	return encode(w, r)
}
