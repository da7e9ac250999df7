package readers

// Wide (crosstab) tables: row dimensions in the leftmost columns, one
// header row per column dimension across the top (merged cells span their
// children), one statistic in the body, titles above and notes below. The
// reader lays the table out long (one row per body cell: the row labels,
// the column labels, the value) so that the pipeline treats it like any
// aggregate table, and keeps the layout (where each cell was) for outputs
// that look like the input.

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
	"sort"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
)

// WideOptions ask for a wide (crosstab) table.
type WideOptions struct {
	// Dims are the row dimensions, in the leftmost columns.
	Dims []string
	// Across are the column dimensions, one header row each, outermost
	// first.
	Across []string
	// Value names the statistic the body holds; it is the long table's
	// value column.
	Value string
	// TotalLabel is the margins' label: a header cell below a Total
	// spanning the header rows may be blank.
	TotalLabel string
	// Stats, when set instead of Value, maps the labels of a statistic
	// header row (above the Across rows) to the statistic each block of
	// columns holds (count, total, ...): several statistics side by side.
	Stats map[string]string
	// Detect finds Dims, Across and (without Value or Stats) Value in
	// the sheet (DetectWide); the layout's Detection says what it found.
	Detect bool
	// Markers are the texts that mark suppressed cells (markers:);
	// nil is configs.DefaultMarkers.
	Markers []string

	// shape is where detection found the table.
	shape *wideShape
}

// statOrder is the order of the long table's statistic columns.
var statOrder = []string{"count", "total", "mean", "sd", "variance", "median", "min", "max", "skewness", "kurtosis"}

// MaxWideCells bounds the cells of a sheet read as a wide table.
var MaxWideCells = 4_000_000

// WidePos is where a body cell is: its 1-based sheet row and 0-based
// column.
type WidePos struct{ Row, Col int }

// WideLayout is the layout of a wide table as read.
type WideLayout struct {
	File, Sheet string
	// Format is xlsx or csv (csv for every delimited text).
	Format string
	// Delimiter of delimited text.
	Delimiter rune
	// Titles, Header and Notes are the 1-based rows above, in and below
	// the table; Body the rows of the body.
	Titles, Header, Body, Notes []int
	// Labels are the 0-based columns of the row labels; Columns those of
	// the body.
	Labels, Columns []int
	// Units are the units rows under the header ("(thousands)", "%"),
	// folded into the columns' description rather than read as labels
	// or values (UnitsOf).
	Units []int
	// Spacers are empty columns between blocks of the body; Aliases maps
	// a label column that only names another's codes (a name beside a
	// code) to that column; Carried are the label cells left blank below
	// a group's first row, whose label was carried down.
	Spacers []int
	Aliases map[int]int
	Carried []WidePos
	// Beside are text cells right of the body past a blank column (a
	// colour key, a legend of the markers), not read.
	Beside []WidePos
	// Sections are section rows: a single label with no values, heading
	// the body rows below it (an outer row dimension, the first of Dims).
	Sections []int
	// Population are population notes between the header and the body
	// ("Base: all workers", "Universe: ..."): lines describing what the
	// table counts, read as notes of the table (listed in the layout
	// message), never as a section or a code.
	Population []int
	// Indent is the indentation (leading spaces) of cells that have one,
	// by position: a hierarchy in one column shown by indentation.
	Indent map[WidePos]int
	// IndentTabs are the cells of Indent indented by tabs ('\t') or by
	// tabs and spaces ('m'): a column whose labels mix tabs and spaces
	// has no indentation (one tab is one level where only tabs indent).
	IndentTabs map[WidePos]rune
	// StyleIndent is the indent level of the cell's style (a workbook's
	// Format Cells > Alignment > Indent) of text cells that have one.
	StyleIndent map[WidePos]int
	// Lead is the leading white space of the text cells that have one, as
	// read (Rows holds them trimmed): the safe tables print row labels
	// indented as published (LabelText).
	Lead map[WidePos]string
	// Qualified are the label cells of rows whose label repeats under
	// different parents by indentation ("Other" under each group): their
	// key qualifies the label by the parent's ("Services / Other",
	// QualifySep); the sheet keeps the label as published.
	Qualified []WidePos
	// Repeated are the body rows whose row labels and values repeat an
	// earlier row's, nothing telling the two apart (a grand total printed
	// at the top and again at the bottom): the same row printed twice,
	// keyed "LABEL (row R)" in the last label column (the sheet keeps
	// the label as published); Repeats gives the structure inference the
	// identity.
	Repeated []WideRepeat
	// QualifiedBy says what placed the repeats under their parents:
	// "indentation" (empty) or "arithmetic" (blocks of rows that add up
	// to the row above them, the labels not indented).
	QualifiedBy string
	// Keys are the long keys (row labels then column labels) of the body
	// cells, in reading order; Pos their positions.
	Keys [][]string
	Pos  []WidePos
	// Rows is the sheet as read (merged ranges filled in the header and
	// the label columns), indexed by row-1.
	Rows [][]string
	// Detection is what was detected (WideOptions.Detect), else nil.
	Detection *WideDetection
}

// WideSource is implemented by sources that read a wide table.
type WideSource interface {
	Layout() *WideLayout
}

type wideSource struct {
	name     string
	header   []string
	rows     [][]string
	lines    []int
	done     bool
	layout   *WideLayout
	info     *Info
	warnings []string
}

func (s *wideSource) Name() string            { return s.name }
func (s *wideSource) Where() (string, string) { return s.layout.File, s.layout.Sheet }
func (s *wideSource) Header() []string        { return s.header }
func (s *wideSource) Close() error            { return nil }
func (s *wideSource) Layout() *WideLayout     { return s.layout }
func (s *wideSource) Warnings() []string      { return s.warnings }
func (s *wideSource) Next() (*Batch, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	if len(s.rows) == 0 {
		return nil, io.EOF
	}
	return &Batch{Rows: s.rows, Lines: s.lines}, nil
}

// describedWide is a wide source of delimited text, which says how the
// text was decoded.
type describedWide struct{ *wideSource }

func (s describedWide) Info() Info { return *s.info }

// openWide opens every chosen table of a file as a wide table.
func openWide(path string, opt Options) (srcs []Source, err error) {
	w := opt.Wide
	if !w.Detect && (len(w.Across) == 0 || (w.Value == "") == (len(w.Stats) == 0)) {
		return nil, &Error{File: path, Err: errors.New("a wide table needs columns.across (the column dimensions) and columns.value (what the body holds)")}
	}
	switch FormatOf(path, opt) {
	case "xlsx":
		return openWideXLSX(path, opt)
	case "csv", "tsv":
		if FormatOf(path, opt) == "tsv" && opt.Delimiter == 0 {
			opt.Delimiter = '\t'
		}
		return openWideCSV(path, opt)
	}
	return nil, &Error{File: path, Err: fmt.Errorf("%w: wide (crosstab) tables are read from xlsx, CSV and TSV files", ErrFormat)}
}

func openWideCSV(path string, opt Options) ([]Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer f.Close()
	var r io.Reader = f
	if opt.Tee != nil {
		r = io.TeeReader(f, opt.Tee)
	}
	br, delim, in, checkUTF8, err := openText(path, r, opt, func(br *bufio.Reader) rune {
		prefix, _ := br.Peek(SniffSize)
		return sniffWideDelimiter(prefix)
	})
	if err != nil {
		return nil, err
	}
	info := &in
	cr := csv.NewReader(br)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	var rows [][]string
	var indent map[WidePos]int
	var tabs map[WidePos]rune
	var lead map[WidePos]string
	cells := 0
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &Error{File: path, Row: pe.StartLine, Err: fmt.Errorf("%w: %v", ErrCorrupt, pe.Err)}
			}
			return nil, &Error{File: path, Row: line, Err: err}
		}
		cells += len(rec)
		if cells > MaxWideCells {
			return nil, &Error{File: path, Row: line, Err: fmt.Errorf("%w: more than %d cells in a wide table", ErrTooLarge, MaxWideCells)}
		}
		// encoding/csv skips blank lines: keep the rows at their lines
		if l, _ := cr.FieldPos(0); l > 0 {
			line = l
		}
		for len(rows) < line-1 {
			rows = append(rows, nil)
		}
		row := make([]string, len(rec))
		for i, v := range rec {
			if checkUTF8 && !validUTF8(v) {
				return nil, &Error{File: path, Row: line, Column: colName(i), Value: v, Err: fmt.Errorf("%w: not valid UTF-8; set input.encoding to the file's encoding (latin-1, windows-1252 or utf-16)", ErrEncoding)}
			}
			if n, kind := indentOf(v); n > 0 {
				if indent == nil {
					indent = map[WidePos]int{}
				}
				indent[WidePos{Row: line, Col: i}] = n
				tabs = tabbed(tabs, WidePos{Row: line, Col: i}, kind)
				lead = leading(lead, WidePos{Row: line, Col: i}, v)
			}
			row[i] = strings.TrimSpace(strings.Trim(v, "\u00a0"))
		}
		rows = append(rows, row)
	}
	base := filepath.Base(path)
	lay := &WideLayout{File: path, Format: "csv", Delimiter: delim, Rows: rows, Indent: indent, IndentTabs: tabs, Lead: lead}
	if err := cropRange(lay, opt.Range); err != nil {
		return nil, err
	}
	src, err := parseWide(lay, nil, *opt.Wide)
	if err != nil {
		return nil, err
	}
	src.name = strings.TrimSuffix(base, filepath.Ext(base))
	src.info = info
	return []Source{describedWide{src}}, nil
}

// sniffWideDelimiter picks the delimiter that splits most lines of the
// prefix into the same number (2 or more) of fields: title lines and notes
// (one field, perhaps holding commas) do not decide it.
func sniffWideDelimiter(prefix []byte) rune {
	best, bestN := ',', 0
	for _, d := range []rune{',', ';', '\t'} {
		r := csv.NewReader(bytes.NewReader(prefix))
		r.Comma = d
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		counts := map[int]int{}
		for {
			rec, err := r.Read()
			if err != nil {
				var pe *csv.ParseError
				if errors.As(err, &pe) {
					continue
				}
				break
			}
			if len(rec) >= 2 {
				counts[len(rec)]++
			}
		}
		n := 0
		for _, c := range counts {
			n = max(n, c)
		}
		if n > bestN {
			best, bestN = d, n
		}
	}
	return best
}

func openWideXLSX(path string, opt Options) (srcs []Source, err error) {
	defer recoverCorrupt(path, "", 0, &err)
	fh, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer fh.Close()
	f, err := excelize.OpenReader(fh, excelize.Options{
		RawCellValue:      true,
		UnzipSizeLimit:    opt.maxXLSXUnzipSize(),
		UnzipXMLSizeLimit: min(MaxXLSXInMemory, opt.maxXLSXUnzipSize()),
	})
	if err != nil {
		return nil, xlsxErr(path, "", 0, err)
	}
	defer f.Close()
	chosen, warnings, err := chooseSheets(path, f, opt.Sheet)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var textOnly []string
	for _, sh := range chosen {
		rows, indent, tabs, lead, err := wideSheetRows(path, f, sh)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(opt.Sheet) == "*" && len(chosen) > 1 && !hasNumber(rows) {
			textOnly = append(textOnly, sh)
			continue
		}
		ms, err := f.GetMergeCells(sh)
		if err != nil {
			return nil, xlsxErr(path, sh, 0, err)
		}
		var merges []*merge
		for _, m := range ms {
			c1, r1, e1 := excelize.CellNameToCoordinates(m.GetStartAxis())
			c2, r2, e2 := excelize.CellNameToCoordinates(m.GetEndAxis())
			if e1 != nil || e2 != nil {
				continue
			}
			merges = append(merges, &merge{r1: min(r1, r2), r2: max(r1, r2), c1: min(c1, c2) - 1, c2: max(c1, c2) - 1})
		}
		lay := &WideLayout{File: path, Sheet: sh, Format: "xlsx", Rows: rows, Indent: indent, IndentTabs: tabs, Lead: lead, StyleIndent: styleIndents(f, sh, rows)}
		if err := cropRange(lay, opt.Range); err != nil {
			return nil, err
		}
		src, err := parseWide(lay, merges, *opt.Wide)
		if err != nil {
			return nil, err
		}
		src.name = base
		if len(chosen) > 1 {
			src.name = base + "_" + sheetSlug(sh)
		}
		srcs = append(srcs, src)
	}
	if len(srcs) == 0 {
		return nil, &Error{File: path, Err: fmt.Errorf("%w: no sheet holds a number (%s): give input.sheet (--sheet) by name", ErrNoHeader, quoteList(textOnly))}
	}
	if len(textOnly) > 0 {
		warnings = append(warnings, fmt.Sprintf("sheets without a number not read: %s", quoteList(textOnly)))
	}
	srcs[0].(*wideSource).warnings = append(warnings, srcs[0].(*wideSource).warnings...)
	return srcs, nil
}

// hasNumber reports whether a sheet has a number cell.
func hasNumber(rows [][]string) bool {
	for _, r := range rows {
		for _, c := range r {
			if c != "" && isValueLike(c) && !markerTexts[c] {
				return true
			}
		}
	}
	return false
}

// wideSheetRows reads a sheet's cells as text, within MaxWideCells, with
// the indentation of the cells indented by leading spaces.
func wideSheetRows(path string, f *excelize.File, sheet string) (rows [][]string, indent map[WidePos]int, tabs map[WidePos]rune, lead map[WidePos]string, err error) {
	it, err := f.Rows(sheet)
	if err != nil {
		return nil, nil, nil, nil, xlsxErr(path, sheet, 0, err)
	}
	defer it.Close()
	cells := 0
	for it.Next() {
		cols, err := it.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, nil, nil, nil, xlsxErr(path, sheet, len(rows)+1, err)
		}
		cells += max(len(cols), 1)
		if cells > MaxWideCells {
			return nil, nil, nil, nil, &Error{File: path, Sheet: sheet, Row: len(rows) + 1, Err: fmt.Errorf("%w: more than %d cells in a wide table", ErrTooLarge, MaxWideCells)}
		}
		for i, c := range cols {
			if n, kind := indentOf(c); n > 0 {
				if indent == nil {
					indent = map[WidePos]int{}
				}
				indent[WidePos{Row: len(rows) + 1, Col: i}] = n
				tabs = tabbed(tabs, WidePos{Row: len(rows) + 1, Col: i}, kind)
				lead = leading(lead, WidePos{Row: len(rows) + 1, Col: i}, c)
			}
			cols[i] = cellText(c)
		}
		rows = append(rows, cols)
	}
	if err := it.Error(); err != nil {
		return nil, nil, nil, nil, xlsxErr(path, sheet, len(rows)+1, err)
	}
	return rows, indent, tabs, lead, nil
}

// maxStyleIndentCells bounds the sheets whose cells' indent styles are
// read (styleIndents loads the sheet whole): larger sheets are read by
// their leading spaces only.
const maxStyleIndentCells = 200_000

// styleIndents reads the indent level of the style of the text cells in
// the leftmost columns of a sheet (where row labels are), when a style of
// the workbook indents: a hierarchy in one column shown by the cells'
// Alignment > Indent rather than by leading spaces. Nil when no style
// indents, or the sheet has more than maxStyleIndentCells cells.
func styleIndents(f *excelize.File, sheet string, rows [][]string) map[WidePos]int {
	indents := false
	for i := 0; i < excelize.MaxCellStyles; i++ {
		st, err := f.GetStyle(i)
		if err != nil {
			break
		}
		if st.Alignment != nil && st.Alignment.Indent > 0 {
			indents = true
			break
		}
	}
	if !indents {
		return nil
	}
	cells := 0
	for _, r := range rows {
		cells += len(r)
	}
	if cells > maxStyleIndentCells {
		return nil
	}
	var out map[WidePos]int
	byStyle := map[int]int{}
	for i, r := range rows {
		for c := 0; c < len(r) && c < 4; c++ {
			if r[c] == "" || isValueLike(r[c]) {
				continue
			}
			name, err := excelize.CoordinatesToCellName(c+1, i+1)
			if err != nil {
				continue
			}
			id, err := f.GetCellStyle(sheet, name)
			if err != nil || id <= 0 {
				continue
			}
			n, ok := byStyle[id]
			if !ok {
				if st, err := f.GetStyle(id); err == nil && st.Alignment != nil {
					n = st.Alignment.Indent
				}
				byStyle[id] = n
			}
			if n > 0 {
				if out == nil {
					out = map[WidePos]int{}
				}
				out[WidePos{Row: i + 1, Col: c}] = n
			}
		}
	}
	return out
}

// indentOf is the indentation of a text cell that has more than white
// space: the number of its leading spaces (no-break spaces count as
// spaces) or tabs, and their kind: ' ' (spaces), '\t' (tabs), or 'm'
// (both lead it: a column with it has no indentation, WideLayout.Indents).
func indentOf(s string) (n int, kind rune) {
	for _, r := range s {
		switch r {
		case ' ', '\u00a0':
			r = ' '
		case '\t':
		default:
			if n == 0 {
				return 0, 0
			}
			return n, kind
		}
		if kind != 0 && kind != r {
			kind = 'm'
		} else if kind == 0 {
			kind = r
		}
		n++
	}
	return 0, 0
}

// leading records the leading white space of a text cell (indentOf
// counted it).
func leading(m map[WidePos]string, at WidePos, s string) map[WidePos]string {
	if m == nil {
		m = map[WidePos]string{}
	}
	m[at] = s[:len(s)-len(strings.TrimLeft(s, " \t\u00a0"))]
	return m
}

// LabelText is a label cell's text as published: its indentation
// (LabelLead) before the text as read.
func (l *WideLayout) LabelText(at WidePos, text string) string {
	if text == "" {
		return text
	}
	return l.LabelLead(at) + text
}

// LabelLead is a label cell's indentation as published: its cell style's
// indent as two spaces a level (StyleIndent), then its leading white
// space (Lead); in a column that mixes both, a style level is as many
// spaces as lead any label of the column, and one more (styleWidth). It
// looks at the whole column: LabelLeads gives every label cell's at once.
func (l *WideLayout) LabelLead(at WidePos) string {
	return l.labelLead(at, l.styleWidth(at.Col))
}

// LabelLeads are the indentations as published (LabelLead) of the label
// cells of the body rows, by position (those with none absent).
func (l *WideLayout) LabelLeads() map[WidePos]string {
	var out map[WidePos]string
	for _, c := range l.Labels {
		w := l.styleWidth(c)
		for _, r := range l.Body {
			at := WidePos{Row: r, Col: c}
			if lead := l.labelLead(at, w); lead != "" {
				if out == nil {
					out = map[WidePos]string{}
				}
				out[at] = lead
			}
		}
	}
	return out
}

func (l *WideLayout) labelLead(at WidePos, w int) string {
	return strings.Repeat(" ", w*l.StyleIndent[at]) + l.Lead[at]
}

// styleWidth is the number of spaces a style indent level of column col
// prints as: 2, or, where a label of the column also leads with spaces
// (Indent), one more than the most of them, so that the safe table's
// labels read back at the levels the reader gave them (StyleIndent
// ranks first: indentLevels, Indents). Review finding: groups led by two
// spaces and their items by a style indent of 1 printed alike, and the
// received safe table put the items beside their groups (a repeat under
// each refused, exit 3).
func (l *WideLayout) styleWidth(col int) int {
	styled, most := false, 0
	for _, r := range l.Body {
		at := WidePos{Row: r, Col: col}
		styled = styled || l.StyleIndent[at] > 0
		most = max(most, min(l.Indent[at], 1023))
	}
	if !styled || most == 0 {
		return 2
	}
	return most + 1
}

// tabbed records the cells indented by tabs or by tabs and spaces.
func tabbed(m map[WidePos]rune, at WidePos, kind rune) map[WidePos]rune {
	if kind == ' ' {
		return m
	}
	if m == nil {
		m = map[WidePos]rune{}
	}
	m[at] = kind
	return m
}

func colName(c int) string {
	n, _ := excelize.ColumnNumberToName(c + 1)
	return n
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// parseWide finds the table in lay.Rows: title rows (one cell, in the
// leftmost column), len(Across) header rows, units rows, body rows with
// len(Dims) label columns, then notes. Anything it cannot place is an
// error naming the row and column and the keys to set.
func parseWide(lay *WideLayout, merges []*merge, w WideOptions) (*wideSource, error) {
	if !w.Detect && w.shape == nil && len(w.Dims) > 0 {
		if src, ok := parseAsDetected(lay, merges, w); ok {
			return src, nil
		}
	}
	if w.Detect {
		if err := detectWide(lay, merges, &w); err != nil {
			return nil, err
		}
	}
	p := &wideParser{lay: lay, w: w, nD: len(w.Dims), nA: len(w.Across), markers: markerSet(w.Markers)}
	if len(w.Stats) > 0 {
		p.nS = 1
	}
	p.nH = p.nS + p.nA
	p.nL = p.nD
	if sh := w.shape; sh != nil {
		p.nL, p.nH = sh.nL, sh.nS+len(sh.groups)
		if sh.sections {
			p.dimOff = 1
		}
	}
	if p.nD == 0 {
		return nil, p.errf(0, -1, "a wide table needs columns.dims (its row dimensions, one label column each)")
	}
	if err := p.headerRows(); err != nil {
		return nil, err
	}
	p.fillMerges(merges)
	if err := p.columns(); err != nil {
		return nil, err
	}
	colKeys, colStat, err := p.columnKeys()
	if err != nil {
		return nil, err
	}
	r, err := p.bodyRows()
	if err != nil {
		return nil, err
	}
	for _, m := range merges {
		if m.r1 <= lay.Body[len(lay.Body)-1] && m.r2 >= p.first && m.c2 >= p.left+p.nL && m.c1 <= p.last {
			return nil, p.errf(m.r1, m.c1, "a merged range %s%d:%s%d in the table's body: every body cell must hold its own value", colName(m.c1), m.r1, colName(m.c2), m.r2)
		}
	}
	if err := p.noteRows(r); err != nil {
		return nil, err
	}
	if w.shape != nil {
		p.aliases()
	}
	w = p.w
	src := &wideSource{layout: lay}
	src.header = append(append(append([]string{}, w.Dims...), w.Across...), w.Value)
	if err := p.qualifyRepeats(); err != nil {
		return nil, err
	}
	if p.nS > 0 {
		return src, wideStats(src, lay, w, colKeys, colStat, p.at, p.rowLabels, msgOf(lay, w))
	}
	for _, br := range lay.Body {
		labels := p.rowLabels(br)
		for j, c := range lay.Columns {
			key := append(append([]string{}, labels...), colKeys[j]...)
			lay.Keys = append(lay.Keys, key)
			lay.Pos = append(lay.Pos, WidePos{Row: br, Col: c})
			src.rows = append(src.rows, append(append([]string{}, key...), p.at(br, c)))
			src.lines = append(src.lines, br)
		}
	}
	src.warnings = append(src.warnings, msgOf(lay, w))
	return src, nil
}

// parseAsDetected reads the table as detection lays it out when the keys
// given are the ones detection finds (DetectWide's keys given back, as the
// pipeline does): titles above a blank row, units rows, spacer columns,
// code-naming columns and carried-down labels are then read the same way
// with the keys set as without them. ok is false, and lay untouched, when
// detection fails or finds other keys.
func parseAsDetected(lay *WideLayout, merges []*merge, w WideOptions) (*wideSource, bool) {
	cp := &WideLayout{File: lay.File, Sheet: lay.Sheet, Format: lay.Format, Delimiter: lay.Delimiter, Indent: lay.Indent, IndentTabs: lay.IndentTabs, StyleIndent: lay.StyleIndent, Lead: lay.Lead}
	cp.Rows = make([][]string, len(lay.Rows))
	for i, r := range lay.Rows {
		cp.Rows[i] = append([]string(nil), r...)
	}
	ms := make([]*merge, len(merges))
	for i, m := range merges {
		c := *m
		ms[i] = &c
	}
	dw := w
	dw.Detect, dw.Dims, dw.Across = true, nil, nil
	src, err := parseWide(cp, ms, dw)
	if err != nil || cp.Detection == nil || !slices.Equal(cp.Detection.Dims, w.Dims) || !slices.Equal(cp.Detection.Across, w.Across) {
		return nil, false
	}
	cp.Detection = nil
	*lay = *cp
	src.layout = lay
	return src, true
}

// wideParser is the state of parseWide as it places the table's parts.
type wideParser struct {
	lay *WideLayout
	w   WideOptions
	// the numbers of row dimensions, column dimensions, statistic header
	// rows (0 or 1) and header rows
	nD, nA, nS, nH int
	// the leftmost column, the first body row and the last body column
	left, first, last int
	// nL is the number of label columns; dimOff is 1 when section rows
	// give an outer row dimension of their own (the first of w.Dims)
	nL, dimOff int
	// section is the section label of each body row (section rows)
	section map[int]string
	markers map[string]bool
	// labels are the row labels of each body row (by row), blank labels
	// carried down, notes set aside; labelCols the columns they come
	// from (the label columns, before aliases are set aside)
	labels    map[int][]string
	labelCols []int
	rowKeys   map[string]int // the first body row of each row-label combination
	// spanned are the cells a merged range covers right of its first
	// column (filled with its value)
	spanned map[WidePos]bool
	// vals are the body's numbers by row (bodyValues), read once when
	// repeated rows are compared
	vals map[int][]*decimal.Dec
}

// errf is an error at row (1-based; 0 for none) and column (0-based; -1
// for none) of the sheet.
func (p *wideParser) errf(row, col int, format string, a ...any) error {
	e := &Error{File: p.lay.File, Sheet: p.lay.Sheet, Row: row, Err: fmt.Errorf(format, a...)}
	if col >= 0 {
		e.Column = colName(col)
	}
	return e
}

// at is the text at row r (1-based) and column c (0-based), "" outside
// the sheet.
func (p *wideParser) at(r, c int) string {
	if r >= 1 && r-1 < len(p.lay.Rows) && c >= 0 && c < len(p.lay.Rows[r-1]) {
		return p.lay.Rows[r-1][c]
	}
	return ""
}

// rowLabels are the row labels of body row r, one per row dimension.
func (p *wideParser) rowLabels(r int) []string {
	all := p.labels[r]
	out := make([]string, 0, len(p.lay.Labels)+1)
	if p.dimOff > 0 {
		out = append(out, p.section[r])
	}
	for i, c := range p.labelCols {
		if slices.Contains(p.lay.Labels, c) {
			out = append(out, all[i])
		}
	}
	return out
}

// headerRows finds the leftmost column, the title rows, the header rows
// and the units rows below them, and sets p.first to the first row below.
func (p *wideParser) headerRows() error {
	lay := p.lay
	if sh := p.w.shape; sh != nil {
		p.left = sh.left
		for r := 1; r < sh.header[0]; r++ {
			if n, _, _ := span(lay.Rows[r-1]); n > 0 {
				lay.Titles = append(lay.Titles, r)
			}
		}
		lay.Header = append([]int(nil), sh.header...)
		lay.Units = append([]int(nil), sh.units...)
		p.first = sh.header[len(sh.header)-1] + 1 + len(sh.units)
		// population notes between the header and the body: read with
		// the titles (the table's description), never as sections
		for _, r := range sh.notes {
			lay.Population = append(lay.Population, r)
			p.first = max(p.first, r+1+len(sh.units))
		}
		if sh.sections {
			p.first = sh.firstSection
		}
		return nil
	}
	p.left = -1
	for _, row := range lay.Rows {
		if _, f, _ := span(row); f >= 0 && (p.left < 0 || f < p.left) {
			p.left = f
		}
	}
	if p.left < 0 {
		return p.errf(0, -1, "%w: the sheet is empty", ErrNoHeader)
	}
	// Titles: blank rows and rows whose only cell is in the leftmost column.
	r := 1
	for ; r <= len(lay.Rows); r++ {
		n, f, _ := span(lay.Rows[r-1])
		if n == 0 {
			continue
		}
		if n == 1 && f == p.left {
			lay.Titles = append(lay.Titles, r)
			continue
		}
		break
	}
	if r+p.nH > len(lay.Rows) {
		return p.errf(r, -1, "%w: no body below %d header row(s) (columns.across has %d dimensions: one header row each)", ErrNoHeader, p.nA, p.nA)
	}
	for k := 0; k < p.nH; k++ {
		lay.Header = append(lay.Header, r+k)
	}
	p.first = r + p.nH
	// units rows under the header: "(thousands)", "£ million", "%"
	for p.first <= len(lay.Rows) && p.unitsRow(p.first) {
		lay.Units = append(lay.Units, p.first)
		p.first++
	}
	// population notes under the header ("Base: all workers" alone on
	// its line): notes of the table, not a body or section row
	for p.first <= len(lay.Rows) {
		n, f, _ := span(lay.Rows[p.first-1])
		if n != 1 || f > p.left+p.nL-1 || !isPopulationNote(lay.Rows[p.first-1][f]) {
			break
		}
		lay.Population = append(lay.Population, p.first)
		p.first++
	}
	return nil
}

// unitsRow reports whether row r states units over the body columns and
// has nothing in the label columns.
func (p *wideParser) unitsRow(r int) bool {
	n := 0
	for c, v := range p.lay.Rows[r-1] {
		if v == "" {
			continue
		}
		if c < p.left+p.nL || !isUnits(v) {
			return false
		}
		n++
	}
	return n > 0
}

// fillMerges fills merged ranges over the header rows and down the label
// columns with their value; a merge over body cells is refused later.
func (p *wideParser) fillMerges(merges []*merge) {
	lay := p.lay
	fill := func(m *merge) {
		for rr := m.r1; rr <= m.r2; rr++ {
			row := lay.Rows[rr-1]
			for len(row) <= m.c2 {
				row = append(row, "")
			}
			for c := m.c1; c <= m.c2; c++ {
				row[c] = m.value
				if c > m.c1 {
					if p.spanned == nil {
						p.spanned = map[WidePos]bool{}
					}
					p.spanned[WidePos{Row: rr, Col: c}] = true
				}
			}
			lay.Rows[rr-1] = row
		}
	}
	for _, m := range merges {
		if m.r2 > len(lay.Rows) {
			continue
		}
		inHeader := m.r1 >= lay.Header[0] && m.r2 <= lay.Header[len(lay.Header)-1]
		inLabels := m.r1 >= p.first && m.c2 < p.left+p.nL
		if inHeader || inLabels {
			m.value = p.at(m.r1, m.c1)
			fill(m)
		}
	}
}

// columns sets the label columns and the body's columns (the header's
// span right of the label columns) and refuses a header row that reads
// as a body row.
func (p *wideParser) columns() error {
	lay, left, nD := p.lay, p.left, p.nL
	p.last = -1
	for _, hr := range lay.Header {
		if _, _, l := span(lay.Rows[hr-1]); l > p.last {
			p.last = l
		}
	}
	if p.last < left+nD {
		return p.errf(lay.Header[0], -1, "no column labels right of the %d row-label column(s) (columns.dims has %d dimensions: one label column each; columns.across one header row each)", nD, nD)
	}
	for c := left; c < left+nD; c++ {
		lay.Labels = append(lay.Labels, c)
	}
	p.labelCols = append([]int(nil), lay.Labels...)
	for c := left + nD; c <= p.last; c++ {
		lay.Columns = append(lay.Columns, c)
	}
	// A header row below the first with a row label of its own is a body
	// row: columns.across names more dimensions than the header has rows.
	// The row dimension's own name there is its header cell.
	for k := 1; k < p.nH; k++ {
		hr := lay.Header[k]
		for i, c := range lay.Labels {
			v := p.at(hr, c)
			if v == "" || v == p.at(hr-1, c) || configs.StripNotes(v) == p.w.Dims[p.dimOff+i] {
				continue
			}
			return p.errf(hr, c, "row %d has a row label (%q) like a body row, but columns.across %v makes it header row %d of %d: set columns.across to the column dimensions, one per header row", hr, v, p.w.Across, k+1, p.nH)
		}
	}
	return nil
}

// columnKeys reads each body column's labels from the header: its
// column-dimension levels and, with columns.statistics, its statistic. A
// column with nothing in the header and nothing below it is a spacer
// between blocks, not a body column.
func (p *wideParser) columnKeys() ([][]string, []string, error) {
	lay, w, nA := p.lay, p.w, p.nA
	var colKeys [][]string
	var colStat []string
	var cols []int
	seen := map[string]int{}
	// a header row's numbers that label no column (headerNumbers: the
	// size of a base above the Total column) are values outside the
	// table, withheld unaudited (Unread): no part of a column's code,
	// which the reports show
	labels, body := map[int]bool{}, map[int]bool{}
	for _, c := range lay.Labels {
		labels[c] = true
	}
	for c := range lay.Aliases {
		labels[c] = true
	}
	for _, c := range lay.Columns {
		if !p.spacer(c) {
			body[c] = true
		}
	}
	value := map[[2]int]bool{}
	for _, hr := range lay.Header {
		for _, c := range headerNumbers(lay.Rows[hr-1], labels, body) {
			value[[2]int{hr, c}] = true
		}
	}
	for _, c := range lay.Columns {
		if p.spacer(c) {
			lay.Spacers = append(lay.Spacers, c)
			continue
		}
		st := ""
		if p.nS > 0 {
			v := p.at(lay.Header[0], c)
			var ok bool
			if st, ok = w.Stats[v]; !ok {
				labels := make([]string, 0, len(w.Stats))
				for l := range w.Stats {
					labels = append(labels, l)
				}
				sort.Strings(labels)
				return nil, nil, p.errf(lay.Header[0], c, "statistic header %q is not one of columns.statistics (%s): every body column needs one of them in the first header row", v, quoteList(labels))
			}
		}
		key := make([]string, nA)
		for k, rows := range p.groups() {
			var parts []string
			for _, hr := range rows {
				v := p.at(hr, c)
				if p.markers[v] {
					return nil, nil, p.errf(hr, c, "header cell %q in header row %d reads as a suppression marker: check columns.across (one header row per column dimension)", v, hr)
				}
				if value[[2]int{hr, c}] {
					continue
				}
				if v = configs.StripNotes(v); v != "" && (len(parts) == 0 || parts[len(parts)-1] != v) {
					parts = append(parts, v)
				}
			}
			v := strings.Join(parts, " ")
			if v == "" && k > 0 && key[k-1] == w.TotalLabel && w.TotalLabel != "" {
				v = w.TotalLabel // a Total spanning the header rows
			}
			if v == "" {
				return nil, nil, p.errf(rows[0], c, "blank header cell: every body column needs a label in each of the %d header row(s) of columns.across %v (header %s; merge a group label over its columns, or fix columns.across / input.range)", nA, w.Across, rowSpan(lay.Header))
			}
			key[k] = v
		}
		ks := st + "\x01" + strings.Join(key, "\x00")
		if q, dup := seen[ks]; dup && !p.isolatedDup(q, len(cols), cols[q], c, colKeys, key) {
			return nil, nil, p.errf(lay.Header[len(lay.Header)-1], c, "duplicate column labels %q (also column %s): the header has more rows than columns.across %v, or several statistics stand side by side (a count block and a total block under one header are not read as one table: put each block, with its row labels, on a sheet of its own; header %s)", strings.Join(key, " / "), colName(cols[q]), w.Across, rowSpan(lay.Header))
		}
		if _, dup := seen[ks]; !dup {
			seen[ks] = len(cols)
		}
		cols = append(cols, c)
		colKeys = append(colKeys, key)
		colStat = append(colStat, st)
	}
	// a label repeated in isolated columns (an "Annual percentage
	// change" right of the median and right of the mean) is told apart
	// by its column
	n := map[string]int{}
	for j, k := range colKeys {
		n[colStat[j]+"\x01"+strings.Join(k, "\x00")]++
	}
	for j, k := range colKeys {
		if n[colStat[j]+"\x01"+strings.Join(k, "\x00")] > 1 {
			k[len(k)-1] += " (column " + colName(cols[j]) + ")"
		}
	}
	lay.Columns = cols
	return colKeys, colStat, nil
}

// isolatedDup reports whether body column j (the next; q an earlier one
// with the same labels key) repeats a label on its own, not as part of a
// repeated block: a detected one-dimension header whose neighbours of q
// and j differ, so that the repeat is a column's name (a change column
// right of each statistic), not several tables side by side. Both
// columns must have a name of their own in the same header rows, the
// first included: a label under a blank cell may belong to a group
// label spanning it from the left ("Men" over "Number", "%"), which
// this reader does not see.
func (p *wideParser) isolatedDup(q, j, cq, cj int, colKeys [][]string, key []string) bool {
	if p.w.shape == nil || len(key) != 1 || p.nS > 0 || q == 0 || j-q < 2 {
		return false
	}
	rows := p.groups()[0]
	if p.at(rows[0], cq) == "" || p.at(rows[0], cj) == "" {
		return false
	}
	for _, hr := range rows {
		if (p.at(hr, cq) == "") != (p.at(hr, cj) == "") {
			return false
		}
	}
	if strings.Join(colKeys[q-1], "\x00") == strings.Join(colKeys[j-1], "\x00") {
		return false
	}
	if q+1 < len(colKeys) && strings.Join(colKeys[q+1], "\x00") == strings.Join(key, "\x00") {
		return false
	}
	return true
}

// groups are the header rows of each column dimension: one row each, or
// as detection joined them (a year row over a quarter row that is blank
// under the annual columns).
func (p *wideParser) groups() [][]int {
	if sh := p.w.shape; sh != nil {
		return sh.groups
	}
	out := make([][]int, 0, p.nA)
	for _, hr := range p.lay.Header[p.nS:] {
		out = append(out, []int{hr})
	}
	return out
}

// spacer reports whether column c is blank in every header row and in
// every row from the first body row to the first blank row.
func (p *wideParser) spacer(c int) bool {
	for _, hr := range p.lay.Header {
		if p.at(hr, c) != "" && !(p.w.shape != nil && p.spanned[WidePos{Row: hr, Col: c}]) {
			return false // a detected header's range merged over it from the left does not label it
		}
	}
	for r := p.first; r <= len(p.lay.Rows); r++ {
		if n, _, _ := span(p.lay.Rows[r-1]); n == 0 {
			break
		}
		if p.at(r, c) != "" {
			return false
		}
	}
	return true
}

// bodyRows sets the body rows: from p.first until a blank row or a row
// with nothing in the body. It returns the row after the body.
func (p *wideParser) bodyRows() (int, error) {
	lay := p.lay
	p.labels, p.rowKeys, p.section = map[int][]string{}, map[string]int{}, map[int]string{}
	sections := p.dimOff > 0
	section := ""
	r := p.first
	for ; r <= len(lay.Rows); r++ {
		row := lay.Rows[r-1]
		if n, _, _ := span(row); n == 0 {
			if sections && p.bodyFollows(r+1) || !sections && p.rowApart(r+1) {
				continue
			}
			break
		}
		if sections {
			if v, ok := p.sectionRow(r); ok {
				if !p.bodyFollows(r + 1) {
					break
				}
				section = v
				lay.Sections = append(lay.Sections, r)
				continue
			}
			p.section[r] = section
		}
		body := 0
		for _, c := range lay.Columns {
			if p.at(r, c) != "" {
				body++
			}
		}
		if body == 0 {
			break
		}
		if _, _, l := span(row); l > p.last && !p.beside(r) {
			return 0, p.errf(r, l, "a value right of the table's last labelled column %s (header %s); label its column in the header or give input.range", colName(p.last), rowSpan(lay.Header))
		}
		if err := p.carry(r); err != nil {
			return 0, err
		}
		lay.Body = append(lay.Body, r)
	}
	if len(lay.Body) == 0 {
		return 0, p.errf(p.first, -1, "%w: no body row below the %d header row(s) of columns.across %v (header %s)", ErrNoHeader, p.nA, p.w.Across, rowSpan(lay.Header))
	}
	return r, nil
}

// beside reports whether what row r holds right of the table's last
// labelled column is text only, past a blank column: a key or legend
// printed beside the body (detected layouts only), listed in Beside.
func (p *wideParser) beside(r int) bool {
	if p.w.shape == nil || p.at(r, p.last+1) != "" {
		return false
	}
	row := p.lay.Rows[r-1]
	var cells []WidePos
	for c := p.last + 1; c < len(row); c++ {
		if v := row[c]; v != "" {
			if isValueLike(v) && !markerTexts[v] || p.markers[v] {
				return false
			}
			cells = append(cells, WidePos{Row: r, Col: c})
		}
	}
	p.lay.Beside = append(p.lay.Beside, cells...)
	return true
}

// sectionRow reports whether row r is a section row: a single label in
// the label columns and nothing else; v is the label.
func (p *wideParser) sectionRow(r int) (string, bool) {
	n, f, _ := span(p.lay.Rows[r-1])
	if n != 1 || f < p.left || f >= p.left+p.nL || isValueLike(p.at(r, f)) {
		return "", false
	}
	return configs.StripNotes(p.at(r, f)), true
}

// bodyFollows reports whether a body row (a label and a value in the body
// columns) follows row r, past blank rows and section rows.
func (p *wideParser) bodyFollows(r int) bool {
	for ; r <= len(p.lay.Rows); r++ {
		if n, _, _ := span(p.lay.Rows[r-1]); n == 0 {
			continue
		}
		if _, ok := p.sectionRow(r); ok {
			continue
		}
		for _, c := range p.lay.Columns {
			if v := p.at(r, c); v != "" && isValueLike(v) {
				return true
			}
		}
		return false
	}
	return false
}

// rowApart reports whether the rows from r on, past blank rows, are body
// rows set apart by blank rows (a row outside the total above it, such as
// Puerto Rico below the United States and its states): at least one, up
// to the next blank row or the first row that is not one (a note), each
// with a text label in every label column, nothing left of them or right
// of the table, and in the body columns only numbers and markers, at
// least one. A header row (text over the body columns) or a note is not;
// a block that repeats the row labels of a body row above (overlapping
// groups, another table) is refused as data below the table.
func (p *wideParser) rowApart(r int) bool {
	for ; r <= len(p.lay.Rows); r++ {
		if n, _, _ := span(p.lay.Rows[r-1]); n > 0 {
			break
		}
	}
	seen := 0
	for ; r <= len(p.lay.Rows); r++ {
		n, f, l := span(p.lay.Rows[r-1])
		if n == 0 || f < p.left || l > p.last {
			return seen > 0
		}
		// a label of its own in every label column (a code column
		// aside): a row that would need a label carried down across the
		// blank (a summary row "Latest three months" under a year and
		// month table) is not a row of this body
		label := len(p.lay.Labels) > 0
		cur := make([]string, len(p.lay.Labels))
		for i, c := range p.lay.Labels {
			v := p.at(r, c)
			if (v == "" || isValueLike(v)) && (p.w.shape == nil || c != p.w.shape.codeCol) {
				label = false
			}
			cur[i] = configs.StripNotes(v)
		}
		values, text := 0, false
		for _, c := range p.lay.Columns {
			if v := p.at(r, c); v != "" {
				if !isValueLike(v) {
					text = true
				}
				values++
			}
		}
		if !label || text || values == 0 {
			return seen > 0
		}
		if _, dup := p.rowKeys["\x01"+strings.Join(cur, "\x00")]; dup {
			return false
		}
		seen++
	}
	return seen > 0
}

// carry sets the labels of body row r. A blank label below a group's
// first row is carried down from the row above when the pattern is
// unambiguous: every label left of it is blank too (the row is inside the
// same groups) and a label right of it is not (the row has a label of its
// own), and the row's labels, once carried, are not another row's.
// Anything else is refused naming the row.
func (p *wideParser) carry(r int) error {
	lay := p.lay
	cur := make([]string, len(lay.Labels))
	for i, c := range lay.Labels {
		cur[i] = configs.StripNotes(p.at(r, c))
	}
	prevRow := 0
	if n := len(lay.Body); n > 0 {
		prevRow = lay.Body[n-1]
	}
	carried := false
	for i, c := range lay.Labels {
		if cur[i] != "" || p.w.shape != nil && c == p.w.shape.codeCol {
			continue // a code column is blank where a row has no code
		}
		outerBlank, innerLabel := true, false
		for j, c2 := range lay.Labels {
			v := p.at(r, c2)
			if j < i && v != "" {
				outerBlank = false
			}
			if j > i && v != "" {
				innerLabel = true
			}
		}
		switch {
		case prevRow == 0:
			return p.errf(r, c, "blank row label in the table's first body row (header %s): every body row needs a label in each of the %d label column(s) of columns.dims %v (fill it, or merge it over the rows it labels)", rowSpan(lay.Header), p.nD, p.w.Dims)
		case !outerBlank || !innerLabel:
			return p.errf(r, c, "blank row label that cannot be carried down from row %d: a label is carried down only when the labels left of it are blank too and the row has a label of its own right of it (fill it, merge it over the rows it labels, or set columns.dims)", prevRow)
		}
		cur[i] = p.labels[prevRow][i]
		lay.Carried = append(lay.Carried, WidePos{Row: r, Col: c})
		carried = true
	}
	key := p.section[r] + "\x01" + strings.Join(cur, "\x00")
	if br, dup := p.rowKeys[key]; dup && carried {
		return p.errf(r, -1, "row %d has the row labels of row %d (%s) once the blank labels are carried down: the block pattern is ambiguous (fill the labels, or set columns.dims)", r, br, strings.Join(cur, " / "))
	}
	if _, dup := p.rowKeys[key]; !dup {
		p.rowKeys[key] = r
	}
	p.labels[r] = cur
	return nil
}

// aliases sets aside label columns that only name another's codes (a
// code column and a name column, or the code repeated): a column whose
// labels are in one-to-one correspondence with those of an earlier label
// column, or with the combinations of all the earlier ones, over the body
// rows. It is not a dimension; the layout lists it in Aliases.
func (p *wideParser) aliases() {
	lay := p.lay
	if len(lay.Labels) < 2 && p.dimOff == 0 {
		return
	}
	sparse := false // a code column: its blank cells are rows without a code
	oneToOne := func(a, b func(r int) string) bool {
		ab, ba := map[string]string{}, map[string]string{}
		for _, r := range lay.Body {
			x, y := a(r), b(r)
			if sparse && x == "" {
				continue
			}
			if v, ok := ab[x]; ok && v != y {
				return false
			}
			if v, ok := ba[y]; ok && v != x {
				return false
			}
			ab[x], ba[y] = y, x
		}
		return true
	}
	keep := []int{0}
	for i := 1; i < len(lay.Labels); i++ {
		col := func(r int) string { return p.labels[r][i] }
		sparse = p.w.shape != nil && lay.Labels[i] == p.w.shape.codeCol
		alias := -1
		for _, j := range keep {
			if oneToOne(col, func(r int) string { return p.labels[r][j] }) {
				alias = j
				break
			}
		}
		if alias < 0 && (len(keep) > 1 || p.dimOff > 0) {
			ks := append([]int(nil), keep...)
			tuple := func(r int) string {
				var b strings.Builder
				b.WriteString(p.section[r])
				b.WriteByte(1)
				for _, j := range ks {
					b.WriteString(p.labels[r][j])
					b.WriteByte(0)
				}
				return b.String()
			}
			if oneToOne(col, tuple) {
				alias = ks[len(ks)-1]
			}
		}
		if alias >= 0 {
			if lay.Aliases == nil {
				lay.Aliases = map[int]int{}
			}
			lay.Aliases[lay.Labels[i]] = lay.Labels[alias]
			continue
		}
		keep = append(keep, i)
	}
	if len(keep) == len(lay.Labels) {
		return
	}
	dims := append([]string(nil), p.w.Dims[:p.dimOff]...)
	var cols []int
	for _, i := range keep {
		dims = append(dims, p.w.Dims[p.dimOff+i])
		cols = append(cols, lay.Labels[i])
	}
	var set []string
	for _, c := range lay.Labels {
		if a, ok := lay.Aliases[c]; ok {
			set = append(set, fmt.Sprintf("%s (%s) names the codes of %s", colName(c), p.w.Dims[p.dimOff+slices.Index(lay.Labels, c)], colName(a)))
		}
	}
	p.w.Dims = dims
	lay.Labels = cols
	p.nD = len(dims)
	if d := lay.Detection; d != nil {
		d.Note = strings.Replace(d.Note, "columns.dims ["+strings.Join(d.Dims, ", ")+"]", "columns.dims ["+strings.Join(dims, ", ")+"]", 1)
		d.Dims = dims
		d.Note += "; not dimensions: " + strings.Join(set, ", ")
	}
}

// noteRows sets the rows from endRow (the row after the body) on as
// notes, refusing one that holds data.
func (p *wideParser) noteRows(endRow int) error {
	lay := p.lay
	for r := endRow; r <= len(lay.Rows); r++ {
		row := lay.Rows[r-1]
		if n, _, _ := span(row); n == 0 {
			continue
		}
		values := 0
		for _, c := range lay.Columns {
			if v := p.at(r, c); v != "" && isValueLike(v) {
				values++
			}
		}
		if values >= 2 {
			return p.errf(r, -1, "%w: row %d below the end of the table (row %d) holds data; remove the blank or note rows above it or give input.range", ErrFieldCount, r, endRow)
		}
		lay.Notes = append(lay.Notes, r)
	}
	return nil
}

// msgOf says where the table was found, for the report.
func msgOf(lay *WideLayout, w WideOptions) string {
	where := ""
	if lay.Sheet != "" {
		where = fmt.Sprintf("sheet %q: ", lay.Sheet)
	}
	msg := fmt.Sprintf("%swide layout: header %s (%s across), row labels in %s (%s), body %s x %s",
		where, rowSpan(lay.Header), strings.Join(w.Across, ", "), colSpan(lay.Labels), strings.Join(w.Dims, ", "), rowSpan(lay.Body), colSpan(lay.Columns))
	if len(lay.Titles) > 0 {
		msg += ", titles " + rowSpan(lay.Titles)
	}
	if len(lay.Notes) > 0 {
		msg += ", notes " + rowSpan(lay.Notes)
	}
	for _, r := range lay.Population {
		_, f, _ := span(lay.Rows[r-1])
		msg += fmt.Sprintf(", population note row %d (%q) read as a note of the table", r, lay.Rows[r-1][f])
	}
	if len(w.Stats) > 0 {
		msg += fmt.Sprintf(", statistics in row %d", lay.Header[0])
	}
	if len(lay.Units) > 0 {
		msg += fmt.Sprintf(", units %s (%s) folded into the columns' description", rowSpan(lay.Units), quoteList(unitTexts(lay)))
	}
	if len(lay.Spacers) > 0 {
		msg += ", empty " + colList(lay.Spacers) + " between blocks skipped"
	}
	if len(lay.Aliases) > 0 {
		var cols []int
		for c := range lay.Aliases {
			cols = append(cols, c)
		}
		sort.Ints(cols)
		msg += ", " + colList(cols) + " naming codes (not dimensions)"
	}
	if len(lay.Sections) > 0 {
		msg += fmt.Sprintf(", section rows %s (an outer row dimension)", strings.Trim(fmt.Sprint(lay.Sections), "[]"))
	}
	if n := len(lay.Beside); n > 0 {
		msg += fmt.Sprintf(", %d text cell(s) beside the body not read (a key or legend: %s%d-%s%d)", n, colName(lay.Beside[0].Col), lay.Beside[0].Row, colName(lay.Beside[n-1].Col), lay.Beside[n-1].Row)
	}
	if n := len(lay.Carried); n > 0 {
		msg += fmt.Sprintf(", %d blank row label(s) carried down from the group's first row (first %s%d)", n, colName(lay.Carried[0].Col), lay.Carried[0].Row)
	}
	if n := len(lay.Qualified); n > 0 {
		q := lay.Qualified[0]
		by := "the row they are indented under"
		if lay.QualifiedBy == "arithmetic" {
			by = "the row whose block of rows they are in by arithmetic"
		}
		msg += fmt.Sprintf(", %d repeated row label(s) named by %s (first %s%d, %q)", n, by, colName(q.Col), q.Row, lay.Rows[q.Row-1][q.Col])
	}
	if n := len(lay.Repeated); n > 0 {
		r := lay.Repeated[0]
		msg += fmt.Sprintf(", %d row(s) repeating the labels and values of an earlier row, read as the same row printed twice (first: row %d repeats row %d)", n, r.Row, r.Of)
	}
	return msg
}

// colList names columns: "column F" or "columns F, H".
func colList(cols []int) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = colName(c)
	}
	if len(names) == 1 {
		return "column " + names[0]
	}
	return "columns " + strings.Join(names, ", ")
}

// unitTexts are the distinct texts of the units rows, at most a few.
func unitTexts(lay *WideLayout) []string {
	var out []string
	for _, r := range lay.Units {
		for _, v := range lay.Rows[r-1] {
			if v != "" && !slices.Contains(out, v) && len(out) < 4 {
				out = append(out, v)
			}
		}
	}
	return out
}

// WideRepeat is a body row (Row) that repeats the labels and values of an
// earlier one (Of), its key set apart in label column Col.
type WideRepeat struct{ Row, Of, Col int }

// Repeats are, per dimension (its index in the long table's key), the
// code of each repeated row (WideLayout.Repeated) and the code of the row
// it repeats: one margin published twice. Nil when no row repeats.
func (l *WideLayout) Repeats() map[int]map[string]string {
	if len(l.Repeated) == 0 {
		return nil
	}
	keyOf := map[int][]string{} // a sheet row -> its first cell's key
	for k := len(l.Pos) - 1; k >= 0; k-- {
		keyOf[l.Pos[k].Row] = l.Keys[k]
	}
	out := map[int]map[string]string{}
	for _, r := range l.Repeated {
		d := slices.Index(l.Labels, r.Col)
		a, b := keyOf[r.Row], keyOf[r.Of]
		if d < 0 || d >= len(a) || d >= len(b) {
			continue
		}
		if out[d] == nil {
			out[d] = map[string]string{}
		}
		out[d][a[d]] = b[d]
	}
	return out
}

// Uncoded are, per label column a code column names (Aliases), the row
// labels of the body rows whose code cell is blank while other rows have
// a code: in a hierarchy printed in one column with codes for its lowest
// level only (constituencies E14000554 ..., their regions and countries
// without one), the rows above the coded level. Keyed by the index of the
// named column's dimension in the long table's key; nil when no code
// column has both blank and coded rows.
func (l *WideLayout) Uncoded() map[int][]string {
	var out map[int][]string
	off := 0
	if len(l.Sections) > 0 {
		off = 1
	}
	for ac, a := range l.Aliases {
		i := slices.Index(l.Labels, a)
		if i < 0 {
			continue
		}
		var blank []string
		coded := false
		seen := map[string]bool{}
		for k, p := range l.Pos {
			if k > 0 && l.Pos[k-1].Row == p.Row {
				continue
			}
			row := l.Rows[p.Row-1]
			v := ""
			if ac < len(row) {
				v = strings.TrimSpace(row[ac])
			}
			if v != "" {
				coded = true
				continue
			}
			if lab := l.Keys[k][off+i]; !seen[lab] {
				seen[lab] = true
				blank = append(blank, lab)
			}
		}
		if coded && len(blank) > 0 {
			if out == nil {
				out = map[int][]string{}
			}
			out[off+i] = blank
		}
	}
	return out
}

// Indents are, per row label column, the levels of indentation of its
// labels in the body rows (a hierarchy in one column shown by
// indentation: leading spaces, and in a workbook the cell's indent
// style, StyleIndent, which ranks first): keyed by the index of the
// column's dimension in the long table's key, then by label; labels not
// indented are absent. A column none of whose body labels is indented,
// or where one label stands at two levels, has none.
func (l *WideLayout) Indents() map[int]map[string]int {
	if len(l.Indent) == 0 && len(l.StyleIndent) == 0 {
		return nil
	}
	off := 0
	if len(l.Sections) > 0 {
		off = 1
	}
	var out map[int]map[string]int
	for i, col := range l.Labels {
		levels := map[string]int{}
		indented, clash := false, false
		kinds := map[rune]bool{}
		for k, p := range l.Pos {
			if k > 0 && l.Pos[k-1].Row == p.Row || off+i >= len(l.Keys[k]) {
				continue
			}
			at := WidePos{Row: p.Row, Col: col}
			if l.Indent[at] > 0 {
				kind := ' '
				if t, ok := l.IndentTabs[at]; ok {
					kind = t
				}
				// tabs and spaces mixed: their levels cannot be compared
				// (review finding: a leading tab read as no indentation
				// left a tab-indented block with no parent)
				if kinds[kind] = true; kind == 'm' || len(kinds) > 1 {
					clash = true
					break
				}
			}
			lv := l.StyleIndent[at]*1024 + min(l.Indent[at], 1023)
			lab := l.Keys[k][off+i]
			if was, ok := levels[lab]; ok && was != lv {
				clash = true
				break
			}
			levels[lab] = lv
			indented = indented || lv > 0
		}
		if clash || !indented {
			continue
		}
		for lab, lv := range levels {
			if lv == 0 {
				delete(levels, lab)
			}
		}
		if out == nil {
			out = map[int]map[string]int{}
		}
		out[off+i] = levels
	}
	return out
}

// UnitsOf is the units a units row under the header states for body
// column c ("" when none): the cell of the column, else the row's only
// cell when it stands alone over the whole table.
func (l *WideLayout) UnitsOf(c int) string {
	var parts []string
	for _, r := range l.Units {
		row := l.Rows[r-1]
		v := ""
		if c < len(row) {
			v = row[c]
		}
		if n, f, _ := span(row); v == "" && n == 1 {
			v = row[f]
		}
		if v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

// wideStats lays out long a wide table with several statistics side by
// side: one long row per body row and column labels, with one column per
// statistic. Every statistic block must have the same column labels.
func wideStats(src *wideSource, lay *WideLayout, w WideOptions, colKeys [][]string, colStat []string, at func(r, c int) string, rowLabels func(r int) []string, msg string) error {
	used := map[string]bool{}
	for _, st := range colStat {
		used[st] = true
	}
	var roles []string
	for _, st := range statOrder {
		if used[st] {
			roles = append(roles, st)
		}
	}
	src.header = append(append(append([]string{}, w.Dims...), w.Across...), roles...)
	roleIdx := map[string]int{}
	for i, st := range roles {
		roleIdx[st] = i
	}
	// the column of each (column labels, statistic)
	var keys []string
	cols := map[string][]int{}
	for j := range lay.Columns {
		ks := strings.Join(colKeys[j], "\x00")
		if _, ok := cols[ks]; !ok {
			keys = append(keys, ks)
			cols[ks] = make([]int, len(roles))
			for i := range cols[ks] {
				cols[ks][i] = -1
			}
		}
		cols[ks][roleIdx[colStat[j]]] = j
	}
	for _, ks := range keys {
		for i, j := range cols[ks] {
			if j < 0 {
				return &Error{File: lay.File, Sheet: lay.Sheet, Row: lay.Header[len(lay.Header)-1], Err: fmt.Errorf("the %s block has no column %q that the other statistics have: every statistic block needs the same column labels", roles[i], strings.ReplaceAll(ks, "\x00", " / "))}
			}
		}
	}
	for _, br := range lay.Body {
		labels := rowLabels(br)
		for _, ks := range keys {
			key := append(append([]string{}, labels...), strings.Split(ks, "\x00")...)
			row := append([]string{}, key...)
			for _, j := range cols[ks] {
				c := lay.Columns[j]
				lay.Keys = append(lay.Keys, key)
				lay.Pos = append(lay.Pos, WidePos{Row: br, Col: c})
				row = append(row, at(br, c))
			}
			src.rows = append(src.rows, row)
			src.lines = append(src.lines, br)
		}
	}
	src.warnings = append(src.warnings, msg)
	return nil
}

func rowSpan(rows []int) string {
	if len(rows) == 1 {
		return fmt.Sprintf("row %d", rows[0])
	}
	return fmt.Sprintf("rows %d-%d", rows[0], rows[len(rows)-1])
}

func colSpan(cols []int) string {
	if len(cols) == 1 {
		return "column " + colName(cols[0])
	}
	return "columns " + colName(cols[0]) + "-" + colName(cols[len(cols)-1])
}

// Locate returns the column letter of the first body cell of a row that
// holds text, for messages about a value (the long table has one value
// column); "" when none does.
func (l *WideLayout) Locate(row int, text string) string {
	for _, p := range l.Pos {
		if p.Row == row && strings.TrimSpace(l.Rows[row-1][p.Col]) == text {
			return colName(p.Col)
		}
	}
	return ""
}

// cropRange blanks every cell outside a range such as "A5:H40" (input.range):
// the table is looked for inside it, at its place in the sheet.
func cropRange(lay *WideLayout, rng string) error {
	if rng == "" {
		return nil
	}
	parts := strings.Split(strings.ToUpper(strings.TrimSpace(rng)), ":")
	bad := &Error{File: lay.File, Sheet: lay.Sheet, Err: fmt.Errorf("range %q: want the form A5:H40 with the top-left cell first", rng)}
	if len(parts) != 2 {
		return bad
	}
	c1, r1, err1 := excelize.CellNameToCoordinates(parts[0])
	c2, r2, err2 := excelize.CellNameToCoordinates(parts[1])
	if err1 != nil || err2 != nil || c2 < c1 || r2 < r1 {
		return bad
	}
	for i, row := range lay.Rows {
		for c := range row {
			if i+1 < r1 || i+1 > r2 || c+1 < c1 || c+1 > c2 {
				row[c] = ""
			}
		}
	}
	return nil
}
