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
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/writers"
)

// millionLevels is the number of levels of each of the two dimensions of
// BenchmarkMillionCells: 1000 (1001 x 1001 = 1,002,001 cells with margins)
// unless SDCAUDIT_BENCH_LEVELS sets a smaller size for a quick run.
func millionLevels(tb testing.TB) int {
	s := os.Getenv("SDCAUDIT_BENCH_LEVELS")
	if s == "" {
		return 1000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 2 || n > 1000 {
		tb.Fatalf("SDCAUDIT_BENCH_LEVELS=%q: want a number of levels from 2 to 1000", s)
	}
	return n
}

// genCells writes levels*levels records in two dimensions of levels
// levels, one record per finest cell on average (drawn at random, so that
// some cells are empty and some have several records), with a lognormal
// value and a fixed seed.
func genCells(tb testing.TB, dir string, levels int) string {
	tb.Helper()
	rows := levels * levels
	return genOnce(tb, filepath.Join(dir, fmt.Sprintf("cells_%d.csv", levels)), func(w io.Writer) {
		r := rand.New(rand.NewPCG(44, uint64(levels)))
		fmt.Fprintln(w, "id,a,b,turnover")
		for i := 0; i < rows; i++ {
			v := math.Exp(10 + 1.5*r.NormFloat64())
			fmt.Fprintf(w, "%d,A%04d,B%04d,%.2f\n", i, r.IntN(levels), r.IntN(levels), v)
		}
	})
}

// BenchmarkMillionCells measures `check` with the default outputs on
// 1 M records in two dimensions of 1000 levels: 1,002,001 cells with
// margins (issue 15's million-cell row; SDCAUDIT_BENCH_LEVELS=n for n*n
// records in (n+1)^2 cells). It reports the peak heap, the bytes of peak
// heap per cell, and, in a second pass over the audited table, the time of
// each output. The baseline, in the same run, is the plain read of the
// file. Targets: under 1 KB per cell; every output in under a minute.
func BenchmarkMillionCells(b *testing.B) {
	levels := millionLevels(b)
	rows := levels * levels
	want := (levels + 1) * (levels + 1)
	path := genCells(b, benchDir(), levels)
	b.Run(fmt.Sprintf("cells=%d/plain-csv", want), func(b *testing.B) {
		var heap float64
		for b.Loop() {
			heap = peakHeap(func() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				r := csv.NewReader(bufio.NewReaderSize(f, 256<<10))
				r.ReuseRecord = true
				for {
					_, err := r.Read()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				f.Close()
			})
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(heap, "peak-heap-MiB")
	})
	// check: every default output and secondary suppression; check-nosecondary:
	// the same outputs without secondary suppression (whose search, not
	// the cells or the outputs, dominates the time at this size).
	variants := []struct{ name, cfg string }{
		{"check", ""},
		{"check-nosecondary", "suppression: {secondary: false}\n"},
	}
	for _, v := range variants {
		if os.Getenv("SDCAUDIT_BENCH_SKIP_SECONDARY") != "" && v.name == "check" {
			continue
		}
		b.Run(fmt.Sprintf("cells=%d/%s", want, v.name), func(b *testing.B) {
			benchCells(b, path, rows, want, v.cfg)
		})
	}
}

// liveHeap is the heap in use after a collection, in bytes.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func benchCells(b *testing.B, path string, rows, want int, extra string) {
	{
		s := settings(b, "microdata: {dims: [a, b], value: turnover}\n"+extra)
		out := b.TempDir()
		var heap float64
		var res *Result
		var live uint64
		var cpu float64
		for b.Loop() {
			res = nil
			base := liveHeap()
			cpu0 := cpuTime().Seconds()
			heap = peakHeap(func() {
				var err error
				res, err = Run(context.Background(), []Job{{Path: path, Settings: s}}, Options{Out: out})
				if err != nil {
					b.Fatal(err)
				}
			})
			b.StopTimer()
			cpu = cpuTime().Seconds() - cpu0
			live = liveHeap() - min(base, liveHeap())
			b.StartTimer()
		}
		if got := res.Summary.Totals.Cells; got != want {
			b.Fatalf("%d cells, want %d", got, want)
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(heap, "peak-heap-MiB")
		b.ReportMetric(heap*(1<<20)/float64(want), "peak-B/cell")
		b.ReportMetric(float64(live)/float64(want), "live-B/cell")
		b.ReportMetric(cpu, "cpu-s")
		if p := os.Getenv("SDCAUDIT_BENCH_HEAPPROFILE"); p != "" {
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		// each output again, one at a time, on the audited table
		b.StopTimer()
		t := res.Tables[0]
		dir := b.TempDir()
		for _, w := range tableWriters(s) {
			start, cpu0 := time.Now(), cpuTime().Seconds()
			if err := writers.WriteTable(context.Background(), dir, w, t); err != nil {
				b.Fatal(err)
			}
			name := strings.TrimPrefix(w.File(t), t.Name+".")
			b.ReportMetric(time.Since(start).Seconds(), name+"-s")
			b.ReportMetric(cpuTime().Seconds()-cpu0, name+"-cpu-s")
		}
		start := time.Now()
		if _, err := writeRunFiles(context.Background(), dir, res, true, false); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "summary-s")
		b.StartTimer()
	}
}
