package readers

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// readAll reads a source by Next (chunks false) or by NextChunk and Parse
// (chunks true) and returns its batches and the first error.
func readAll(t testing.TB, data []byte, opt Options, chunks bool) ([]*Batch, string) {
	src, err := NewCSV("in.csv", bytes.NewReader(data), opt)
	if err != nil {
		return nil, "open: " + err.Error()
	}
	var out []*Batch
	for {
		var b *Batch
		if chunks {
			var c *Chunk
			c, err = src.(Chunker).NextChunk()
			if err == nil {
				n := c.Rows()
				if b, err = c.Parse(); err == nil && len(b.Rows) != n {
					t.Fatalf("a chunk of %d records parsed into %d rows", n, len(b.Rows))
				}
			}
		} else {
			b, err = src.Next()
		}
		if errors.Is(err, io.EOF) {
			return out, ""
		}
		if err != nil {
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("%T %v is not a positioned *Error", err, err)
			}
			return out, err.Error()
		}
		out = append(out, b)
	}
}

// checkChunks compares the two ways of reading data.
func checkChunks(t testing.TB, data []byte, opt Options) {
	b0, e0 := readAll(t, data, opt, false)
	b1, e1 := readAll(t, data, opt, true)
	if e0 != e1 {
		t.Fatalf("%q (batch %d): Next fails with %q, chunks with %q", data, opt.BatchSize, e0, e1)
	}
	if len(b0) != len(b1) {
		t.Fatalf("%q (batch %d): %d batches by Next, %d chunks", data, opt.BatchSize, len(b0), len(b1))
	}
	for i := range b0 {
		if !reflect.DeepEqual(b0[i], b1[i]) {
			t.Fatalf("%q (batch %d): batch %d is %q at lines %v by Next, %q at lines %v in chunks", data, opt.BatchSize, i, b0[i].Rows, b0[i].Lines, b1[i].Rows, b1[i].Lines)
		}
	}
}

// The chunks NextChunk cuts hold, once parsed, the rows and lines of the
// batches Next returns, one for one, and the first error is the same
// (file, row, column), on random texts made of the pieces where CSV is
// tricky: quotes (doubled, in the middle of a field, left open), line
// breaks inside quotes, CRLF and lone CR, blank lines, a byte-order mark,
// the delimiter inside quotes, bytes that are not UTF-8.
func TestChunksMatchNext(t *testing.T) {
	pieces := []string{"a", "b1", "7.5", ",", ",", ",", "\n", "\n", "\r\n", "\r", `"`, `""`, `"x,y"`, "\"p\nq\"", "\"r\r\ns\"", " ", "é", "\xff"}
	r := rand.New(rand.NewPCG(15, 4))
	for iter := 0; iter < 5000; iter++ {
		var b strings.Builder
		if r.IntN(8) == 0 {
			b.WriteString("\xEF\xBB\xBF")
		}
		b.WriteString([]string{"h1,h2\n", "\"h\n1\",h2\r\n", "h1,h2\r\n\r\n"}[r.IntN(3)])
		clean := r.IntN(2) == 0 // records only, most of them valid
		n := r.IntN(60)
		for i := 0; i < n; i++ {
			if clean {
				b.WriteString([]string{"a", "\"p,\nq\"", "\"\"\"\"", ""}[r.IntN(4)] + "," + []string{"1", "\"2\r\n\"", ""}[r.IntN(3)])
				b.WriteString([]string{"\n", "\r\n", "\n\n", "\r\n\r\n"}[r.IntN(4)])
				continue
			}
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		opt := Options{BatchSize: 1 + r.IntN(6), Delimiter: ','}
		if r.IntN(3) == 0 {
			opt.Encoding = "utf-8"
		}
		checkChunks(t, []byte(b.String()), opt)
	}
}

// FuzzCSVChunks: the same comparison on any input.
func FuzzCSVChunks(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n\n3,4\r\n", "a,b\n\"1\n\",2\n3,\"x\"\"\"\r\n\r", "a,b\n1,\"2\n3,4\n", "a,b\n1,2\"\n3,4\n"} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, data []byte, batch int) {
		checkChunks(t, data, Options{BatchSize: 1 + abs(batch)%7})
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
