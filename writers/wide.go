package writers

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Crosstab is the layout of a wide (crosstab) input table: the sheet as
// read and where each cell's value is, for outputs that look like the
// input.
type Crosstab struct {
	// File is the input path; Sheet its sheet (workbooks only).
	File, Sheet string
	// Format is xlsx or csv.
	Format string
	// Rows is the sheet as read (merged header cells filled), by row-1.
	Rows [][]string
	// UnzipLimit and XMLLimit bound the unzipped size of the workbook
	// reopened for the annotated copy, as when it was read (0: excelize's
	// defaults).
	UnzipLimit, XMLLimit int64
	// Pos maps a cell's key (its dimension values joined by "\x00") to
	// the 1-based row and 0-based column of each of its values (one per
	// statistic when several stand side by side).
	Pos map[string][][2]int
	// Top and Bottom (1-based rows, inclusive) and Left (0-based column)
	// bound the table on its sheet: from its first title to its last
	// note. The safe tables hold only these rows and columns, so that a
	// table read from a range of a larger sheet is published without the
	// sheet's other rows as empty padding. Bottom 0 means the whole sheet.
	Top, Bottom, Left int
	// Withhold are the 1-based rows and 0-based columns of values on the
	// sheet that are no cell of the table (a number in a note row,
	// audit.Structure.Unaudited): not audited, the safe tables hold the
	// marker there.
	Withhold [][2]int
	// Lead is the indentation of row label cells as published, by their
	// 1-based row and 0-based column (readers.WideLayout.LabelText): the
	// safe tables print it before the label, escaped apart from it.
	Lead map[[2]int]string
}

// window returns the table's rows and first column on its sheet (see
// Top, Bottom and Left).
func (x *Crosstab) window() (top, bottom, left int) {
	top, bottom, left = max(x.Top, 1), x.Bottom, max(x.Left, 0)
	if bottom <= 0 || bottom > len(x.Rows) {
		bottom = len(x.Rows)
	}
	return top, bottom, left
}

// CellKey is the key of Crosstab.Pos for a cell.
func CellKey(c *audit.Cell) string { return strings.Join(c.Key, "\x00") }

// safeGrid is the crosstab as published: every body cell of a suppressed
// cell (primary, secondary, review) and every value outside the table
// (Withhold) replaced by the marker, titles, header and notes as they were, the rows and columns of the table's window
// alone; every text escaped against formula injection.
func (x *Crosstab) safeGrid(ctx context.Context, t *audit.Table, marker string) ([][]string, error) {
	out := make([][]string, len(x.Rows))
	for i, r := range x.Rows {
		out[i] = make([]string, len(r))
		copy(out[i], r)
	}
	cc := canceller{ctx: ctx}
	for _, c := range t.Cells {
		if err := cc.next(); err != nil {
			return nil, err
		}
		ps, ok := x.Pos[CellKey(c)]
		if !ok {
			return nil, fmt.Errorf("cell %s has no place in the crosstab", t.KeyString(c.Key))
		}
		for _, p := range ps {
			if p[0] < 1 || p[0] > len(out) || p[1] < 0 {
				return nil, fmt.Errorf("cell %s has no place in the crosstab", t.KeyString(c.Key))
			}
			if n := len(out[p[0]-1]); p[1] >= n {
				// a row whose last cells are blank in the input (a derived
				// column left empty on Balance rows)
				out[p[0]-1] = append(out[p[0]-1], make([]string, p[1]+1-n)...)
			}
			if Suppressed(c) {
				out[p[0]-1][p[1]] = marker
			}
		}
	}
	for _, p := range x.Withhold {
		if p[0] >= 1 && p[0] <= len(out) && p[1] >= 0 && p[1] < len(out[p[0]-1]) {
			out[p[0]-1][p[1]] = marker
		}
	}
	if len(t.Cells) != len(x.Pos) {
		return nil, fmt.Errorf("the crosstab has %d body cells, the table %d", len(x.Pos), len(t.Cells))
	}
	top, bottom, left := x.window()
	if top > bottom {
		return nil, nil
	}
	out = out[top-1 : bottom]
	for i, r := range out {
		if len(r) <= left {
			out[i] = nil
			continue
		}
		r = r[left:]
		for j, v := range r {
			r[j] = x.Lead[[2]int{top + i, left + j}] + EscapeFormula(v)
		}
		out[i] = r
	}
	return out, nil
}

// SafeWideCSV writes NAME.safe.csv laid out like the wide input.
type SafeWideCSV struct {
	Options
	Layout *Crosstab
}

// File implements TableWriter.
func (SafeWideCSV) File(t *audit.Table) string { return t.Name + ".safe.csv" }

// WriteContext implements TableWriter.
func (s SafeWideCSV) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	grid, err := s.Layout.safeGrid(ctx, t, s.Marker)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	for _, r := range grid {
		if err := cw.Write(r); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SafeWideXLSX writes NAME.safe.xlsx laid out like the wide input, on one
// sheet (other sheets of an input workbook are not copied: they were not
// audited).
type SafeWideXLSX struct {
	Options
	Layout *Crosstab
}

// File implements TableWriter.
func (SafeWideXLSX) File(t *audit.Table) string { return t.Name + ".safe.xlsx" }

// WriteContext implements TableWriter.
func (s SafeWideXLSX) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	grid, err := s.Layout.safeGrid(ctx, t, s.Marker)
	if err != nil {
		return err
	}
	f, sw, err := newSafeWorkbook(ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	// body positions in the grid's coordinates (the table's window)
	top, _, left := s.Layout.window()
	body := map[[2]int]bool{}
	for _, ps := range s.Layout.Pos {
		for _, p := range ps {
			body[[2]int{p[0] - top + 1, p[1] - left}] = true
		}
	}
	for i, r := range grid {
		if len(r) == 0 {
			continue
		}
		row := make([]any, len(r))
		for j, v := range r {
			row[j] = v
			if body[[2]int{i + 1, j}] {
				if x, ok := number(v); ok {
					row[j] = x
				}
			}
		}
		ref, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := sw.SetRow(ref, row); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}

// AnnotatedCopy writes NAME.annotated.xlsx for a wide workbook: the input
// workbook itself (same sheets, layout, titles and notes), each body cell
// that is not ok filled by its status, each cell with something to say
// commented (rules, reasons, figures), plus the summary and legend sheets.
// Like the report, it may hold confidential numbers.
type AnnotatedCopy struct {
	Layout *Crosstab
}

// File implements TableWriter.
func (AnnotatedCopy) File(t *audit.Table) string { return t.Name + ".annotated.xlsx" }

// WriteContext implements TableWriter.
func (a AnnotatedCopy) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	x := a.Layout
	f, err := excelize.OpenFile(x.File, excelize.Options{UnzipSizeLimit: x.UnzipLimit, UnzipXMLSizeLimit: x.XMLLimit})
	if err != nil {
		return fmt.Errorf("annotating a copy of %s: %w", x.File, err)
	}
	defer f.Close()
	f.SetZipWriter(func(w io.Writer) excelize.ZipWriter { return &ctxZip{ctx: ctx, zw: zip.NewWriter(w)} })
	for _, name := range []string{SheetSummary, SheetLegend} {
		if idx, _ := f.GetSheetIndex(name); idx >= 0 {
			return fmt.Errorf("annotating a copy of %s: the workbook already has a sheet %q", x.File, name)
		}
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
	// one style per (input style, status): the cell keeps its number
	// format, font and borders, with the status's fill
	filled := map[[2]any]int{}
	fill := func(ref string, st audit.Status) error {
		id, err := f.GetCellStyle(x.Sheet, ref)
		if err != nil {
			return err
		}
		k := [2]any{id, st}
		nid, ok := filled[k]
		if !ok {
			style, err := f.GetStyle(id)
			if err != nil {
				return err
			}
			style.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{Palette[st]}}
			if nid, err = f.NewStyle(style); err != nil {
				return err
			}
			filled[k] = nid
		}
		return f.SetCellStyle(x.Sheet, ref, ref, nid)
	}
	cc := canceller{ctx: ctx}
	for _, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		ps, ok := x.Pos[CellKey(c)]
		if !ok {
			return fmt.Errorf("cell %s has no place in the crosstab", t.KeyString(c.Key))
		}
		st := statusOf(c)
		text := cellComment(t, c)
		for _, p := range ps {
			ref, _ := excelize.CoordinatesToCellName(p[1]+1, p[0])
			if st != audit.StatusOK {
				if err := fill(ref, st); err != nil {
					return err
				}
			}
			if text != "" {
				if err := f.AddComment(x.Sheet, excelize.Comment{Cell: ref, Author: "sdcaudit", Paragraph: []excelize.RichTextRun{{Text: text}}, Width: 360, Height: 160}); err != nil {
					return err
				}
			}
		}
	}
	// the values outside the table, withheld from the safe tables
	// unaudited: filled as cells to review, each explained
	for _, p := range x.Withhold {
		if err := cc.next(); err != nil {
			return err
		}
		if p[0] < 1 || p[1] < 0 {
			continue
		}
		ref, _ := excelize.CoordinatesToCellName(p[1]+1, p[0])
		if err := fill(ref, audit.StatusReview); err != nil {
			return err
		}
		text := withheldComment(x.Sheet, ref)
		w, h := commentSize(text)
		if err := f.AddComment(x.Sheet, excelize.Comment{Cell: ref, Author: "sdcaudit", Paragraph: []excelize.RichTextRun{{Text: text}}, Width: w, Height: h}); err != nil {
			return err
		}
	}
	if err := writeSummarySheet(f, t, header); err != nil {
		return err
	}
	if err := writeLegendSheet(f, styles, header, t.Name, 0); err != nil {
		return err
	}
	return f.Write(w)
}

// withheldComment explains a value of the sheet that is no cell of the
// table (Crosstab.Withhold): where it is, that it was not audited and is
// withheld, and how to publish it. It never quotes the value.
func withheldComment(sheet, ref string) string {
	return fmt.Sprintf("withheld, not audited: %s lies outside the table (a number in a title, note or header row, no cell of the table), so the rules never judged it and the safe tables hold the marker in its place. "+
		"To audit it, give input.range or the layout that makes it part of the table; if it is safe to publish as it stands, declare it in the configuration: columns: {safe: [%q]}.", ref, qualifiedRef(sheet, ref))
}

// qualifiedRef is an A1 reference with its sheet as columns.safe takes it
// ("T1!D9", "'My sheet'!D9"); ref alone without a sheet.
func qualifiedRef(sheet, ref string) string {
	if sheet == "" {
		return ref
	}
	plain := true
	for _, r := range sheet {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			plain = false
			break
		}
	}
	if plain {
		return sheet + "!" + ref
	}
	return "'" + strings.ReplaceAll(sheet, "'", "''") + "'!" + ref
}

// SheetCrosstab is the annotated workbook's sheet showing a long table in
// crosstab form.
const SheetCrosstab = "Crosstab"

// maxCrosstabCols bounds the columns of the crosstab sheet (Excel has
// 16,384); a table whose last dimension has more levels gets a note
// instead.
const maxCrosstabCols = 16000

// writeCrosstabSheet shows the table in crosstab form, one block per
// published statistic: the last dimension across, the others down (their
// margins as Total rows and the Total column where the table has them),
// each body cell filled by its status. The one-row-per-cell sheet stays
// the one the checker filters on. dps are the columns' decimals
// (columnDecimals), computed once by the caller; lim bounds the sheet's
// values and comments (Options.MaxCrosstabValues, MaxComments).
func writeCrosstabSheet(ctx context.Context, f *excelize.File, t *audit.Table, styles map[audit.Status]cellStyles, header int, dps map[string]int, lim Options) error {
	if len(t.Dims) == 0 || len(t.Cells) == 0 || len(t.Columns) == 0 {
		return nil
	}
	if _, err := f.NewSheet(SheetCrosstab); err != nil {
		return err
	}
	nd := len(t.Dims)
	cc := canceller{ctx: ctx}
	g, err := collectCrosstab(&cc, t)
	if err != nil {
		return err
	}
	g.order(t.TotalLabel)
	g.maxComments = lim.maxComments()
	if len(g.across)+nd > maxCrosstabCols || (len(g.downKeys)+3)*len(t.Columns) > 1_000_000 ||
		len(g.across)*len(g.downKeys)*len(t.Columns) > lim.maxCrosstabValues() {
		return f.SetCellStr(SheetCrosstab, "A1", fmt.Sprintf("The table is too large to show as a crosstab (%d levels of %s across, %d rows down): see the %s sheet.", len(g.across), t.Dims[nd-1], len(g.downKeys), SheetCells))
	}
	// Comments first: the stream writer keeps the sheet's drawing part.
	if err := g.addComments(&cc, f, t); err != nil {
		return err
	}
	if err := fitWidth(f, SheetCrosstab); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(SheetCrosstab)
	if err != nil {
		return err
	}
	for i, w := range g.widths(t, dps) {
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
	}
	r := 1
	put := func(row []any) error {
		ref, _ := excelize.CoordinatesToCellName(1, r)
		r++
		return sw.SetRow(ref, row)
	}
	for s, col := range t.Columns {
		if err := g.writeBlock(&cc, put, t, s, col, styles, header, dps[col]); err != nil {
			return err
		}
	}
	return sw.Flush()
}

// labelCols is the number of label columns on the left of a block.
func (g *crosstabGrid) labelCols() int { return max(1, g.nd-1) }

// blockRows is the number of rows of one statistic's block: a title, a
// header, the body and a blank row.
func (g *crosstabGrid) blockRows() int { return len(g.downKeys) + 3 }

// addComments puts each flagged cell's explanation (the Cells sheet's
// comment) on its place in every statistic's block, as long as the
// workbook's comment budget allows; beyond it the Cells sheet carries
// the explanations alone (writeBlock's title says so).
func (g *crosstabGrid) addComments(cc *canceller, f *excelize.File, t *audit.Table) error {
	if !g.commented(t) {
		return nil
	}
	cells := g.grid()
	for s := range t.Columns {
		top := 1 + s*g.blockRows() + 2
		for r := range g.downKeys {
			for j, c := range cells[r] {
				if err := cc.next(); err != nil {
					return err
				}
				if c == nil {
					continue
				}
				text := cellComment(t, c)
				if text == "" {
					continue
				}
				ref, _ := excelize.CoordinatesToCellName(g.labelCols()+j+1, top+r)
				w, h := commentSize(text)
				if err := f.AddComment(SheetCrosstab, excelize.Comment{Cell: ref, Author: "sdcaudit", Paragraph: []excelize.RichTextRun{{Text: text}}, Width: w, Height: h}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// commented reports whether the Crosstab sheet carries comments: when
// the Cells sheet does and all the blocks' comments fit g.maxComments.
func (g *crosstabGrid) commented(t *audit.Table) bool {
	n := commentedCells(t)
	return n <= g.maxComments && n*len(t.Columns) <= g.maxComments
}

// widths sizes the sheet's columns to what they show: each label column
// to its longest label, each column across to its header and its longest
// value (formatted as shown, thousands separators included) or status,
// so that no label is cut and no number shows as ###.
func (g *crosstabGrid) widths(t *audit.Table, dps map[string]int) []float64 {
	lc := g.labelCols()
	chars := make([]int, lc+len(g.across))
	fit := func(i int, s string) { chars[i] = max(chars[i], utf8.RuneCountInString(s)) }
	if g.nd == 1 {
		for s := range t.Columns {
			fit(0, t.ColumnLabel(s))
		}
	} else {
		for d, name := range t.Dims[:g.nd-1] {
			fit(d, name)
		}
	}
	for _, dk := range g.downKeys {
		if g.nd > 1 {
			for d, v := range g.down[dk] {
				fit(d, v)
			}
		}
	}
	for j, a := range g.across {
		fit(lc+j, a)
	}
	for r := range g.downKeys {
		for j, c := range g.grid()[r] {
			if c == nil {
				continue
			}
			fit(lc+j, string(statusOf(c)))
			for _, col := range t.Columns {
				if v, ok := c.Stats.Get(col); ok {
					fit(lc+j, displayNumber(v, dps[col]))
				}
			}
		}
	}
	out := make([]float64, len(chars))
	for i, n := range chars {
		// a character is about one unit of Excel's width; room for the
		// cell's padding and a bold header
		out[i] = float64(min(max(n+3, 8), 60))
	}
	return out
}

// crosstabGrid is a table's cells placed in crosstab form: the levels of
// the last dimension across, the keys of the others down.
type crosstabGrid struct {
	nd       int
	across   []string
	downKeys []string
	down     map[string][]string
	at       map[string]*audit.Cell
	// cells are the cells at [row key][across level] in the current
	// order (nil where the table has no such cell), looked up once for
	// every statistic's block (see grid).
	cells [][]*audit.Cell
	// maxComments is the workbook's comment budget (Options.MaxComments),
	// set by writeCrosstabSheet.
	maxComments int
}

// grid returns the cells by row key and level across, in the grid's
// order; it looks them up on the first call.
func (g *crosstabGrid) grid() [][]*audit.Cell {
	if g.cells == nil {
		g.cells = g.lookup(g.downKeys, g.across)
	}
	return g.cells
}

// lookup returns the cells at [row key][level across] for the given row
// keys and levels (nil where the table has no such cell).
func (g *crosstabGrid) lookup(downKeys, across []string) [][]*audit.Cell {
	cells := make([][]*audit.Cell, len(downKeys))
	for r, dk := range downKeys {
		row := make([]*audit.Cell, len(across))
		for j, a := range across {
			row[j] = g.at[dk+"\x01"+a]
		}
		cells[r] = row
	}
	return cells
}

// collectCrosstab places the table's cells in a grid, levels and row keys
// in the order they first appear.
func collectCrosstab(cc *canceller, t *audit.Table) (*crosstabGrid, error) {
	nd := len(t.Dims)
	g := &crosstabGrid{nd: nd, down: map[string][]string{}, at: map[string]*audit.Cell{}}
	seenAcross := map[string]bool{}
	for _, c := range t.Cells {
		if err := cc.next(); err != nil {
			return nil, err
		}
		a := c.Key[nd-1]
		if !seenAcross[a] {
			seenAcross[a] = true
			g.across = append(g.across, a)
		}
		dk := strings.Join(c.Key[:nd-1], "\x00")
		if _, ok := g.down[dk]; !ok {
			g.down[dk] = c.Key[:nd-1]
			g.downKeys = append(g.downKeys, dk)
		}
		g.at[dk+"\x01"+a] = c
	}
	return g, nil
}

// order puts the margins last, as in a published crosstab: the Total
// column last, and the rows dimension by dimension with each Total row
// closing its group.
func (g *crosstabGrid) order(totalLabel string) {
	total := totalLabel
	if total == "" {
		total = "Total"
	}
	across := make([]string, 0, len(g.across))
	var tail []string
	for _, v := range g.across {
		if v == total {
			tail = append(tail, v)
		} else {
			across = append(across, v)
		}
	}
	g.across = append(across, tail...)
	// rows ordered dimension by dimension, each in the order its levels
	// first appear with the Total last: a margin row closes its group
	rank := make([]map[string]int, g.nd-1)
	for d := range rank {
		rank[d] = map[string]int{}
	}
	for _, dk := range g.downKeys {
		for d, v := range g.down[dk] {
			if _, ok := rank[d][v]; !ok {
				rank[d][v] = len(rank[d])
			}
		}
	}
	for d := range rank {
		if _, ok := rank[d][total]; ok {
			rank[d][total] = len(rank[d])
		}
	}
	sort.SliceStable(g.downKeys, func(i, j int) bool {
		a, b := g.down[g.downKeys[i]], g.down[g.downKeys[j]]
		for d := range a {
			if x, y := rank[d][a[d]], rank[d][b[d]]; x != y {
				return x < y
			}
		}
		return false
	})
}

// writeBlock writes the block of statistic column s (named col): a title
// row, a header row, one row per row key and a blank row.
func (g *crosstabGrid) writeBlock(cc *canceller, put func([]any) error, t *audit.Table, s int, col string, styles map[audit.Status]cellStyles, header, dp int) error {
	nd := g.nd
	text := t.ColumnLabel(s) + " by " + strings.Join(t.Dims, ", ") + " (" + t.Dims[nd-1] + " across)"
	if !g.commented(t) && commentedCells(t) > 0 {
		text += "; flagged cells are explained on the " + SheetCells + " sheet"
	}
	title := []any{excelize.Cell{StyleID: header, Value: EscapeFormula(text)}}
	if err := put(title); err != nil {
		return err
	}
	hdr := make([]any, 0, nd+len(g.across))
	for _, d := range t.Dims[:nd-1] {
		hdr = append(hdr, excelize.Cell{StyleID: header, Value: EscapeFormula(d)})
	}
	if nd == 1 {
		hdr = append(hdr, excelize.Cell{StyleID: header})
	}
	for _, a := range g.across {
		hdr = append(hdr, excelize.Cell{StyleID: header, Value: EscapeFormula(a)})
	}
	if err := put(hdr); err != nil {
		return err
	}
	cells := g.grid()
	row := make([]any, 0, nd+len(g.across))
	for r, dk := range g.downKeys {
		if err := cc.next(); err != nil {
			return err
		}
		row = row[:0]
		for _, v := range g.down[dk] {
			row = append(row, excelize.Cell{Value: EscapeFormula(v)})
		}
		if nd == 1 {
			row = append(row, excelize.Cell{Value: EscapeFormula(t.ColumnLabel(s))})
		}
		for _, c := range cells[r] {
			if c == nil {
				row = append(row, nil)
				continue
			}
			st := styles[statusOf(c)]
			v, ok := c.Stats.Get(col)
			if !ok {
				row = append(row, excelize.Cell{StyleID: st.text, Value: string(statusOf(c))})
				continue
			}
			row = append(row, statCell(v, st, dp))
		}
		if err := put(row); err != nil {
			return err
		}
	}
	return put(nil)
}
