package readers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"
)

// FuzzXLSX checks that no workbook, however broken, makes the reader panic
// or fail without a position.
func FuzzXLSX(f *testing.F) {
	if b, err := os.ReadFile(businessesXLSX); err == nil {
		f.Add(b)
	}
	var buf bytes.Buffer
	x := excelize.NewFile()
	x.SetSheetRow("Sheet1", "A1", &[]any{"a", "b"})
	x.SetSheetRow("Sheet1", "A2", &[]any{"x", 1.5})
	x.MergeCell("Sheet1", "A3", "B4")
	x.Write(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{Sheet: "*", BatchSize: 2, MaxXLSXUnzipSize: 32 << 20}, {Range: "A1:C9", MaxXLSXUnzipSize: 32 << 20}} {
			srcs, err := NewXLSX("fuzz.xlsx", data, opt)
			if err != nil {
				checkErr(t, err)
				continue
			}
			for _, s := range srcs {
				if _, err := drainText(s); err != nil {
					checkErr(t, err)
				}
			}
		}
	})
}

// FuzzArrow feeds the same bytes to the Arrow IPC file, Arrow IPC stream
// and Parquet readers: none may panic or fail without a position.
func FuzzArrow(f *testing.F) {
	rec := typedRecord(f)
	defer rec.Release()
	dir := f.TempDir()
	for _, name := range []string{"a.arrow", "a.arrows", "a.parquet"} {
		p := filepath.Join(dir, name)
		switch filepath.Ext(name) {
		case ".arrow":
			writeArrowFile(f, p, rec)
		case ".arrows":
			writeArrowStream(f, p, rec)
		default:
			writeParquetFile(f, p, 2, rec)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	opt := Options{BatchSize: 2, MaxArrowMemory: 64 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		if src, err := NewArrowFile("fuzz.arrow", data, opt); err != nil {
			checkErr(t, err)
		} else if _, err := drainText(src); err != nil {
			checkErr(t, err)
		}
		if src, err := NewArrowStream("fuzz.arrows", bytes.NewReader(data), opt); err != nil {
			checkErr(t, err)
		} else if _, err := drainText(src); err != nil {
			checkErr(t, err)
		}
		if src, err := NewParquet("fuzz.parquet", data, opt); err != nil {
			checkErr(t, err)
		} else if _, err := drainText(src); err != nil {
			checkErr(t, err)
		}
	})
}
