package structure

import (
	"fmt"
	"slices"

	"github.com/sdcaudit/sdcaudit/audit"
)

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
// warning naming the rows where the tree would hold otherwise. The work is bounded by Options.MaxBlockWork (blocks) and
// blockPasses.
func (in *axisInference) blockTree(tr *axisTree) {
	if len(in.ax.Dims) != 1 || len(tr.parent) > 0 || len(tr.members) < 5 {
		return
	}
	p := map[string]string{}
	seq := tr.roots()
	ambiguous := "" // the first ambiguity met, warned about if the tree holds
	for range blockPasses {
		found := in.blocks(seq, nil)
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
	if len(tops) != 1 {
		in.notes = append(in.notes, fmt.Sprintf("%s: %s the sum of the rows right below it, but no row is the sum of all the others: not used as margins (declare the hierarchy with suppression.hierarchies if the column holds one)", tr.name, describeTree(p)))
		return
	}
	if ambiguous != "" {
		in.warnings = append(in.warnings, ambiguous)
		return
	}
	for c, q := range p {
		tr.parent[c] = q
		how := "arithmetic (the sum of the rows right below it)"
		if in.check(q, childrenOf(p, q, in.ax.Codes)); in.inexact {
			how = "arithmetic, within rounding (the sum of the rows right below it)"
		}
		in.ax.Found[q] = how
	}
	top := tops[0]
	others := slices.DeleteFunc(slices.Clone(seq), func(x string) bool { return x == top })
	if len(others) > 0 {
		how := "arithmetic"
		if in.check(top, others); in.inexact {
			how = "arithmetic, within rounding"
		}
		in.setTotal(top, others, tr.parent, how)
	}
	in.notes = append(in.notes, fmt.Sprintf("%s: a hierarchy in one column found by arithmetic: %s the sum of the rows right below it; %q the table's total", tr.name, describeTree(p), audit.CodeText(top)))
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

// childrenOf are the codes whose parent in p is q, in table order.
func childrenOf(p map[string]string, q string, codes []string) []string {
	var out []string
	for _, c := range codes {
		if p[c] == q {
			out = append(out, c)
		}
	}
	return out
}
