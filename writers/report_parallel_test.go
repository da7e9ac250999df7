package writers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// reportShaped is the report.json writer rendering the cells on workers
// goroutines in chunks of chunk cells.
func reportShaped(workers, chunk int) Report {
	return Report{Options: Options{ReportWorkers: workers, ReportChunk: chunk}}
}

// sequentialCells is the reference: every cell rendered and written in
// order on one goroutine.
func sequentialCells(t *audit.Table) []byte {
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	for i, c := range t.Cells {
		b, err := appendCell(nil, t, c, new(report.Scratch))
		if err != nil {
			panic(err)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n  ")
		bw.Write(b)
	}
	bw.Flush()
	return out.Bytes()
}

// TestReportParallelEqualsSequential: report.json's cells rendered on 1
// to 4 goroutines in chunks of 1 to 7 cells (every boundary: first chunk,
// last partial chunk, a chunk per cell, more workers than chunks) are the
// bytes of the sequential rendering, on random tables with hostile texts,
// every status and outcome, and cells with and without findings; the
// whole document too.
func TestReportParallelEqualsSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	for it := range 60 {
		tab := randomTable(rng)
		// Grow some tables past a few chunks of every size.
		for len(tab.Cells) < 40 && it%2 == 0 {
			tab.Cells = append(tab.Cells, tab.Cells...)
		}
		want := sequentialCells(tab)
		var whole []byte
		var out bytes.Buffer
		if err := reportShaped(1, 1).Write(&out, tab); err != nil {
			t.Fatal(err)
		}
		whole = out.Bytes()
		if !bytes.Contains(whole, want) {
			t.Fatalf("table %d: the sequential document does not hold the reference cells", it)
		}
		for workers := 1; workers <= 4; workers++ {
			for chunk := 1; chunk <= 7; chunk++ {
				var out bytes.Buffer
				bw := bufio.NewWriterSize(&out, 16) // small: writes pass through
				if err := writeCells(context.Background(), bw, tab, workers, chunk); err != nil {
					t.Fatal(err)
				}
				bw.Flush()
				if !bytes.Equal(out.Bytes(), want) {
					t.Fatalf("table %d (%d cells), %d workers, chunks of %d: cells differ from the sequential rendering", it, len(tab.Cells), workers, chunk)
				}
				var doc bytes.Buffer
				if err := reportShaped(workers, chunk).Write(&doc, tab); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(doc.Bytes(), whole) {
					t.Fatalf("table %d, %d workers, chunks of %d: report.json differs from the sequential one", it, workers, chunk)
				}
			}
		}
	}
}

// lookCounter is a context cancelled from its (left+1)th look at Err on.
type lookCounter struct {
	context.Context
	left atomic.Int64
}

func (c *lookCounter) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestReportParallelCancelled: report.json cancelled mid-write, whichever
// goroutine sees it, returns context.Canceled and leaves no file (not
// even a temporary one) behind.
func TestReportParallelCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 8))
	tab := randomTable(rng)
	for len(tab.Cells) < 20*CheckEvery {
		tab.Cells = append(tab.Cells, tab.Cells...)
	}
	for workers := 1; workers <= 4; workers++ {
		for _, chunk := range []int{1, 7, 100, 1024} {
			// WriteAtomic and WriteContext look once each before the
			// cells; the cells look every CheckEvery cells.
			for _, k := range []int64{0, 2, 3, 7, 15} {
				ctx := &lookCounter{Context: context.Background()}
				ctx.left.Store(k)
				dir := t.TempDir()
				err := WriteTable(ctx, dir, reportShaped(workers, chunk), tab)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%d workers, chunks of %d, cancelled after %d looks: err = %v", workers, chunk, k, err)
				}
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					t.Errorf("%d workers, chunks of %d: left %s", workers, chunk, filepath.Join(dir, e.Name()))
				}
			}
		}
	}
}
