package readers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// tau-argus data files (format "tauargus", Options.Metadata naming the
// .rda): a table input (.tab) or microdata, both without a header, their
// columns named and typed by the metadata (tauargus_rda.go):
//
//   - with a SEPARATOR, delimited text read as CSV with that separator
//     (quoted codes such as " 2" keep their spaces until the pipeline
//     trims dimension values; a decimal comma is detected as for CSV);
//   - without one, fixed-width records (.asc): each variable's field at
//     its position and length.
//
// Rows are the file's lines (the first record is row 1: there is no
// header). A numeric variable's missing code (the codes after its name in
// the metadata, such as 9999999999) reads as a missing value. When the
// explanatory variables give different TOTCODEs, each is read as "Total"
// (TauMetadata.TotalLabel).

func init() {
	RegisterFormat("tauargus", OpenTauArgus)
}

// OpenTauArgus opens a tau-argus data file described by opt.Metadata.
func OpenTauArgus(path string, opt Options) ([]Source, error) {
	if opt.Metadata == "" {
		return nil, &Error{File: path, Err: fmt.Errorf("%w: the tau-argus format needs its metadata file (--metadata FILE.rda)", ErrFormat)}
	}
	m, err := LoadRDA(opt.Metadata)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	var r io.Reader = f
	if opt.Tee != nil {
		r = io.TeeReader(f, opt.Tee)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	ts := &tauSource{m: m, path: path, names: make([]string, len(m.Vars))}
	for i, v := range m.Vars {
		ts.names[i] = v.Name
	}
	ts.prepare()
	// microdata with a code hierarchy by digits (<HIERLEVELS>): a column
	// per level above the codes, holding each record's code cut to that
	// level (the pipeline reads them as parent columns)
	if !m.Tabular() {
		for i, v := range m.Vars {
			if v.Role != TauExplanatory {
				continue
			}
			for _, n := range v.LevelPrefixes() {
				ts.levels = append(ts.levels, levelCol{src: i, n: n})
			}
		}
	}
	header := ts.names
	for _, l := range ts.levels {
		ts.names = append(ts.names[:len(ts.names):len(ts.names)], LevelColumn(m.Vars[l.src].Name, l.n))
	}
	if m.Separator == "" {
		ts.fixed = &fixedReader{path: path, r: br, f: f, vars: m.Vars, batch: opt.batchSize()}
		base := filepath.Base(path)
		ts.name = strings.TrimSuffix(base, filepath.Ext(base))
		return []Source{ts}, nil
	}
	// the header the file lacks, then the file
	var h strings.Builder
	sep := m.Separator
	for i, n := range header {
		if i > 0 {
			h.WriteString(sep)
		}
		h.WriteString(`"` + strings.ReplaceAll(n, `"`, `""`) + `"`)
	}
	h.WriteString("\n")
	copt := opt
	copt.Tee = nil
	copt.Delimiter = []rune(sep)[0]
	c, err := newCSV(path, io.MultiReader(strings.NewReader(h.String()), br), copt)
	if err != nil {
		f.Close()
		return nil, ts.fix(err)
	}
	c.f = f
	ts.csv = c
	ts.name = c.name
	return []Source{ts}, nil
}

// tauSource reads a tau-argus data file: delimited (csv) or fixed width.
type tauSource struct {
	m     *TauMetadata
	path  string
	name  string
	names []string
	csv   *csvSource
	fixed *fixedReader
	// missing[i] are the missing codes of numeric column i
	missing [][]string
	// total[i] is the TOTCODE of explanatory column i read as "Total"
	total []string
	// levels are the added columns of <HIERLEVELS> hierarchies
	levels []levelCol
}

// levelCol is an added column: the code of column src cut to n characters.
type levelCol struct{ src, n int }

// TotalLabel returns the label of the margins of the metadata's table:
// the explanatory variables' common TOTCODE ("Total" when none is given);
// rewrite says that they differ, so that each is read as "Total".
func (m *TauMetadata) TotalLabel() (label string, rewrite bool) {
	label = ""
	for _, v := range m.Vars {
		if v.Role != TauExplanatory {
			continue
		}
		tc := v.TotCode
		if tc == "" {
			tc = "Total"
		}
		if label == "" {
			label = tc
		} else if label != tc {
			return "Total", true
		}
	}
	if label == "" {
		label = "Total"
	}
	return label, false
}

func (s *tauSource) prepare() {
	_, rewrite := s.m.TotalLabel()
	s.missing = make([][]string, len(s.m.Vars))
	s.total = make([]string, len(s.m.Vars))
	for i, v := range s.m.Vars {
		switch v.Role {
		case TauExplanatory:
			if rewrite && v.TotCode != "" && v.TotCode != "Total" {
				s.total[i] = v.TotCode
			}
		case TauOther, TauHolding, TauStatus:
		default:
			s.missing[i] = v.Missing
		}
	}
}

func (s *tauSource) Name() string            { return s.name }
func (s *tauSource) Where() (string, string) { return s.path, "" }
func (s *tauSource) Header() []string        { return s.names }

func (s *tauSource) Close() error {
	if s.csv != nil {
		return s.csv.Close()
	}
	return s.fixed.f.Close()
}

// Info says how a delimited file was decoded.
func (s *tauSource) Info() Info {
	if s.csv != nil {
		return s.csv.Info()
	}
	return Info{Encoding: "utf-8"}
}

// Warnings are the metadata's notes (keywords not used).
func (s *tauSource) Warnings() []string { return s.m.Notes }

// Metadata returns the parsed metadata.
func (s *tauSource) Metadata() *TauMetadata { return s.m }

// TauArgusSource is implemented by tau-argus sources.
type TauArgusSource interface {
	Metadata() *TauMetadata
}

// fix renumbers the rows of a delimited file's error (the header is the
// metadata's, not the file's) and names the metadata in field count errors.
func (s *tauSource) fix(err error) error {
	var re *Error
	if !errors.As(err, &re) {
		return err
	}
	if re.Row > 0 {
		re.Row--
	}
	if errors.Is(re.Err, ErrFieldCount) {
		re.Err = fmt.Errorf("%w: the metadata %s names %d variables", ErrFieldCount, filepath.Base(s.m.File), len(s.names))
	}
	return err
}

func (s *tauSource) Next() (*Batch, error) {
	var b *Batch
	var err error
	if s.csv != nil {
		b, err = s.csv.Next()
		if err != nil {
			return nil, s.fix(err)
		}
		for i := range b.Lines {
			b.Lines[i]--
		}
	} else if b, err = s.fixed.next(); err != nil {
		return nil, err
	}
	if len(s.levels) > 0 {
		for r, row := range b.Rows {
			wide := make([]string, len(row), len(row)+len(s.levels))
			copy(wide, row)
			for _, l := range s.levels {
				code := strings.TrimSpace(row[l.src])
				if len(code) > l.n {
					code = code[:l.n]
				}
				wide = append(wide, code)
			}
			b.Rows[r] = wide
		}
	}
	for _, row := range b.Rows {
		for i, v := range row {
			if i >= len(s.missing) {
				break
			}
			if ms := s.missing[i]; len(ms) > 0 {
				t := strings.TrimSpace(v)
				for _, m := range ms {
					if t == m {
						row[i] = ""
						break
					}
				}
			}
			if tc := s.total[i]; tc != "" && strings.TrimSpace(v) == tc {
				row[i] = "Total"
			}
		}
	}
	return b, nil
}

// fixedReader reads fixed-width records.
type fixedReader struct {
	path  string
	r     *bufio.Reader
	f     *os.File
	vars  []TauVar
	batch int
	line  int
	done  bool
}

func (fr *fixedReader) next() (*Batch, error) {
	if fr.done {
		return nil, io.EOF
	}
	b := &Batch{}
	for len(b.Rows) < fr.batch {
		raw, err := fr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, &Error{File: fr.path, Row: fr.line + 1, Err: fmt.Errorf("%w: a record longer than %d bytes", ErrTooLarge, fr.r.Size())}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &Error{File: fr.path, Row: fr.line + 1, Err: err}
		}
		eof := err != nil
		if len(raw) == 0 && eof {
			fr.done = true
			break
		}
		fr.line++
		rec := bytes.TrimRight(raw, "\r\n")
		if len(bytes.TrimSpace(rec)) == 0 {
			if eof {
				fr.done = true
				break
			}
			continue // an empty line
		}
		if !utf8.Valid(rec) {
			return nil, &Error{File: fr.path, Row: fr.line, Err: fmt.Errorf("%w: the record is not UTF-8 text", ErrEncoding)}
		}
		row := make([]string, len(fr.vars))
		for i, v := range fr.vars {
			lo, hi := v.Start-1, v.Start-1+v.Length
			if lo >= len(rec) {
				continue
			}
			row[i] = strings.TrimSpace(string(rec[lo:min(hi, len(rec))]))
		}
		b.Rows = append(b.Rows, row)
		b.Lines = append(b.Lines, fr.line)
		if eof {
			fr.done = true
			break
		}
	}
	if len(b.Rows) == 0 {
		return nil, io.EOF
	}
	return b, nil
}
