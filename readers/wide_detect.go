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
	for _, s := range srcs {
		s.Close()
		ws, ok := As[WideSource](s)
		if !ok {
			continue
		}
		got := ws.Layout().Detection
		if d == nil {
			d = got
			continue
		}
		if strings.Join(got.Dims, "\x00") != strings.Join(d.Dims, "\x00") || strings.Join(got.Across, "\x00") != strings.Join(d.Across, "\x00") || got.Value != d.Value {
			lay := ws.Layout()
			return nil, &Error{File: path, Sheet: lay.Sheet, Err: fmt.Errorf("%w: the sheets are laid out differently (%s; %s): set input.sheet, or columns.dims, columns.across and columns.value", ErrLayout, d.Note, got.Note)}
		}
	}
	if d == nil {
		return nil, &Error{File: path, Err: fmt.Errorf("%w: no crosstab found", ErrLayout)}
	}
	return d, nil
}

// detectWide finds the row dimensions, the column dimensions and (when
// not given) the statistic of the table in lay, and sets them in w.
func detectWide(lay *WideLayout, merges []*merge, w *WideOptions) error {
	at := func(rows [][]string, r, c int) string {
		if r-1 < len(rows) && c < len(rows[r-1]) {
			return rows[r-1][c]
		}
		return ""
	}
	errf := func(r, c int, format string, a ...any) error {
		e := &Error{File: lay.File, Sheet: lay.Sheet, Row: r, Err: fmt.Errorf("%w: "+format, append([]any{ErrLayout}, a...)...)}
		if c >= 0 {
			e.Column = colName(c)
		}
		return e
	}
	// merged ranges filled on a copy: a name merged over the header rows
	rows := make([][]string, len(lay.Rows))
	for i, r := range lay.Rows {
		rows[i] = append([]string(nil), r...)
	}
	for _, m := range merges {
		if m.r2 > len(rows) {
			continue
		}
		v := at(lay.Rows, m.r1, m.c1)
		for r := m.r1; r <= m.r2; r++ {
			for len(rows[r-1]) <= m.c2 {
				rows[r-1] = append(rows[r-1], "")
			}
			for c := m.c1; c <= m.c2; c++ {
				rows[r-1][c] = v
			}
		}
	}
	left := -1
	for _, row := range lay.Rows {
		if _, f, _ := span(row); f >= 0 && (left < 0 || f < left) {
			left = f
		}
	}
	if left < 0 {
		return errf(0, -1, "the sheet is empty")
	}
	// titles, as parseWide finds them
	r := 1
	var titles []int
	for ; r <= len(lay.Rows); r++ {
		n, f, _ := span(lay.Rows[r-1])
		if n == 0 {
			continue
		}
		if n == 1 && f == left {
			titles = append(titles, r)
			continue
		}
		break
	}
	first := r
	// the block of header and body rows, to the first blank row
	end := first
	for end <= len(lay.Rows) {
		if n, _, _ := span(lay.Rows[end-1]); n == 0 {
			break
		}
		end++
	}
	// a body row: a text label at the left, then only numbers, markers
	// and blanks; nText is its number of leading text cells
	leading := func(r int) (nText int, body bool) {
		row := rows[r-1]
		c := left
		for ; c < len(row) && row[c] != "" && !isValueLike(row[c]); c++ {
			nText++
		}
		values := 0
		for ; c < len(row); c++ {
			if row[c] == "" {
				continue
			}
			if !isValueLike(row[c]) {
				return nText, false
			}
			values++
		}
		return nText, nText > 0 && values > 0
	}
	bodyAt := -1
	for r := first; r < end; r++ {
		if _, ok := leading(r); ok {
			bodyAt = r
			break
		}
	}
	keys := "columns.dims (the row dimensions, one label column each), columns.across (the column dimensions, one header row each) and columns.value"
	if bodyAt < 0 {
		return errf(first, -1, "no row of numbers below a header found: set %s", keys)
	}
	nS := 0
	if len(w.Stats) > 0 {
		nS = 1
	}
	if bodyAt-first <= nS {
		return errf(bodyAt, -1, "row %d reads as the table's first body row, with no header row above it (a header of numbers, such as years, cannot be told from the body): set %s", bodyAt, keys)
	}
	nD := -1
	for r := bodyAt; r < end; r++ {
		n, ok := leading(r)
		if !ok {
			break // parseWide names what is wrong with it
		}
		if nD >= 0 && n != nD {
			return errf(r, left+min(n, nD), "row %d has %d row label(s), row %d has %d: the row-label columns cannot be told from the body (numbers as row labels?): set %s", r, n, bodyAt, nD, keys)
		}
		nD = n
	}
	header := make([]int, 0, bodyAt-first)
	for r := first; r < bodyAt; r++ {
		header = append(header, r)
	}
	// the row dimensions: named by their header cell (the last non-blank
	// one up the header)
	var dims []string
	seen := map[string]bool{}
	for c := left; c < left+nD; c++ {
		name := ""
		for k := len(header) - 1; k >= 0 && name == ""; k-- {
			name = at(rows, header[k], c)
		}
		if name == "" {
			return errf(header[len(header)-1], c, "the row-label column %s has no name in the header: set %s", colName(c), keys)
		}
		if seen[name] {
			return errf(header[len(header)-1], c, "two row-label columns are named %q: set %s", name, keys)
		}
		seen[name] = true
		dims = append(dims, name)
	}
	// the column dimensions: one per header row (below the statistic
	// row), named by a label left of the row that is not a row
	// dimension's name, else the default
	nA := len(header) - nS
	across := make([]string, nA)
	var named []string
	for k := range nA {
		hr := header[nS+k]
		for c := left; c < left+nD; c++ {
			if v := at(rows, hr, c); v != "" && !seen[v] {
				across[k] = v
			}
		}
		if across[k] == "" {
			across[k] = AcrossDefault
			if nA > 1 {
				across[k] += fmt.Sprint(k + 1)
			}
		} else {
			named = append(named, fmt.Sprintf("%s from %s%d", across[k], colName(left), hr))
		}
		if seen[across[k]] {
			return errf(hr, left, "the column dimension of header row %d would be named %q like another dimension: set columns.across", hr, across[k])
		}
		seen[across[k]] = true
	}
	d := &WideDetection{Dims: dims, Across: across, Detected: []string{"columns.dims", "columns.across"}}
	d.Note = fmt.Sprintf("layout detected (no columns.dims or columns.across in the configuration): columns.dims [%s] from the header cells of %s, columns.across [%s] (%d header row(s)",
		strings.Join(dims, ", "), colSpan(colsFrom(left, nD)), strings.Join(across, ", "), nA)
	if len(named) > 0 {
		d.Note += ", named " + strings.Join(named, ", ")
	}
	if len(named) < nA {
		d.Note += fmt.Sprintf("; a column dimension without a name in the sheet is called %s", AcrossDefault)
	}
	d.Note += ")"
	// what the body holds
	switch {
	case w.Value != "" || len(w.Stats) > 0:
		d.Value = w.Value
	default:
		said := ""
		for _, tr := range append(append([]int{}, titles...), header...) {
			for c := left; c < left+max(nD, 1); c++ {
				v := strings.ToLower(at(rows, tr, c))
				for _, word := range countWords {
					if v != "" && strings.Contains(v, word) && said == "" {
						said = fmt.Sprintf("%s%d says %q", colName(c), tr, at(rows, tr, c))
					}
				}
			}
		}
		if said == "" {
			return errf(first, -1, "cannot tell what the body holds (no title says \"number of\" or \"count\"): set columns.value (count, total, mean, ...)")
		}
		for r := bodyAt; r < end; r++ {
			for c := left + nD; c < len(rows[r-1]); c++ {
				if v := rows[r-1][c]; v != "" && !markerTexts[v] && !isCount(v) {
					return errf(r, c, "%s, but %q is not a whole number of at least 0: set columns.value (count, total, mean, ...)", said, v)
				}
			}
		}
		d.Value = "count"
		d.Detected = append(d.Detected, "columns.value")
		d.Note += ", columns.value count (" + said + " and every value is a whole number)"
	}
	w.Dims, w.Across, w.Value = dims, across, d.Value
	lay.Detection = d
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
