package writers

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
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
type Annotated struct{}

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
func (Annotated) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
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
	// Comments first: the stream writer keeps the sheet's drawing part.
	for i, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		text := cellComment(t, c)
		if text == "" {
			continue
		}
		ref, _ := excelize.CoordinatesToCellName(statusCol, i+2)
		if err := f.AddComment(SheetCells, excelize.Comment{Cell: ref, Author: "sdcaudit", Paragraph: []excelize.RichTextRun{{Text: text}}, Width: 360, Height: 160}); err != nil {
			return err
		}
	}
	sw, err := f.NewStreamWriter(SheetCells)
	if err != nil {
		return err
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := sw.SetColWidth(1, ncol, 14); err != nil {
		return err
	}
	if err := sw.SetColWidth(ncol, ncol, 30); err != nil {
		return err
	}
	row := make([]any, 0, ncol)
	for _, d := range t.Dims {
		row = append(row, excelize.Cell{StyleID: header, Value: EscapeFormula(d)})
	}
	for i := range t.Columns {
		row = append(row, excelize.Cell{StyleID: header, Value: EscapeFormula(t.ColumnLabel(i))})
	}
	row = append(row, excelize.Cell{StyleID: header, Value: "status"}, excelize.Cell{StyleID: header, Value: "rules"})
	if err := sw.SetRow("A1", row); err != nil {
		return err
	}
	for i, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		st := styles[c.Status]
		row = row[:0]
		for _, k := range c.Key {
			row = append(row, excelize.Cell{StyleID: st.text, Value: EscapeFormula(k)})
		}
		for _, col := range t.Columns {
			s, ok := c.Stats[col]
			if !ok {
				row = append(row, excelize.Cell{StyleID: st.text})
				continue
			}
			row = append(row, statCell(s, st))
		}
		row = append(row, excelize.Cell{StyleID: st.text, Value: string(statusOf(c))}, excelize.Cell{StyleID: st.text, Value: strings.Join(flaggedRules(c), ", ")})
		ref, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(ref, row); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	if err := writeSummarySheet(f, t, header); err != nil {
		return err
	}
	if err := writeLegendSheet(f, styles, header); err != nil {
		return err
	}
	if err := writeCrosstabSheet(ctx, f, t, styles, header); err != nil {
		return err
	}
	// The first sheet (the cells) is already the active one; setting it
	// again would make excelize parse the streamed sheet back.
	return f.Write(w)
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
// and are written to the archive in name order on Close.
type ctxZip struct {
	ctx     context.Context
	zw      *zip.Writer
	entries map[string]*bytes.Buffer
}

func (z *ctxZip) Create(name string) (io.Writer, error) {
	if err := z.ctx.Err(); err != nil {
		return nil, err
	}
	if z.entries == nil {
		z.entries = map[string]*bytes.Buffer{}
	}
	if _, dup := z.entries[name]; dup {
		return nil, fmt.Errorf("workbook entry %s written twice", name)
	}
	b := &bytes.Buffer{}
	z.entries[name] = b
	return ctxWriter{z.ctx, b}, nil
}

func (z *ctxZip) AddFS(fsys fs.FS) error {
	if err := z.ctx.Err(); err != nil {
		return err
	}
	return z.zw.AddFS(fsys)
}

func (z *ctxZip) Close() error {
	names := make([]string, 0, len(z.entries))
	for n := range z.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := z.ctx.Err(); err != nil {
			return err
		}
		w, err := z.zw.Create(n)
		if err != nil {
			return err
		}
		if _, err := w.Write(z.entries[n].Bytes()); err != nil {
			return err
		}
	}
	return z.zw.Close()
}

// cellStyles are the style ids of one status.
type cellStyles struct{ text, num int }

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
		num, err := f.NewStyle(&excelize.Style{Fill: fill, Border: border, Font: &excelize.Font{Color: "000000"}, CustomNumFmt: strPtr("General")})
		if err != nil {
			return nil, 0, err
		}
		out[s] = cellStyles{txt, num}
	}
	hdr, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E8E8E8"}}, Border: []excelize.Border{{Type: "bottom", Color: "808080", Style: 1}}})
	return out, hdr, err
}

func strPtr(s string) *string { return &s }

func statusOf(c *audit.Cell) audit.Status {
	if c.Status == "" {
		return audit.StatusOK
	}
	return c.Status
}

// statCell gives a statistic as a number when it is one, else as text.
func statCell(s audit.Stat, st cellStyles) excelize.Cell {
	if !s.Missing && !s.Marker {
		if v, ok := number(s.Text); ok {
			return excelize.Cell{StyleID: st.num, Value: v}
		}
		if s.Text == "" {
			return excelize.Cell{StyleID: st.num, Value: s.Value.Float64()}
		}
	}
	return excelize.Cell{StyleID: st.text, Value: EscapeFormula(s.Text)}
}

// number parses a published number, with thousands separators allowed.
func number(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if _, err := decimal.Parse(s); err != nil {
		clean := strings.NewReplacer(",", "", " ", "", "\u00a0", "", "'", "").Replace(s)
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
	for _, f := range c.Findings {
		if f.Status == audit.Fail || f.Status == audit.Review {
			out = append(out, f.Rule)
		}
	}
	return out
}

// cellComment explains a flagged cell: each failing or reviewing rule
// with its message and figures, then the table notes. It is empty for ok
// cells without notes.
func cellComment(t *audit.Table, c *audit.Cell) string {
	var b strings.Builder
	for _, f := range c.Findings {
		if f.Status != audit.Fail && f.Status != audit.Review {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n%s\n", f.Rule, f.Status, f.Message())
		figs := slices.Clone(f.FigureList())
		slices.SortStableFunc(figs, func(x, y audit.Figure) int { return strings.Compare(x.Name, y.Name) })
		for _, g := range figs {
			fmt.Fprintf(&b, "  %s = %s\n", g.Name, g.String())
		}
	}
	for _, n := range c.Notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return ""
	}
	s := strings.TrimRight(b.String(), "\n")
	if len(s) > 30000 {
		s = s[:30000] + "..."
	}
	return string(statusOf(c)) + " (" + t.KeyString(c.Key) + ")\n" + s
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

func writeLegendSheet(f *excelize.File, styles map[audit.Status]cellStyles, header int) error {
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
	notes := []string{
		"Each row of the Cells sheet is one cell of the table, filled by its status.",
		"The status cell of a flagged row carries a comment: the rules, their reasons and figures.",
		"This workbook is for the output checker: it may hold confidential figures. Publish NAME.safe.csv/.xlsx instead.",
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

// WriteContext implements TableWriter.
func (s SafeXLSX) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f := newWorkbook(ctx)
	defer f.Close()
	const sheet = "Table"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
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
