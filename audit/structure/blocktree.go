package structure

import (
	"fmt"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// checkCounter, when set (tests), counts the calls of check: the work of
// the searches, counted instead of timed.
var checkCounter *atomic.Int64

// blockPasses bounds the levels blockTree looks for (one pass per level).
const blockPasses = 8

// blockTree finds a hierarchy printed in one column without labels,
// codes or marks: each subtotal row is followed by its parts ("United
// States", "Northeast", its states, "Midwest", its states, ...), so a
// row that is the sum of a contiguous run of two or more rows right below
// it on every complete line (every column), with two of them nonzero
// somewhere (blocks), is their margin, level by level (the runs of
// subtotals found in the next pass). The tree is kept only when one row
// is then the sum of all the rows left (the table's total: every row is
// in one relation a person can check); else nothing is kept, with a
// note. A run followed by a row that is zero on every line is ambiguous
// (the zero row may close the run or not): nothing is kept, with a
// warning naming the rows where the tree would hold otherwise. A row has
// one set of parts: one found again as the sum of another run (two
// breakdowns of one total) keeps the first (secondBreakdown). Every
// margin is then checked once against all its parts; one that does not
// hold is a warning, and nothing is kept. The work is bounded by
// Options.MaxBlockWork (blocks), blockPasses, and one check per margin.
func (in *axisInference) blockTree(tr *axisTree) {
	if len(in.ax.Dims) != 1 || len(tr.parent) > 0 && !tr.census || len(tr.members) < 5 {
		return
	}
	p := map[string]string{}
	isMargin := map[string]bool{}
	// second are the rows already a margin found again as the sum of
	// another run below them (People = Men + Women, then People = the
	// age bands): two breakdowns of one total. One margin per row: the
	// first is kept, the second is not (a warning; the audit cannot call
	// a cell protected, relations are missing), never both (the total
	// counted twice: People = 2 × People).
	var second []string
	addSecond := func(q string) {
		if !slices.Contains(second, q) {
			second = append(second, q)
		}
	}
	seq := tr.roots()
	ambiguous := "" // the first ambiguity met, warned about if the tree holds
	for range blockPasses {
		found := in.blocks(seq, nil)
		for _, c := range seq {
			if q, ok := found[c]; ok && isMargin[q] {
				delete(found, c)
				addSecond(q)
			}
		}
		if len(found) == 0 {
			break
		}
		// a run followed by a row zero on every line
		for i, c := range seq {
			q, ok := found[c]
			if !ok || i+1 >= len(seq) {
				continue
			}
			if next := seq[i+1]; ambiguous == "" && found[next] != q && next != q && in.zero(next) {
				ambiguous = fmt.Sprintf("%s: %q is the sum of the rows below it up to %q, and also with %q (zero on every line): the hierarchy is ambiguous and not used; declare it with suppression.hierarchies", tr.name, audit.CodeText(q), audit.CodeText(c), audit.CodeText(next))
			}
		}
		for c, q := range found {
			p[c] = q
			isMargin[q] = true
		}
		seq = slices.DeleteFunc(seq, func(c string) bool { _, ok := found[c]; return ok })
		if len(seq) < 3 {
			break
		}
	}
	if len(p) == 0 {
		return
	}
	// the table's total: the one row left, the sum of the rows of the
	// last run found, or the one row that is the sum of all the others
	var tops []string
	if len(seq) == 1 {
		tops = seq
	} else {
		for _, c := range in.sumOfOthers(seq) {
			if in.mayBePart(slices.DeleteFunc(slices.Clone(seq), func(x string) bool { return x == c })) {
				tops = append(tops, c)
			}
		}
	}
	if len(tops) == 1 && len(seq) > 1 && isMargin[tops[0]] {
		// the total of the rows left is a margin already: a second
		// breakdown of it, not used
		addSecond(tops[0])
	}
	if len(tops) != 1 {
		in.notes = append(in.notes, fmt.Sprintf("%s: %s the sum of the rows right below it, but no row is the sum of all the others: not used as margins (declare the hierarchy with suppression.hierarchies if the column holds one)", tr.name, describeTree(p)))
		return
	}
	if ambiguous != "" {
		in.warnings = append(in.warnings, ambiguous)
		return
	}
	// every margin is the sum of all its parts, checked once per margin
	// (one pass over the codes groups the parts: the work is bounded by
	// the table's size)
	children := map[string][]string{}
	var margins []string
	for _, c := range in.ax.Codes {
		if q, ok := p[c]; ok {
			if _, seen := children[q]; !seen {
				margins = append(margins, q)
			}
			children[q] = append(children[q], c)
		}
	}
	hows := map[string]string{}
	for _, q := range margins {
		holds, checked, nontrivial, diff, at := in.check(q, children[q])
		if !holds || checked == 0 || !nontrivial || in.negative {
			why := "no line where all are published"
			if !holds {
				why = "difference " + diff.String() + in.where(at)
			}
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is not the sum of the %s found below it (%s): the hierarchy found by arithmetic is not used; declare it with suppression.hierarchies", tr.name, audit.CodeText(q), report.Plural(int64(len(children[q])), "row", "rows"), why))
			return
		}
		hows[q] = "arithmetic (the sum of the rows right below it)"
		if in.inexact {
			hows[q] = "arithmetic, within rounding (the sum of the rows right below it)"
		}
	}
	if len(second) == 1 && second[0] == tops[0] && len(margins) == 1 && margins[0] == tops[0] && in.crossed(tr, tops[0], "arithmetic") {
		return // two breakdowns of the table's total (crossed.go)
	}
	for c, q := range p {
		tr.parent[c] = q
		in.ax.Found[q] = hows[q]
	}
	for _, q := range second {
		in.secondBreakdown(tr, q)
	}
	top := tops[0]
	others := slices.DeleteFunc(slices.Clone(seq), func(x string) bool { return x == top })
	if slices.Contains(second, top) {
		in.notes = append(in.notes, fmt.Sprintf("%s: a hierarchy in one column found by arithmetic: %s the sum of the rows right below it", tr.name, describeTree(p)))
		return
	}
	if len(others) > 0 {
		how := "arithmetic"
		if in.check(top, others); in.inexact {
			how = "arithmetic, within rounding"
		}
		in.setTotal(top, others, tr.parent, how)
	}
	in.notes = append(in.notes, fmt.Sprintf("%s: a hierarchy in one column found by arithmetic: %s the sum of the rows right below it; %q the table's total", tr.name, describeTree(p), audit.CodeText(top)))
}

// secondBreakdown reports whether code q is a margin already (the parent
// of some code of tr): a second set of parts found for it (People = Men +
// Women, and People = the age bands: two breakdowns of one total) is not
// used, since one code has one set of parts (taking both counted the
// total twice: People = 2 × People). The relation left out is warned
// about once, and named in audit.Structure.Unconfirmed: the audit cannot
// call a suppressed cell protected, a person decides.
func (in *axisInference) secondBreakdown(tr *axisTree, q string) bool {
	if !slices.Contains(slices.Collect(maps.Values(tr.parent)), q) && in.ax.Found[q] == "" {
		return false
	}
	name := tr.name + "=" + audit.CodeText(q)
	if !slices.Contains(in.unconfirmed, name) {
		in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is the sum of the codes found below it and also of other codes: two breakdowns of one total; only the first is used as its margin, so the audit cannot confirm a suppressed cell protected (a person decides); declare the hierarchies with suppression.hierarchies", tr.name, audit.CodeText(q)))
		in.unconfirmed = append(in.unconfirmed, name)
	}
	return true
}

// zero reports whether code's published cells are zero (or absent) on
// every line: withheld ones may be zero too.
func (in *axisInference) zero(code string) bool {
	for l := range in.cells {
		if v := in.value(l, code); v.known && !v.v.IsZero() {
			return false
		}
	}
	return true
}
