package readers

// Detecting the layout of a crosstab given without columns.dims and
// columns.across: leading text columns are the row dimensions (their
// header cells name them), the rows above the first row of numbers are
// the header (one column dimension each), what the body holds is
// columns.value or, failing that, counts when a title says so and every
// value is a whole number. Anything that does not settle it is refused
// naming the sheet, the cell and the keys to set.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/configs"
)

// ErrLayout is wrapped by the errors of a crosstab whose layout cannot be
// detected; they name the keys to set.
var ErrLayout = errors.New("crosstab layout not detected")

// WideDetection is a crosstab layout found without columns.dims and
// columns.across.
type WideDetection struct {
	// Dims, Across and Value are the keys as detected (Value as given
	// when the configuration has it).
	Dims, Across []string
	Value        string
	// Detected lists the keys detected: columns.dims, columns.across and,
	// when the configuration has no value, columns.value.
	Detected []string
	// Note says what was detected and from which cells, for the report.
	Note string
}

// AcrossDefault names the column dimensions of a detected layout when the
// sheet does not (no label left of their header row): "across" for one,
// "across1", "across2", ... for several.
const AcrossDefault = "across"

// countWords in a title or corner cell say that the body holds counts.
var countWords = []string{"number of", "count", "frequenc", "headcount"}

// DetectWide detects the layout of the crosstab in path (every chosen
// sheet must give the same) and returns it; opt.Wide gives the total
// label and, optionally, columns.value or columns.statistics. The table
// is read as with the detected keys, so that any error a configured
// layout would meet is met here.
func DetectWide(path string, opt Options) (*WideDetection, error) {
	w := WideOptions{}
	if opt.Wide != nil {
		w = *opt.Wide
	}
	w.Dims, w.Across, w.Detect = nil, nil, true
	opt.Wide = &w
	srcs, err := openWide(path, opt)
	if err != nil {
		return nil, err
	}
	var d *WideDetection
	firstSheet := ""
	for _, s := range srcs {
		s.Close()
		ws, ok := As[WideSource](s)
		if !ok {
			continue
		}
		got := ws.Layout().Detection
		if d == nil {
			d, firstSheet = got, ws.Layout().Sheet
			continue
		}
		if strings.Join(got.Dims, "\x00") != strings.Join(d.Dims, "\x00") || strings.Join(got.Across, "\x00") != strings.Join(d.Across, "\x00") || got.Value != d.Value {
			lay := ws.Layout()
			keys := func(x *WideDetection) string {
				return fmt.Sprintf("columns.dims [%s], columns.across [%s]", strings.Join(x.Dims, ", "), strings.Join(x.Across, ", "))
			}
			return nil, &Error{File: path, Sheet: lay.Sheet, Err: fmt.Errorf("%w: the sheets are laid out differently (sheet %q: %s; sheet %q: %s): read one sheet at a time (input.sheet, --sheet NAME), or set columns.dims, columns.across and columns.value", ErrLayout, firstSheet, keys(d), lay.Sheet, keys(got))}
		}
	}
	if d == nil {
		return nil, &Error{File: path, Err: fmt.Errorf("%w: no crosstab found", ErrLayout)}
	}
	return d, nil
}

// wideShape is where detection found the table's parts; parseWide reads
// the table there instead of looking for it again.
type wideShape struct {
	left   int   // the first label column (0-based)
	nL     int   // the label columns: left..left+nL-1
	header []int // the header rows (1-based)
	units  []int // units rows between the header and the body
	nS     int   // statistic header rows (0 or 1), first of header
	// groups are the header rows of each column dimension (one each,
	// or two joined: a year row over a quarter row blank under the
	// annual columns)
	groups [][]int
	// sections: the body is headed by section rows (a single label, no
	// values), the first at firstSection; their labels are an outer row
	// dimension
	sections     bool
	firstSection int
	// notes are population notes between the header and the body
	// ("Base: all workers"): lines describing what the table counts, read
	// with the titles, never a section or a code.
	notes []int
	// codeCol is the last label column when it only gives a code for
	// some rows (blank on the others, every code on one row): it names
	// the codes of the columns left of it; -1 when none
	codeCol int
	// numCol is the outer label column whose labels are whole numbers
	// on a block's first row (numberLabel); -1 when none
	numCol int
}

// sectionName names the row dimension of section rows.
const sectionName = "section"

// detectGrid is a sheet as detection sees it: the rows as read and a
// copy with merged ranges filled.
type detectGrid struct {
	lay     *WideLayout
	rows    [][]string // merged ranges filled
	markers map[string]bool
}

func newDetectGrid(lay *WideLayout, merges []*merge, markers map[string]bool) *detectGrid {
	g := &detectGrid{lay: lay, markers: markers}
	g.rows = make([][]string, len(lay.Rows))
	for i, r := range lay.Rows {
		g.rows[i] = append([]string(nil), r...)
	}
	for _, m := range merges {
		if m.r2 > len(g.rows) {
			continue
		}
		v := g.raw(m.r1, m.c1)
		for r := m.r1; r <= m.r2; r++ {
			for len(g.rows[r-1]) <= m.c2 {
				g.rows[r-1] = append(g.rows[r-1], "")
			}
			for c := m.c1; c <= m.c2; c++ {
				g.rows[r-1][c] = v
			}
		}
	}
	return g
}

// raw is the cell as read, filled the cell as merged ranges fill it.
func (g *detectGrid) raw(r, c int) string {
	if r >= 1 && r-1 < len(g.lay.Rows) && c >= 0 && c < len(g.lay.Rows[r-1]) {
		return g.lay.Rows[r-1][c]
	}
	return ""
}

func (g *detectGrid) filled(r, c int) string {
	if r >= 1 && r-1 < len(g.rows) && c >= 0 && c < len(g.rows[r-1]) {
		return g.rows[r-1][c]
	}
	return ""
}

func (g *detectGrid) value(s string) bool {
	if g.markers[s] {
		return true
	}
	return isValueLike(s) && !markerTexts[s]
}

func (g *detectGrid) errf(r, c int, format string, a ...any) error {
	e := &Error{File: g.lay.File, Sheet: g.lay.Sheet, Row: r, Err: fmt.Errorf("%w: "+format, append([]any{ErrLayout}, a...)...)}
	if c >= 0 {
		e.Column = colName(c)
	}
	return e
}

// bodyStart reports whether row r reads as a body row: from its first
// cell, nText text cells (the row labels), then only numbers, markers and
// blanks, at least one of them a value.
func (g *detectGrid) bodyStart(r int) (first, nText int, ok bool) {
	_, first, _ = span(g.rows[r-1])
	if first < 0 {
		return -1, 0, false
	}
	nText, ok = g.bodyFrom(r, first)
	return first, nText, ok
}

// bodyFrom reports whether row r reads as a body row from column first.
func (g *detectGrid) bodyFrom(r, first int) (nText int, ok bool) {
	row := g.rows[r-1]
	c := first
	for ; c < len(row) && row[c] != "" && !g.value(row[c]); c++ {
		nText++
	}
	values := 0
	for ; c < len(row); c++ {
		if row[c] == "" {
			continue
		}
		if !g.value(row[c]) {
			if values > 0 && row[c-1] == "" && g.besideText(r, c) {
				break // a key or legend beside the body
			}
			return nText, false
		}
		values++
	}
	return nText, nText > 0 && values > 0
}

// numberLabel reports whether row r is the first row of a block whose
// outer row label is a whole number printed on the block's first row
// only (a year: "2012 | Jan | values", then " | Feb | values"): a whole
// number in column f directly left of a text label, then values; the
// rows below it, to a blank row, read as body rows from column f+1 with
// column f blank (the label carried down) or another whole number there
// (the next block), the row right below blank there, every number
// distinct. A number
// left of the row labels of a crosstab is a label, not a value.
func (g *detectGrid) numberLabel(r int) (f, nText int, ok bool) {
	row := g.rows[r-1]
	_, f, _ = span(row)
	if f < 0 || f+1 >= len(row) || !isCount(row[f]) || row[f+1] == "" || g.value(row[f+1]) {
		return -1, 0, false
	}
	if nText, ok = g.bodyFrom(r, f+1); !ok {
		return -1, 0, false
	}
	seen := map[string]bool{row[f]: true}
	blank := 0
	for rr := r + 1; rr <= len(g.rows); rr++ {
		v := g.filled(rr, f)
		if n, _, _ := span(g.rows[rr-1]); n == 0 {
			break
		}
		if _, ok := g.bodyFrom(rr, f+1); !ok || g.filled(rr, f+1) == "" || g.value(g.filled(rr, f+1)) {
			break
		}
		for c := 0; c < f; c++ {
			if g.filled(rr, c) != "" {
				return -1, 0, false
			}
		}
		switch {
		case v == "":
			blank++
		case rr == r+1:
			// the label is printed on the block's first row only: a
			// number right below it is not a carried label (and the scan
			// of such a sheet, row after row, would be quadratic)
			return -1, 0, false
		case isCount(v) && !seen[v]:
			seen[v] = true
		default:
			return -1, 0, false
		}
	}
	if blank == 0 {
		return -1, 0, false
	}
	return f, nText + 1, true
}

// besideText reports whether the cells of row r from column c on are all
// text (a key or legend printed beside the body, right of a blank
// column), none a value.
func (g *detectGrid) besideText(r, c int) bool {
	for _, v := range g.rows[r-1][c:] {
		if v != "" && g.value(v) {
			return false
		}
	}
	return true
}

// numberHeader reports whether row r, which reads as a body row (nText
// texts from column f, then values), is the last header row: its values
// are distinct numbers standing under one header cell of the row above
// that spans them (merged over them, or alone with blanks right of it:
// "Percentiles" over 10, 20, ... 90), and the row below is a body row
// whose values start left of row r's, under row r's texts (row r's texts
// are column names, not row labels).
func (g *detectGrid) numberHeader(r, f, nText int) bool {
	if r < 2 || r >= len(g.rows) || g.titleLine(r-1) {
		return false
	}
	if n, _, _ := span(g.rows[r-2]); n == 0 {
		return false
	}
	row := g.rows[r-1]
	v1, vk := -1, -1
	nums := map[string]bool{}
	for c := f + nText; c < len(row); c++ {
		v := row[c]
		if v == "" {
			continue
		}
		if !g.value(v) {
			break // text beside the values
		}
		if g.markers[v] || markerTexts[v] || nums[v] {
			return false
		}
		nums[v] = true
		if v1 < 0 {
			v1 = c
		}
		vk = c
	}
	if len(nums) < 2 {
		return false
	}
	// the header cell over the numbers: the nearest cell of the row above
	// at or left of the first number, right of row r's texts
	h := v1
	for h >= f+nText && g.raw(r-1, h) == "" {
		h--
	}
	up := g.raw(r-1, h)
	if h < f+nText || up == "" || g.value(up) {
		return false
	}
	for c := h + 1; c <= vk; c++ {
		if g.raw(r-1, c) != "" || (g.filled(r-1, c) != "" && g.filled(r-1, c) != up) {
			return false
		}
	}
	// the row below: a body row with a value under one of row r's texts
	f2, n2, ok := g.bodyStart(r + 1)
	if !ok || f2 > f {
		return false
	}
	for c := max(f2+n2, f); c < f+nText; c++ {
		if row[c] != "" && g.filled(r+1, c) != "" && g.value(g.filled(r+1, c)) {
			return true
		}
	}
	return false
}

// unitsRow reports whether row r states units over the body columns
// (right of column lastLabel) and has nothing in the label columns.
func (g *detectGrid) unitsRow(r, left, lastLabel int) bool {
	n := 0
	for c, v := range g.lay.Rows[r-1] {
		if v == "" {
			continue
		}
		if c <= lastLabel && c >= left || !isUnits(v) {
			return false
		}
		n++
	}
	return n > 0
}

// titleLine reports whether row r, above the header, is a title or units
// line: a single cell not spreading over columns by a merge.
func (g *detectGrid) titleLine(r int) bool {
	n, f, _ := span(g.lay.Rows[r-1])
	if n != 1 {
		return false
	}
	n2, _, _ := span(g.rows[r-1])
	return n2 == 1 || f < 0
}

// textUnderValue reports whether row r+1 holds texts only (no number or
// marker), one of them under a number of row r, merged ranges filled.
func (g *detectGrid) textUnderValue(r int) bool {
	up, down := g.rows[r-1], g.rows[r]
	under := false
	for c, v := range down {
		if v == "" {
			continue
		}
		if g.value(v) {
			return false
		}
		if c < len(up) && up[c] != "" && g.value(up[c]) {
			under = true
		}
	}
	return under
}

// wideTitle reports whether row r is a title merged across the table: a
// single cell in or left of the label columns whose merged range spreads
// over the body's columns (a header group never covers the label
// columns).
func (g *detectGrid) wideTitle(r, left, nL int) bool {
	n, f, _ := span(g.lay.Rows[r-1])
	if n != 1 || f > left+nL-1 {
		return false
	}
	_, _, last := span(g.rows[r-1])
	return last > left+nL-1
}

const wideKeys = "columns.dims (the row dimensions, one label column each), columns.across (the column dimensions, one header row each) and columns.value"

// findShape finds the first body row, the label columns, the header rows
// above it (to a blank row or a title line) and any units rows between.
func (g *detectGrid) findShape() (*wideShape, int, error) {
	bodyAt, left, nL, numCol := -1, 0, 0, -1
	for r := 1; r <= len(g.rows); r++ {
		f, n, ok := g.bodyStart(r)
		numCol = -1
		if !ok {
			if f, n, ok = g.numberLabel(r); ok {
				numCol = f
				// the row above numbered the same way (a whole number left
				// of a label, then values) is a block of one row, or the
				// numbers are not carried labels: not a header either
				if r > 1 && f < len(g.rows[r-2]) && isCount(g.rows[r-2][f]) && f+1 < len(g.rows[r-2]) && g.rows[r-2][f+1] != "" && !g.value(g.rows[r-2][f+1]) {
					if _, ok2 := g.bodyFrom(r-1, f+1); ok2 {
						return nil, 0, g.errf(r-1, f, "rows %d and %d both start with a whole number left of a row label; a year or group printed on a block's first row only has the rows below it blank there: set %s", r-1, r, wideKeys)
					}
				}
			}
		}
		if ok {
			if numCol < 0 && g.numberHeader(r, f, n) {
				continue
			}
			// a header row of numbers (years) beside text column names
			// ("Census", "Estimates Base", 2010, 2011, ...) reads as a
			// body row; it is a header when the next row is a body row
			// whose labels end left of this row's own texts (as read,
			// merges not filled), which stand over its numbers
			if numCol < 0 && r < len(g.rows) {
				_, rf, _ := span(g.lay.Rows[r-1])
				if f2, n2, ok2 := g.bodyStart(r + 1); ok2 && f2 < rf && f2+n2 <= rf {
					continue
				}
				// or when the next row is a header row (texts only) with
				// a text under one of this row's numbers (a sex row under
				// a year row)
				if g.textUnderValue(r) {
					continue
				}
			}
			bodyAt, left, nL = r, f, n
			break
		}
	}
	if bodyAt < 0 {
		return nil, 0, g.errf(0, -1, "no row of numbers below a header found: set %s", wideKeys)
	}
	// the label columns of the block: a row below may start further left
	// (the first body row's outer label left blank)
	for r := bodyAt + 1; r <= len(g.rows); r++ {
		f, n, ok := g.bodyStart(r)
		if !ok {
			break
		}
		if f < left && f+n >= left+nL {
			left, nL = f, n
		}
	}
	sh := &wideShape{left: left, nL: nL, codeCol: -1, numCol: numCol}
	if g.codeColumn(bodyAt, left, nL) {
		sh.codeCol = left + nL
		sh.nL++
	}
	r := bodyAt - 1
	for ; r >= 1 && g.unitsRow(r, left, left+nL-1); r-- {
		sh.units = append([]int{r}, sh.units...)
	}
	r = g.headerAbove(sh, r)
	if len(sh.header) == 0 {
		// section rows (a single label, no values) and blank rows between
		// the header and the body
		// population notes ("Base: all workers") there are notes of the
		// table, not sections
		rr := r
		var secs, notes []int
		for ; rr >= 1; rr-- {
			if n, _, _ := span(g.rows[rr-1]); n == 0 {
				continue
			}
			if g.populationRow(rr, left, nL) && g.noValueRight(rr, left, nL) {
				notes = append([]int{rr}, notes...)
				continue
			}
			if !g.sectionRow(rr, left, nL) {
				break
			}
			secs = append([]int{rr}, secs...)
		}
		if len(secs)+len(notes) > 0 && rr >= 1 {
			if g.headerAbove(sh, rr); len(sh.header) > 0 {
				if len(secs) > 0 {
					sh.sections, sh.firstSection = true, secs[0]
				}
				sh.notes = notes
			}
		}
	}
	return sh, bodyAt, nil
}

// codeColumn reports whether the column right of the label columns
// left..left+nL-1 holds codes on some rows of the block from bodyAt and
// is blank on the others, like a constituency code beside its name but
// not beside the regions and countries above it: a header cell names it,
// its codes are distinct text, each beside distinct labels, and every
// row has its labels of its own (nothing there to carry down).
func (g *detectGrid) codeColumn(bodyAt, left, nL int) bool {
	cc := left + nL
	named := false
	for r := bodyAt - 1; r >= 1; r-- {
		if n, _, _ := span(g.rows[r-1]); n == 0 {
			break
		}
		named = named || g.filled(r, cc) != ""
	}
	if !named {
		return false
	}
	codes, labels := map[string]bool{}, map[string]bool{}
	blank := 0
	for r := bodyAt; r <= len(g.rows); r++ {
		f, n, ok := g.bodyStart(r)
		if !ok {
			break
		}
		if f != left || n < nL || n > nL+1 {
			return false
		}
		var key []string
		for c := left; c < cc; c++ {
			key = append(key, g.raw(r, c))
		}
		v := g.raw(r, cc)
		if v == "" {
			blank++
			continue
		}
		k := strings.Join(key, "\x00")
		if codes[v] || labels[k] {
			return false
		}
		codes[v], labels[k] = true, true
	}
	return blank > 0 && len(codes) >= 2
}

// sectionRow reports whether row r holds a single text in the label
// columns and nothing else.
func (g *detectGrid) sectionRow(r, left, nL int) bool {
	n, f, _ := span(g.lay.Rows[r-1])
	return n == 1 && f >= left && f < left+nL && !g.value(g.raw(r, f))
}

// headerAbove collects into sh.header the header rows ending at row r (up
// to a blank row or a title line) and returns the row above them.
func (g *detectGrid) headerAbove(sh *wideShape, r int) int {
	left, nL := sh.left, sh.nL
	for ; r >= 1; r-- {
		if n, _, _ := span(g.rows[r-1]); n == 0 {
			if len(sh.header) == 0 || !g.headerOverBody(sh, r-1) {
				break
			}
			continue // a blank row inside the header
		}
		if g.wideTitle(r, left, nL) || g.populationRow(r, left, nL) {
			break
		}
		if g.titleLine(r) {
			// a single cell under the label column directly above the
			// body (or units) with a header row above it names the row
			// dimension
			_, f, _ := span(g.lay.Rows[r-1])
			nameRow := len(sh.header) == 0 && f >= left && f < left+nL && r > 1 && !g.titleLine(r-1)
			if nameRow {
				n, _, _ := span(g.rows[r-2])
				nameRow = n > 0
			}
			if !nameRow {
				break
			}
		}
		sh.header = append([]int{r}, sh.header...)
	}
	return r
}

// populationRow reports whether row r starts, in or left of the label
// columns, with a population note ("Base: all workers", isPopulationNote):
// a note describing what the table counts, not a header row, even with a
// number beside it (the base's size above the Total column).
func (g *detectGrid) populationRow(r, left, nL int) bool {
	_, f, _ := span(g.lay.Rows[r-1])
	return f >= 0 && f < left+nL && isPopulationNote(g.raw(r, f))
}

// noValueRight reports whether row r holds nothing right of the label
// columns left..left+nL-1.
func (g *detectGrid) noValueRight(r, left, nL int) bool {
	for c := left + nL; c < len(g.rows[r-1]); c++ {
		if g.rows[r-1][c] != "" {
			return false
		}
	}
	return true
}

// headerOverBody reports whether row r, above a blank row above header
// rows, is a header row too: two cells or more, every one right of the
// label columns and none a value or a unit, one of them in a range merged
// over several columns or under one (the header's groups).
func (g *detectGrid) headerOverBody(sh *wideShape, r int) bool {
	if r < 1 {
		return false
	}
	n, f, _ := span(g.rows[r-1])
	if nRaw, _, _ := span(g.lay.Rows[r-1]); nRaw < 2 || n < 2 || f < sh.left+sh.nL {
		return false // a title merged across is one cell
	}
	merged := false
	for c, v := range g.rows[r-1] {
		if v == "" {
			continue
		}
		if g.value(v) || isUnits(v) {
			return false
		}
		merged = merged || g.raw(r, c) == "" || g.filled(r-1, c) != "" && g.raw(r-1, c) == "" && g.filled(r-1, c) == g.filled(r-1, c-1)
	}
	return merged
}

// joinGroups sets sh.groups: each header row below the statistic row is
// a column dimension, except that a row blank under a labelled cell of
// the row above (not a Total) is joined to it: one dimension whose labels
// read down ("2018", "2018 Q2"); so is a row every cell of which is a
// range merged down from the row above (one header over two rows).
func (g *detectGrid) joinGroups(sh *wideShape, total string) {
	rows := sh.header[sh.nS:]
	sh.groups = nil
	for k, hr := range rows {
		join := false
		if k > 0 {
			_, _, last := span(g.rows[hr-1])
			_, _, lastUp := span(g.rows[hr-2])
			// a row holding nothing of its own, every cell the continuation
			// of a range merged down from the row above, is the same
			// header row, not a second dimension
			mergedDown := true
			for c := sh.left + sh.nL; c <= max(last, lastUp); c++ {
				up := g.filled(hr-1, c)
				if g.filled(hr, c) == "" && up != "" && up != total {
					join = true
				}
				if g.raw(hr, c) != "" || g.filled(hr, c) != up {
					mergedDown = false
				}
			}
			join = join || mergedDown || g.readDown(sh, sh.groups[len(sh.groups)-1], hr)
		}
		if join {
			sh.groups[len(sh.groups)-1] = append(sh.groups[len(sh.groups)-1], hr)
		} else {
			sh.groups = append(sh.groups, []int{hr})
		}
	}
}

// readDown reports whether header row hr continues the names of the row
// above rather than being a dimension of its own: the row above has no
// label over a column where row hr has one (it cannot label every
// column), and no cell of row hr or of the rows of the group above it
// is merged across columns. The labels read down ("Number" / "of jobs" /
// "(thousand)" over one column, "Median" under blanks over the next).
func (g *detectGrid) readDown(sh *wideShape, group []int, hr int) bool {
	_, _, last := span(g.rows[hr-1])
	_, _, lastUp := span(g.rows[hr-2])
	gap := false
	for c := sh.left + sh.nL; c <= max(last, lastUp); c++ {
		for _, r := range append([]int{hr}, group...) {
			if g.raw(r, c) == "" && g.filled(r, c) != "" && g.filled(r, c) == g.filled(r, c-1) {
				return false // merged across columns
			}
		}
		if g.filled(hr-1, c) == "" && g.filled(hr, c) != "" {
			gap = true
		}
	}
	return gap
}

// detectWide finds the row dimensions, the column dimensions and (when
// not given) the statistic of the table in lay, and sets them in w.
func detectWide(lay *WideLayout, merges []*merge, w *WideOptions) error {
	g := newDetectGrid(lay, merges, markerSet(w.Markers))
	if n, _, _ := span(flat(lay.Rows)); n == 0 {
		return g.errf(0, -1, "the sheet is empty")
	}
	if ok, err := detectABSTimeSeries(g, w); ok || err != nil {
		return err // the ABS time-series layout (abs_timeseries.go)
	}
	sh, bodyAt, err := g.findShape()
	if err != nil {
		return err
	}
	nS := 0
	if len(w.Stats) > 0 {
		nS = 1
	}
	if len(sh.header) <= nS {
		for r := bodyAt - 1; r >= 1; r-- {
			values := 0
			for _, v := range g.rows[r-1] {
				if v != "" && g.value(v) {
					values++
				}
			}
			if values >= 2 && (sh.numCol >= 0 || r < bodyAt-1) {
				return g.errf(bodyAt, -1, "row %d reads as the first body row of a table with no header row above it, and row %d above holds numbers too (several tables stacked on the sheet?): give input.range (--range) for one table, or set %s", bodyAt, r, wideKeys)
			}
		}
		return g.errf(bodyAt, -1, "row %d reads as the table's first body row, with no header row above it (a header of numbers, such as years, cannot be told from the body): set %s", bodyAt, wideKeys)
	}
	sh.nS = nS
	g.joinGroups(sh, w.TotalLabel)
	if err := g.sameLabels(sh, bodyAt); err != nil {
		return err
	}
	dims, seen, err := g.dimNames(sh)
	if err != nil {
		return err
	}
	across, named, err := g.acrossNames(sh, nS, seen)
	if err != nil {
		return err
	}
	nA := len(sh.groups)
	d := &WideDetection{Dims: dims, Across: across, Detected: []string{"columns.dims", "columns.across"}}
	d.Note = fmt.Sprintf("layout detected (no columns.dims or columns.across in the configuration): columns.dims [%s] from the header cells of %s, columns.across [%s] (header %s, %d column dimension(s)",
		strings.Join(dims, ", "), colSpan(colsFrom(sh.left, sh.nL)), strings.Join(across, ", "), rowSpan(sh.header), nA)
	if len(named) > 0 {
		d.Note += ", named " + strings.Join(named, ", ")
	}
	if len(named) < nA {
		d.Note += fmt.Sprintf("; a column dimension without a name in the sheet is called %s", AcrossDefault)
	}
	d.Note += ")"
	if err := g.detectValue(sh, bodyAt, w, d); err != nil {
		return err
	}
	w.Dims, w.Across, w.Value = dims, across, d.Value
	w.shape = sh
	lay.Detection = d
	return nil
}

// flat joins rows for span: whether the sheet has any cell at all.
func flat(rows [][]string) []string {
	for _, r := range rows {
		if n, _, _ := span(r); n > 0 {
			return r
		}
	}
	return nil
}

// sameLabels refuses body rows whose row labels do not stand in the label
// columns: a number among them (numbers as row labels), a text right of
// them, or a cell left of them. Blank labels are left to parseWide, which
// carries them down or refuses them.
func (g *detectGrid) sameLabels(sh *wideShape, bodyAt int) error {
	lastLabel := sh.left + sh.nL - 1
	for r := bodyAt; r <= len(g.rows); r++ {
		row := g.rows[r-1]
		n, first, _ := span(row)
		if n == 0 || g.wideTitle(r, sh.left, sh.nL) {
			// a blank row, or a note merged across the table right
			// below the body, ends it
			break
		}
		if nRaw, _, _ := span(g.lay.Rows[r-1]); nRaw == 1 && n > 1 {
			break // a note merged across the table, under the body
		}
		if first < sh.left {
			return g.errf(r, first, "row %d has a cell (%q) left of the row-label columns (%s from row %d): the row-label columns cannot be told (numbers as row labels, or several tables on the sheet?): give input.range (--range) for one table, or set %s", r, row[first], colSpan(colsFrom(sh.left, sh.nL)), bodyAt, wideKeys)
		}
		labels := 0
		bad := -1
		for c := sh.left; c <= lastLabel+1 && c < len(row); c++ {
			v := row[c]
			switch {
			case v == "":
			case c == sh.numCol && isCount(v):
				labels++ // a number label on a block's first row
			case c <= lastLabel && g.value(v), c > lastLabel && !g.value(v):
				bad = c
			default:
				labels++
			}
			if bad >= 0 {
				break
			}
		}
		if bad >= 0 {
			for c := bad; c < len(row) && bad > lastLabel && row[c] != "" && !g.value(row[c]); c++ {
				labels++ // the labels right of the label columns
			}
			return g.errf(r, bad, "row %d has %d row label(s), row %d has %d: the row-label columns cannot be told from the body (numbers as row labels?): set %s", r, labels, bodyAt, sh.nL, wideKeys)
		}
	}
	return nil
}

// dimNames names the row dimensions by their header cells (the last
// non-blank one up the header, notes set aside); a label column without
// one is called "column X".
func (g *detectGrid) dimNames(sh *wideShape) ([]string, map[string]bool, error) {
	var dims []string
	seen := map[string]bool{}
	if sh.sections {
		dims, seen[sectionName] = []string{sectionName}, true
	}
	for c := sh.left; c < sh.left+sh.nL; c++ {
		name := ""
		for k := len(sh.header) - 1; k >= 0 && name == ""; k-- {
			name = configs.StripNotes(g.filled(sh.header[k], c))
		}
		if name == "" {
			name = "column " + colName(c)
		}
		if seen[name] {
			return nil, nil, g.errf(sh.header[len(sh.header)-1], c, "two row-label columns are named %q: set %s", name, wideKeys)
		}
		seen[name] = true
		dims = append(dims, name)
	}
	return dims, seen, nil
}

// acrossNames names the column dimensions: one per header row (below the
// statistic row), by a label left of the row that is not a row
// dimension's name, else the default.
func (g *detectGrid) acrossNames(sh *wideShape, nS int, seen map[string]bool) (across, named []string, err error) {
	nA := len(sh.groups)
	across = make([]string, nA)
	for k, rows := range sh.groups {
		hr := rows[0]
		for _, r := range rows {
			for c := sh.left; c < sh.left+sh.nL; c++ {
				if v := configs.StripNotes(g.filled(r, c)); v != "" && !seen[v] {
					across[k], hr = v, r
				}
			}
		}
		if across[k] == "" {
			across[k] = AcrossDefault
			if nA > 1 {
				across[k] += fmt.Sprint(k + 1)
			}
		} else {
			named = append(named, fmt.Sprintf("%s from %s%d", across[k], colName(sh.left), hr))
		}
		if seen[across[k]] {
			return nil, nil, g.errf(hr, sh.left, "the column dimension of header row %d would be named %q like another dimension: set columns.across", hr, across[k])
		}
		seen[across[k]] = true
	}
	return across, named, nil
}

// detectValue sets what the body holds: columns.value as given, else
// counts when a title or header label says so and every value is a whole
// number.
func (g *detectGrid) detectValue(sh *wideShape, bodyAt int, w *WideOptions, d *WideDetection) error {
	if w.Value != "" || len(w.Stats) > 0 {
		d.Value = w.Value
		return nil
	}
	said := ""
	for r := 1; r < bodyAt && said == ""; r++ {
		for c := 0; c < max(sh.left+sh.nL, 1) && said == ""; c++ {
			v := strings.ToLower(g.filled(r, c))
			for _, word := range countWords {
				if v != "" && strings.Contains(v, word) && said == "" {
					said = fmt.Sprintf("%s%d says %q", colName(c), r, g.filled(r, c))
				}
			}
		}
	}
	if said == "" {
		return g.errf(sh.header[0], -1, "cannot tell what the body holds (no title says \"number of\" or \"count\"): set columns.value (count, total, mean, ...), or --value")
	}
	for r := bodyAt; r <= len(g.rows); r++ {
		if n, _, _ := span(g.rows[r-1]); n == 0 {
			break
		}
		for c := sh.left + sh.nL; c < len(g.rows[r-1]); c++ {
			if v := g.rows[r-1][c]; v != "" && !g.markers[v] && !isCount(v) {
				return g.errf(r, c, "%s, but %q is not a whole number of at least 0: set columns.value (count, total, mean, ...), or --value", said, v)
			}
		}
	}
	d.Value = "count"
	d.Detected = append(d.Detected, "columns.value")
	d.Note += ", columns.value count (" + said + " and every value is a whole number)"
	return nil
}

func colsFrom(left, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = left + i
	}
	return out
}

// isCount reports whether s is a whole number >= 0, perhaps with
// thousands separators.
func isCount(s string) bool {
	s = strings.NewReplacer(",", "", " ", "", "'", "", "\u00a0", "").Replace(s)
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
