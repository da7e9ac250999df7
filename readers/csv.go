package readers

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	header []string
	batch  int
	done   bool
	info   Info
	// checkUTF8 says the bytes are passed through undecoded, so that every
	// field must be checked to be valid UTF-8.
	checkUTF8 bool
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
	br := raw
	if !checkUTF8 {
		br = bufio.NewReaderSize(text, 256<<10)
	}
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
	s := &csvSource{path: path, name: strings.TrimSuffix(base, filepath.Ext(base)), r: cr, batch: opt.batchSize(), info: info, checkUTF8: checkUTF8}
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
		if err := s.checkText(1, fmt.Sprintf("#%d", i+1), v); err != nil {
			return nil, err
		}
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, &Error{File: path, Row: 1, Column: fmt.Sprintf("#%d", i+1), Err: errors.New("empty column name")}
		}
		if j, dup := seen[v]; dup {
			return nil, &Error{File: path, Row: 1, Column: v, Err: fmt.Errorf("duplicate column name (also column %d)", j+1)}
		}
		seen[v] = i
		s.header[i] = v
	}
	return s, nil
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
	b := &Batch{Rows: make([][]string, 0, s.batch), Lines: make([]int, 0, s.batch)}
	width := len(s.header)
	// one backing array per batch keeps allocations low
	store := make([]string, 0, s.batch*width)
	for len(b.Rows) < s.batch {
		rec, err := s.r.Read()
		if err == io.EOF {
			s.done = true
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, &Error{File: s.path, Row: pe.Line, Err: fmt.Errorf("%w: %d fields, the header has %d", ErrFieldCount, len(rec), width)}
			}
			return nil, s.wrap(err)
		}
		line, _ := s.r.FieldPos(0)
		if s.checkUTF8 {
			for i, v := range rec {
				if err := s.checkText(line, s.header[i], v); err != nil {
					return nil, err
				}
			}
		}
		start := len(store)
		store = append(store, rec...)
		b.Rows = append(b.Rows, store[start:len(store):len(store)])
		b.Lines = append(b.Lines, line)
	}
	if len(b.Rows) == 0 {
		return nil, io.EOF
	}
	return b, nil
}
