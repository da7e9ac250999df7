package readers

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// viewRecord is a record with a string view column (variadic buffers) and
// a null column.
func viewRecord(t testing.TB) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "sv", Type: arrow.BinaryTypes.StringView, Nullable: true},
		{Name: "n", Type: arrow.Null, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	b.Field(0).(*array.StringViewBuilder).AppendValues([]string{"a string longer than twelve bytes", "x", "another long string value here"}, nil)
	b.Field(1).(*array.NullBuilder).AppendNulls(3)
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	return b.NewRecordBatch()
}

// ipcFile returns an Arrow IPC file (stream false) or stream of rec.
func ipcBytes(t testing.TB, rec arrow.RecordBatch, stream bool) []byte {
	p := filepath.Join(t.TempDir(), "x")
	if stream {
		writeArrowStream(t, p, rec)
	} else {
		writeArrowFile(t, p, rec)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ipcMessages returns the offsets of the flatbuffer headers of the messages
// of an IPC stream starting at off.
func ipcMessages(t testing.TB, b []byte, off int) []int {
	var out []int
	for off+8 <= len(b) {
		if binary.LittleEndian.Uint32(b[off:]) != 0xFFFFFFFF {
			t.Fatalf("no continuation marker at %d", off)
		}
		l := int(binary.LittleEndian.Uint32(b[off+4:]))
		if l == 0 {
			break
		}
		m, err := fbRoot(b[off+8 : off+8+l])
		if err != nil {
			t.Fatal(err)
		}
		body, _ := m.i64(3, 0)
		out = append(out, off+8)
		off += 8 + l + int(body)
	}
	return out
}

// patchVectorLen sets the length of vector slot of table tbl (inside b at
// base) to n.
func patchVectorLen(t testing.TB, b []byte, base int, tbl fbTable, slot int, n uint32) {
	start, _, err := tbl.vector(slot, 1)
	if err != nil || start == 0 {
		t.Fatalf("no vector in slot %d: %v", slot, err)
	}
	binary.LittleEndian.PutUint32(b[base+start-4:], n)
}

// messageHeader returns the header table of the message at off.
func messageHeader(t testing.TB, b []byte, off int) fbTable {
	l := int(binary.LittleEndian.Uint32(b[off-4:]))
	m, err := fbRoot(b[off : off+l])
	if err != nil {
		t.Fatal(err)
	}
	h, ok, err := m.table(2)
	if !ok || err != nil {
		t.Fatalf("no header: %v", err)
	}
	return h
}

// craftedIPC are IPC files and streams whose headers claim far more than
// they hold. Before the guard, arrow-go sized slices from these claims:
// the process died with "fatal error: runtime: out of memory" (huge field
// or key-value counts, variadic buffer counts) or read without end (row
// counts).
func craftedIPC(t testing.TB) map[string][]byte {
	rec := viewRecord(t)
	defer rec.Release()
	out := map[string][]byte{}

	// the file footer's schema claims 2^31-1 fields
	f := ipcBytes(t, rec, false)
	flen := int(binary.LittleEndian.Uint32(f[len(f)-10:]))
	fstart := len(f) - 10 - flen
	ft, err := fbRoot(f[fstart : len(f)-10])
	if err != nil {
		t.Fatal(err)
	}
	schema, _, _ := ft.table(1)
	c := bytes.Clone(f)
	patchVectorLen(t, c, fstart, schema, 1, 0x7FFFFFFF)
	out["footer-fields.arrow"] = c

	// a stream's schema message claims 2^31-1 fields
	s := ipcBytes(t, rec, true)
	msgs := ipcMessages(t, s, 0)
	c = bytes.Clone(s)
	patchVectorLen(t, c, msgs[0], messageHeader(t, s, msgs[0]), 1, 0x7FFFFFFF)
	out["schema-fields.arrows"] = c

	// a record batch claims 2^40 variadic buffers for its string view
	rb := messageHeader(t, s, msgs[1])
	start, n, err := rb.vector(4, 8)
	if err != nil || n == 0 {
		t.Fatalf("no variadic counts: %v", err)
	}
	c = bytes.Clone(s)
	binary.LittleEndian.PutUint64(c[msgs[1]+start:], 1<<40)
	out["variadic.arrows"] = c

	// a record batch and its null column claim 2^40 rows
	c = bytes.Clone(s)
	p, _ := rb.field(0, 8)
	binary.LittleEndian.PutUint64(c[msgs[1]+p:], 1<<40)
	start, _, _ = rb.vector(1, 16)
	for i := 0; i < 3; i++ {
		binary.LittleEndian.PutUint64(c[msgs[1]+start+16*i:], 1<<40)
	}
	out["rows.arrows"] = c
	return out
}

// TestIPCCraftedHeaders: an IPC file or stream whose headers claim more
// than it holds is refused with a positioned ErrCorrupt or ErrTooLarge,
// never a crash, by the file and the stream reader alike.
func TestIPCCraftedHeaders(t *testing.T) {
	for name, b := range craftedIPC(t) {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			err := readFile(p)
			var re *Error
			if !errors.As(err, &re) || re.File != p || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("want a corrupt-file error naming %s, got %v", p, err)
			}
			t.Log(err)
			var src Source
			if filepath.Ext(name) == ".arrows" {
				src, err = NewArrowStream(name, bytes.NewReader(b), Options{})
			} else {
				src, err = NewArrowFile(name, b, Options{})
			}
			if err == nil {
				_, err = drainText(src)
			}
			if !errors.As(err, &re) || re.File != name {
				t.Fatalf("in memory: want an error naming %s, got %v", name, err)
			}
		})
	}
}

// TestIPCGuardPassesValid: the guard changes nothing for valid files and
// streams, whatever the read sizes.
func TestIPCGuardPassesValid(t *testing.T) {
	for _, rec := range []arrow.RecordBatch{viewRecord(t), typedRecord(t)} {
		defer rec.Release()
		for _, stream := range []bool{false, true} {
			b := ipcBytes(t, rec, stream)
			var src Source
			var err error
			if stream {
				src, err = NewArrowStream("x.arrows", bytes.NewReader(b), Options{BatchSize: 2})
			} else {
				src, err = NewArrowFile("x.arrow", b, Options{BatchSize: 2})
			}
			if err != nil {
				t.Fatal(err)
			}
			rows, err := drainText(src)
			if err != nil || len(rows) != 3 {
				t.Fatalf("stream %v: %d rows, %v", stream, len(rows), err)
			}
			// byte by byte through the guard gives the stream unchanged
			if stream {
				g := newIPCGuard(bytes.NewReader(b), int64(len(b)), 1<<30)
				var got bytes.Buffer
				one := make([]byte, 1)
				for {
					n, err := g.Read(one)
					got.Write(one[:n])
					if err != nil {
						break
					}
				}
				if !bytes.Equal(got.Bytes(), b) {
					t.Fatalf("the guard changed the stream: %d bytes of %d", got.Len(), len(b))
				}
			}
		}
	}
}

// TestParquetCorruptMessages: corrupt Parquet files (bytes that once made
// arrow-go dereference nil or size a slice from a negative or huge length)
// give a positioned ErrCorrupt or ErrTooLarge that says what is wrong in the
// file's terms, never the Go runtime's "nil pointer dereference".
func TestParquetCorruptMessages(t *testing.T) {
	rec := typedRecord(t)
	defer rec.Release()
	p := filepath.Join(t.TempDir(), "a.parquet")
	writeParquetFile(t, p, 2, rec)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range [][2]int{{10, 0}, {924, 0}, {1849, 1}, {2160, 1}, {2266, 0x7f}, {3250, 1}} {
		if m[0] >= len(data) {
			continue
		}
		c := bytes.Clone(data)
		c[m[0]] = byte(m[1])
		src, err := NewParquet("f.parquet", c, Options{BatchSize: 2})
		if err == nil {
			_, err = drainText(src)
		}
		if err == nil {
			continue // the byte landed in a value
		}
		var re *Error
		if !errors.As(err, &re) || re.File != "f.parquet" || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTooLarge)) ||
			bytes.Contains([]byte(err.Error()), []byte("runtime error")) || bytes.Contains([]byte(err.Error()), []byte("nil pointer")) {
			t.Errorf("byte %d set to %#x: %v", m[0], m[1], err)
		}
	}
}
