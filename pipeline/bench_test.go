package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/internal/benchdata"
)

// genMicrodata writes rows records with three dimensions of 50, 40 and 10
// levels and a lognormal value, with a fixed seed.
func genMicrodata(tb testing.TB, dir string, rows int) string {
	tb.Helper()
	return genOnce(tb, filepath.Join(dir, fmt.Sprintf("micro_%d.csv", rows)), func(w io.Writer) { benchdata.Microdata(w, rows) })
}

// genOnce returns p, first written by write (through a buffer, into a
// temporary file renamed to p when complete) unless it exists: generated
// inputs are kept from one run to the next.
func genOnce(tb testing.TB, p string, write func(w io.Writer)) string {
	tb.Helper()
	if _, err := os.Stat(p); err == nil {
		return p
	}
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write(w)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
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
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}, {Name: "/gc/heap/live:bytes"}}
	// SDCAUDIT_BENCH_PEAKPROFILE=FILE: the heap profile (as of the last
	// collection) when the live heap is the largest seen, which shows
	// what the peak holds; it costs time, so only for a look
	peakProfile := os.Getenv("SDCAUDIT_BENCH_PEAKPROFILE")
	var maxLive uint64
	sample := func() {
		metrics.Read(samples)
		if v := samples[0].Value.Uint64() + samples[1].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
		if live := samples[2].Value.Uint64(); peakProfile != "" && live > maxLive+maxLive/20 {
			maxLive = live
			if f, err := os.Create(peakProfile); err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
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

// reportMetrics adds the metrics every benchmark here reports: rows/s,
// peak-heap-MiB and cpu-s/op (the process's CPU time per run, every
// thread, the steadier figure on a loaded machine).
func reportMetrics(b *testing.B, rows int, heap float64, cpu time.Duration) {
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
	reportMetrics(b, rows, heap, cpu)
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
	reportMetrics(b, rows, heap, cpu)
}

// genHoldings writes rows records with the dimensions of genMicrodata and a
// holding column of 100,000 holdings spread over the cells: half of a
// holding's records fall in its home cell, the others anywhere, so that
// many holdings span cells and many do not.
func genHoldings(tb testing.TB, dir string, rows int) string {
	tb.Helper()
	return genOnce(tb, filepath.Join(dir, fmt.Sprintf("holdings_%d.csv", rows)), func(w io.Writer) { benchdata.Holdings(w, rows, 100_000) })
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
	// check-no-holding: the same file and outputs without the holding
	// column, the baseline (holdings at the cost of a column).
	for _, v := range []struct{ name, holding string }{{"check-no-holding", ""}, {"check", ", holding: group"}} {
		b.Run(v.name, func(b *testing.B) {
			s := settings(b, "microdata: {dims: [region, industry, size], value: turnover"+v.holding+"}\n"+
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
			reportMetrics(b, rows, heap, cpu)
		})
	}
}

// BenchmarkGroupingFloor measures the least work any grouping of the
// check-core file can do, beside the plain read in the same run: the file
// cut into chunks of whole lines that GOMAXPROCS goroutines parse with
// encoding/csv, each record's cell found (a map lookup per dimension and
// a grid index) and only its count and int64 sum (the value's digits as
// an integer) updated. It checks neither numbers nor levels nor quotes
// across chunks (the generated file has none): a floor, not a reader.
func BenchmarkGroupingFloor(b *testing.B) {
	const rows = 1_000_000
	path := genMicrodata(b, benchDir(), rows)
	b.Run("plain-csv", func(b *testing.B) { benchPlainCSV(b, path, rows) })
	b.Run("floor", func(b *testing.B) {
		var heap float64
		var cpu time.Duration
		for b.Loop() {
			heap = measure(&cpu, func() {
				if n := groupingFloor(b, path); n != rows {
					b.Fatalf("%d records, want %d", n, rows)
				}
			})
		}
		reportMetrics(b, rows, heap, cpu)
	})
}

// groupingFloor groups the file as BenchmarkGroupingFloor says and
// returns the number of records.
func groupingFloor(b *testing.B, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	if _, err := br.ReadString('\n'); err != nil { // the header
		b.Fatal(err)
	}
	workers := runtime.GOMAXPROCS(0)
	type part struct {
		levels [3]map[string]int
		count  []int64
		sum    []int64
	}
	parts := make([]*part, workers)
	chunks := make(chan []byte, workers)
	var wg sync.WaitGroup
	for w := range parts {
		p := &part{count: make([]int64, 64*64*16), sum: make([]int64, 64*64*16)}
		for d := range p.levels {
			p.levels[d] = map[string]int{}
		}
		parts[w] = p
		wg.Go(func() {
			for c := range chunks {
				r := csv.NewReader(bytes.NewReader(c))
				r.ReuseRecord = true
				for {
					rec, err := r.Read()
					if err == io.EOF {
						break
					}
					if err != nil {
						panic(err)
					}
					gi := 0
					for d := range 3 {
						m := p.levels[d]
						id, ok := m[rec[1+d]]
						if !ok {
							id = len(m)
							m[strings.Clone(rec[1+d])] = id
						}
						gi = gi<<[3]int{6, 6, 4}[d] | id // 50, 40 and 10 levels
					}
					var v int64
					for _, c := range []byte(rec[4]) {
						if c != '.' {
							v = v*10 + int64(c-'0')
						}
					}
					p.count[gi]++
					p.sum[gi] += v
				}
			}
		})
	}
	var rest []byte
	for {
		buf := make([]byte, 4<<20)
		n, err := io.ReadFull(br, buf[len(rest):][:len(buf)-len(rest)])
		copy(buf, rest)
		buf = buf[:len(rest)+n]
		if err != nil && n == 0 {
			if len(buf) > 0 {
				chunks <- buf
			}
			break
		}
		cut := bytes.LastIndexByte(buf, '\n') + 1
		rest = append([]byte(nil), buf[cut:]...)
		chunks <- buf[:cut]
	}
	close(chunks)
	wg.Wait()
	var total int64
	for _, p := range parts {
		for _, c := range p.count {
			total += c
		}
	}
	return total
}
