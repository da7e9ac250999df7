package readers

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// Parallel decoding of Parquet files (DecodeParallel). With n decoders,
// decoder k reads row groups k, k+n, k+2n, ... with its own file reader
// and column readers on the same file (arrow-go's readers are not safe
// for concurrent use; the file's ReadAt is) and hands its batches, in
// order, to its channel. Next takes the batches of row group g from
// channel g mod n, as many as the sequential reader cuts from it
// (ceil(rows/batch size)), so that it returns the batches of the
// sequential reader in the same order. A decoder's batch of a row group
// depends only on the earlier batches of that row group, so every batch,
// and every error with its row, is the sequential reader's: the first
// error in batch order is the one the sequential reader would have met
// first.

// pqParallel is the state of a parallel read.
type pqParallel struct {
	n      int
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	out    []chan pqResult
	starts []int64 // records before each row group
	counts []int   // batches of each row group
	rg     int     // row group of the next batch
	got    int     // batches of it already returned
	err    error   // sticky: no batch after an error
}

type pqResult struct {
	b   *Batch
	err error
}

// DecodeParallel implements ParallelDecoder.
func (s *parquetSource) DecodeParallel(ctx context.Context, n int) {
	groups := s.pf.NumRowGroups()
	n = min(n, groups)
	if n < 2 || s.par != nil || s.rg > 0 || s.left > 0 || s.step > 1 {
		return
	}
	md := s.pf.MetaData()
	if int64(n)*s.largestRowGroup() > s.mem.limit {
		// n row groups at once could claim more than the budget: decode
		// one at a time, as the sequential reader does
		return
	}
	p := &pqParallel{n: n, starts: make([]int64, groups), counts: make([]int, groups)}
	var row int64
	for g := range groups {
		rows := md.RowGroup(g).NumRows()
		p.starts[g] = row
		row += rows
		p.counts[g] = int((rows + int64(s.batch) - 1) / int64(s.batch))
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	s.par = p
}

// start opens the decoders' readers (on the calling goroutine: the
// reader of a file is opened from the metadata already read) and starts
// them.
func (p *pqParallel) start(s *parquetSource) error {
	decoders := make([]*parquetSource, p.n)
	for k := range decoders {
		d, err := s.decoder(k, p.n)
		if err != nil {
			return err
		}
		decoders[k] = d
	}
	p.out = make([]chan pqResult, p.n)
	for k, d := range decoders {
		p.out[k] = make(chan pqResult, 2)
		p.wg.Add(1)
		go p.run(d, p.out[k])
	}
	return nil
}

// decoder returns a source reading row groups k, k+n, ... of s's file
// with its own readers, its columns asked as s's are.
func (s *parquetSource) decoder(k, n int) (d *parquetSource, err error) {
	defer recoverCorrupt(s.path, "", 0, &err)
	// each decoder has a budget of its own, the sequential reader's: a
	// shared one could run out in whichever decoder asks last, so that
	// the error, and whether there is one, would depend on scheduling
	// (DecodeParallel decodes in parallel only when n row groups' claims
	// fit in one budget together)
	mem := &limitAlloc{base: s.mem.base, limit: s.mem.limit, size: s.mem.size}
	pf, err := file.NewParquetReader(s.ra, file.WithReadProps(parquet.NewReaderProperties(mem)), file.WithMetadata(s.pf.MetaData()))
	if err != nil {
		return nil, arrowErr(s.path, 0, err)
	}
	// pf is never closed: closing it would close the file s reads
	d = &parquetSource{path: s.path, name: s.name, header: s.header, pf: pf, mem: mem, batch: s.batch, rg: k, step: n}
	for j, c := range s.cols {
		nc, err := newPQColumn(c.desc)
		if err != nil {
			return nil, &Error{File: s.path, Column: s.header[j], Err: err}
		}
		nc.asNumber, nc.skip = c.asNumber, c.skip
		d.cols = append(d.cols, nc)
	}
	return d, nil
}

// run decodes d's batches into out until d ends, fails or p is stopped.
func (p *pqParallel) run(d *parquetSource, out chan<- pqResult) {
	defer p.wg.Done()
	defer close(out)
	for p.ctx.Err() == nil {
		if d.left == 0 {
			// past empty row groups to the next one with rows, with the
			// row the sequential reader has there (for its messages)
			for d.rg < len(p.counts) && p.counts[d.rg] == 0 {
				d.rg += d.step
			}
			if d.rg < len(p.counts) {
				d.row = p.starts[d.rg]
			}
		}
		b, err := d.decode()
		if err == io.EOF {
			return
		}
		select {
		case out <- pqResult{b, err}:
		case <-p.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// next returns the next batch in the order of the sequential reader.
func (p *pqParallel) next(s *parquetSource) (*Batch, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.out == nil {
		if err := p.start(s); err != nil {
			p.err = err
			p.stop()
			return nil, err
		}
	}
	for p.rg < len(p.counts) && p.got == p.counts[p.rg] {
		p.rg, p.got = p.rg+1, 0
	}
	if p.rg >= len(p.counts) {
		return nil, io.EOF
	}
	r, ok := <-p.out[p.rg%p.n]
	switch {
	case !ok && p.ctx.Err() != nil:
		p.err = p.ctx.Err()
	case !ok:
		p.err = &Error{File: s.path, Row: int(p.starts[p.rg]) + 2, Err: fmt.Errorf("%w: row group %d ends before its %d rows", ErrCorrupt, p.rg+1, s.pf.MetaData().RowGroup(p.rg).NumRows())}
	case r.err != nil:
		p.err = r.err
	}
	if p.err != nil {
		p.cancel()
		return nil, p.err
	}
	p.got++
	return r.b, nil
}

// stop ends the decoders and waits for them.
func (p *pqParallel) stop() {
	p.cancel()
	p.wg.Wait()
}

// largestRowGroup is the most uncompressed bytes the column chunks of one
// row group claim (columns left unread excluded), as checkParquetChunks
// has bounded them.
func (s *parquetSource) largestRowGroup() int64 {
	md := s.pf.MetaData()
	var most int64
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		var sum int64
		for j := 0; j < rg.NumColumns(); j++ {
			if j < len(s.cols) && s.cols[j].skip {
				continue
			}
			if cc, err := rg.ColumnChunk(j); err == nil {
				sum += cc.TotalUncompressedSize()
			}
		}
		most = max(most, sum)
	}
	return most
}
