package readers

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// QualifySep joins a repeated row label to the label of the row it is
// indented under ("Services / Other"): the separator of nested axis codes
// as people read them (audit.CodeText), so that a repeated leaf reads the
// same as a nested code.
const QualifySep = " / "

// qualifyRepeats gives distinct keys to the body rows of a table with one
// row label column whose label repeats under different parents ("Other",
// "Not stated" under each group of a hierarchy shown by indentation): the
// label of each repeat is qualified by its parent's, the nearest row less
// indented above it (below it where the parents follow their children),
// itself qualified where it repeats. The sheet keeps the labels as
// published (WideLayout.Rows); only the keys change (WideLayout.Qualified
// lists the rows). A repeat that nothing tells apart (no indentation, both
// under one parent, or at the top level) is refused naming the rows, the
// column and the keys that resolve it. The structure inference confirms
// the parents by arithmetic (or leaves them unrelated, with a warning):
// the qualified label only names the cell.
func (p *wideParser) qualifyRepeats() error {
	// a repeat nothing tells apart whose values agree with its first
	// row's is the same row printed twice (a grand total at the top and
	// at the bottom): keyed apart (WideLayout.Repeated), then the rest
	// is qualified again; one whose values differ is refused, naming
	// both rows
	for range len(p.lay.Body) {
		pair, err := p.qualifyOnce()
		if err == nil || pair[0] == 0 {
			return err
		}
		if !p.sameRow(pair[0], pair[1]) {
			var e *Error
			if p.differ(pair[0], pair[1]) && errors.As(err, &e) {
				e.Err = fmt.Errorf("%w; their values differ, so they are not one row printed twice", e.Err)
			}
			return err
		}
		p.repeatRow(pair[0], pair[1])
	}
	_, err := p.qualifyOnce()
	return err
}

// qualifyOnce is one try of qualifyRepeats; pair is the repeat refused
// (the row and its first row) when it is refused for want of what tells
// the two apart.
func (p *wideParser) qualifyOnce() (pair [2]int, err error) {
	lay := p.lay
	if len(lay.Body) < 2 || len(lay.Labels) == 0 {
		return pair, nil
	}
	// the rows whose row labels repeat, within their section
	first := map[string]int{}
	var dup [][2]int // (row, first row with its labels)
	for _, r := range lay.Body {
		k := p.section[r] + "\x01" + strings.Join(p.rowLabels(r), "\x00")
		if q, ok := first[k]; ok {
			dup = append(dup, [2]int{r, q})
			continue
		}
		first[k] = r
	}
	if len(dup) == 0 {
		return pair, nil
	}
	col := lay.Labels[len(lay.Labels)-1]
	i := slices.Index(p.labelCols, col)
	const resolve = "Indent each repeat under the row of its group (leading spaces, or the cell's indent in a workbook), or give the groups a label column of their own and declare both in columns.dims"
	refuse := func(d [2]int, why string) ([2]int, error) {
		lab := ""
		if i >= 0 {
			lab = p.labels[d[0]][i]
		}
		return d, p.errf(d[0], col, "%w: %q repeats row %d's and %s: the two rows would be one cell. %s", ErrRepeatedLabel, lab, d[1], why, resolve)
	}
	if len(lay.Labels) != 1 || i < 0 {
		return refuse(dup[0], "so does every other row label beside it (repeats are told apart only in a table with one row label column)")
	}
	repeated := map[string]bool{}
	for _, d := range dup {
		repeated[p.labels[d[0]][i]] = true
	}
	levels, ok := p.indentLevels(col)
	if !ok {
		// no indentation: the blocks of rows that add up to the row
		// above them, when one holds each repeat
		heads, bad := p.blockHeads(i, repeated)
		if bad > 0 {
			d := dup[0]
			for _, x := range dup {
				if x[0] == bad || x[1] == bad {
					d = x
					break
				}
			}
			return refuse(d, "the labels of column "+colName(col)+" are not indented, nor is each repeat inside a block of rows that adds up to the row above it (nothing tells which group each belongs to)")
		}
		levels = heads
		p.lay.QualifiedBy = "arithmetic"
	}
	// the body rows of each section, in table order
	var order []string
	bySection := map[string][]int{}
	for _, r := range lay.Body {
		s := p.section[r]
		if _, ok := bySection[s]; !ok {
			order = append(order, s)
		}
		bySection[s] = append(bySection[s], r)
	}
	names := map[int]string{}
	var vals map[int][]*decimal.Dec
	for _, s := range order {
		rows := bySection[s]
		low := levels[rows[0]]
		for _, r := range rows {
			low = min(low, levels[r])
		}
		// the least indented row first: parents above their children;
		// last: below them; both (a grand total first, flush, over
		// groups that follow their items): the direction whose parents
		// add up, as the structure inference decides it (indentTree;
		// review finding: parents taken as above named each repeat by
		// the group before its own)
		first, last := levels[rows[0]] == low, levels[rows[len(rows)-1]] == low
		parent := proposeParents(rows, levels, last && !first)
		if first && last {
			if vals == nil {
				vals = p.bodyValues()
			}
			if after := proposeParents(rows, levels, true); confirmedParents(after, vals) > confirmedParents(parent, vals) {
				parent = after
			}
		}
		// names in the parents' order, each parent named before its
		// children
		var name func(r int) string
		name = func(r int) string {
			if n, ok := names[r]; ok {
				return n
			}
			lab := p.labels[r][i]
			n := lab
			if q, ok := parent[r]; ok && repeated[lab] {
				n = name(q) + QualifySep + lab
			}
			names[r] = n
			return n
		}
		for _, r := range rows {
			name(r)
		}
	}
	// every key distinct once qualified, none another row's label
	seen := map[string]int{}
	for _, r := range lay.Body {
		k := p.section[r] + "\x01" + names[r]
		if q, ok := seen[k]; ok {
			lab := p.labels[r][i]
			if p.labels[q][i] != lab {
				// a repeat qualified by its group reads as another
				// row's label
				return pair, p.errf(r, col, "%w: rows %d (%q) and %d (%q) would both be named %q once the repeated label is qualified by its group: the two rows would be one cell. %s", ErrRepeatedLabel, q, p.labels[q][i], r, lab, names[r], resolve)
			}
			why := fmt.Sprintf("both are under %q by their indentation", strings.TrimSuffix(names[r], QualifySep+lab))
			if names[r] == lab {
				why = "both are at the top level of the indentation (under no row)"
			}
			return refuse([2]int{r, q}, why)
		}
		seen[k] = r
	}
	for _, r := range lay.Body {
		if names[r] != p.labels[r][i] {
			p.labels[r][i] = names[r]
			lay.Qualified = append(lay.Qualified, WidePos{Row: r, Col: col})
		}
	}
	return pair, nil
}

// sameRow reports whether body row r, whose row labels repeat row q's
// (nothing telling the two apart), is the same row printed twice: the
// table has no section rows, and wherever both rows publish a number
// they agree, with at least one such column where it is not zero (two
// rows of zeros, or of withheld cells, may be two cells).
func (p *wideParser) sameRow(r, q int) bool {
	if len(p.lay.Sections) > 0 {
		return false
	}
	if p.vals == nil {
		p.vals = p.bodyValues()
	}
	a, b := p.vals[r], p.vals[q]
	nonzero := false
	for j := range a {
		if a[j] == nil || b[j] == nil {
			continue
		}
		if a[j].Cmp(*b[j]) != 0 {
			return false
		}
		nonzero = nonzero || a[j].Sign() != 0
	}
	return nonzero
}

// differ reports whether rows r and q both publish a number in some
// column where the two differ.
func (p *wideParser) differ(r, q int) bool {
	if p.vals == nil {
		p.vals = p.bodyValues()
	}
	a, b := p.vals[r], p.vals[q]
	for j := range a {
		if a[j] != nil && b[j] != nil && a[j].Cmp(*b[j]) != 0 {
			return true
		}
	}
	return false
}

// repeatRow keys body row r, the same row as row q printed again, apart
// from it: its last row label becomes "LABEL (row R)" (the sheet keeps
// the label as published), recorded in WideLayout.Repeated so that the
// structure inference reads the two as one margin published twice.
func (p *wideParser) repeatRow(r, q int) {
	col := p.lay.Labels[len(p.lay.Labels)-1]
	i := slices.Index(p.labelCols, col)
	p.labels[r][i] = fmt.Sprintf("%s (row %d)", p.labels[r][i], r)
	p.lay.Repeated = append(p.lay.Repeated, WideRepeat{Row: r, Of: q, Col: col})
}

// indentLevels are the levels of indentation of the labels of column col
// in the body rows, as WideLayout.Indents reads them (the cell's indent
// style first, then its leading spaces or tabs); ok is false when no label
// of the column is indented, or tabs and spaces are mixed.
func (p *wideParser) indentLevels(col int) (map[int]int, bool) {
	lay := p.lay
	levels := map[int]int{}
	kinds := map[rune]bool{}
	indented := false
	for _, r := range lay.Body {
		at := WidePos{Row: r, Col: col}
		if lay.Indent[at] > 0 {
			kind := ' '
			if t, ok := lay.IndentTabs[at]; ok {
				kind = t
			}
			if kinds[kind] = true; kind == 'm' || len(kinds) > 1 {
				return nil, false
			}
		}
		levels[r] = lay.StyleIndent[at]*1024 + min(lay.Indent[at], 1023)
		indented = indented || levels[r] > 0
	}
	return levels, indented
}

// blockHeads proposes, for a column whose labels are not indented, levels
// that place each row under the nearest row above it that heads a block
// holding it: a row is the head of the rows right below it, to the first
// run that adds up to it on every column where all are numbers (at least
// one, with a nonzero head), all parts non-negative, two parts or more (a
// subtotal above its items). bad is the first row of a repeated label in
// no block (0: none). The structure inference confirms the same blocks by
// arithmetic (blockTree); these levels only name the repeats. The scan of
// a head stops where a complete column's sum passes the head's value.
func (p *wideParser) blockHeads(li int, repeated map[string]bool) (levels map[int]int, bad int) {
	lay := p.lay
	vals := p.bodyValues()
	// end[k] is the last row index of the block headed by row k (k when
	// it heads none), by section
	levels = map[int]int{}
	work := 0
	bySection := map[string][]int{}
	var order []string
	for _, r := range lay.Body {
		s := p.section[r]
		if _, ok := bySection[s]; !ok {
			order = append(order, s)
		}
		bySection[s] = append(bySection[s], r)
	}
	for _, s := range order {
		rows := bySection[s]
		// each row's depth: the blocks that hold it (the rows after
		// each head to its block's end)
		depth := make([]int, len(rows)+1)
		for k := range rows {
			e := p.blockEnd(rows, k, vals, &work)
			if work > maxBlockWork {
				return nil, firstRepeat(rows, repeated, p, li)
			}
			if e > k {
				depth[k+1]++
				depth[e+1]--
			}
		}
		d := 0
		for k, r := range rows {
			d += depth[k]
			levels[r] = d
			if d == 0 && repeated[p.labels[r][li]] {
				return nil, r
			}
		}
	}
	return levels, 0
}

// firstRepeat is the first of rows whose label repeats.
func firstRepeat(rows []int, repeated map[string]bool, p *wideParser, li int) int {
	for _, r := range rows {
		if repeated[p.labels[r][li]] {
			return r
		}
	}
	return rows[0]
}

// maxBlockRun bounds the rows of a block blockEnd scans, and maxBlockWork
// the values blockHeads adds up in all (past it, the repeats are refused
// as told apart by nothing).
const (
	maxBlockRun  = 4096
	maxBlockWork = 20_000_000
)

// blockEnd is the index of the last row of the first run right below
// rows[k] that adds up to it (see blockHeads), or k when none does.
func (p *wideParser) blockEnd(rows []int, k int, vals map[int][]*decimal.Dec, work *int) int {
	head := vals[rows[k]]
	n := len(head)
	sum := make([]decimal.Dec, n)
	complete := make([]bool, n)
	for j := range n {
		complete[j] = head[j] != nil && head[j].Sign() >= 0
	}
	for e := k + 1; e < len(rows) && e-k <= maxBlockRun; e++ {
		if *work += n; *work > maxBlockWork {
			return k
		}
		part := vals[rows[e]]
		checked, holds, nonzero := 0, true, false
		for j := range n {
			if !complete[j] {
				continue
			}
			if part[j] == nil || part[j].Sign() < 0 {
				complete[j] = false
				continue
			}
			sum[j] = sum[j].Add(*part[j])
			switch sum[j].Cmp(*head[j]) {
			case 1:
				return k // past the head: no run adds up to it
			case 0:
				checked++
				nonzero = nonzero || head[j].Sign() != 0
			default:
				holds = false
			}
		}
		if checked == 0 && !slices.Contains(complete, true) {
			return k
		}
		if holds && nonzero && e > k+1 {
			return e
		}
	}
	return k
}

// bodyValues are the numbers of the body rows by column of the layout
// (nil where a cell is blank, a marker or not a number).
func (p *wideParser) bodyValues() map[int][]*decimal.Dec {
	lay := p.lay
	var num NumberFormat
	vals := map[int][]*decimal.Dec{}
	for _, r := range lay.Body {
		row := make([]*decimal.Dec, len(lay.Columns))
		for j, c := range lay.Columns {
			if v := p.at(r, c); v != "" && !markerTexts[v] && !p.markers[v] {
				if d, err := num.Parse(v); err == nil {
					row[j] = &d
				}
			}
		}
		vals[r] = row
	}
	return vals
}

// proposeParents is the parent of each row the levels propose: the
// nearest row less indented before it (after: after it).
func proposeParents(rows []int, levels map[int]int, after bool) map[int]int {
	type open struct{ row, level int }
	var stack []open
	parent := map[int]int{}
	for k := range rows {
		r := rows[k]
		if after {
			r = rows[len(rows)-1-k]
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= levels[r] {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			parent[r] = stack[len(stack)-1].row
		}
		stack = append(stack, open{r, levels[r]})
	}
	return parent
}

// confirmedParents counts the parents of parent that are the sum of
// their children on every column where all are numbers, with one such
// column (the count the structure inference compares the two directions
// by: confirmedParents there).
func confirmedParents(parent map[int]int, vals map[int][]*decimal.Dec) int {
	children := map[int][]int{}
	for c, q := range parent {
		children[q] = append(children[q], c)
	}
	n := 0
	for q, ch := range children {
		head := vals[q]
		checked, holds := 0, true
		for j := range head {
			if head[j] == nil {
				continue
			}
			var sum decimal.Dec
			complete := true
			for _, c := range ch {
				v := vals[c][j]
				if v == nil {
					complete = false
					break
				}
				sum = sum.Add(*v)
			}
			if !complete {
				continue
			}
			checked++
			if sum.Cmp(*head[j]) != 0 {
				holds = false
				break
			}
		}
		if holds && checked > 0 {
			n++
		}
	}
	return n
}
