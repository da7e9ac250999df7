package readers

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// specialFloats are the values where a decimal form is easy to get wrong.
var specialFloats = []float64{0, math.Copysign(0, -1), 0.1, 0.2, 0.1 + 0.2, 1e21, 1e22, -1e21, 123456789012345680,
	1e-5, 1e-18, 1e-19, 5e-324, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat32, math.MaxFloat32,
	1.5, -2.25, 9007199254740993, 12345678.9, math.NaN(), math.Inf(1), math.Inf(-1), 100, 1e18, 9.999999999999999e17}

// randFloat draws special values, decimals with few places, large and
// tiny magnitudes and arbitrary bit patterns.
func randFloat(rng *rand.Rand) float64 {
	switch rng.IntN(6) {
	case 5:
		return float64(rng.Int64N(2e15)-1e15) / float64(decimal.Pow10(rng.IntN(10)))
	case 0:
		return specialFloats[rng.IntN(len(specialFloats))]
	case 1:
		return float64(rng.Int64N(2_000_000_000)-1_000_000_000) / 100
	case 2:
		return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(60)-30))
	case 3:
		return math.Float64frombits(rng.Uint64())
	}
	return float64(rng.IntN(1000))
}

func randInt64(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0:
		return []int64{0, -1, 1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, 999999999999999999}[rng.IntN(7)]
	case 1:
		return int64(rng.Uint64())
	}
	return rng.Int64N(20001) - 10000
}

// randomTypedRecords builds batches of every numeric type (nulls,
// negatives, extremes, decimals with scale) beside label columns.
func randomTypedRecords(t testing.TB, rng *rand.Rand, batches, rows int) []arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dict", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "large", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "req64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d0", Type: &arrow.Decimal128Type{Precision: 38, Scale: 0}, Nullable: true},
		{Name: "d2", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "d9", Type: &arrow.Decimal128Type{Precision: 30, Scale: 9}, Nullable: true},
		{Name: "d20", Type: &arrow.Decimal128Type{Precision: 38, Scale: 20}, Nullable: true},
		{Name: "d256", Type: &arrow.Decimal256Type{Precision: 60, Scale: 4}, Nullable: true},
		{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	labels := []string{"North", "South", "", "=cmd", "Région", "a,b"}
	var recs []arrow.RecordBatch
	for range batches {
		for range rows {
			null := func() bool { return rng.IntN(8) == 0 }
			for f := range schema.NumFields() {
				fb := b.Field(f)
				if f != 7 && null() {
					fb.AppendNull()
					continue
				}
				switch fb := fb.(type) {
				case *array.StringBuilder:
					fb.Append(labels[rng.IntN(len(labels))])
				case *array.BinaryDictionaryBuilder:
					fb.AppendString(labels[rng.IntN(len(labels))])
				case *array.LargeStringBuilder:
					fb.Append(fmt.Sprintf("L%d", rng.IntN(50)))
				case *array.Int8Builder:
					fb.Append(int8(randInt64(rng)))
				case *array.Int16Builder:
					fb.Append(int16(randInt64(rng)))
				case *array.Int32Builder:
					fb.Append(int32(randInt64(rng)))
				case *array.Int64Builder:
					fb.Append(randInt64(rng))
				case *array.Uint8Builder:
					fb.Append(uint8(randInt64(rng)))
				case *array.Uint16Builder:
					fb.Append(uint16(randInt64(rng)))
				case *array.Uint32Builder:
					fb.Append(uint32(randInt64(rng)))
				case *array.Uint64Builder:
					fb.Append(uint64(randInt64(rng)))
				case *array.Float16Builder:
					fb.Append(float16.New(float32(randFloat(rng))))
				case *array.Float32Builder:
					fb.Append(float32(randFloat(rng)))
				case *array.Float64Builder:
					fb.Append(randFloat(rng))
				case *array.Decimal128Builder:
					v := decimal128.FromI64(randInt64(rng))
					if prec := schema.Field(f).Type.(*arrow.Decimal128Type).Precision; prec <= 18 {
						v = decimal128.FromI64(randInt64(rng) % decimal.Pow10(int(prec))) // within the precision
					} else if rng.IntN(4) == 0 { // beyond int64
						v = decimal128.FromBigInt(new(big.Int).Mul(big.NewInt(randInt64(rng)), big.NewInt(1000003)))
					}
					fb.Append(v)
				case *array.Decimal256Builder:
					v := decimal256.FromI64(randInt64(rng))
					if rng.IntN(4) == 0 {
						v = decimal256.FromBigInt(new(big.Int).Mul(big.NewInt(randInt64(rng)), big.NewInt(math.MaxInt64)))
					}
					fb.Append(v)
				case *array.BooleanBuilder:
					fb.Append(rng.IntN(2) == 0)
				case *array.Date32Builder:
					fb.Append(arrow.Date32(rng.IntN(40000) - 10000))
				case *array.TimestampBuilder:
					fb.Append(arrow.Timestamp(rng.Int64N(4e15) - 1e15))
				default:
					t.Fatalf("no generator for %T", fb)
				}
			}
		}
		recs = append(recs, b.NewRecordBatch())
	}
	return recs
}

// textPath is what the pipeline makes of a field read as text: a null, a
// number, or the parse error.
func textPath(s string) string {
	if s == "" {
		return "null"
	}
	d, err := NumberFormat{}.Parse(s)
	if err != nil {
		return "error: " + err.Error()
	}
	return "number " + d.String()
}

// readAllTyped reads every batch of src, asking every numeric column as
// numbers when typed.
func readAllTyped(t *testing.T, src Source, typed bool) (rows [][]string, lines []int, nums [][]decimal.Dec, numeric []bool) {
	t.Helper()
	defer src.Close()
	numeric = make([]bool, len(src.Header()))
	if typed {
		tp, ok := src.(Typed)
		if !ok {
			t.Fatalf("%T is not Typed", src)
		}
		for c := range numeric {
			numeric[c] = tp.ReadNumbers(c)
		}
	}
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for r, row := range b.Rows {
			rows = append(rows, row)
			lines = append(lines, b.Lines[r])
			n := make([]decimal.Dec, len(row))
			for c := range row {
				if numeric[c] {
					n[c] = b.Numbers[c][r]
				} else if b.Numbers != nil && b.Numbers[c] != nil {
					t.Fatalf("column %d has numbers it was not asked for", c)
				}
			}
			nums = append(nums, n)
		}
	}
	return rows, lines, nums, numeric
}

// TestTypedColumnsMatchTextPath: the typed readers (Arrow IPC and Parquet
// without pqarrow, every numeric column asked as numbers) give every cell
// the same outcome as the old path (textOf on the arrays written, parsed
// as the pipeline parses text), on random tables of every supported type
// written in several record batches, as Parquet with several row groups
// and dictionary pages (by pqarrow, an independent writer). Read as text,
// the Parquet reader gives textOf's text exactly.
func TestTypedColumnsMatchTextPath(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 15))
			recs := randomTypedRecords(t, rng, 3, 1500)
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			var want [][]string // textOf on the arrays written
			for _, r := range recs {
				conv := make([]func(int) string, r.NumCols())
				for c := range conv {
					conv[c] = textOf(r.Column(c))
				}
				for i := range int(r.NumRows()) {
					row := make([]string, len(conv))
					for c := range conv {
						row[c] = conv[c](i)
					}
					want = append(want, row)
				}
			}
			dir := t.TempDir()
			pq := filepath.Join(dir, "t.parquet")
			writeParquetFile(t, pq, 700, recs...)
			ar := filepath.Join(dir, "t.arrow")
			writeArrowFile(t, ar, recs...)
			md := parquetMeta(t, pq)
			if md.rowGroups < 2 || !md.dictionary {
				t.Fatalf("the Parquet file has %d row groups, dictionary pages %v; the test needs several and some", md.rowGroups, md.dictionary)
			}
			for _, file := range []string{pq, ar} {
				open := func() Source {
					srcs, err := Open(file, Options{BatchSize: 333})
					if err != nil {
						t.Fatal(err)
					}
					return srcs[0]
				}
				text, _, _, _ := readAllTyped(t, open(), false)
				if strings.HasSuffix(file, ".parquet") {
					if len(text) != len(want) {
						t.Fatalf("%s: %d rows, want %d", file, len(text), len(want))
					}
					for r := range want {
						for c := range want[r] {
							if text[r][c] != want[r][c] {
								t.Fatalf("%s row %d column %d: text %q, want %q", file, r+2, c+1, text[r][c], want[r][c])
							}
						}
					}
				}
				rows, lines, nums, numeric := readAllTyped(t, open(), true)
				if len(rows) != len(want) {
					t.Fatalf("%s: %d rows, want %d", file, len(rows), len(want))
				}
				fast := 0
				for r := range want {
					if lines[r] != r+2 {
						t.Fatalf("%s: row %d reported as line %d", file, r, lines[r])
					}
					for c := range want[r] {
						got := rows[r][c]
						if got == NumberField {
							if !numeric[c] {
								t.Fatalf("%s row %d column %d: a number in a column not asked", file, r+2, c+1)
							}
							got, fast = "number "+nums[r][c].String(), fast+1
						} else {
							got = textPath(got)
						}
						if w := textPath(want[r][c]); got != w {
							t.Fatalf("%s row %d column %d: typed %s, text path %s (text %q)", file, r+2, c+1, got, w, want[r][c])
						}
					}
				}
				for c, on := range numeric {
					name := open().Header()[c]
					if isNumericName(name) != on {
						t.Errorf("%s column %s: numeric %v", file, name, on)
					}
				}
				if fast < len(want)*10 {
					t.Errorf("%s: only %d values took the typed path", file, fast)
				}
			}
		})
	}
}

func isNumericName(name string) bool {
	switch name {
	case "label", "dict", "large", "bool", "date", "ts":
		return false
	}
	return true
}

type pqMeta struct {
	rowGroups  int
	dictionary bool
}

func parquetMeta(t *testing.T, path string) pqMeta {
	srcs, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	pf := srcs[0].(*parquetSource).pf
	m := pqMeta{rowGroups: pf.NumRowGroups()}
	for i := range pf.NumRowGroups() {
		for j := range pf.RowGroup(i).NumColumns() {
			cc, err := pf.MetaData().RowGroup(i).ColumnChunk(j)
			if err != nil {
				t.Fatal(err)
			}
			m.dictionary = m.dictionary || cc.HasDictionaryPage()
		}
	}
	return m
}

// TestFloatDecIsShortestDecimal checks floatDec against parsing
// strconv.FormatFloat's shortest text, on special values and random bit
// patterns of both widths.
func TestFloatDecIsShortestDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 15))
	check := func(v float64, bits int) {
		d, ok := floatDec(v, bits)
		want, err := decimal.Parse(strconv.FormatFloat(v, 'f', -1, bits))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if ok {
				t.Fatalf("floatDec(%v) = %s, want no number", v, d)
			}
			return
		}
		if !ok {
			if err == nil && -12 < math.Log10(math.Abs(v)) && math.Log10(math.Abs(v)) < 17 {
				t.Fatalf("floatDec(%v, %d) took the slow path for an ordinary value", v, bits)
			}
			return // the text path decides
		}
		if err != nil {
			t.Fatalf("floatDec(%v, %d) = %s, the text path fails: %v", v, bits, d, err)
		}
		if d.Cmp(want) != 0 || d.String() != want.String() || d.Scale() != want.Scale() {
			t.Fatalf("floatDec(%v, %d) = %s, want %s", v, bits, d, want)
		}
	}
	for _, v := range specialFloats {
		check(v, 64)
		check(float64(float32(v)), 32)
	}
	for range 200000 {
		v := randFloat(rng)
		check(v, 64)
		check(float64(float32(v)), 32)
		check(float64(math.Float32frombits(rng.Uint32())), 32)
	}
}

// TestTypedInfinityIsBadInput: an infinite value keeps its text, which the
// pipeline reports as not a number, naming the row and column.
func TestTypedInfinityIsBadInput(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1.5, math.NaN(), math.Inf(-1)}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	p := filepath.Join(t.TempDir(), "inf.parquet")
	writeParquetFile(t, p, 10, rec)
	srcs, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, _, nums, numeric := readAllTyped(t, srcs[0], true)
	if !numeric[0] || rows[0][0] != NumberField || nums[0][0].String() != "1.5" || rows[1][0] != "" || rows[2][0] != "-Inf" {
		t.Fatalf("rows %q numbers %v", rows, nums)
	}
}

// TestBinaryHasNoFlight: the binary does not link Arrow Flight, gRPC or
// pqarrow (which brings them).
func TestBinaryHasNoFlight(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/sdcaudit/sdcaudit/cmd/sdcaudit").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "arrow/flight") || strings.HasPrefix(p, "google.golang.org/grpc") || strings.HasSuffix(p, "parquet/pqarrow") {
			t.Errorf("the binary links %s", p)
		}
	}
}
