package pipeline

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/internal/parquettest"
)

// microRecord is one generated record; v is the value as text ("" for a
// missing value) as the CSV holds it.
type microRecord struct {
	region, size string
	v            string
	f            float64 // the value as a float (NaN when missing)
	m            int64   // the value × 100 (decimal and integer columns)
}

func genTypedRecords(n int, seed uint64, integer bool) []microRecord {
	rng := rand.New(rand.NewPCG(seed, 15))
	recs := make([]microRecord, n)
	for i := range recs {
		m := int64(math.Exp(8+2*rng.NormFloat64()) * 100)
		if rng.IntN(20) == 0 {
			m = -m
		}
		if integer {
			m -= m % 100
		}
		r := microRecord{region: fmt.Sprintf("R%02d", rng.IntN(30)), size: fmt.Sprintf("S%d", rng.IntN(6)), m: m}
		r.f = float64(m) / 100
		r.v = strconv.FormatFloat(r.f, 'f', -1, 64)
		if rng.IntN(50) == 0 {
			r.v, r.f = "", math.NaN()
		}
		recs[i] = r
	}
	return recs
}

func writeTypedCSV(t testing.TB, p string, recs []microRecord) {
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "region,size,v")
	for _, r := range recs {
		fmt.Fprintf(w, "%s,%s,%s\n", r.region, r.size, r.v)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// writeTypedParquet writes the records with v of type typ (float64,
// decimal128 with scale 2, int64 of whole values) in row groups of
// rowGroup rows, strings dictionary-encoded.
func writeTypedParquet(t testing.TB, p string, recs []microRecord, typ arrow.DataType, rowGroup int64) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "region", Type: arrow.BinaryTypes.String},
		{Name: "size", Type: arrow.BinaryTypes.String},
		{Name: "v", Type: typ, Nullable: true},
	}, nil)
	sink := parquettest.Create(t, p, schema, rowGroup)
	b, flush := sink.B, sink.Flush
	for i, r := range recs {
		b.Field(0).(*array.StringBuilder).Append(r.region)
		b.Field(1).(*array.StringBuilder).Append(r.size)
		switch vb := b.Field(2).(type) {
		case *array.Float64Builder:
			vb.Append(r.f) // NaN for a missing value, as pandas writes it
		case *array.Decimal128Builder:
			if r.v == "" {
				vb.AppendNull()
			} else {
				vb.Append(decimal128.FromI64(r.m))
			}
		case *array.Int64Builder:
			if r.v == "" {
				vb.AppendNull()
			} else {
				vb.Append(r.m / 100)
			}
		}
		if (i+1)%65536 == 0 {
			flush()
		}
	}
	sink.Close()
}

// TestParquetTypedMatchesCSV: microdata read from Parquet (value typed as
// float64, decimal(18,2) or int64, read as exact numbers) gives cells
// identical to the same records read from CSV text, with the shards of
// the concurrent build (several batches and row groups).
func TestParquetTypedMatchesCSV(t *testing.T) {
	const cfg = "microdata: {dims: [region, size], value: v}\n"
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Float64, &arrow.Decimal128Type{Precision: 18, Scale: 2}, arrow.PrimitiveTypes.Int64} {
		t.Run(typ.String(), func(t *testing.T) {
			dir := t.TempDir()
			recs := genTypedRecords(30000, 1, typ.ID() == arrow.INT64)
			csvPath, pqPath := filepath.Join(dir, "m.csv"), filepath.Join(dir, "m.parquet")
			writeTypedCSV(t, csvPath, recs)
			writeTypedParquet(t, pqPath, recs, typ, 7000)
			want := auditFile(t, csvPath, cfg)
			got := auditFile(t, pqPath, cfg)
			if len(got.Cells) != len(want.Cells) || len(want.Cells) != 31*7 {
				t.Fatalf("%d cells from Parquet, %d from CSV, want %d", len(got.Cells), len(want.Cells), 31*7)
			}
			for i := range want.Cells {
				g, w := cellText(got.Cells[i]), cellText(want.Cells[i])
				if g != w {
					t.Fatalf("cell %v: from Parquet\n%s\nfrom CSV\n%s", want.Cells[i].Key, g, w)
				}
			}
		})
	}
}

// cellText is every field of a cell but its findings, and each finding's
// rule, outcome, figures and sentence (findings hold functions and
// pointers, which neither reflect.DeepEqual nor %v compare by content).
func cellText(c *audit.Cell) string {
	cell := *c
	cell.ClearFindings()
	s := fmt.Sprintf("%+v", cell)
	for _, f := range c.EachFinding() {
		s += fmt.Sprintf("\n%s %s %v: %s", f.Rule, f.Outcome, f.FigureList(), f.Message())
	}
	return s
}

// TestParquetValueAlsoDimension: a value column that is also a dimension
// keeps its text (its levels are labels), so the cells equal the CSV's.
func TestParquetValueAlsoDimension(t *testing.T) {
	const cfg = "microdata: {dims: [region, v], value: v}\n"
	dir := t.TempDir()
	recs := genTypedRecords(5000, 2, true)
	for i := range recs {
		if recs[i].v != "" {
			recs[i].m = int64(i%5) * 100
			recs[i].v = strconv.Itoa(i % 5)
		}
	}
	csvPath, pqPath := filepath.Join(dir, "m.csv"), filepath.Join(dir, "m.parquet")
	writeTypedCSV(t, csvPath, recs)
	writeTypedParquet(t, pqPath, recs, arrow.PrimitiveTypes.Int64, 1000)
	want := auditFile(t, csvPath, cfg)
	got := auditFile(t, pqPath, cfg)
	if len(got.Cells) != len(want.Cells) {
		t.Fatalf("%d cells from Parquet, %d from CSV", len(got.Cells), len(want.Cells))
	}
	for i := range want.Cells {
		if g, w := cellText(got.Cells[i]), cellText(want.Cells[i]); g != w {
			t.Fatalf("cell %v: from Parquet\n%s\nfrom CSV\n%s", want.Cells[i].Key, g, w)
		}
	}
}
