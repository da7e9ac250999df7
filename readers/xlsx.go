package readers

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Excel workbooks (.xlsx, .xlsm) are read sheet by sheet with a streaming
// row iterator, so that large sheets are never held in memory as cells.
//
// Sheets: Options.Sheet picks one by name or 1-based position; "" is the
// first visible sheet; "*" gives one Source per visible sheet, named
// FILE_SHEET, and lists the hidden sheets and the cover, contents and
// notes sheets (by name: "Cover sheet", "Contents", "Notes", "Index", ...)
// it skipped in Warnings. A crosstab read with "*" also skips a sheet
// that holds no number at all (a cover or notes sheet by another name).
//
// Layout: tables laid out for people are found without a range. Title lines
// above the table are skipped: the header is the first row whose non-empty
// cells are mostly text, which has at least half as many filled cells as the
// widest row near the top, and which is followed by a row of data in the
// same columns. A header of two rows is recognised when the first row has
// merged (or gap-separated) group titles over the second; the column names
// are then "Group Name". Merged cells are filled with their top-left value
// everywhere, so a dimension label merged down several rows repeats on each.
// The table ends at the first blank row, or at a row that has text only in
// its first column or only outside the table's columns (footnotes such as
// "c = confidential"). Rows below that are ignored and noted in Warnings;
// a row below that looks like data (more than half the columns filled) is
// an error, since silently dropping it would leave cells unchecked.
// Options.Range ("A5:H40") instead takes the header from the first row of
// the range and every non-blank row after it, within the range's columns.
//
// Values: number cells give their stored value in plain decimal notation
// (1234.5, not the displayed "1,234.50" or "1.23E+03"; a percentage cell
// gives 0.125 for 12.5%); formulas give their cached values; text cells
// give their text trimmed, except that a number with a percent sign stored
// as text ("12.5%") becomes the number (0.125). Thousands separators in
// numbers stored as text ("1,234") are left to the table builder, which
// reads them. Suppression markers ("c", "x", "..", ...) are text. Dates are
// serial numbers. Errors (#DIV/0!) are text and fail as numbers.
//
// Limits: a workbook whose parts unzip to more than
// Options.MaxXLSXUnzipSize bytes in total (default
// DefaultMaxXLSXUnzipSize) is refused with ErrTooLarge (a zip bomb);
// worksheets larger than MaxXLSXInMemory bytes are unpacked to a
// temporary file instead of memory.
// A corrupt workbook is ErrCorrupt, never a panic.

func init() {
	RegisterFormat("xlsx", OpenXLSX, ".xlsx", ".xlsm")
}

// Size limits of workbooks, in bytes of unzipped XML: the default of
// Options.MaxXLSXUnzipSize, and the size above which a worksheet is
// unpacked to a temporary file.
const (
	DefaultMaxXLSXUnzipSize int64 = 2 << 30
	MaxXLSXInMemory         int64 = 16 << 20
)

// Warner is implemented by sources with remarks for the checker's report,
// such as hidden sheets that were skipped or footnote rows that were
// ignored. The remarks are complete after Next has returned io.EOF.
type Warner interface {
	Warnings() []string
}

// workbook is an open workbook shared by the sources of its sheets.
type workbook struct {
	path   string
	f      *excelize.File
	zr     *zip.Reader
	zc     io.Closer
	paths  map[string]string // sheet name -> part name in the zip
	refs   int
	closed bool
}

func (w *workbook) release() error {
	w.refs--
	if w.refs > 0 || w.closed {
		return nil
	}
	w.closed = true
	err := w.f.Close()
	if w.zc != nil {
		w.zc.Close()
	}
	return err
}

// OpenXLSX opens the chosen sheets of a workbook.
func OpenXLSX(path string, opt Options) (srcs []Source, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, &Error{File: path, Err: err}
	}
	srcs, err = openXLSX(path, fh, fi.Size(), opt)
	if err != nil {
		fh.Close()
		return nil, err
	}
	wb := srcs[0].(*xlsxSource).wb
	wb.zc = fh
	return srcs, nil
}

// NewXLSX reads a workbook held in memory (for tests and fuzzing); path is
// used in messages and for the table names.
func NewXLSX(path string, data []byte, opt Options) ([]Source, error) {
	return openXLSX(path, bytes.NewReader(data), int64(len(data)), opt)
}

func openXLSX(path string, r io.ReaderAt, size int64, opt Options) (srcs []Source, err error) {
	defer recoverCorrupt(path, "", 0, &err)
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, &Error{File: path, Err: fmt.Errorf("%w: not an xlsx workbook (%v)", ErrCorrupt, err)}
	}
	var total uint64
	for _, zf := range zr.File {
		total += zf.UncompressedSize64
	}
	unzip := opt.maxXLSXUnzipSize()
	if total > uint64(unzip) {
		return nil, &Error{File: path, Err: fmt.Errorf("%w: the workbook unzips to %d bytes, more than the limit of %d (a zip bomb?)", ErrTooLarge, total, unzip)}
	}
	f, err := excelize.OpenReader(io.NewSectionReader(r, 0, size), excelize.Options{
		RawCellValue:      true,
		UnzipSizeLimit:    unzip,
		UnzipXMLSizeLimit: min(MaxXLSXInMemory, unzip),
	})
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, xlsxErr(path, "", 0, err)
	}
	wb := &workbook{path: path, f: f, zr: zr}
	defer func() {
		if err != nil && wb.refs == 0 && !wb.closed {
			f.Close()
		}
	}()
	wb.paths, err = sheetParts(zr)
	if err != nil {
		return nil, &Error{File: path, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	chosen, warnings, err := chooseSheets(path, f, opt.Sheet)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	for i, sh := range chosen {
		name := base
		if len(chosen) > 1 {
			name = base + "_" + sheetSlug(sh)
		}
		s, err := newXLSXSheet(wb, sh, name, opt)
		if err != nil {
			for _, o := range srcs {
				o.Close()
			}
			return nil, err
		}
		if i == 0 {
			s.warnings = append(warnings, s.warnings...)
		}
		srcs = append(srcs, s)
	}
	return srcs, nil
}

// chooseSheets returns the sheets a selection names ("*" every visible
// sheet, "" the first visible one, else a name or 1-based index), with
// warnings about hidden sheets; an error when none is chosen.
func chooseSheets(path string, f *excelize.File, sheet string) (chosen, warnings []string, err error) {
	all := f.GetSheetList()
	var visible, hidden []string
	for _, s := range all {
		if v, err := f.GetSheetVisible(s); err == nil && !v {
			hidden = append(hidden, s)
		} else {
			visible = append(visible, s)
		}
	}
	switch sel := strings.TrimSpace(sheet); {
	case sel == "*":
		var skipped []string
		for _, s := range visible {
			if isSkipSheet(s) {
				skipped = append(skipped, s)
			} else {
				chosen = append(chosen, s)
			}
		}
		if len(chosen) == 0 {
			return nil, nil, &Error{File: path, Err: fmt.Errorf("%w: every visible sheet is a cover, contents or notes sheet (%s): give input.sheet (--sheet) by name", ErrNoHeader, quoteList(skipped))}
		}
		if len(skipped) > 0 {
			warnings = append(warnings, fmt.Sprintf("cover, contents and notes sheets not read: %s", quoteList(skipped)))
		}
		if len(hidden) > 0 {
			warnings = append(warnings, fmt.Sprintf("hidden sheets not read: %s", quoteList(hidden)))
		}
	case sel == "":
		if len(visible) > 0 {
			chosen = visible[:1]
		}
	default:
		for _, s := range all {
			if s == sel {
				chosen = []string{s}
			}
		}
		if chosen == nil {
			for _, s := range all {
				if strings.EqualFold(s, sel) {
					chosen = []string{s}
				}
			}
		}
		if n, err := strconv.Atoi(sel); chosen == nil && err == nil {
			if n < 1 || n > len(all) {
				return nil, nil, &Error{File: path, Sheet: sel, Err: fmt.Errorf("%w: sheet %d of a workbook with %d sheets (%s)", ErrSheet, n, len(all), quoteList(all))}
			}
			chosen = []string{all[n-1]}
		}
		if chosen == nil {
			return nil, nil, &Error{File: path, Sheet: sel, Err: fmt.Errorf("%w (the workbook has %s)", ErrSheet, quoteList(all))}
		}
		for _, h := range hidden {
			if h == chosen[0] {
				warnings = append(warnings, fmt.Sprintf("sheet %q is hidden", h))
			}
		}
	}
	if len(chosen) == 0 {
		return nil, nil, &Error{File: path, Err: fmt.Errorf("%w: the workbook has no visible sheet", ErrNoHeader)}
	}
	return chosen, warnings, nil
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

var slugRe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func sheetSlug(s string) string {
	s = strings.Trim(slugRe.ReplaceAllString(s, "_"), "_")
	if s == "" {
		return "sheet"
	}
	return s
}

func xlsxErr(path, sheet string, row int, err error) error {
	var re *Error
	if errors.As(err, &re) {
		return err
	}
	if strings.Contains(err.Error(), "unzip size exceeds") || errors.Is(err, excelize.ErrOptionsUnzipSizeLimit) {
		return &Error{File: path, Sheet: sheet, Row: row, Err: fmt.Errorf("%w: %v (a zip bomb?)", ErrTooLarge, err)}
	}
	return &Error{File: path, Sheet: sheet, Row: row, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
}

// sheetParts maps sheet names to their worksheet parts using the
// workbook and its relationships.
func sheetParts(zr *zip.Reader) (map[string]string, error) {
	var wbx struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := readZipXML(zr, "xl/workbook.xml", &wbx); err != nil {
		return nil, err
	}
	if err := readZipXML(zr, "xl/_rels/workbook.xml.rels", &rels); err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, r := range rels.Rel {
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join("xl", t)
		}
		targets[r.ID] = t
	}
	out := map[string]string{}
	for _, s := range wbx.Sheets {
		out[s.Name] = targets[s.RID]
	}
	return out, nil
}

func findZip(zr *zip.Reader, name string) *zip.File {
	for _, f := range zr.File {
		if strings.EqualFold(strings.ReplaceAll(f.Name, "\\", "/"), name) {
			return f
		}
	}
	return nil
}

func readZipXML(zr *zip.Reader, name string, v any) error {
	f := findZip(zr, name)
	if f == nil {
		return fmt.Errorf("no %s in the workbook", name)
	}
	if f.UncompressedSize64 > uint64(MaxXLSXInMemory) {
		return fmt.Errorf("%s is larger than %d bytes", name, MaxXLSXInMemory)
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return xml.NewDecoder(rc).Decode(v)
}

// merge is a merged cell range, 0-based columns and 1-based rows.
type merge struct {
	r1, r2, c1, c2 int
	value          string
}

// sheetMerges scans a worksheet part for merged ranges without parsing its
// cells (they follow the sheet data, so the whole part is streamed).
func sheetMerges(zr *zip.Reader, part string) ([]*merge, error) {
	f := findZip(zr, part)
	if f == nil {
		return nil, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	var out []*merge
	needle := []byte("mergeCell ")
	var carry []byte
	buf := make([]byte, 1<<16)
	for {
		n, err := br.Read(buf)
		data := append(carry, buf[:n]...)
		for {
			i := bytes.Index(data, needle)
			if i < 0 {
				break
			}
			end := bytes.IndexByte(data[i:], '>')
			if end < 0 {
				break // complete the tag with the next chunk
			}
			tag := data[i : i+end]
			data = data[i+end:]
			j := bytes.Index(tag, []byte(`ref="`))
			if j < 0 {
				continue
			}
			ref := tag[j+5:]
			if k := bytes.IndexByte(ref, '"'); k >= 0 {
				ref = ref[:k]
			}
			parts := strings.Split(string(ref), ":")
			if len(parts) != 2 {
				continue
			}
			c1, r1, e1 := excelize.CellNameToCoordinates(parts[0])
			c2, r2, e2 := excelize.CellNameToCoordinates(parts[1])
			if e1 != nil || e2 != nil {
				continue
			}
			if r2 < r1 {
				r1, r2 = r2, r1
			}
			if c2 < c1 {
				c1, c2 = c2, c1
			}
			out = append(out, &merge{r1: r1, r2: r2, c1: c1 - 1, c2: c2 - 1})
			if len(out) > 1_000_000 {
				return nil, fmt.Errorf("more than a million merged ranges")
			}
		}
		keep := min(len(data), 512)
		carry = append(carry[:0:0], data[len(data)-keep:]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].r1 < out[j].r1 })
	return out, nil
}

// sheetRow is one row of a sheet with its 1-based row number.
type sheetRow struct {
	num   int
	cells []string
}

type xlsxSource struct {
	wb       *workbook
	sheet    string
	name     string
	rows     *excelize.Rows
	rowNum   int
	batch    int
	header   []string
	first    int // first column of the table (0-based)
	width    int
	lastRow  int // last row of an explicit range (0: none)
	explicit bool

	merges  []*merge // sorted by r1
	mi      int
	active  []*merge
	pending []sheetRow
	done    bool
	drained bool
	endRow  int // the row that ended the table
	// headerRow is the sheet row of the (first) header row.
	headerRow int

	warnings []string
}

func (s *xlsxSource) Name() string            { return s.name }
func (s *xlsxSource) Where() (string, string) { return s.wb.path, s.sheet }
func (s *xlsxSource) Header() []string        { return s.header }

// Warnings implements Warner.
func (s *xlsxSource) Warnings() []string { return s.warnings }

// HeaderRow implements HeaderRower.
func (s *xlsxSource) HeaderRow() int { return s.headerRow }

func (s *xlsxSource) Close() error {
	if s.rows == nil && s.wb == nil {
		return nil
	}
	if s.rows != nil {
		s.rows.Close()
		s.rows = nil
	}
	wb := s.wb
	s.wb = &workbook{path: wb.path, closed: true, refs: 1}
	return wb.release()
}

func (s *xlsxSource) errf(row int, col string, err error) *Error {
	return &Error{File: s.wb.path, Sheet: s.sheet, Row: row, Column: col, Err: err}
}

func newXLSXSheet(wb *workbook, sheet, name string, opt Options) (src *xlsxSource, err error) {
	s := &xlsxSource{wb: wb, sheet: sheet, name: name, batch: opt.batchSize()}
	defer recoverCorrupt(wb.path, sheet, 0, &err)
	wb.refs++
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if part := wb.paths[sheet]; part != "" {
		ms, err := sheetMerges(wb.zr, part)
		if err != nil {
			return nil, s.errf(0, "", fmt.Errorf("%w: %v", ErrCorrupt, err))
		}
		s.merges = ms
	}
	rows, err := wb.f.Rows(sheet)
	if err != nil {
		return nil, xlsxErr(wb.path, sheet, 0, err)
	}
	s.rows = rows
	if opt.Range != "" {
		return s, s.useRange(opt.Range)
	}
	return s, s.findHeader()
}

// readRow returns the next row with merged spans filled, or nil at the end.
func (s *xlsxSource) readRow() (*sheetRow, error) {
	if s.rows == nil || !s.rows.Next() {
		if s.rows != nil {
			if err := s.rows.Error(); err != nil {
				return nil, xlsxErr(s.wb.path, s.sheet, s.rowNum+1, err)
			}
		}
		return nil, nil
	}
	s.rowNum++
	cells, err := s.rows.Columns(excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, xlsxErr(s.wb.path, s.sheet, s.rowNum, err)
	}
	for i, c := range cells {
		cells[i] = cellText(c)
	}
	r := &sheetRow{num: s.rowNum, cells: cells}
	s.fillMerges(r)
	return r, nil
}

// fillMerges copies the top-left value of every merged range over the
// range's other cells in row r.
func (s *xlsxSource) fillMerges(r *sheetRow) {
	for s.mi < len(s.merges) && s.merges[s.mi].r1 <= r.num {
		m := s.merges[s.mi]
		s.mi++
		if m.r2 < r.num {
			continue
		}
		if m.r1 == r.num && m.c1 < len(r.cells) {
			m.value = r.cells[m.c1]
		}
		s.active = append(s.active, m)
	}
	if len(s.active) == 0 {
		return
	}
	keep := s.active[:0]
	for _, m := range s.active {
		if m.r2 < r.num {
			continue
		}
		keep = append(keep, m)
		if m.value == "" || m.c2-m.c1 > 16384 {
			continue
		}
		for len(r.cells) <= m.c2 {
			r.cells = append(r.cells, "")
		}
		for c := m.c1; c <= m.c2; c++ {
			r.cells[c] = m.value
		}
	}
	s.active = keep
}

func (s *xlsxSource) hasHorizontalMerge(row int) bool {
	for _, m := range s.merges {
		if m.r1 > row {
			break
		}
		if m.r1 <= row && row <= m.r2 && m.c2 > m.c1 && m.r1 == row {
			return true
		}
	}
	return false
}

// cellText normalises a raw cell value: trimmed text, stored numbers in
// plain decimal notation, percentages stored as text as numbers.
func cellText(c string) string {
	c = strings.TrimSpace(strings.Trim(c, "\u00a0"))
	if c == "" {
		return c
	}
	if strings.ContainsAny(c, "eE") || (strings.Contains(c, ".") && sigDigits(c) > 15) {
		if plainFloat.MatchString(c) {
			if v, err := strconv.ParseFloat(c, 64); err == nil && !math.IsInf(v, 0) {
				return strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		return c
	}
	if strings.HasSuffix(c, "%") {
		if p, ok := percentText(strings.TrimSpace(strings.TrimSuffix(c, "%"))); ok {
			return p
		}
	}
	return c
}

var plainFloat = regexp.MustCompile(`^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)
var decimalRe = regexp.MustCompile(`^([-+]?)(\d*)(?:\.(\d*))?$`)

func sigDigits(s string) int {
	n := 0
	lead := true
	for _, r := range s {
		if r >= '1' && r <= '9' || (r == '0' && !lead) {
			n++
			lead = false
		}
	}
	return n
}

// percentText divides a decimal text by 100 exactly: "12.5" -> "0.125".
func percentText(s string) (string, bool) {
	m := decimalRe.FindStringSubmatch(s)
	if m == nil || m[2]+m[3] == "" {
		return "", false
	}
	sign, ip, fp := m[1], m[2], m[3]
	if sign == "+" {
		sign = ""
	}
	for len(ip) < 3 {
		ip = "0" + ip
	}
	fp = ip[len(ip)-2:] + fp
	ip = strings.TrimLeft(ip[:len(ip)-2], "0")
	if ip == "" {
		ip = "0"
	}
	fp = strings.TrimRight(fp, "0")
	out := sign + ip
	if fp != "" {
		out += "." + fp
	}
	if out == "-0" {
		out = "0"
	}
	return out, true
}

// markerTexts are the default suppression markers (configs.DefaultMarkers,
// the one list): layout detection reads them as values, not names.
var markerTexts = markerSet(nil)

// isValueLike reports whether a cell reads as data rather than a name: a
// number (with thousands separators), or a suppression marker.
func isValueLike(c string) bool {
	if markerTexts[c] {
		return true
	}
	c = strings.NewReplacer(",", "", " ", "", "'", "", "\u00a0", "").Replace(c)
	_, err := strconv.ParseFloat(c, 64)
	return err == nil
}

// span gives the number of non-empty cells and the first and last of them.
func span(cells []string) (n, first, last int) {
	first, last = -1, -1
	for i, c := range cells {
		if c != "" {
			n++
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return
}

func mostlyText(cells []string) bool {
	n, text := 0, 0
	for _, c := range cells {
		if c == "" {
			continue
		}
		n++
		if !isValueLike(c) {
			text++
		}
	}
	return n > 0 && 2*text > n
}

// headerWindow is how many rows from the top are searched for the header.
const headerWindow = 64

// findHeader reads rows until it has found the header and the first row of
// data; the rows read after the header are kept for Next.
func (s *xlsxSource) findHeader() error {
	var win []sheetRow
	for len(win) < headerWindow {
		r, err := s.readRow()
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		win = append(win, *r)
		if len(win) >= 3 {
			// stop early on a header of several columns with two data rows
			if hi, rows := s.detect(win, false); hi >= 0 && hi+rows < len(win)-1 {
				if n, _, _ := span(win[hi].cells); n >= 2 {
					break
				}
			}
		}
	}
	hi, rows := s.detect(win, true)
	if hi < 0 {
		return s.errf(0, "", fmt.Errorf("%w: the sheet is empty", ErrNoHeader))
	}
	first, last := headerSpan(win[hi : hi+rows])
	if d := hi + rows; d < len(win) {
		// a stub column of row labels left of the header
		if _, df, _ := span(win[d].cells); df == first-1 {
			first = df
		}
	}
	if err := s.setHeader(win[hi:hi+rows], first, last-first+1); err != nil {
		return err
	}
	s.pending = append(s.pending, win[hi+rows:]...)
	return nil
}

// detect returns the index of the header row in win and the number of
// header rows (1 or 2), or -1. With final set it falls back to the first
// non-empty row.
func (s *xlsxSource) detect(win []sheetRow, final bool) (int, int) {
	maxN := 0
	for _, r := range win {
		n, _, _ := span(r.cells)
		maxN = max(maxN, n)
	}
	for i, r := range win {
		n, first, last := span(r.cells)
		if n == 0 || (n < 2 && maxN >= 2) || 2*n < maxN || !mostlyText(r.cells) {
			continue
		}
		// A second header row: group titles over names.
		if i+2 < len(win) {
			n2, f2, l2 := span(win[i+1].cells)
			gaps := n < l2-f2+1 && f2 >= first-1
			if (s.hasHorizontalMerge(r.num) || gaps) && n2 >= n && mostlyText(win[i+1].cells) && dataBelow(win[i+1], win[i+2]) {
				return i, 2
			}
		}
		if i+1 < len(win) && dataBelow(r, win[i+1]) {
			_ = last
			return i, 1
		}
		if i+1 == len(win) && final {
			return i, 1 // a header with no data
		}
	}
	if final {
		for i, r := range win {
			if n, _, _ := span(r.cells); n > 0 {
				return i, 1
			}
		}
	}
	return -1, 0
}

// dataBelow reports whether row d is a data row under header h: it has
// cells in at least half of the header's columns and none far outside.
func dataBelow(h, d sheetRow) bool {
	n, first, last := span(h.cells)
	dn, df, dl := span(d.cells)
	if dn == 0 || df < first-1 || dl > last {
		return false
	}
	inside := 0
	for c := first; c <= last && c < len(d.cells); c++ {
		if d.cells[c] != "" {
			inside++
		}
	}
	return 2*inside >= n && inside >= 1
}

// setHeader builds the column names from one or two header rows over the
// columns first..first+width-1; empty names become "column X".
func (s *xlsxSource) setHeader(hdr []sheetRow, first, width int) error {
	s.first, s.width = first, width
	s.headerRow = hdr[0].num
	s.header = make([]string, s.width)
	seen := map[string]int{}
	at := func(r sheetRow, c int) string {
		if c < len(r.cells) {
			return strings.Join(strings.Fields(r.cells[c]), " ")
		}
		return ""
	}
	for k := 0; k < s.width; k++ {
		c := first + k
		name := at(hdr[0], c)
		if len(hdr) > 1 {
			child := at(hdr[1], c)
			switch {
			case name == "" || name == child:
				name = child
			case child != "":
				name = name + " " + child
			}
		}
		col, _ := excelize.ColumnNumberToName(c + 1)
		if name == "" {
			name = "column " + col
		}
		if j, dup := seen[name]; dup {
			return s.errf(hdr[0].num, col, fmt.Errorf("duplicate column name %q (also column %d)", name, j+1))
		}
		seen[name] = k
		s.header[k] = name
	}
	return nil
}

// headerSpan is the union of the non-empty columns of the header rows.
func headerSpan(hdr []sheetRow) (first, last int) {
	first, last = -1, -1
	for _, r := range hdr {
		_, f, l := span(r.cells)
		if f >= 0 && (first < 0 || f < first) {
			first = f
		}
		last = max(last, l)
	}
	return first, last
}

// useRange sets up reading of an explicit cell range.
func (s *xlsxSource) useRange(rng string) error {
	parts := strings.Split(strings.ToUpper(strings.TrimSpace(rng)), ":")
	if len(parts) != 2 {
		return s.errf(0, "", fmt.Errorf("range %q: want the form A5:H40", rng))
	}
	c1, r1, err1 := excelize.CellNameToCoordinates(parts[0])
	c2, r2, err2 := excelize.CellNameToCoordinates(parts[1])
	if err1 != nil || err2 != nil || c2 < c1 || r2 < r1 {
		return s.errf(0, "", fmt.Errorf("range %q: want the form A5:H40 with the top-left cell first", rng))
	}
	s.explicit, s.lastRow = true, r2
	var hdr []sheetRow
	for len(hdr) < 2 {
		r, err := s.readRow()
		if err != nil {
			return err
		}
		if r == nil || r.num > r2 {
			break
		}
		if r.num < r1 {
			continue
		}
		hdr = append(hdr, sheetRow{num: r.num, cells: rowCellsAbs(r.cells, c1-1, c2-c1+1)})
	}
	if len(hdr) == 0 {
		return s.errf(r1, "", fmt.Errorf("%w: the range %s is empty", ErrNoHeader, rng))
	}
	rows := 1
	if len(hdr) == 2 && s.hasHorizontalMerge(hdr[0].num) && mostlyText(hdr[1].cells) {
		rows = 2
	}
	if err := s.setHeader(hdr[:rows], c1-1, c2-c1+1); err != nil {
		return err
	}
	s.pending = append(s.pending, hdr[rows:]...)
	return nil
}

// rowCellsAbs keeps the cells of columns first..first+width-1 at their
// positions and blanks the others.
func rowCellsAbs(cells []string, first, width int) []string {
	out := make([]string, first+width)
	for c := first; c < first+width && c < len(cells); c++ {
		out[c] = cells[c]
	}
	return out
}

// Next returns the next batch of data rows.
func (s *xlsxSource) Next() (b *Batch, err error) {
	defer recoverCorrupt(s.wb.path, s.sheet, s.rowNum, &err)
	if s.done {
		if !s.drained {
			s.drained = true
			if err := s.drain(); err != nil {
				return nil, err
			}
		}
		return nil, io.EOF
	}
	b = &Batch{Rows: make([][]string, 0, min(s.batch, 1024)), Lines: make([]int, 0, min(s.batch, 1024))}
	for len(b.Rows) < s.batch {
		var r sheetRow
		if len(s.pending) > 0 {
			r = s.pending[0]
			s.pending = s.pending[1:]
		} else {
			rp, err := s.readRow()
			if err != nil {
				return nil, err
			}
			if rp == nil {
				s.done, s.drained = true, true
				break
			}
			r = *rp
		}
		if s.explicit {
			if r.num > s.lastRow {
				s.done, s.drained = true, true
				break
			}
			row := rowCells(r.cells, s.first, s.width)
			if n, _, _ := span(row); n == 0 {
				continue
			}
			b.Rows = append(b.Rows, row)
			b.Lines = append(b.Lines, r.num)
			continue
		}
		if s.endsTable(r) {
			s.done, s.endRow = true, r.num
			s.pending = append([]sheetRow{r}, s.pending...)
			break
		}
		b.Rows = append(b.Rows, rowCells(r.cells, s.first, s.width))
		b.Lines = append(b.Lines, r.num)
	}
	if len(b.Rows) == 0 {
		return s.Next()
	}
	return b, nil
}

func rowCells(cells []string, first, width int) []string {
	row := make([]string, width)
	for k := range row {
		if c := first + k; c < len(cells) {
			row[k] = cells[c]
		}
	}
	return row
}

// endsTable reports whether r is below the table: blank, or footnote text.
func (s *xlsxSource) endsTable(r sheetRow) bool {
	n, first, _ := span(r.cells)
	if n == 0 {
		return true
	}
	inside := 0
	for c := s.first; c < s.first+s.width && c < len(r.cells); c++ {
		if r.cells[c] != "" {
			inside++
		}
	}
	if inside == 0 {
		return true
	}
	return s.width >= 3 && n == 1 && first == s.first && !isValueLike(r.cells[first])
}

// drain reads the rest of the sheet below the table: footnotes are noted,
// data-like rows are an error.
func (s *xlsxSource) drain() error {
	var notes []string
	firstIgnored, lastIgnored := 0, 0
	for {
		var r sheetRow
		if len(s.pending) > 0 {
			r = s.pending[0]
			s.pending = s.pending[1:]
		} else {
			rp, err := s.readRow()
			if err != nil {
				return err
			}
			if rp == nil {
				break
			}
			r = *rp
		}
		n, first, _ := span(r.cells)
		if n == 0 {
			continue
		}
		inside := 0
		for c := s.first; c < s.first+s.width && c < len(r.cells); c++ {
			if r.cells[c] != "" && isValueLike(r.cells[c]) {
				inside++
			}
		}
		if inside >= 2 && 2*inside > s.width {
			return s.errf(r.num, "", fmt.Errorf("%w: row %d below the end of the table (row %d) holds data; remove the blank or note rows above it or give a range", ErrFieldCount, r.num, s.endRow))
		}
		if firstIgnored == 0 {
			firstIgnored = r.num
		}
		lastIgnored = r.num
		if len(notes) < 3 {
			notes = append(notes, r.cells[first])
		}
	}
	if firstIgnored > 0 {
		w := fmt.Sprintf("sheet %q: rows %d-%d below the table were read as notes and ignored", s.sheet, firstIgnored, lastIgnored)
		if len(notes) > 0 {
			w += fmt.Sprintf(" (%s)", quoteList(notes))
		}
		s.warnings = append(s.warnings, w)
	}
	return nil
}
