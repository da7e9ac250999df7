package pipeline

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// genMicrodata writes rows records with three dimensions of 50, 40 and 10
// levels and a lognormal value, with a fixed seed.
func genMicrodata(tb testing.TB, dir string, rows int) string {
	tb.Helper()
	p := filepath.Join(dir, fmt.Sprintf("micro_%d.csv", rows))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(42, uint64(rows)))
	fmt.Fprintln(w, "id,region,industry,size,turnover")
	for i := 0; i < rows; i++ {
		v := math.Exp(10 + 1.5*r.NormFloat64())
		fmt.Fprintf(w, "%d,R%02d,I%02d,S%d,%.2f\n", i, r.IntN(50), r.IntN(40), r.IntN(10), v)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	if err := os.Rename(tmp, p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// benchDir keeps generated inputs between runs (they are deterministic).
var benchDir = sync.OnceValue(func() string {
	d := filepath.Join(os.TempDir(), "sdcaudit-bench")
	if err := os.MkdirAll(d, 0o755); err != nil {
		panic(err)
	}
	return d
})

// peakHeap samples the heap in use while f runs and returns the peak in
// MiB. It reads runtime/metrics, which does not stop the world
// (runtime.ReadMemStats every 20 ms did, and preempted the run it measured).
func peakHeap(f func()) float64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	sample := func() {
		metrics.Read(samples)
		if v := samples[0].Value.Uint64() + samples[1].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	go func() {
		defer close(stopped)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	runtime.GC()
	f()
	close(done)
	<-stopped
	sample()
	return float64(peak.Load()) / (1 << 20)
}

// measure runs f as peakHeap does and adds the CPU time it used to *cpu.
func measure(cpu *time.Duration, f func()) float64 {
	t0 := cpuTime()
	heap := peakHeap(f)
	*cpu += cpuTime() - t0
	return heap
}

// report adds the metrics every benchmark here reports: rows/s,
// peak-heap-MiB and cpu-s/op (the process's CPU time per run, every
// thread, the steadier figure on a loaded machine).
func report(b *testing.B, rows int, heap float64, cpu time.Duration) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(heap, "peak-heap-MiB")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkCheckMicrodata measures `check` on generated microdata (3
// dimensions, 50x40x10 levels, lognormal value) against a plain
// encoding/csv read of the same file in the same run. Target: check within
// 2x of the plain read; peak heap independent of the number of rows.
func BenchmarkCheckMicrodata(b *testing.B) {
	for _, rows := range []int{100_000, 1_000_000} {
		path := genMicrodata(b, benchDir(), rows)
		b.Run(fmt.Sprintf("rows=%d/plain-csv", rows), func(b *testing.B) { benchPlainCSV(b, path, rows) })
		// check: the default profile with every default output (report,
		// safe CSV, annotated workbook, HTML summary) and secondary
		// suppression with its audit; check-acro: the same with ACRO's
		// rule set (profile acro: zeros disclosive, results.json for
		// SACRO); check-core: the report and safe CSV only, without
		// secondary suppression.
		variants := []struct{ name, cfg string }{
			{"check", ""},
			{"check-acro", "profile: acro\n"},
			{"check-core", "output: {annotated: false, html: false}\nsuppression: {secondary: false}\n"},
		}
		for _, v := range variants {
			b.Run(fmt.Sprintf("rows=%d/%s", rows, v.name), func(b *testing.B) {
				benchCheck(b, path, rows, v.cfg)
			})
		}
	}
}

// benchPlainCSV is the baseline: a plain encoding/csv read of the file.
func benchPlainCSV(b *testing.B, path string, rows int) {
	var heap float64
	var cpu time.Duration
	for b.Loop() {
		heap = measure(&cpu, func() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			r := csv.NewReader(bufio.NewReaderSize(f, 256<<10))
			r.ReuseRecord = true
			n := 0
			for {
				_, err := r.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			f.Close()
			if n != rows+1 {
				b.Fatalf("%d records, want %d", n, rows+1)
			}
		})
	}
	report(b, rows, heap, cpu)
}

func benchCheck(b *testing.B, path string, rows int, extra string) {
	s := settings(b, "microdata: {dims: [region, industry, size], value: turnover}\n"+extra)
	out := b.TempDir()
	var heap float64
	var cpu time.Duration
	var cells int
	for b.Loop() {
		heap = measure(&cpu, func() {
			res, err := Run(context.Background(), []Job{{Path: path, Settings: s}}, Options{Out: out})
			if err != nil {
				b.Fatal(err)
			}
			cells = res.Summary.Totals.Cells
		})
	}
	if cells != 51*41*11 {
		b.Fatalf("%d cells, want %d", cells, 51*41*11)
	}
	report(b, rows, heap, cpu)
}

// genHoldings writes rows records with the dimensions of genMicrodata and a
// holding column of 100,000 holdings spread over the cells: half of a
// holding's records fall in its home cell, the others anywhere, so that
// many holdings span cells and many do not.
func genHoldings(tb testing.TB, dir string, rows int) string {
	tb.Helper()
	p := filepath.Join(dir, fmt.Sprintf("holdings_%d.csv", rows))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(43, uint64(rows)))
	fmt.Fprintln(w, "id,group,region,industry,size,turnover")
	for i := 0; i < rows; i++ {
		h := r.IntN(100_000)
		reg, ind, size := r.IntN(50), r.IntN(40), r.IntN(10)
		if r.IntN(2) == 0 {
			home := rand.New(rand.NewPCG(uint64(h), 1))
			reg, ind, size = home.IntN(50), home.IntN(40), home.IntN(10)
		}
		v := math.Exp(10 + 1.5*r.NormFloat64())
		fmt.Fprintf(w, "%d,G%06d,R%02d,I%02d,S%d,%.2f\n", i, h, reg, ind, size, v)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	if err := os.Rename(tmp, p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkCheckHoldings measures `check` (report and safe CSV, no
// secondary suppression) on 1 M records with 100 k holdings, beside a
// plain encoding/csv read of the same file (plain-csv). Measured anchor
// (docs/performance.md): DuckDB's CUBE over the same file, grouping by
// holding and then by cell.
func BenchmarkCheckHoldings(b *testing.B) {
	const rows = 1_000_000
	path := genHoldings(b, benchDir(), rows)
	b.Run("plain-csv", func(b *testing.B) { benchPlainCSV(b, path, rows) })
	b.Run("check", func(b *testing.B) {
		s := settings(b, "microdata: {dims: [region, industry, size], value: turnover, holding: group}\n"+
			"output: {annotated: false, html: false}\nsuppression: {secondary: false}\n")
		out := b.TempDir()
		var heap float64
		var cpu time.Duration
		for b.Loop() {
			heap = measure(&cpu, func() {
				if _, err := Run(context.Background(), []Job{{Path: path, Settings: s}}, Options{Out: out}); err != nil {
					b.Fatal(err)
				}
			})
		}
		report(b, rows, heap, cpu)
	})
}
