package readers

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// CSV and TSV files: the first record is the header; the text encoding is
// detected or given (encoding.go; a byte-order mark is dropped); the
// delimiter is sniffed from the header line (comma, semicolon or tab; .tsv
// means tab) unless Options.Delimiter is set; a semicolon-separated file
// whose first rows write decimal numbers with a comma is read with a
// decimal comma unless Options.Decimal is set (number.go); fields may be
// quoted as in RFC 4180. Every row must have as many fields as the header.

func init() {
	RegisterFormat("csv", OpenCSV, ".csv", ".txt")
	RegisterFormat("tsv", func(p string, o Options) ([]Source, error) {
		if o.Delimiter == 0 {
			o.Delimiter = '\t'
		}
		return OpenCSV(p, o)
	}, ".tsv", ".tab")
}

type csvSource struct {
	path   string
	name   string
	f      *os.File
	r      *csv.Reader
	br     *bufio.Reader // the text under r, for NextChunk
	delim  rune
	line   int // physical lines of the text before br's position (NextChunk)
	header []string
	batch  int
	done   bool
	info   Info
	// checkUTF8 says the bytes are passed through undecoded, so that every
	// field must be checked to be valid UTF-8.
	checkUTF8 bool
	// maxField bounds the bytes of one field (Options.MaxFieldBytes).
	maxField int64
}

// OpenCSV opens a delimited text file.
func OpenCSV(path string, opt Options) ([]Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	var r io.Reader = f
	if opt.Tee != nil {
		r = io.TeeReader(f, opt.Tee)
	}
	src, err := newCSV(path, r, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	src.f = f
	return []Source{src}, nil
}

// openText checks the encoding and decimal options, decodes r (by its
// byte-order mark, its prefix or opt.Encoding) and settles the delimiter
// (opt.Delimiter, else sniff) and the decimal mark (opt.Decimal, else a
// decimal comma detected in a semicolon-separated prefix). It returns the
// text, the delimiter, how both were found, and whether the text is passed
// through undecoded and must still be checked for valid UTF-8.
func openText(path string, r io.Reader, opt Options, sniff func(*bufio.Reader) rune) (*bufio.Reader, rune, Info, bool, error) {
	var info Info
	if err := CheckEncoding(opt.Encoding); err != nil {
		return nil, 0, info, false, &Error{File: path, Err: err}
	}
	if err := CheckDecimal(opt.Decimal); err != nil {
		return nil, 0, info, false, &Error{File: path, Err: err}
	}
	raw := bufio.NewReaderSize(r, 256<<10)
	text, checkUTF8, err := decodeText(raw, opt.Encoding, &info)
	if err != nil {
		return nil, 0, info, false, &Error{File: path, Err: err}
	}
	// every record passes the cap, so that text without line breaks
	// cannot grow a line buffer without bound
	br := bufio.NewReaderSize(newRecordCap(text, opt.maxRecord()), 256<<10)
	delim := opt.Delimiter
	if delim == 0 {
		delim = sniff(br)
		info.Detected = append(info.Detected, "delimiter")
	}
	info.Delimiter = string(delim)
	if delim == '\t' {
		info.Delimiter = "tab"
	}
	info.Decimal = opt.Decimal
	if info.Decimal == "" {
		info.Decimal = "."
		if delim == ';' {
			prefix, err := br.Peek(SniffSize)
			if sniffDecimalComma(prefix, delim, err == nil) {
				info.Decimal = ","
				info.Detected = append(info.Detected, "decimal")
			}
		}
	}
	return br, delim, info, checkUTF8, nil
}

// NewCSV reads delimited text from r; path is used in messages and for the
// table name.
func NewCSV(path string, r io.Reader, opt Options) (Source, error) {
	return newCSV(path, r, opt)
}

func newCSV(path string, r io.Reader, opt Options) (*csvSource, error) {
	br, delim, info, checkUTF8, err := openText(path, r, opt, sniffDelimiter)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(br)
	cr.Comma = delim
	cr.ReuseRecord = true
	cr.FieldsPerRecord = 0
	base := filepath.Base(path)
	s := &csvSource{path: path, name: strings.TrimSuffix(base, filepath.Ext(base)), r: cr, br: br, delim: delim, batch: opt.batchSize(), info: info, checkUTF8: checkUTF8, maxField: opt.maxField()}
	h, err := cr.Read()
	if err == io.EOF {
		return nil, &Error{File: path, Row: 1, Err: ErrNoHeader}
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	s.header = make([]string, len(h))
	seen := map[string]int{}
	for i, v := range h {
		if err := s.checkField(1, fmt.Sprintf("#%d", i+1), v); err != nil {
			return nil, err
		}
		if err := s.checkText(1, fmt.Sprintf("#%d", i+1), v); err != nil {
			return nil, err
		}
		// a byte-order mark left after decoding (a file whose mark was
		// written twice) is no part of a name
		v = strings.TrimSpace(strings.Trim(v, "\ufeff"))
		if v == "" {
			return nil, &Error{File: path, Row: 1, Column: fmt.Sprintf("#%d", i+1), Err: errors.New("empty column name")}
		}
		if j, dup := seen[v]; dup {
			return nil, &Error{File: path, Row: 1, Column: v, Err: fmt.Errorf("duplicate column name (also column %d)", j+1)}
		}
		seen[v] = i
		s.header[i] = v
	}
	// The csv.Reader reads br line by line (it uses a *bufio.Reader as
	// it is), so br is now just past the header's last line: the line the
	// last field starts on plus the line breaks inside it.
	last, _ := cr.FieldPos(len(h) - 1)
	s.line = last + strings.Count(h[len(h)-1], "\n")
	return s, nil
}

// checkField refuses a field longer than the limit, without quoting it.
func (s *csvSource) checkField(row int, column, v string) error {
	if int64(len(v)) <= s.maxField {
		return nil
	}
	return &Error{File: s.path, Row: row, Column: column,
		Err: fmt.Errorf("%w: a field of %d bytes, more than %d; raise input.max_field_bytes if the field is real", ErrTooLarge, len(v), s.maxField)}
}

// checkText refuses a field that is not valid UTF-8 in a file read as UTF-8.
func (s *csvSource) checkText(row int, column, v string) error {
	if !s.checkUTF8 || utf8.ValidString(v) {
		return nil
	}
	how := "the encoding was detected as UTF-8 from the first 64 KiB of the file"
	if !slices.Contains(s.info.Detected, "encoding") {
		how = "input.encoding is utf-8"
	}
	return &Error{File: s.path, Row: row, Column: column, Value: v,
		Err: fmt.Errorf("%w: not valid UTF-8 (%s); set input.encoding to the file's encoding (latin-1, windows-1252 or utf-16)", ErrEncoding, how)}
}

// Info implements Describer.
func (s *csvSource) Info() Info { return s.info }

// sniffDelimiter looks at the first line and picks the most frequent of
// comma, semicolon and tab outside quotes (comma on ties).
func sniffDelimiter(br *bufio.Reader) rune {
	line, _ := br.Peek(br.Buffered())
	if len(line) == 0 {
		line, _ = br.Peek(4096)
		if len(line) == 0 {
			b, _ := br.Peek(1)
			line = b
		}
	}
	counts := map[byte]int{}
	quoted := false
	for _, c := range line {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		if c == '\n' {
			break
		}
		counts[c]++
	}
	best, n := byte(','), counts[',']
	for _, c := range []byte{';', '\t'} {
		if counts[c] > n {
			best, n = c, counts[c]
		}
	}
	return rune(best)
}

func (s *csvSource) Name() string            { return s.name }
func (s *csvSource) Where() (string, string) { return s.path, "" }
func (s *csvSource) Header() []string        { return s.header }

func (s *csvSource) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

func (s *csvSource) wrap(err error) error {
	var long *RecordTooLongError
	if errors.As(err, &long) {
		return &Error{File: s.path, Row: long.Line, Err: long}
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		e := &Error{File: s.path, Row: pe.StartLine, Err: pe.Err}
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			e.Err = fmt.Errorf("%w: the header has %d", ErrFieldCount, len(s.header))
			e.Row = pe.Line
		} else if pe.Column > 0 {
			e.Column = fmt.Sprintf("character %d", pe.Column)
		}
		return e
	}
	return &Error{File: s.path, Err: err}
}

// Next reads up to one batch of records.
func (s *csvSource) Next() (*Batch, error) {
	if s.done {
		return nil, io.EOF
	}
	b, store := s.newBatch(s.batch)
	for len(b.Rows) < s.batch {
		rec, err := s.r.Read()
		if err == io.EOF {
			s.done = true
			break
		}
		if err != nil {
			return nil, s.recordError(err, rec, 0)
		}
		line, _ := s.r.FieldPos(0)
		if store, err = s.appendRecord(b, store, rec, line, s.checkUTF8); err != nil {
			return nil, err
		}
	}
	if len(b.Rows) == 0 {
		return nil, io.EOF
	}
	return b, nil
}

func (s *csvSource) newBatch(n int) (*Batch, []string) {
	// one backing array per batch keeps allocations low
	return &Batch{Rows: make([][]string, 0, n), Lines: make([]int, 0, n)}, make([]string, 0, n*len(s.header))
}

// appendRecord adds a record read at line to b, checking first that its
// fields are valid UTF-8 when check is set.
func (s *csvSource) appendRecord(b *Batch, store, rec []string, line int, check bool) ([]string, error) {
	for i, v := range rec {
		if int64(len(v)) > s.maxField {
			return store, s.checkField(line, s.header[i], v)
		}
	}
	if check {
		for i, v := range rec {
			if err := s.checkText(line, s.header[i], v); err != nil {
				return store, err
			}
		}
	}
	start := len(store)
	store = append(store, rec...)
	b.Rows = append(b.Rows, store[start:len(store):len(store)])
	b.Lines = append(b.Lines, line)
	return store, nil
}

// recordError turns an error of csv.Reader.Read into an *Error; offset is
// the number of lines before the text the reader read.
func (s *csvSource) recordError(err error, rec []string, offset int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return s.wrap(err)
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return &Error{File: s.path, Row: pe.Line + offset, Err: fmt.Errorf("%w: %d fields, the header has %d", ErrFieldCount, len(rec), len(s.header))}
	}
	moved := *pe
	moved.StartLine += offset
	moved.Line += offset
	return s.wrap(&moved)
}

// Chunker is implemented by sources that can hand out their records as
// chunks of text cut at record boundaries, for several goroutines to
// parse. Chunk i holds the records the i-th call of Next would have
// returned, and its Parse returns the same batch or the same error. A
// source is read either by Next or by NextChunk, not both.
type Chunker interface {
	Source
	// NextChunk returns the next chunk, or io.EOF. It is not safe for
	// concurrent use; the chunks' Parse is.
	NextChunk() (*Chunk, error)
}

// Chunk is a run of whole records of a delimited file.
type Chunk struct {
	src  *csvSource
	data *[]byte
	line int // physical lines of the text before the chunk
	rows int // records in the chunk
}

var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// NextChunk cuts the next batch of records out of the text. A record
// starts on a line that begins outside quotes and is not empty (the
// csv.Reader skips empty lines); a line ends inside a quoted field when
// it holds an odd number of quotes counted from the record's start. This
// quote parity is the reader's own state as long as the text is valid;
// the first byte where they could differ (a quote inside an unquoted
// field, or a closing quote followed by text) is an error the parser
// reports in the chunk that holds it, which starts at a true boundary, so
// the first error is the same as Next's.
func (s *csvSource) NextChunk() (*Chunk, error) {
	if s.done {
		return nil, io.EOF
	}
	buf := chunkPool.Get().(*[]byte)
	data := (*buf)[:0]
	c := &Chunk{src: s, line: s.line}
	inQuote := false
	for c.rows < s.batch || inQuote {
		if !inQuote {
			// whole lines without quotes straight from the buffer
			var n int
			data, n = s.plainLines(data, s.batch-c.rows)
			c.rows += n
			if c.rows >= s.batch {
				break
			}
		}
		start, startQuoted := len(data), inQuote
		var err error
		for {
			var part []byte
			part, err = s.br.ReadSlice('\n')
			data = append(data, part...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			*buf = data
			chunkPool.Put(buf)
			return nil, s.wrap(err)
		}
		ln := data[start:]
		if bytes.Count(ln, []byte{'"'})%2 == 1 {
			inQuote = !inQuote
		}
		if !startQuoted && !emptyLine(ln) {
			c.rows++
		}
		if n := len(ln); n > 0 && ln[n-1] == '\n' {
			s.line++
		}
		if err == io.EOF {
			s.done = true
			break
		}
	}
	*buf = data
	c.data = buf
	if c.rows == 0 {
		chunkPool.Put(buf)
		return nil, io.EOF
	}
	return c, nil
}

// plainLines appends to data the whole lines already buffered, up to the
// one that completes want rows, as long as they hold no double quote (a
// quote's line breaks need the line-by-line scan of NextChunk), and
// returns the rows they hold (blank lines are none). It cuts the same
// chunks as that scan, at the speed of memchr over the buffer: the
// goroutine that reads the file does this alone for every core.
func (s *csvSource) plainLines(data []byte, want int) ([]byte, int) {
	buf, _ := s.br.Peek(s.br.Buffered())
	if q := bytes.IndexByte(buf, '"'); q >= 0 {
		buf = buf[:q]
	}
	rows, end := 0, 0
	for rows < want {
		nl := bytes.IndexByte(buf[end:], '\n')
		if nl < 0 {
			break
		}
		ln := buf[end : end+nl+1]
		end += nl + 1
		s.line++
		if !emptyLine(ln) {
			rows++
		}
	}
	data = append(data, buf[:end]...)
	s.br.Discard(end)
	return data, rows
}

// emptyLine reports a line the csv.Reader skips: nothing but its line
// break ("\n" or "\r\n"; at the end of the text, which is the only place
// a line lacks a "\n", a "\r" or nothing).
func emptyLine(ln []byte) bool {
	switch {
	case len(ln) == 0:
		return true
	case ln[len(ln)-1] == '\n':
		return len(ln) == 1 || len(ln) == 2 && ln[0] == '\r'
	default:
		return len(ln) == 1 && ln[0] == '\r'
	}
}

// Rows is the number of records in the chunk.
func (c *Chunk) Rows() int { return c.rows }

// Parse parses the chunk with encoding/csv, naming rows by their line in
// the file. It may be called once, from any goroutine.
func (c *Chunk) Parse() (*Batch, error) {
	s := c.src
	defer func() {
		chunkPool.Put(c.data)
		c.data = nil
	}()
	cr := csv.NewReader(bytes.NewReader(*c.data))
	cr.Comma = s.delim
	cr.ReuseRecord = true
	cr.FieldsPerRecord = len(s.header)
	b, store := s.newBatch(c.rows)
	// a chunk of valid UTF-8 has fields of valid UTF-8 (parsing only drops
	// ASCII bytes): one check of the text instead of one per field
	check := s.checkUTF8 && !utf8.Valid(*c.data)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, s.recordError(err, rec, c.line)
		}
		line, _ := cr.FieldPos(0)
		if store, err = s.appendRecord(b, store, rec, line+c.line, check); err != nil {
			return nil, err
		}
	}
	return b, nil
}
