package readers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// typedRecord builds a record with every supported type, three rows, the
// second all null.
func typedRecord(t testing.TB) arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "dict", Type: dictType, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 20, Scale: 3}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "d32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	day := arrow.Date32FromTime(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC))
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"=cmd", "", "North"}, []bool{true, false, true})
	b.Field(1).(*array.LargeStringBuilder).AppendValues([]string{"x", "", "c"}, []bool{true, false, true})
	db := b.Field(2).(*array.BinaryDictionaryBuilder)
	db.AppendString("F")
	db.AppendNull()
	db.AppendString("F")
	b.Field(3).(*array.Int8Builder).AppendValues([]int8{-128, 0, 127}, []bool{true, false, true})
	b.Field(4).(*array.Int16Builder).AppendValues([]int16{-32768, 0, 7}, []bool{true, false, true})
	b.Field(5).(*array.Int32Builder).AppendValues([]int32{-5, 0, 2147483647}, []bool{true, false, true})
	b.Field(6).(*array.Int64Builder).AppendValues([]int64{-9223372036854775808, 0, 42}, []bool{true, false, true})
	b.Field(7).(*array.Uint8Builder).AppendValues([]uint8{255, 0, 1}, []bool{true, false, true})
	b.Field(8).(*array.Uint16Builder).AppendValues([]uint16{65535, 0, 1}, []bool{true, false, true})
	b.Field(9).(*array.Uint32Builder).AppendValues([]uint32{4294967295, 0, 1}, []bool{true, false, true})
	b.Field(10).(*array.Uint64Builder).AppendValues([]uint64{18446744073709551615, 0, 1}, []bool{true, false, true})
	b.Field(11).(*array.Float16Builder).AppendValues([]float16.Num{float16.New(1.5), {}, float16.New(-0.25)}, []bool{true, false, true})
	b.Field(12).(*array.Float32Builder).AppendValues([]float32{0.1, 0, 1e-8}, []bool{true, false, true})
	b.Field(13).(*array.Float64Builder).AppendValues([]float64{0.1 + 0.2, 0, 1e21}, []bool{true, false, true})
	b.Field(14).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(-1234567), {}, decimal128.FromI64(5)}, []bool{true, false, true})
	b.Field(15).(*array.BooleanBuilder).AppendValues([]bool{true, false, false}, []bool{true, false, true})
	b.Field(16).(*array.Date32Builder).AppendValues([]arrow.Date32{day, 0, day + 1}, []bool{true, false, true})
	return b.NewRecordBatch()
}

var typedWant = [][]string{
	{"=cmd", "x", "F", "-128", "-32768", "-5", "-9223372036854775808", "255", "65535", "4294967295", "18446744073709551615", "1.5", "0.1", "0.3", "-1234.567", "true", "2024-03-01"},
	{"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""},
	{"North", "c", "F", "127", "7", "2147483647", "42", "1", "1", "1", "1", "-0.25", "0.00000001", "1000000000000000000000", "0.005", "false", "2024-03-02"},
}

func writeArrowFile(t testing.TB, path string, recs ...arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(recs[0].Schema()))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeArrowStream(t testing.TB, path string, recs ...arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := ipc.NewWriter(f, ipc.WithSchema(recs[0].Schema()))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeParquetFile(t testing.TB, path string, rowGroup int64, recs ...arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true), parquet.WithMaxRowGroupLength(rowGroup))
	w, err := pqarrow.NewFileWriter(recs[0].Schema(), f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestArrowParquetTypes(t *testing.T) {
	rec := typedRecord(t)
	defer rec.Release()
	dir := t.TempDir()
	writeArrowFile(t, filepath.Join(dir, "typed.arrow"), rec, rec)
	writeArrowStream(t, filepath.Join(dir, "typed.arrows"), rec, rec)
	writeParquetFile(t, filepath.Join(dir, "typed.parquet"), 4, rec, rec)
	header := []string{"s", "ls", "dict", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "dec", "b", "d32"}
	want := append(append([][]string{}, typedWant...), typedWant...)
	for _, name := range []string{"typed.arrow", "typed.arrows", "typed.parquet"} {
		t.Run(name, func(t *testing.T) {
			srcs, err := Open(filepath.Join(dir, name), Options{BatchSize: 4})
			if err != nil {
				t.Fatal(err)
			}
			src := srcs[0]
			defer src.Close()
			if src.Name() != "typed" || !reflect.DeepEqual(src.Header(), header) {
				t.Errorf("name %q header %q", src.Name(), src.Header())
			}
			var rows [][]string
			var lines []int
			for {
				b, err := src.Next()
				if err != nil {
					if err.Error() != "EOF" {
						t.Fatal(err)
					}
					break
				}
				if len(b.Rows) > 4 {
					t.Errorf("batch of %d rows", len(b.Rows))
				}
				rows = append(rows, b.Rows...)
				lines = append(lines, b.Lines...)
			}
			if !reflect.DeepEqual(rows, want) {
				for i := range max(len(rows), len(want)) {
					if i >= len(rows) || i >= len(want) || !reflect.DeepEqual(rows[i], want[i]) {
						t.Errorf("row %d\n got %q\nwant %q", i, get(rows, i), get(want, i))
					}
				}
			}
			if !reflect.DeepEqual(lines, []int{2, 3, 4, 5, 6, 7}) {
				t.Errorf("lines %v", lines)
			}
		})
	}
}

func get(rows [][]string, i int) []string {
	if i < len(rows) {
		return rows[i]
	}
	return nil
}

func TestArrowCorrupt(t *testing.T) {
	rec := typedRecord(t)
	defer rec.Release()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.arrow")
	writeArrowFile(t, good, rec)
	data, _ := os.ReadFile(good)
	pq := filepath.Join(dir, "good.parquet")
	writeParquetFile(t, pq, 10, rec)
	pdata, _ := os.ReadFile(pq)
	cases := map[string][]byte{
		"empty.arrow":     nil,
		"junk.arrow":      []byte("ARROW1\x00\x00garbage garbage garbage ARROW1"),
		"cut.arrow":       data[:len(data)/2],
		"flipped.arrow":   flip(data),
		"junk.arrows":     []byte("\xff\xff\xff\xff\x10\x00\x00\x00garbage"),
		"cut.arrows":      data[8 : len(data)/2],
		"junk.parquet":    []byte("PAR1 garbage PAR1"),
		"cut.parquet":     pdata[:len(pdata)/2],
		"flipped.parquet": flip(pdata),
	}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		err := readFile(p)
		if err == nil {
			if strings.HasPrefix(name, "flipped") {
				continue // a flipped byte may land in a value
			}
			t.Errorf("%s: no error", name)
			continue
		}
		var re *Error
		if !errors.As(err, &re) || re.File != p || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTooLarge)) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func flip(b []byte) []byte {
	c := bytes.Clone(b)
	for i := 16; i < len(c); i += 37 {
		c[i] ^= 0x5a
	}
	return c
}

// readFile opens and reads every table of a file.
func readFile(p string) error {
	srcs, err := Open(p, Options{})
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range srcs {
			s.Close()
		}
	}()
	for _, s := range srcs {
		for {
			_, err := s.Next()
			if err != nil {
				if err.Error() == "EOF" {
					break
				}
				return err
			}
		}
	}
	return nil
}
