package readers

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/xuri/excelize/v2"
)

// benchRows generates microdata rows: region, sex, age band, value.
func benchRows(n int, put func(region, sex string, age int64, val float64)) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		put(fmt.Sprintf("R%02d", rng.IntN(20)), []string{"F", "M"}[rng.IntN(2)], int64(rng.IntN(9)), float64(rng.IntN(10000000))/100)
	}
}

func benchCSV(b *testing.B, p string, n int) {
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("region,sex,age,val\n")
	benchRows(n, func(r, s string, a int64, v float64) {
		fmt.Fprintf(w, "%s,%s,%d,%s\n", r, s, a, strconv.FormatFloat(v, 'f', -1, 64))
	})
	w.Flush()
	f.Close()
}

func benchArrow(b *testing.B, dir string, n int) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "region", Type: arrow.BinaryTypes.String},
		{Name: "sex", Type: arrow.BinaryTypes.String},
		{Name: "age", Type: arrow.PrimitiveTypes.Int64},
		{Name: "val", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	var recs []arrow.RecordBatch
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	k := 0
	benchRows(n, func(r, s string, a int64, v float64) {
		rb.Field(0).(*array.StringBuilder).Append(r)
		rb.Field(1).(*array.StringBuilder).Append(s)
		rb.Field(2).(*array.Int64Builder).Append(a)
		rb.Field(3).(*array.Float64Builder).Append(v)
		if k++; k%65536 == 0 {
			recs = append(recs, rb.NewRecordBatch())
		}
	})
	recs = append(recs, rb.NewRecordBatch())
	writeArrowFile(b, filepath.Join(dir, "bench.arrow"), recs...)
	writeParquetFile(b, filepath.Join(dir, "bench.parquet"), 128*1024, recs...)
	for _, r := range recs {
		r.Release()
	}
}

func benchXLSX(b *testing.B, p string, n int) {
	f := excelize.NewFile()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		b.Fatal(err)
	}
	sw.SetRow("A1", []any{"Table 1. Benchmark"})
	sw.SetRow("A3", []any{"region", "sex", "age", "val"})
	row := 4
	benchRows(n, func(r, s string, a int64, v float64) {
		cell, _ := excelize.CoordinatesToCellName(1, row)
		sw.SetRow(cell, []any{r, s, a, v})
		row++
	})
	if err := sw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.SaveAs(p); err != nil {
		b.Fatal(err)
	}
}

// readCount reads every row of a file and returns how many there were.
func readCount(b *testing.B, p string) int {
	srcs, err := Open(p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, s := range srcs {
		for {
			bt, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += len(bt.Rows)
		}
		s.Close()
	}
	return n
}

// BenchmarkRead reads 1,000,000 rows as CSV (the baseline), Arrow IPC and
// Parquet, and 200,000 rows as CSV and xlsx, reporting rows/s. The files
// are generated once into a temporary directory.
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	const big, sheet = 1_000_000, 200_000
	benchCSV(b, filepath.Join(dir, "bench.csv"), big)
	benchArrow(b, dir, big)
	benchCSV(b, filepath.Join(dir, "small.csv"), sheet)
	benchXLSX(b, filepath.Join(dir, "small.xlsx"), sheet)
	for _, c := range []struct {
		name, file string
		rows       int
	}{
		{"csv-1M", "bench.csv", big},
		{"arrow-1M", "bench.arrow", big},
		{"parquet-1M", "bench.parquet", big},
		{"csv-200k", "small.csv", sheet},
		{"xlsx-200k", "small.xlsx", sheet},
	} {
		p := filepath.Join(dir, c.file)
		fi, _ := os.Stat(p)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			for b.Loop() {
				if n := readCount(b, p); n != c.rows {
					b.Fatalf("%d rows, want %d", n, c.rows)
				}
			}
			b.ReportMetric(float64(c.rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
