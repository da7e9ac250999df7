package writers

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// Palette is the fill of each cell status in the annotated workbook and
// summary.html: light tints of the Okabe-Ito colour-blind-safe palette
// (vermillion, orange, sky blue), light enough for black text. Every
// coloured cell also says its status in words, so colour is never the only
// cue.
var Palette = map[audit.Status]string{
	audit.StatusOK:        "FFFFFF",
	audit.StatusPrimary:   "F3B991", // vermillion #D55E00, light
	audit.StatusSecondary: "F5D78A", // orange #E69F00, light
	audit.StatusReview:    "A9DBF5", // sky blue #56B4E9, light
}

// statusOrder lists the statuses for legends and summaries.
var statusOrder = []audit.Status{audit.StatusOK, audit.StatusPrimary, audit.StatusSecondary, audit.StatusReview}

// statusMeaning explains each status in the legend.
var statusMeaning = map[audit.Status]string{
	audit.StatusOK:        "publishable as is",
	audit.StatusPrimary:   "fails a sensitivity rule: suppress",
	audit.StatusSecondary: "suppressed to protect a primary cell",
	audit.StatusReview:    "could not be assessed: a person must look",
}

// Annotated writes NAME.annotated.xlsx, the checker's workbook: the table
// as audited (dimensions, published statistics, status, the rules that
// flagged the cell), every row filled by its status, a comment on flagged
// rows with each rule's outcome, reason and figures, a frozen header, a
// summary sheet and a legend sheet. Rows are written with excelize's
// stream writer so that large tables fit in memory; it may contain
// confidential numbers, like the report.
//
// Excelize's comments cost time quadratic in their number (each one is
// checked against the sheet's others), so a table with more than
// Options.MaxComments cells to explain gets no comments: the Cells sheet
// then has one more column, "explanation", holding for every flagged cell
// the text its comment would hold, and the Legend says so.
type Annotated struct {
	// Options bound the comments and the Crosstab sheet (MaxComments,
	// MaxCrosstabValues; the zero value: the defaults).
	Options Options
}

// File implements TableWriter.
func (Annotated) File(t *audit.Table) string { return t.Name + ".annotated.xlsx" }

// The sheets of the annotated workbook.
const (
	SheetCells   = "Cells"
	SheetSummary = "Summary"
	SheetLegend  = "Legend"
)

// Write writes the workbook; see WriteContext.
func (a Annotated) Write(w io.Writer, t *audit.Table) error {
	return a.WriteContext(context.Background(), w, t)
}

// WriteContext implements TableWriter.
func (a Annotated) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cc := canceller{ctx: ctx}
	f := newWorkbook(ctx)
	defer f.Close()
	if err := f.SetSheetName("Sheet1", SheetCells); err != nil {
		return err
	}
	if _, err := f.NewSheet(SheetSummary); err != nil {
		return err
	}
	if _, err := f.NewSheet(SheetLegend); err != nil {
		return err
	}
	styles, header, err := annotatedStyles(f)
	if err != nil {
		return err
	}
	nd := len(t.Dims)
	ncol := nd + len(t.Columns) + 2
	statusCol := nd + len(t.Columns) + 1
	maxComments := a.Options.maxComments()
	explain := commentedCells(t) > maxComments
	if explain {
		ncol++
	} else {
		// Comments first: the stream writer keeps the sheet's drawing part.
		if err := addCellComments(&cc, f, t, statusCol); err != nil {
			return err
		}
	}
	dps := columnDecimals(t)
	sheet := cellsSheet{t: t, styles: styles, header: header, ncol: ncol, explain: explain, dps: dps}
	if err := sheet.write(&cc, f); err != nil {
		return err
	}
	if err := writeSummarySheet(f, t, header); err != nil {
		return err
	}
	explainAbove := 0
	if explain {
		explainAbove = maxComments
	}
	if err := writeLegendSheet(f, styles, header, t.Name, explainAbove); err != nil {
		return err
	}
	if err := writeCrosstabSheet(ctx, f, t, styles, header, dps, a.Options); err != nil {
		return err
	}
	// The first sheet (the cells) is already the active one; setting it
	// again would make excelize parse the streamed sheet back.
	return f.Write(w)
}

// cellsSheet is the Cells sheet of the annotated workbook: one row per
// cell, its status and flagged rules, and (explain) the explanation column.
type cellsSheet struct {
	t       *audit.Table
	styles  map[audit.Status]cellStyles
	header  int
	ncol    int
	explain bool
	dps     map[string]int
}

// write streams the sheet into f.
func (s cellsSheet) write(cc *canceller, f *excelize.File) error {
	sw, err := s.stream(f)
	if err != nil {
		return err
	}
	if err := s.rows(cc, sw); err != nil {
		return err
	}
	return sw.Flush()
}

// stream sets up the sheet and returns its stream writer.
func (s cellsSheet) stream(f *excelize.File) (*excelize.StreamWriter, error) {
	t, ncol, explain := s.t, s.ncol, s.explain
	// Sheet setup the stream writer keeps: an autofilter over the whole
	// table, printing fitted to the page width with the header repeated.
	last, _ := excelize.CoordinatesToCellName(ncol, len(t.Cells)+1)
	if err := f.AutoFilter(SheetCells, "A1:"+last, nil); err != nil {
		return nil, err
	}
	if err := printSetup(f, SheetCells); err != nil {
		return nil, err
	}
	sw, err := f.NewStreamWriter(SheetCells)
	if err != nil {
		return nil, err
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	if err := sw.SetColWidth(1, ncol, 14); err != nil {
		return nil, err
	}
	if explain {
		if err := sw.SetColWidth(ncol-1, ncol-1, 30); err != nil {
			return nil, err
		}
		if err := sw.SetColWidth(ncol, ncol, 80); err != nil {
			return nil, err
		}
	} else if err := sw.SetColWidth(ncol, ncol, 30); err != nil {
		return nil, err
	}
	return sw, nil
}

// rows writes the header row and one row per cell.
func (sh cellsSheet) rows(cc *canceller, sw *excelize.StreamWriter) error {
	t, ncol, explain, header, styles, dps := sh.t, sh.ncol, sh.explain, sh.header, sh.styles, sh.dps
	row := make([]any, 0, ncol)
	for _, d := range t.Dims {
		row = append(row, excelize.Cell{StyleID: header, Value: EscapeFormula(d)})
	}
	for i := range t.Columns {
		row = append(row, excelize.Cell{StyleID: header, Value: EscapeFormula(t.ColumnLabel(i))})
	}
	row = append(row, excelize.Cell{StyleID: header, Value: "status"}, excelize.Cell{StyleID: header, Value: "rules"})
	if explain {
		row = append(row, excelize.Cell{StyleID: header, Value: "explanation"})
	}
	if err := sw.SetRow("A1", row); err != nil {
		return err
	}
	for i, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		st := styles[statusOf(c)]
		row = row[:0]
		for _, k := range c.Key {
			row = append(row, excelize.Cell{StyleID: st.text, Value: EscapeFormula(k)})
		}
		for _, col := range t.Columns {
			s, ok := c.Stats.Get(col)
			if !ok {
				row = append(row, excelize.Cell{StyleID: st.text})
				continue
			}
			row = append(row, statCell(s, st, dps[col]))
		}
		row = append(row, excelize.Cell{StyleID: st.text, Value: string(statusOf(c))}, excelize.Cell{StyleID: st.text, Value: strings.Join(flaggedRules(c), ", ")})
		if explain {
			row = append(row, excelize.Cell{StyleID: st.text, Value: EscapeFormula(cellComment(t, c))})
		}
		ref, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(ref, row); err != nil {
			return err
		}
	}
	return nil
}

// commentedCells counts the cells with a comment: those cellComment
// explains (a failing, reviewing or override finding, or a note).
func commentedCells(t *audit.Table) int {
	n := 0
	for _, c := range t.Cells {
		if len(c.Notes) > 0 || anyExplained(c) {
			n++
		}
	}
	return n
}

// addCellComments attaches each cell's annotation, if any, as a comment on
// its status column of the Cells sheet.
func addCellComments(cc *canceller, f *excelize.File, t *audit.Table, statusCol int) error {
	for i, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		text := cellComment(t, c)
		if text == "" {
			continue
		}
		ref, _ := excelize.CoordinatesToCellName(statusCol, i+2)
		w, h := commentSize(text)
		if err := f.AddComment(SheetCells, excelize.Comment{Cell: ref, Author: "sdcaudit", Paragraph: []excelize.RichTextRun{{Text: text}}, Width: w, Height: h}); err != nil {
			return err
		}
	}
	return nil
}

// newWorkbook is a new workbook whose saving stops once ctx is cancelled
// and whose zip entries are written in name order: excelize builds the
// whole zip before it writes a byte, and it visits sheets built in memory
// in no fixed order, so the entries are gathered and written sorted, which
// keeps the file byte-identical for identical input.
func newWorkbook(ctx context.Context) *excelize.File {
	f := excelize.NewFile()
	f.SetZipWriter(func(w io.Writer) excelize.ZipWriter { return &ctxZip{ctx: ctx, zw: zip.NewWriter(w)} })
	return f
}

// ctxZip is a zip writer whose entries fail to write once ctx is cancelled
// and are written to the archive in name order on Close. Each entry is
// kept deflated (at archive/zip's level) until then, not as the XML
// excelize writes: the Cells sheet of a table of a million cells is a
// gigabyte of XML but a tenth of that deflated.
//
// An entry is deflated in blocks of deflateBlock bytes of its XML, each
// by a compressor of its own on up to GOMAXPROCS goroutines (as pgzip
// does): every block but the last ends with a sync flush (a byte-aligned,
// non-final deflate block), the last with the final block, so that the
// blocks' outputs in order are one deflate stream. The blocks follow the
// bytes of the entry, not the sizes of excelize's writes or the number
// of cores, so the workbook is byte-identical for identical input. An
// entry of one block is deflated as before, by one compressor.
type ctxZip struct {
	ctx     context.Context
	zw      *zip.Writer
	entries map[string]*zipEntry
	open    *zipEntry // the entry being written, until the next Create or Close
	// sem bounds the blocks being deflated (and with them the XML held
	// uncompressed) across the entries.
	sem chan struct{}
}

// deflateBlock is the XML of one block of a deflated entry.
const deflateBlock = 1 << 20

// zipEntry is one entry with what its header needs: its XML in blocks
// while it is written, each block's deflated bytes once done.
type zipEntry struct {
	crc  hash.Hash32
	size uint64

	z    *ctxZip
	buf  []byte         // the block being filled
	out  []*deflated    // each block's deflated bytes, in order
	wg   sync.WaitGroup // the blocks being deflated
	data bytes.Buffer   // the whole deflate stream, once finished
}

func (e *zipEntry) Write(p []byte) (int, error) {
	n := len(p)
	e.crc.Write(p)
	e.size += uint64(n)
	for len(p) > 0 {
		if e.buf == nil {
			e.buf = make([]byte, 0, deflateBlock)
		}
		k := copy(e.buf[len(e.buf):cap(e.buf)], p)
		e.buf, p = e.buf[:len(e.buf)+k], p[k:]
		if len(e.buf) == cap(e.buf) {
			e.deflate(false)
		}
	}
	return n, nil
}

// deflate hands the current block to a goroutine that deflates it, ending
// it with the final block when last.
func (e *zipEntry) deflate(last bool) {
	blk := e.buf
	e.buf = nil
	out := &deflated{}
	e.out = append(e.out, out)
	e.z.sem <- struct{}{}
	e.wg.Add(1)
	go func() {
		defer func() { <-e.z.sem; e.wg.Done() }()
		fw := flateWriters.Get().(*flate.Writer)
		defer flateWriters.Put(fw)
		fw.Reset(&out.data)
		_, err := fw.Write(blk)
		if err == nil {
			if last {
				err = fw.Close()
			} else {
				err = fw.Flush()
			}
		}
		out.err = err
	}()
}

// finish deflates the last block and joins the blocks into one stream.
func (e *zipEntry) finish() error {
	e.deflate(true)
	e.wg.Wait()
	n := 0
	for _, b := range e.out {
		if b.err != nil {
			return b.err
		}
		n += b.data.Len()
	}
	if len(e.out) == 1 {
		e.data = e.out[0].data
	} else {
		e.data.Grow(n)
		for _, b := range e.out {
			e.data.Write(b.data.Bytes())
		}
	}
	e.out = nil
	return nil
}

// deflated is one block of an entry, deflated.
type deflated struct {
	data bytes.Buffer
	err  error
}

// flateWriters are compressors at archive/zip's level, reused by Reset.
var flateWriters = sync.Pool{New: func() any {
	fw, err := flate.NewWriter(io.Discard, 5) // archive/zip's level
	if err != nil {
		panic(err) // only for a level out of range
	}
	return fw
}}

// finish completes the open entry's deflate stream.
func (z *ctxZip) finish() error {
	if z.open == nil {
		return nil
	}
	e := z.open
	z.open = nil
	return e.finish()
}

func (z *ctxZip) Create(name string) (io.Writer, error) {
	if err := z.ctx.Err(); err != nil {
		return nil, err
	}
	if err := z.finish(); err != nil {
		return nil, err
	}
	if z.entries == nil {
		z.entries = map[string]*zipEntry{}
	}
	if _, dup := z.entries[name]; dup {
		return nil, fmt.Errorf("workbook entry %s written twice", name)
	}
	if z.sem == nil {
		z.sem = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	}
	e := &zipEntry{crc: crc32.NewIEEE(), z: z}
	z.entries[name] = e
	z.open = e
	return ctxWriter{z.ctx, e}, nil
}

func (z *ctxZip) AddFS(fsys fs.FS) error {
	if err := z.ctx.Err(); err != nil {
		return err
	}
	return z.zw.AddFS(fsys)
}

func (z *ctxZip) Close() error {
	if err := z.finish(); err != nil {
		return err
	}
	names := make([]string, 0, len(z.entries))
	for n := range z.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := z.ctx.Err(); err != nil {
			return err
		}
		e := z.entries[n]
		w, err := z.zw.CreateRaw(&zip.FileHeader{Name: n, Method: zip.Deflate, CRC32: e.crc.Sum32(),
			CompressedSize64: uint64(e.data.Len()), UncompressedSize64: e.size})
		if err != nil {
			return err
		}
		if _, err := w.Write(e.data.Bytes()); err != nil {
			return err
		}
		delete(z.entries, n)
	}
	return z.zw.Close()
}

// cellStyles are the style ids of one status: text, and numbers with
// thousands separators and 0..maxDecimals decimals (num[dp]).
type cellStyles struct {
	text int
	num  []int
}

// maxDecimals caps the decimals of a number format; statistics published
// with more are shown with this many (the cell keeps its value).
const maxDecimals = 10

// numFmt is the number format with thousands separators and dp decimals.
func numFmt(dp int) string {
	if dp <= 0 {
		return "#,##0"
	}
	return "#,##0." + strings.Repeat("0", dp)
}

func annotatedStyles(f *excelize.File) (map[audit.Status]cellStyles, int, error) {
	out := map[audit.Status]cellStyles{}
	border := []excelize.Border{{Type: "bottom", Color: "D0D0D0", Style: 1}}
	for _, s := range statusOrder {
		var fill excelize.Fill
		if s != audit.StatusOK {
			fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{Palette[s]}}
		}
		txt, err := f.NewStyle(&excelize.Style{Fill: fill, Border: border, Font: &excelize.Font{Color: "000000"}})
		if err != nil {
			return nil, 0, err
		}
		cs := cellStyles{text: txt}
		for dp := 0; dp <= maxDecimals; dp++ {
			num, err := f.NewStyle(&excelize.Style{Fill: fill, Border: border, Font: &excelize.Font{Color: "000000"}, CustomNumFmt: strPtr(numFmt(dp))})
			if err != nil {
				return nil, 0, err
			}
			cs.num = append(cs.num, num)
		}
		out[s] = cs
	}
	hdr, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E8E8E8"}}, Border: []excelize.Border{{Type: "bottom", Color: "808080", Style: 1}}})
	return out, hdr, err
}

func strPtr(s string) *string { return &s }

func statusOf(c *audit.Cell) audit.Status { return c.Status.Effective() }

// columnDecimals gives each statistic column the decimals it is
// published with: the most any of its cells shows.
func columnDecimals(t *audit.Table) map[string]int {
	out := make(map[string]int, len(t.Columns))
	for _, col := range t.Columns {
		dp := 0
		for _, c := range t.Cells {
			s, ok := c.Stats.Get(col)
			if !ok || s.Missing || s.Marker {
				continue
			}
			d := s.Value.Scale()
			if s.Text != "" {
				d = textDecimals(s.Text)
			}
			dp = max(dp, d)
		}
		out[col] = min(dp, maxDecimals)
	}
	return out
}

// textDecimals counts the digits after the decimal point of a published
// number ("3.50" has 2).
func textDecimals(s string) int {
	s = strings.TrimSpace(s)
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return 0
	}
	n := 0
	for _, r := range s[i+1:] {
		if r < '0' || r > '9' {
			break
		}
		n++
	}
	return n
}

// statCell gives a statistic as a number when it is one, else as text;
// numbers carry the column's number format.
func statCell(s audit.Stat, st cellStyles, dp int) excelize.Cell {
	if !s.Missing && !s.Marker {
		if v, ok := number(s.Text); ok {
			return excelize.Cell{StyleID: st.num[dp], Value: v}
		}
		if s.Text == "" {
			return excelize.Cell{StyleID: st.num[dp], Value: s.Value.Float64()}
		}
	}
	return excelize.Cell{StyleID: st.text, Value: EscapeFormula(s.Text)}
}

// printSetup prints a sheet fitted to the page width, landscape, with its
// header row repeated on every page.
func printSetup(f *excelize.File, sheet string) error {
	if err := fitWidth(f, sheet); err != nil {
		return err
	}
	return f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", RefersTo: "'" + sheet + "'!$1:$1", Scope: sheet})
}

// fitWidth prints a sheet landscape, fitted to the page width.
func fitWidth(f *excelize.File, sheet string) error {
	fit := true
	if err := f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	one, zero, landscape := 1, 0, "landscape"
	return f.SetPageLayout(sheet, &excelize.PageLayoutOptions{FitToWidth: &one, FitToHeight: &zero, Orientation: &landscape})
}

// separators are the thousands separators a published number may carry;
// a Replacer is safe for concurrent use and costly to build.
var separators = strings.NewReplacer(",", "", " ", "", "\u00a0", "", "'", "")

// number parses a published number, with thousands separators allowed.
func number(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if _, err := decimal.Parse(s); err != nil {
		clean := separators.Replace(s)
		if _, err := decimal.Parse(clean); err != nil || clean == s {
			return 0, false
		}
		s = clean
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// flaggedRules lists the rules that failed the cell or sent it to review.
func flaggedRules(c *audit.Cell) []string {
	var out []string
	for _, f := range c.EachFinding() {
		if f.Outcome == audit.Fail || f.Outcome == audit.Review {
			out = append(out, f.Rule)
		}
	}
	return out
}

// anyExplained reports whether cellComment explains a finding of c.
func anyExplained(c *audit.Cell) bool {
	for _, f := range c.EachFinding() {
		if explained(f) {
			return true
		}
	}
	return false
}

// explained reports whether cellComment explains finding f: a failing or
// reviewing rule, or the checker's override.
func explained(f audit.Finding) bool {
	return f.Outcome == audit.Fail || f.Outcome == audit.Review || f.Rule == "override"
}

// cellComment explains a flagged cell in plain sentences: each failing
// or reviewing rule with its message, then its figures one per line
// (numbers with thousands separators; each item of a list of groups, such
// as a dominance rule's (n,k) sets, on its own line), then the table
// notes not already said. It is empty for ok cells without notes.
func cellComment(t *audit.Table, c *audit.Cell) string {
	st := statusOf(c)
	b := make([]byte, 0, 512)
	b = append(b, st...)
	b = append(b, " ("...)
	for i, d := range t.Dims {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, d...)
		b = append(b, '=')
		b = append(b, c.Key[i]...)
	}
	b = append(b, ")\n"...)
	body := len(b)
	var said []string
	for _, f := range c.EachFinding() {
		if !explained(f) {
			continue
		}
		msg := f.Message()
		said = append(said, msg)
		verdict := " fails"
		switch {
		case f.Rule == "override":
			verdict = " by the checker"
		case f.Rule == "secondary":
			verdict = ""
		case f.Outcome == audit.Review:
			verdict = " needs review"
		}
		b = append(b, ruleTitle(f.Rule)...)
		b = append(b, verdict...)
		b = append(b, ": "...)
		b = append(b, strings.TrimSuffix(msg, ".")...)
		b = append(b, ".\n"...)
		for _, g := range f.FigureList() {
			b = appendFigure(b, g)
		}
	}
	for _, n := range c.Notes {
		if slices.Contains(said, n) {
			continue
		}
		b = append(b, n...)
		b = append(b, '\n')
	}
	b = b[:body+len(bytes.TrimRight(b[body:], "\n"))]
	if len(b) == body {
		return "" // nothing to say (no finding, blank notes)
	}
	if len(b)-body > 30000 {
		b = append(b[:body+30000], "..."...)
	}
	return string(b)
}

// ruleTitle is a rule's name as the start of a sentence.
func ruleTitle(rule string) string {
	r := strings.ReplaceAll(rule, "_", " ")
	switch rule {
	case "p_percent":
		r = "p% rule"
	case "pq":
		r = "p-q rule"
	case "meansd":
		r = "mean/SD reconstruction"
	case "override":
		r = "override"
	case "secondary":
		r = "secondary suppression"
	}
	return strings.ToUpper(r[:1]) + r[1:]
}

// appendFigure appends one figure line: "  total (X): 1,234.5"; a list of
// groups writes one line per group.
func appendFigure(b []byte, g audit.Figure) []byte {
	if g.Kind == audit.KindList && len(g.Items) > 0 && g.Items[0].Kind == audit.KindGroup {
		label := report.Label(g.Name)
		for i, it := range g.Items {
			b = append(b, "  "...)
			b = append(b, label...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(i+1), 10)
			b = append(b, ": "...)
			b = report.AppendReadable(b, it)
			b = append(b, '\n')
		}
		return b
	}
	b = append(b, "  "...)
	b = append(b, report.Label(g.Name)...)
	b = append(b, ": "...)
	b = report.AppendReadable(b, g)
	return append(b, '\n')
}

// commentSize sizes a comment box to its text: about 6.5 points per
// character of the longest line (wrapped at 100) and 14 per line.
func commentSize(text string) (width, height uint) {
	longest, lines := 0, 0
	for l := range strings.SplitSeq(text, "\n") {
		n := utf8.RuneCountInString(l)
		longest = max(longest, min(n, 100))
		lines += max(1, (n+99)/100)
	}
	return uint(max(160, min(650, longest*13/2+16))), uint(max(40, min(2000, lines*14+14)))
}

func writeSummarySheet(f *excelize.File, t *audit.Table, header int) error {
	s := t.Summarize()
	rows := [][]any{
		{"table", t.Name},
		{"source", t.Source},
		{"mode", string(t.Mode)},
		{"dimensions", strings.Join(t.Dims, ", ")},
		{"statistics", strings.Join(t.Columns, ", ")},
		{},
		{"cells", s.Cells},
		{"ok", s.OK},
		{"primary", s.Primary},
		{"secondary", s.Secondary},
		{"review", s.Review},
		{"needs a person", s.NeedsPerson()},
		{},
		{"rule", "cells failed or for review"},
	}
	rules := make([]string, 0, len(s.ByRule))
	for r := range s.ByRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		rows = append(rows, []any{r, s.ByRule[r]})
	}
	for _, w := range t.Warnings {
		rows = append(rows, []any{"warning", w})
	}
	for _, l := range StructureLines(t) {
		rows = append(rows, []any{"structure", l})
	}
	for _, c := range t.UnusedColumns {
		rows = append(rows, []any{"unused column", c, "neither a dimension, the value, the holding nor a hierarchy's parent column: not audited, in no output"})
	}
	if t.Structure != nil {
		// every value outside the table, where the structure line names
		// a few: reference and row label, never the value
		for _, u := range t.Structure.Unaudited {
			rows = append(rows, []any{"withheld", u, "outside the table, not audited: withheld from the safe tables; to publish it as it stands, list its cell reference in columns.safe"})
		}
	}
	for _, o := range t.Overrides {
		rows = append(rows, []any{"override", o.Cell, o.Action, o.Reason, o.By, o.Source, string(o.Status)})
	}
	rows = append(rows, trailRows(t.Run)...)
	for i, r := range rows {
		for j := range r {
			if v, ok := r[j].(string); ok {
				r[j] = EscapeFormula(v)
			}
		}
		ref, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow(SheetSummary, ref, &r); err != nil {
			return err
		}
	}
	if err := f.SetCellStyle(SheetSummary, "A14", "B14", header); err != nil {
		return err
	}
	return f.SetColWidth(SheetSummary, "A", "B", 28)
}

// writeLegendSheet writes the Legend sheet: each status's fill and
// meaning, and where a flagged cell's explanation is (its comment, or,
// when explainAbove > 0, the explanation column of a table with more than
// explainAbove flagged cells).
func writeLegendSheet(f *excelize.File, styles map[audit.Status]cellStyles, header int, name string, explainAbove int) error {
	if err := f.SetSheetRow(SheetLegend, "A1", &[]any{"status", "meaning"}); err != nil {
		return err
	}
	if err := f.SetCellStyle(SheetLegend, "A1", "B1", header); err != nil {
		return err
	}
	for i, s := range statusOrder {
		r := i + 2
		a, _ := excelize.CoordinatesToCellName(1, r)
		b, _ := excelize.CoordinatesToCellName(2, r)
		if err := f.SetSheetRow(SheetLegend, a, &[]any{string(s), statusMeaning[s]}); err != nil {
			return err
		}
		if err := f.SetCellStyle(SheetLegend, a, b, styles[s].text); err != nil {
			return err
		}
	}
	how := "The status cell of a flagged row carries a comment: the rules, their reasons and figures."
	if explainAbove > 0 {
		how = fmt.Sprintf("More than %d cells are flagged, too many for comments: the explanation column of a flagged row gives the rules, their reasons and figures.", explainAbove)
	}
	notes := []string{
		"Each row of the Cells sheet is one cell of the table, filled by its status.",
		how,
		"This workbook is for the output checker: it may hold confidential figures. Publish " + name + ".safe.csv or " + name + ".safe.xlsx instead.",
	}
	for i, n := range notes {
		ref, _ := excelize.CoordinatesToCellName(1, i+8)
		if err := f.SetCellStr(SheetLegend, ref, n); err != nil {
			return err
		}
	}
	return f.SetColWidth(SheetLegend, "A", "B", 40)
}

// SafeXLSX writes NAME.safe.xlsx, the publishable table of NAME.safe.csv
// as a workbook: numbers as numbers, suppressed cells carrying the marker,
// text escaped against formula injection.
type SafeXLSX struct {
	Options
}

// File implements TableWriter.
func (SafeXLSX) File(t *audit.Table) string { return t.Name + ".safe.xlsx" }

// Write writes the workbook; see WriteContext.
func (s SafeXLSX) Write(w io.Writer, t *audit.Table) error {
	return s.WriteContext(context.Background(), w, t)
}

// safeSheet is the one sheet of a publishable workbook.
const safeSheet = "Table"

// newSafeWorkbook is a publishable workbook (see newWorkbook) with one
// sheet, safeSheet, written through a stream writer.
func newSafeWorkbook(ctx context.Context) (*excelize.File, *excelize.StreamWriter, error) {
	f := newWorkbook(ctx)
	if err := f.SetSheetName("Sheet1", safeSheet); err != nil {
		f.Close()
		return nil, nil, err
	}
	sw, err := f.NewStreamWriter(safeSheet)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, sw, nil
}

// WriteContext implements TableWriter.
func (s SafeXLSX) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, sw, err := newSafeWorkbook(ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	nd := len(t.Dims)
	i := 0
	put := func(rec []string) error {
		row := make([]any, len(rec))
		for j, v := range rec {
			row[j] = v
			if i > 0 && j >= nd {
				if x, ok := number(v); ok {
					row[j] = x
				}
			}
		}
		i++
		ref, _ := excelize.CoordinatesToCellName(1, i)
		return sw.SetRow(ref, row)
	}
	if err := writeRows(ctx, t, s.Marker, put, sw.Flush); err != nil {
		return err
	}
	return f.Write(w)
}

// displayNumber writes a published statistic for a page: a number with
// thousands separators and the column's decimals ("3.50", "1,234"); text
// (markers, missing values) as it is.
func displayNumber(s audit.Stat, dp int) string {
	if s.Missing || s.Marker {
		return s.Text
	}
	if _, ok := number(s.Text); !ok {
		if s.Text != "" {
			return s.Text
		}
		return decimal.RoundRat(s.Value.Rat(), dp)
	}
	clean := separators.Replace(strings.TrimSpace(s.Text))
	d, err := decimal.Parse(clean)
	if err != nil {
		return s.Text
	}
	return report.Thousands(decimal.RoundRat(d.Rat(), dp))
}
