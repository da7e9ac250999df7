package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// column is one column of a generated table: its cells as text ("" null)
// and the Arrow type it is written with.
type column struct {
	name  string
	typ   arrow.DataType
	cells []string
}

// writeFormats writes the same table as CSV, XLSX (numbers as number
// cells), Arrow IPC file, Arrow IPC stream and Parquet, and returns the paths.
func writeFormats(t testing.TB, dir, base string, cols []column) []string {
	t.Helper()
	n := len(cols[0].cells)
	var paths []string
	// CSV
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.name)
	}
	b.WriteByte('\n')
	for r := 0; r < n; r++ {
		for i, c := range cols {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(c.cells[r])
		}
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, base+".csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, p)
	// XLSX through the stream writer
	f := excelize.NewFile()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	row := make([]any, len(cols))
	for i, c := range cols {
		row[i] = c.name
	}
	sw.SetRow("A1", row)
	for r := 0; r < n; r++ {
		for i, c := range cols {
			v := c.cells[r]
			row[i] = v
			if c.typ.ID() != arrow.STRING && c.typ.ID() != arrow.DICTIONARY && v != "" {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				row[i] = x
			}
		}
		cell, _ := excelize.CoordinatesToCellName(1, r+2)
		if err := sw.SetRow(cell, row); err != nil {
			t.Fatal(err)
		}
	}
	sw.Flush()
	p = filepath.Join(dir, base+".xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, p)
	// Arrow and Parquet, in record batches of 1000 rows
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.RecordBatch
	for lo := 0; lo < n; lo += 1000 {
		hi := min(lo+1000, n)
		rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i, c := range cols {
			if db, ok := rb.Field(i).(*array.BinaryDictionaryBuilder); ok {
				// the same dictionary in every batch, as the IPC file format needs
				sb := array.NewStringBuilder(memory.DefaultAllocator)
				seen := map[string]bool{}
				for _, v := range c.cells {
					if v != "" && !seen[v] {
						seen[v] = true
						sb.Append(v)
					}
				}
				dict := sb.NewStringArray()
				if err := db.InsertStringDictValues(dict); err != nil {
					t.Fatal(err)
				}
				dict.Release()
				sb.Release()
			}
			for r := lo; r < hi; r++ {
				appendText(t, rb.Field(i), c.cells[r])
			}
		}
		recs = append(recs, rb.NewRecordBatch())
		rb.Release()
	}
	write := func(name string, fn func(f *os.File) error) {
		p := filepath.Join(dir, name)
		fh, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(fh); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		paths = append(paths, p)
	}
	write(base+".arrow", func(fh *os.File) error {
		w, err := ipc.NewFileWriter(fh, ipc.WithSchema(schema))
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Close()
	})
	write(base+".arrows", func(fh *os.File) error {
		w := ipc.NewWriter(fh, ipc.WithSchema(schema))
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Close()
	})
	write(base+".parquet", func(fh *os.File) error {
		w, err := pqarrow.NewFileWriter(schema, fh, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(700)), pqarrow.DefaultWriterProps())
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Close()
	})
	for _, r := range recs {
		r.Release()
	}
	return paths
}

func appendText(t testing.TB, b array.Builder, v string) {
	if v == "" {
		b.AppendNull()
		return
	}
	var err error
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(v)
	case *array.BinaryDictionaryBuilder:
		err = b.AppendString(v)
	case *array.Int64Builder:
		var x int64
		x, err = strconv.ParseInt(v, 10, 64)
		b.Append(x)
	case *array.Int32Builder:
		var x int64
		x, err = strconv.ParseInt(v, 10, 32)
		b.Append(int32(x))
	case *array.Float64Builder:
		var x float64
		x, err = strconv.ParseFloat(v, 64)
		b.Append(x)
	case *array.Decimal128Builder:
		var x decimal128.Num
		x, err = decimal128.FromString(v, b.Type().(*arrow.Decimal128Type).Precision, b.Type().(*arrow.Decimal128Type).Scale)
		b.Append(x)
	default:
		t.Fatalf("no builder for %T", b)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// reportOf audits a file and returns its report with the source blanked.
func reportOf(t testing.TB, path string, s *configs.Settings) []byte {
	t.Helper()
	srcs, err := readers.Open(path, readers.Options{BatchSize: 333})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	tab, err := AuditSource(context.Background(), srcs[0], s, 2)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tab.Source = ""
	tab.Input = nil // how a text file was decoded: CSV only
	var b bytes.Buffer
	if err := (writers.Report{}).Write(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFormatsRoundTrip writes the same microdata and the same aggregate
// table as CSV, XLSX, Arrow (file and stream) and Parquet: every format
// must give the same report.
func TestFormatsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(6, 6))
	const n = 2500
	region := column{name: "region", typ: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}}
	sex := column{name: "sex", typ: arrow.BinaryTypes.String}
	val := column{name: "val", typ: &arrow.Decimal128Type{Precision: 12, Scale: 2}}
	wt := column{name: "weight", typ: arrow.PrimitiveTypes.Float64}
	for i := 0; i < n; i++ {
		region.cells = append(region.cells, []string{"North", "South", "East", "West", "Islands"}[rng.IntN(5)])
		sex.cells = append(sex.cells, []string{"F", "M"}[rng.IntN(2)])
		v := ""
		if rng.IntN(50) > 0 {
			v = fmt.Sprintf("%d.%02d", rng.IntN(100000), rng.IntN(100))
			if rng.IntN(20) == 0 {
				v = fmt.Sprintf("%d", 1000000+rng.IntN(9000000)) // a dominant contributor
			}
		}
		val.cells = append(val.cells, v)
		wt.cells = append(wt.cells, strconv.FormatFloat(float64(rng.IntN(1000))/8, 'f', -1, 64))
	}
	micro := settings(t, "microdata: {dims: [region, sex], value: val}\npublish: [count, total, mean]\ndecimals: 2\n")
	paths := writeFormats(t, dir, "micro", []column{region, sex, val, wt})
	want := reportOf(t, paths[0], micro)
	if !bytes.Contains(want, []byte(`"primary"`)) {
		t.Fatalf("the test table has no primary cell:\n%s", want)
	}
	for _, p := range paths[1:] {
		if got := reportOf(t, p, micro); !bytes.Equal(got, want) {
			t.Errorf("%s: the report differs from CSV's:\n%s", filepath.Base(p), firstDiff(want, got))
		}
	}

	// aggregate: counts as int32, totals as float64, top contributions as
	// decimals, with nulls
	dims := []column{{name: "region", typ: arrow.BinaryTypes.String}, {name: "sex", typ: arrow.BinaryTypes.String}}
	cnt := column{name: "n", typ: arrow.PrimitiveTypes.Int32}
	tot := column{name: "total", typ: arrow.PrimitiveTypes.Float64}
	top1 := column{name: "top1", typ: &arrow.Decimal128Type{Precision: 15, Scale: 1}}
	top2 := column{name: "top2", typ: &arrow.Decimal128Type{Precision: 15, Scale: 1}}
	for _, r := range []string{"A", "B", "C", "D"} {
		for _, s := range []string{"1", "2", "3"} {
			dims[0].cells = append(dims[0].cells, r)
			dims[1].cells = append(dims[1].cells, s)
			k := 1 + rng.IntN(30)
			x1 := 100 + rng.IntN(5000)
			x2 := rng.IntN(x1)
			cnt.cells = append(cnt.cells, strconv.Itoa(k))
			tot.cells = append(tot.cells, strconv.FormatFloat(float64(x1+x2+k*10)+0.5, 'f', -1, 64))
			top1.cells = append(top1.cells, strconv.Itoa(x1)+".0")
			if k > 1 && rng.IntN(4) > 0 {
				top2.cells = append(top2.cells, strconv.Itoa(x2)+".5")
			} else {
				top2.cells = append(top2.cells, "")
			}
		}
	}
	agg := settings(t, "columns: {dims: [region, sex], count: n, total: total, top: [top1, top2]}\n")
	paths = writeFormats(t, dir, "agg", append(dims, cnt, tot, top1, top2))
	want = reportOf(t, paths[0], agg)
	for _, p := range paths[1:] {
		if got := reportOf(t, p, agg); !bytes.Equal(got, want) {
			t.Errorf("%s: the report differs from CSV's:\n%s", filepath.Base(p), firstDiff(want, got))
		}
	}
}

const businessesXLSX = "../testdata/xlsx/businesses.xlsx"

// TestBusinessWorkbook audits the realistic workbook (title rows, merged
// two-row header, thousands separators, "c" markers, footnotes) and checks
// the annotated workbook written for it: fills and comments on the flagged
// cells.
func TestBusinessWorkbook(t *testing.T) {
	s := settings(t, `columns:
  dims: [Region, Sex]
  count: Businesses Number
  total: "Turnover (EUR 1,000) Total"
  top: ["Turnover (EUR 1,000) Largest", "Turnover (EUR 1,000) Second largest"]
`)
	srcs, err := readers.Open(businessesXLSX, readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	tab, err := AuditSource(context.Background(), srcs[0], s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Cells) != 6 {
		t.Fatalf("%d cells", len(tab.Cells))
	}
	if got := tab.Cells[3].Stats.Of("total"); got.Text != "1,234,567.5" || got.Value.String() != "1234567.5" {
		t.Errorf("thousands separators: %+v", got)
	}
	if got := tab.Cells[1].Stats.Of("total"); !got.Marker {
		t.Errorf("the c marker is not a marker: %+v", got)
	}
	flagged := map[int]audit.Status{}
	for i, c := range tab.Cells {
		flagged[i+2] = c.Status
	}
	if tab.Cells[1].Status == audit.StatusOK {
		t.Errorf("North/M (2 businesses) is ok")
	}
	var buf bytes.Buffer
	if err := (writers.Annotated{}).Write(&buf, tab); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	comments, _ := f.GetComments(writers.SheetCells)
	commented := map[string]string{}
	for _, c := range comments {
		for _, p := range c.Paragraph {
			commented[c.Cell] += p.Text
		}
	}
	width := len(tab.Dims) + len(tab.Columns) + 2
	statusCol, _ := excelize.ColumnNumberToName(width - 1)
	for r, st := range flagged {
		for c := 1; c <= width; c++ {
			ref, _ := excelize.CoordinatesToCellName(c, r)
			id, _ := f.GetCellStyle(writers.SheetCells, ref)
			style, err := f.GetStyle(id)
			if err != nil {
				t.Fatal(err)
			}
			fill := ""
			if len(style.Fill.Color) > 0 {
				fill = strings.ToUpper(strings.TrimPrefix(style.Fill.Color[0], "#"))
			}
			if want := writers.Palette[st]; st != audit.StatusOK && fill != want || st == audit.StatusOK && fill != "" {
				t.Errorf("%s (%s): fill %q", ref, st, fill)
			}
		}
		ref := statusCol + strconv.Itoa(r)
		text, has := commented[ref]
		if (st != audit.StatusOK) != has {
			t.Errorf("%s (%s): comment %q", ref, st, text)
		}
		if has && !strings.Contains(text, " fails: ") && !strings.Contains(text, "Secondary suppression: protects") {
			t.Errorf("%s: comment without a failing rule: %q", ref, text)
		}
	}
	v, _ := f.GetCellValue(writers.SheetCells, statusCol+"3")
	if v != string(tab.Cells[1].Status) {
		t.Errorf("status cell %q", v)
	}
}

// TestRunOutputs checks that the output switches write their files.
func TestRunOutputs(t *testing.T) {
	dir := t.TempDir()
	s := settings(t, `columns:
  dims: [Region, Sex]
  count: Businesses Number
  total: "Turnover (EUR 1,000) Total"
output: {safe_xlsx: true, annotated: true, findings: true, html: true}
`)
	res, err := Run(context.Background(), []Job{{Path: businessesXLSX, Settings: s}}, Options{Out: dir, Workers: 2, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 1 {
		t.Fatal(len(res.Tables))
	}
	for _, f := range []string{"businesses.safe.xlsx", "businesses.annotated.xlsx", "businesses.findings.parquet", "businesses.findings.arrow", "summary.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	first := map[string][]byte{}
	for _, f := range []string{"businesses.safe.xlsx", "businesses.annotated.xlsx", "businesses.findings.parquet", "businesses.findings.arrow", "summary.html"} {
		first[f], _ = os.ReadFile(filepath.Join(dir, f))
	}
	if _, err := Run(context.Background(), []Job{{Path: businessesXLSX, Settings: s}}, Options{Out: dir, Workers: 2, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	for f, b := range first {
		again, _ := os.ReadFile(filepath.Join(dir, f))
		if !bytes.Equal(b, again) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}
