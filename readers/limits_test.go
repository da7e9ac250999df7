package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// endless is an io.Reader that gives a prefix and then the byte c for
// ever, lazily: /dev/zero or a file without line breaks, without the
// memory.
type endless struct {
	prefix string
	c      byte
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.prefix)
	e.prefix = e.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.c
	}
	return len(p), nil
}

// drainSource reads every batch of src by Next (chunks false) or by
// NextChunk and Parse, and returns the first error.
func drainSource(src Source, chunks bool) error {
	for {
		var err error
		if chunks {
			var c *Chunk
			if c, err = src.(Chunker).NextChunk(); err == nil {
				_, err = c.Parse()
			}
		} else {
			_, err = src.Next()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestRecordAndFieldCaps: an endless line (a header or a record without
// line break, a quoted field that never closes) and a field longer than
// its cap are input errors naming the row, with a short message, read by
// Next and by chunks alike (issue 23 item 6). The caps are small here so
// that the test allocates little.
func TestRecordAndFieldCaps(t *testing.T) {
	const limit = 4096
	opt := Options{MaxRecordBytes: limit, MaxFieldBytes: 1000, BatchSize: 2}
	for _, tc := range []struct {
		name   string
		r      func() io.Reader
		row    int
		column string
	}{
		{"endless header of zeros", func() io.Reader { return &endless{c: 0} }, 1, ""},
		{"endless header of letters", func() io.Reader { return &endless{c: 'a'} }, 1, ""},
		{"endless record", func() io.Reader { return &endless{prefix: "g,v\na,1\nb,2\n\nc,", c: '7'} }, 5, ""},
		{"endless quoted field", func() io.Reader { return &endless{prefix: "g,v\na,1\n\"b\n", c: '\n'} }, 3, ""},
		{"long field", func() io.Reader {
			return strings.NewReader("g,v\na,1\nb," + strings.Repeat("9", 1001) + "\nc,3\n")
		}, 3, "v"},
		{"long header field", func() io.Reader { return strings.NewReader(strings.Repeat("g", 1001) + ",v\na,1\n") }, 1, "#1"},
	} {
		for _, chunks := range []bool{false, true} {
			src, err := NewCSV("in.csv", tc.r(), opt)
			if err == nil {
				err = drainSource(src, chunks)
			}
			var re *Error
			if !errors.As(err, &re) || !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s (chunks %v): %v, want a *Error wrapping ErrTooLarge", tc.name, chunks, err)
				continue
			}
			if re.Row != tc.row || re.Column != tc.column || re.File != "in.csv" {
				t.Errorf("%s (chunks %v): %q at row %d column %q, want row %d column %q", tc.name, chunks, err, re.Row, re.Column, tc.row, tc.column)
			}
			if len(err.Error()) > 300 || strings.Contains(err.Error(), "999999") {
				t.Errorf("%s: the message quotes the input: %q", tc.name, err)
			}
		}
	}
}

// TestRecordCapKeepsLongRecords: records (quoted fields with line breaks
// and quotes included) up to the cap are read as they are, and the rows
// after them keep their lines.
func TestRecordCapKeepsLongRecords(t *testing.T) {
	field := strings.Repeat("x\n\"\"", 200) // 800 bytes inside quotes
	text := "g,v\n\"" + field + "\",1\nb,2\n"
	for _, chunks := range []bool{false, true} {
		src, err := NewCSV("in.csv", strings.NewReader(text), Options{MaxRecordBytes: 1000, BatchSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]string
		var lines []int
		for {
			var b *Batch
			if chunks {
				var c *Chunk
				if c, err = src.(Chunker).NextChunk(); err == nil {
					b, err = c.Parse()
				}
			} else {
				b, err = src.Next()
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("chunks %v: %v", chunks, err)
			}
			for i, r := range b.Rows {
				rows = append(rows, append([]string(nil), r...))
				lines = append(lines, b.Lines[i])
			}
		}
		want := strings.ReplaceAll(field, `""`, `"`)
		if len(rows) != 2 || rows[0][0] != want || rows[1][0] != "b" || lines[1] != 203 {
			t.Errorf("chunks %v: %d rows, lines %v", chunks, len(rows), lines)
		}
	}
	// one byte less of cap: the record is refused
	src, err := NewCSV("in.csv", strings.NewReader(text), Options{MaxRecordBytes: 800})
	if err == nil {
		err = drainSource(src, false)
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("a record over the cap: %v", err)
	}
}

// TestErrorQuotesAnExcerpt: an *Error never quotes more than an excerpt of
// its value, its column or its cause.
func TestErrorQuotesAnExcerpt(t *testing.T) {
	big := strings.Repeat("é", 100000)
	e := &Error{File: "in.csv", Row: 2, Column: big, Value: big, Err: errors.New("bad: " + big)}
	if n := len(e.Error()); n > 1400 {
		t.Errorf("the message has %d bytes", n)
	}
	if got := ColumnList(strings.Split(strings.Repeat("c,", 1000)+big, ",")); len(got) > 400 {
		t.Errorf("ColumnList gives %d bytes", len(got))
	}
}

// TestArrowMemoryBudget: an Arrow stream whose batch claims more than its
// memory budget (Options.MaxArrowMemory; a stream's budget is the base
// alone) is refused with a positioned ErrTooLarge naming the budget, and
// an allocation beyond a file's budget (base plus 32 times its size)
// turns into the same error; under the default budget the stream reads.
func TestArrowMemoryBudget(t *testing.T) {
	rec := typedRecord(t)
	defer rec.Release()
	p := filepath.Join(t.TempDir(), "a.arrows")
	writeArrowStream(t, p, rec)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	read := func(opt Options) error {
		src, err := NewArrowStream("a.arrows", bytes.NewReader(data), opt)
		if err == nil {
			_, err = drainText(src)
		}
		return err
	}
	if err := read(Options{}); err != nil {
		t.Fatalf("under the default budget: %v", err)
	}
	want := func(err error, file string, budget int64) {
		t.Helper()
		var re *Error
		if !errors.As(err, &re) || re.File != file || !errors.Is(err, ErrTooLarge) ||
			!strings.Contains(err.Error(), fmt.Sprintf("memory budget of %d bytes", budget)) {
			t.Errorf("%s under a budget of %d bytes: %v, want a positioned ErrTooLarge naming the budget", file, budget, err)
		}
	}
	want(read(Options{MaxArrowMemory: 200}), "a.arrows", 200)
	alloc := func(opt Options, size int64, n int) (err error) {
		defer recoverCorrupt("f.parquet", "", 0, &err)
		mem := newBudget(opt, size)
		mem.Free(mem.Allocate(n))
		return nil
	}
	if err := alloc(Options{MaxArrowMemory: 100}, 10, 420); err != nil {
		t.Errorf("an allocation within the budget: %v", err)
	}
	want(alloc(Options{MaxArrowMemory: 100}, 10, 421), "f.parquet", 100)
}
