package readers

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: on a
// machine shared with other work it is a steadier measure than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readValues reads every row of a file and takes column 3 (val) as a
// number, as the pipeline does: typed when the source has numbers, else
// parsed from text. It returns the number of rows.
func readValues(b *testing.B, p string, typed bool) int {
	srcs, err := Open(p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	src := srcs[0]
	defer src.Close()
	if tp, ok := src.(Typed); ok && typed && !tp.ReadNumbers(3) {
		b.Fatal("val is not numeric")
	}
	n := 0
	for {
		bt, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		for r, row := range bt.Rows {
			if row[3] == NumberField {
				_ = bt.Numbers[3][r]
			} else if _, err := (NumberFormat{}).Parse(row[3]); err != nil {
				b.Fatal(err)
			}
		}
		n += len(bt.Rows)
	}
	return n
}

// BenchmarkReadValues is the read stage alone: 1,000,000 rows (two label
// columns, an integer and a float64 value) read and the value taken as an
// exact number, from CSV (the baseline: text parsed), from Parquet and
// Arrow IPC with typed numbers, and from Parquet with the value as text
// parsed back (the path before typed columns).
func BenchmarkReadValues(b *testing.B) {
	dir := b.TempDir()
	const rows = 1_000_000
	benchCSV(b, filepath.Join(dir, "bench.csv"), rows)
	benchArrow(b, dir, rows)
	for _, c := range []struct {
		name, file string
		typed      bool
	}{
		{"csv-1M", "bench.csv", false},
		{"parquet-1M-typed", "bench.parquet", true},
		{"parquet-1M-text", "bench.parquet", false},
		{"arrow-1M-typed", "bench.arrow", true},
	} {
		p := filepath.Join(dir, c.file)
		fi, _ := os.Stat(p)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			cpu := cpuTime()
			for b.Loop() {
				if n := readValues(b, p, c.typed); n != rows {
					b.Fatalf("%d rows, want %d", n, rows)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
