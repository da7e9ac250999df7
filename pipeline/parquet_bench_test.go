package pipeline

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/sdcaudit/sdcaudit/internal/parquettest"
)

// genMicroParquet writes the records of genMicrodata as Parquet (as
// pandas or DuckDB would: id int64, the dimensions dictionary-encoded
// strings, turnover float64, or decimal(18,2) when dec), Snappy, row
// groups of 128 Ki rows.
func genMicroParquet(tb testing.TB, dir string, rows int, dec bool) string {
	tb.Helper()
	src := genMicrodata(tb, dir, rows)
	suffix := ""
	if dec {
		suffix = "_dec"
	}
	p := strings.TrimSuffix(src, ".csv") + suffix + ".parquet"
	return genOnce(tb, p, func(f io.Writer) { writeMicroParquet(tb, src, f, dec) })
}

// writeMicroParquet writes the records of the CSV file src to f as
// genMicroParquet describes.
func writeMicroParquet(tb testing.TB, src string, f io.Writer, dec bool) {
	var vt arrow.DataType = arrow.PrimitiveTypes.Float64
	if dec {
		vt = &arrow.Decimal128Type{Precision: 18, Scale: 2}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "region", Type: arrow.BinaryTypes.String},
		{Name: "industry", Type: arrow.BinaryTypes.String},
		{Name: "size", Type: arrow.BinaryTypes.String},
		{Name: "turnover", Type: vt},
	}, nil)
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(128<<10))
	sink := parquettest.NewSink(tb, f, schema, props)
	b, flush := sink.B, sink.Flush
	r := csv.NewReader(bufio.NewReaderSize(in, 1<<20))
	r.ReuseRecord = true
	r.Read() // header
	for n := 1; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		id, _ := strconv.ParseInt(rec[0], 10, 64)
		b.Field(0).(*array.Int64Builder).Append(id)
		for c := 1; c <= 3; c++ {
			b.Field(c).(*array.StringBuilder).Append(rec[c])
		}
		if dec {
			cents, err := strconv.ParseInt(strings.Replace(rec[4], ".", "", 1), 10, 64) // %.2f
			if err != nil {
				tb.Fatal(err)
			}
			b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(cents))
		} else {
			v, _ := strconv.ParseFloat(rec[4], 64)
			b.Field(4).(*array.Float64Builder).Append(v)
		}
		if n%65536 == 0 {
			flush()
		}
	}
	sink.Close()
}

// BenchmarkCheckParquet measures `check` on 1 M microdata records (those
// of BenchmarkCheckMicrodata) read from Parquet, beside the same records
// as CSV in the same run (the baseline; target: Parquet faster), for the
// default outputs (check) and the core run (check-core); parquet-dec holds
// the value as decimal(18,2) instead of float64. Besides time it reports
// rows/s, CPU seconds per op (steadier than wall time on a shared
// machine) and the peak heap. SDCAUDIT_BENCH_PARQUET_ROWS sets another
// number of records (the row is 10000000: inputs of 277 MB as
// CSV, 160 MB as Parquet, generated once into the bench directory).
func BenchmarkCheckParquet(b *testing.B) {
	rows := 1_000_000
	if v := os.Getenv("SDCAUDIT_BENCH_PARQUET_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("SDCAUDIT_BENCH_PARQUET_ROWS=%q: want a number of records, at least 1000", v)
		}
		rows = n
	}
	files := []struct {
		name string
		path func() string // generated on first use
	}{
		{"csv", func() string { return genMicrodata(b, benchDir(), rows) }},
		{"parquet", func() string { return genMicroParquet(b, benchDir(), rows, false) }},
		{"parquet-dec", func() string { return genMicroParquet(b, benchDir(), rows, true) }},
	}
	variants := []struct{ name, cfg string }{
		{"check-core", "output: {annotated: false, html: false}\nsuppression: {secondary: false}\n"},
		{"check", ""},
	}
	for _, v := range variants {
		for _, f := range files {
			b.Run(fmt.Sprintf("rows=%d/%s/%s", rows, v.name, f.name), func(b *testing.B) {
				path := f.path()
				s := settings(b, "microdata: {dims: [region, industry, size], value: turnover}\n"+v.cfg)
				out := b.TempDir()
				var heap float64
				var cells int
				cpu := cpuTime()
				for b.Loop() {
					heap = peakHeap(func() {
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
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(heap, "peak-heap-MiB")
			})
		}
	}
}
