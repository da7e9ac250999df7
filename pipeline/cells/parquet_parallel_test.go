package cells

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/sdcaudit/sdcaudit/internal/parquettest"
	"github.com/sdcaudit/sdcaudit/readers"
)

// writeRandomMicroParquet writes rows random records (id int64, region
// and sector dictionary-encoded strings with nulls, holding string, value
// of type typ with nulls, and for float64 NaNs) in row groups of rowGroup
// rows; bad, when >= 0, makes the value of record bad not a number (the
// value column is then a string).
func writeRandomMicroParquet(t *testing.T, p string, r *rand.Rand, rows int, typ arrow.DataType, rowGroup int64, bad int) {
	t.Helper()
	if bad >= 0 {
		typ = arrow.BinaryTypes.String
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "sector", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "h", Type: arrow.BinaryTypes.String},
		{Name: "v", Type: typ, Nullable: true},
	}, nil)
	sink := parquettest.Create(t, p, schema, rowGroup)
	b, flush := sink.B, sink.Flush
	label := func(fb array.Builder, prefix string, n int) {
		if r.IntN(40) == 0 {
			fb.AppendNull()
			return
		}
		fb.(*array.StringBuilder).Append(fmt.Sprintf("%s%d", prefix, r.IntN(n)))
	}
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		label(b.Field(1), "R", 12)
		label(b.Field(2), "S", 7)
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("H%d", r.IntN(rows/3+1)))
		cents := int64(math.Exp(6+2*r.NormFloat64()) * 100)
		if r.IntN(15) == 0 {
			cents = -cents
		}
		null := r.IntN(30) == 0
		switch vb := b.Field(4).(type) {
		case *array.Float64Builder:
			switch {
			case null && r.IntN(2) == 0:
				vb.Append(math.NaN())
			case null:
				vb.AppendNull()
			default:
				vb.Append(float64(cents) / 100)
			}
		case *array.Decimal128Builder:
			if null {
				vb.AppendNull()
			} else {
				vb.Append(decimal128.FromI64(cents))
			}
		case *array.StringBuilder:
			switch {
			case i == bad:
				vb.Append("12x")
			case null:
				vb.AppendNull()
			default:
				vb.Append(fmt.Sprintf("%d.%02d", cents/100, abs(cents%100)))
			}
		}
		if (i+1)%997 == 0 {
			flush()
		}
	}
	sink.Close()
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// auditParquet audits a Parquet file with the given workers, its row
// groups decoded in parallel or not, and returns its report.json and
// safe.csv, or the error.
func auditParquet(t *testing.T, p, cfg string, batch, workers int, parallel bool) ([]byte, []byte, error) {
	t.Helper()
	return auditParquetTuned(t, p, cfg, batch, workers, Tuning{SerialDecode: !parallel})
}

// auditParquetTuned is auditParquet with the builders' tuning.
func auditParquetTuned(t *testing.T, p, cfg string, batch, workers int, tune Tuning) ([]byte, []byte, error) {
	t.Helper()
	srcs, err := readers.Open(p, readers.Options{BatchSize: batch})
	if err != nil {
		return nil, nil, err
	}
	defer srcs[0].Close()
	return outputsOf(t, srcs[0], cfg, workers, tune)
}

// Decoding the row groups of a Parquet file in parallel gives the same
// report.json and safe.csv as the sequential reader, byte for byte, on
// random files (several row groups, dictionary pages, nulls, NaNs,
// float64 and decimal values, holdings) with 1 to 4 workers, with and
// without power sums (whose floating-point sums depend on the partition
// of the records among the shards).
func TestParquetParallelMatchesSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	dir := t.TempDir()
	for iter := range 16 {
		typ := []arrow.DataType{arrow.PrimitiveTypes.Float64, &arrow.Decimal128Type{Precision: 18, Scale: 2}}[iter%2]
		p := filepath.Join(dir, fmt.Sprintf("m%d.parquet", iter))
		writeRandomMicroParquet(t, p, r, 2000+r.IntN(6000), typ, int64(300+r.IntN(1500)), -1)
		cfg := "microdata: {dims: [region, sector], value: v"
		if iter%3 != 0 {
			cfg += ", holding: h"
		}
		cfg += "}\n"
		if iter%4 < 2 {
			cfg += "publish: [count, total, mean, sd, moments: {order: 3}]\n"
		}
		cfg += "suppression: {secondary: false, audit: false}\n"
		batch := []int{64, 500, 4096}[r.IntN(3)]
		workers := 1 + iter%4
		rep0, safe0, err0 := auditParquet(t, p, cfg, batch, workers, false)
		rep1, safe1, err1 := auditParquet(t, p, cfg, batch, workers, true)
		if err0 != nil || err1 != nil {
			t.Fatalf("iteration %d: sequential %v, parallel %v", iter, err0, err1)
		}
		if !bytes.Equal(rep0, rep1) || !bytes.Equal(safe0, safe1) {
			t.Fatalf("iteration %d (%s, batch %d, %d workers): parallel decoding gives other outputs\n%s", iter, typ, batch, workers, firstDiff(rep0, rep1))
		}
	}
}

// An input error in a Parquet file names the same file, row and column
// whether its row groups are decoded in parallel or not.
func TestParquetParallelErrorsMatchSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 5))
	dir := t.TempDir()
	for iter := range 12 {
		rows := 3000 + r.IntN(3000)
		bad := r.IntN(rows)
		p := filepath.Join(dir, fmt.Sprintf("bad%d.parquet", iter))
		writeRandomMicroParquet(t, p, r, rows, nil, int64(200+r.IntN(800)), bad)
		cfg := "microdata: {dims: [region, sector], value: v, holding: h}\nsuppression: {secondary: false, audit: false}\n"
		batch := []int{50, 333, 4096}[r.IntN(3)]
		workers := 1 + iter%4
		_, _, err0 := auditParquet(t, p, cfg, batch, workers, false)
		_, _, err1 := auditParquet(t, p, cfg, batch, workers, true)
		var re *readers.Error
		if err0 == nil || !errors.As(err0, &re) || re.Row != bad+2 {
			t.Fatalf("iteration %d: sequential read gives %v, want an input error at row %d", iter, err0, bad+2)
		}
		if err1 == nil || err0.Error() != err1.Error() {
			t.Fatalf("iteration %d (batch %d, %d workers):\nsequential %v\nparallel   %v", iter, batch, workers, err0, err1)
		}
	}
}

// decodeSpy records the decoders the pipeline asks of the source under it.
type decodeSpy struct {
	readers.Source
	n int
}

func (s *decodeSpy) Unwrap() readers.Source { return s.Source }

func (s *decodeSpy) DecodeParallel(ctx context.Context, n int) {
	s.n = n
	s.Source.(readers.ParallelDecoder).DecodeParallel(ctx, n)
}

// The pipeline has a Parquet file's row groups decoded by as many
// goroutines as it has workers (not capped: issue 28).
func TestParquetDecodedInParallel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.parquet")
	writeRandomMicroParquet(t, p, rand.New(rand.NewPCG(1, 1)), 5000, arrow.PrimitiveTypes.Float64, 1000, -1)
	for _, workers := range []int{1, 2, 3, 5, 7, 16} {
		srcs, err := readers.Open(p, readers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		spy := &decodeSpy{Source: srcs[0]}
		if _, err := loadSource(context.Background(), spy, settings(t, "microdata: {dims: [region, sector], value: v}\n"), workers); err != nil {
			t.Fatal(err)
		}
		srcs[0].Close()
		if want := workers; want > 1 && spy.n != want {
			t.Fatalf("%d workers: %d decoders, want %d", workers, spy.n, want)
		}
	}
}

// writeHierParquet writes rows random records with a district within a
// province within a region (parent columns), beside columns no audit
// reads (id, note), in row groups of rowGroup rows.
func writeHierParquet(t *testing.T, p string, r *rand.Rand, rows int, rowGroup int64) {
	t.Helper()
	names := []string{"id", "district", "province", "region", "sector", "enterprise", "turnover", "note"}
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	fields[0].Type = arrow.PrimitiveTypes.Int64
	fields[6].Type = arrow.PrimitiveTypes.Float64
	schema := arrow.NewSchema(fields, nil)
	sink := parquettest.Create(t, p, schema, rowGroup)
	b := sink.B
	str := func(i int, s string) { b.Field(i).(*array.StringBuilder).Append(s) }
	for i := range rows {
		d := r.IntN(12)
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		str(1, fmt.Sprintf("D%d", d))
		str(2, fmt.Sprintf("P%d", d/3))
		str(3, fmt.Sprintf("G%d", d/6))
		str(4, []string{"A", "B", "C"}[r.IntN(3)])
		str(5, fmt.Sprintf("E%d", r.IntN(rows/4+1)))
		b.Field(6).(*array.Float64Builder).Append(float64(int64(math.Exp(5+2*r.NormFloat64())*100)) / 100)
		str(7, fmt.Sprintf("note %d", r.IntN(1000)))
	}
	sink.Close()
}

// Leaving unread the columns of a Parquet file that the microdata audit
// does not read gives the same report.json and safe.csv, byte for byte,
// as reading them all, for every column the builder reads: dimensions,
// the value, holdings, parent columns of a hierarchy, a value that is
// also a dimension, a frequency table.
func TestParquetSkippedColumnsMatchAllColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 6))
	p := filepath.Join(t.TempDir(), "h.parquet")
	writeHierParquet(t, p, r, 6000, 700)
	const tail = "suppression: {secondary: false, audit: false}\n"
	for k, cfg := range []string{
		"microdata: {dims: [district, sector], value: turnover}\npublish: [count, total, mean, sd, moments: {order: 3}]\n",
		"microdata: {dims: [district, sector], value: turnover, holding: enterprise}\n",
		"microdata: {dims: [district, sector], value: turnover, holding: enterprise, parents: {district: province, province: region}}\n",
		"microdata: {dims: [sector, turnover], value: turnover}\n",
		"microdata: {dims: [region, sector]}\n",
	} {
		workers := 1 + k%4
		want, wantSafe, err0 := auditSkipping(t, p, cfg+tail, workers, false)
		got, gotSafe, err1 := auditSkipping(t, p, cfg+tail, workers, true)
		if err0 != nil || err1 != nil {
			t.Fatalf("config %d: all columns %v, skipping %v", k, err0, err1)
		}
		if !bytes.Equal(got, want) || !bytes.Equal(gotSafe, wantSafe) {
			t.Fatalf("config %d (%d workers): skipping unread columns gives other outputs\n%s", k, workers, firstDiff(want, got))
		}
	}
}

func auditSkipping(t *testing.T, p, cfg string, workers int, skip bool) ([]byte, []byte, error) {
	return auditParquetTuned(t, p, cfg, 512, workers, Tuning{AllColumns: !skip})
}

// The columns the audit does not read are not read at all: a file whose
// id column chunks are destroyed audits as the intact file does when
// the id is not among the audited columns, and is refused naming the
// column when it is (the column reader's error, exit 3).
func TestParquetUnreadColumnNotDecoded(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 7))
	dir := t.TempDir()
	p := filepath.Join(dir, "h.parquet")
	writeHierParquet(t, p, r, 3000, 1000)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	if md.NumRowGroups() < 3 {
		t.Fatalf("%d row groups", md.NumRowGroups())
	}
	for g := range md.NumRowGroups() {
		cc, err := md.RowGroup(g).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		for i := start; i < start+cc.TotalCompressedSize(); i++ {
			data[i] = 0xff
		}
	}
	bad := filepath.Join(dir, "bad", "h.parquet") // the same table name
	if err := os.Mkdir(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "microdata: {dims: [district, sector], value: turnover}\nsuppression: {secondary: false, audit: false}\n"
	want, wantSafe, err := auditParquet(t, p, cfg, 512, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	got, gotSafe, err := auditParquet(t, bad, cfg, 512, 2, true)
	if err != nil {
		t.Fatalf("the damaged id column, which the audit does not read, was read: %v", err)
	}
	got = bytes.ReplaceAll(got, []byte(bad), []byte(p)) // the source's path
	if !bytes.Equal(got, want) || !bytes.Equal(gotSafe, wantSafe) {
		t.Fatalf("other outputs\n%s", firstDiff(want, got))
	}
	_, _, err = auditParquet(t, bad, "microdata: {dims: [district, id], value: turnover}\n", 512, 2, true)
	var re *readers.Error
	if !errors.As(err, &re) || re.File != bad || re.Column != "id" || !errors.Is(err, readers.ErrCorrupt) {
		t.Fatalf("the damaged id column as a dimension: %v, want a corrupt-file error naming the column id", err)
	}
}
