package structure

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
	// the two directions of a flat layout: subtotals above their parts
	// (a group's row, then its items) or below them (the items, then
	// their subtotal); the direction whose tree holds is used, and both
	// holding with different trees is ambiguous (nothing kept)
	before := in.flatPasses(tr, tr.roots(), false, false, nil)
	after := in.flatPasses(tr, tr.roots(), true, false, nil)
	afterAll := after
	if len(after.margins()) == 1 && len(after.seq) == 1 {
		// one row below all the others, their sum: unlabelledTotal's
		after = flatPass{}
	}
	bTop, aTop := in.flatTops(before), in.flatTops(after)
	var f flatPass
	var tops []string
	if len(bTop) != 1 && len(aTop) != 1 {
		// rows withheld on every line (a received table) placed by the
		// layout, where one row is then the sum of all the others with
		// each replaced by its run (withheldHeads)
		closes := func(roots []string) bool { return len(in.oneTotal(roots)) == 1 }
		var ws []flatPass
		for _, g := range []flatPass{before, afterAll} {
			if len(g.second) == 0 && g.ambiguous == "" {
				// the total is no part of a run (a withheld row last
				// but one over the rows below it, the total included)
				if w, ok := in.withheldHeads(tr.name, g, closes); ok && w.p[in.oneTotal(w.without)[0]] == "" {
					ws = append(ws, w)
				}
			}
		}
		if len(ws) == 0 {
			// runs of rows withheld on every line placed under the row
			// above them (below: after) by the layout (withheldRuns)
			for _, after := range []bool{false, true} {
				g := in.flatPasses(tr, tr.roots(), after, true, nil)
				if top := in.flatTops(g); len(g.runs) > 0 && len(g.second) == 0 && g.ambiguous == "" && len(top) == 1 && g.p[top[0]] == "" {
					ws = append(ws, g)
				}
			}
		}
		switch {
		case len(ws) > 0 && ws[0].extent != "":
			// a withheld row's run the total does not bound
			in.warnings = append(in.warnings, ws[0].extent)
			in.flatUnconfirmed(tr, ws...)
			return
		case len(ws) == 2 && !maps.Equal(ws[0].p, ws[1].p):
			in.warnings = append(in.warnings, fmt.Sprintf("%s: rows withheld on every line head the rows above them or below them, and both add up: the hierarchy is ambiguous and not used; declare it with suppression.hierarchies", tr.name))
			in.flatUnconfirmed(tr, ws...)
			return
		case len(ws) > 0 && len(ws[0].runs) > 0:
			before, bTop = ws[0], in.flatTops(ws[0])
		case len(ws) > 0:
			before, bTop = ws[0], in.oneTotal(ws[0].without)
		}
	}
	switch {
	case len(bTop) == 1 && len(aTop) == 1 && !maps.Equal(before.p, after.p):
		in.warnings = append(in.warnings, fmt.Sprintf("%s: the rows add up both as subtotals above their parts (%s) and as subtotals below them (%s): the hierarchy is ambiguous and not used; declare it with suppression.hierarchies", tr.name, describeTree(before.p), describeTree(after.p)))
		in.flatUnconfirmed(tr, before, after)
		return
	case len(aTop) == 1 && len(bTop) != 1:
		f, tops = after, aTop
	default:
		f, tops = before, bTop
	}
	p, seq, second, ambiguous := f.p, f.seq, f.second, f.ambiguous
	if len(p) == 0 {
		return
	}
	isMargin := map[string]bool{}
	for _, q := range p {
		isMargin[q] = true
	}
	if len(tops) == 1 && len(seq) > 1 && isMargin[tops[0]] {
		// the total of the rows left is a margin already: a second
		// breakdown of it, not used
		if !slices.Contains(second, tops[0]) {
			second = append(second, tops[0])
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
		if slices.Contains(f.byLayout, q) {
			hows[q] = "layout (withheld on every line; the sum of the rows right " + f.where() + " it)"
			continue
		}
		if slices.Contains(f.runs, q) {
			hows[q] = "layout (its parts withheld on every line; the rows right " + f.where() + " it)"
			continue
		}
		holds, checked, nontrivial, diff, at := in.check(q, children[q])
		if !holds || checked == 0 || !nontrivial || in.negative {
			why := "no line where all are published"
			if !holds {
				why = "difference " + diff.String() + in.where(at)
			}
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is not the sum of the %s found below it (%s): the hierarchy found by arithmetic is not used; declare it with suppression.hierarchies", tr.name, audit.CodeText(q), report.Plural(int64(len(children[q])), "row", "rows"), why))
			return
		}
		hows[q] = "arithmetic (the sum of the rows right " + f.where() + " it)"
		if in.inexact {
			hows[q] = "arithmetic, within rounding (the sum of the rows right " + f.where() + " it)"
		}
	}
	if len(second) == 1 && second[0] == tops[0] && len(margins) == 1 && margins[0] == tops[0] && in.crossed(tr, tops[0], "arithmetic") {
		return // two breakdowns of the table's total (crossed.go)
	}
	for c, q := range p {
		tr.parent[c] = q
		in.ax.Found[q] = hows[q]
	}
	if len(f.byLayout) > 0 {
		in.warnings = append(in.warnings, fmt.Sprintf("%s: %s withheld on every line: read as the subtotal of the rows right %s it by the layout, as %q is then the sum of the rows left on every complete line (declare the hierarchy with suppression.hierarchies if it is not)", tr.name, describeRows(f.byLayout), f.where(), audit.CodeText(tops[0])))
	}
	if len(f.runs) > 0 {
		in.warnings = append(in.warnings, fmt.Sprintf("%s: the parts of %s are withheld on every line: read as the rows right %s each by the layout, as %q is then the sum of the rows left on every complete line (declare the hierarchy with suppression.hierarchies if it is not)", tr.name, describeRows(f.runs), f.where(), audit.CodeText(tops[0])))
	}
	for _, q := range second {
		in.secondBreakdown(tr, q)
	}
	top := tops[0]
	others := slices.DeleteFunc(slices.Clone(seq), func(x string) bool { return x == top })
	if slices.Contains(second, top) {
		in.notes = append(in.notes, fmt.Sprintf("%s: a hierarchy in one column found by arithmetic: %s the sum of the rows right %s it", tr.name, describeTree(p), f.where()))
		return
	}
	if len(others) > 0 {
		how := "arithmetic"
		if in.check(top, others); in.inexact {
			how = "arithmetic, within rounding"
		}
		in.setTotal(top, others, tr.parent, how)
	}
	in.notes = append(in.notes, fmt.Sprintf("%s: a hierarchy in one column found by arithmetic: %s the sum of the rows right %s it; %q the table's total", tr.name, describeTree(p), f.where(), audit.CodeText(top)))
}

// flatPass is what the passes of blocks over one column find in one
// direction: each part's margin, the rows left without one (in table
// order), the margins found again as the sum of another run (second
// breakdowns), and the first ambiguity met (a run followed by a row zero
// on every line).
type flatPass struct {
	after     bool // subtotals printed below their parts
	p         map[string]string
	seq       []string
	second    []string
	ambiguous string
	// extent says that a run withheldHeads placed could end sooner:
	// what is published does not bound it
	extent string
	// byLayout are the rows withheld on every line placed as subtotals
	// by the layout (withheldHeads)
	byLayout []string
	// runs are the rows placed by the layout as the subtotals of a run
	// of rows withheld on every line right below them (withheldRuns)
	runs []string
	// without are the rows left with each of byLayout replaced by its
	// run, in table order: the rows its total is confirmed as the sum of
	without []string
}

// where says where a subtotal's parts are printed, for messages.
func (f flatPass) where() string {
	if f.after {
		return "above"
	}
	return "below"
}

// margins are the margins found, once each, sorted.
func (f flatPass) margins() []string {
	var out []string
	for _, q := range f.p {
		if !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out
}

// flatPasses finds the levels of a hierarchy printed flat in one column
// (no labels, codes or indentation), innermost first: each pass finds
// the rows that are the sum of the run of two or more rows right below
// them (after: right above them) among the rows left, and takes the runs
// out, up to blockPasses passes, until nothing more is found or done
// holds of the rows left (a labelled total that is their sum: the pass
// at which it holds is the only one, as each later pass takes out parts
// that add up to a row kept). A row that is a margin already and is found
// again as the sum of another run is a second breakdown, not used. The
// work is bounded as blocks' is (Options.MaxBlockWork per pass).
func (in *axisInference) flatPasses(tr *axisTree, seq []string, after, layout bool, done func([]string) bool) flatPass {
	f := flatPass{after: after, p: map[string]string{}}
	isMargin := map[string]bool{}
	seq = slices.Clone(seq)
	if after {
		slices.Reverse(seq)
	}
	for range blockPasses {
		if done != nil && done(seq) {
			break
		}
		found := in.blocks(seq, nil)
		for _, c := range seq {
			if q, ok := found[c]; ok && isMargin[q] {
				delete(found, c)
				if !slices.Contains(f.second, q) {
					f.second = append(f.second, q)
				}
			}
		}
		if layout {
			// with the blocks of this pass: a row's parts withheld on
			// every line are found with the innermost blocks, before a
			// block of the level above takes that row in
			runs := in.withheldRuns(seq, isMargin)
			for _, c := range seq {
				q, ok := runs[c]
				if _, taken := found[c]; !ok || taken {
					continue
				}
				found[c] = q
				if !slices.Contains(f.runs, q) {
					f.runs = append(f.runs, q)
				}
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
			if next := seq[i+1]; f.ambiguous == "" && found[next] != q && next != q && in.zero(next) {
				f.ambiguous = fmt.Sprintf("%s: %q is the sum of the rows %s it up to %q, and also with %q (zero on every line): the hierarchy is ambiguous and not used; declare it with suppression.hierarchies", tr.name, audit.CodeText(q), f.where(), audit.CodeText(c), audit.CodeText(next))
			}
		}
		for c, q := range found {
			f.p[c] = q
			isMargin[q] = true
		}
		seq = slices.DeleteFunc(seq, func(c string) bool { _, ok := found[c]; return ok })
		if done == nil && len(seq) < 3 {
			break
		}
	}
	if after {
		slices.Reverse(seq)
	}
	f.seq = seq
	return f
}

// flatTops is the table's total of a flat tree: the one row left, or
// the one row left that is the sum of all the others; none (or several)
// when the tree does not close.
func (in *axisInference) flatTops(f flatPass) []string {
	if len(f.p) == 0 {
		return nil
	}
	if len(f.seq) == 1 {
		return f.seq
	}
	return in.oneTotal(f.seq)
}

// oneTotal are the rows that are the sum of all the other rows on every
// complete line, the others possible parts (mayBePart).
func (in *axisInference) oneTotal(rows []string) []string {
	var tops []string
	for _, c := range in.sumOfOthers(rows) {
		if in.mayBePart(slices.DeleteFunc(slices.Clone(rows), func(x string) bool { return x == c })) {
			tops = append(tops, c)
		}
	}
	return tops
}

// flatTotal finds the subtotals of a flat layout under a labelled total
// t that is not the sum of the members: the passes of flatPasses in each
// direction (subtotals above their parts, and below them), up to the
// level whose rows left t is the sum of on every complete line (one line
// at least), or, where none does, whose rows withheld on every line head
// the runs beside them (withheldHeads). It returns the tree when one
// direction closes (or both, the same tree), and a warning when both close with different trees or the
// tree is ambiguous (a run followed by a row zero on every line): then
// nothing is used and t is unconfirmed.
func (in *axisInference) flatTotal(tr *axisTree, t string) (flatPass, string) {
	closes := func(roots []string) bool {
		h, c, _, _, _ := in.check(t, roots)
		return h && c > 0 && !in.negative
	}
	var trees, withheld []flatPass
	for _, after := range []bool{false, true} {
		f := in.flatPasses(tr, tr.roots(), after, false, closes)
		if len(f.p) == 0 || !closes(f.seq) {
			// runs of rows withheld on every line (a received table)
			// placed by the layout under the row above them
			if g := in.flatPasses(tr, tr.roots(), after, true, closes); len(g.runs) > 0 && closes(g.seq) {
				f = g
			}
		}
		if len(f.second) > 0 {
			continue
		}
		if len(f.p) == 0 || !closes(f.seq) {
			if w, ok := in.withheldHeads(tr.name, f, closes); ok {
				withheld = append(withheld, w)
			}
			continue
		}
		if f.ambiguous != "" {
			return flatPass{}, f.ambiguous
		}
		trees = append(trees, f)
	}
	if len(trees) == 0 && len(withheld) == 1 && withheld[0].extent != "" {
		// a withheld row's run the total does not bound: no tree, t
		// unconfirmed
		return flatPass{}, withheld[0].extent
	}
	if len(trees) == 0 && len(withheld) == 1 && withheld[0].ambiguous == "" {
		// a subtotal row withheld on every line (a received table),
		// placed by the layout: noted by the caller
		trees = withheld
	}
	switch {
	case len(trees) == 0:
		return flatPass{}, ""
	case len(trees) == 2 && !maps.Equal(trees[0].p, trees[1].p):
		return flatPass{}, fmt.Sprintf("%s: %q is the sum of subtotals above their parts (%s) and of subtotals below them (%s): the hierarchy is ambiguous and not used; declare it with suppression.hierarchies", tr.name, audit.CodeText(t), describeTree(trees[0].p), describeTree(trees[1].p))
	}
	return trees[0], ""
}

// withheldHeads completes a flat tree f that does not close under a
// labelled total by the layout: a row left without parts and withheld on
// every line (a subtotal row marked in a received table) heads the run of
// two or more rows left right below it (after: right above it), up to the
// next row that heads a run found or is withheld too. It is kept only
// where the total is then the sum of the rows left with each such row
// replaced by its run, on every complete line (closes; one line at
// least): what is published then says the withheld row is the sum of its
// run (or zero on every line, a row no table withholds). The rows placed
// so are in f.byLayout. The total adds up however far such a run runs
// (the withheld row is an unknown of its own: Total = W + c + B with W =
// a + b is, on what is published, Total = W + B with W = a + b + c), so
// a run of three rows or more, which could end a row or more sooner with
// the rows after it at the level above, is the layout's guess: the
// result's extent says so, and nothing is used
// (TestRvFlatLayoutRunExtent).
func (in *axisInference) withheldHeads(name string, f flatPass, closes func([]string) bool) (flatPass, bool) {
	seq := slices.Clone(f.seq)
	if f.after {
		slices.Reverse(seq)
	}
	heads := map[string]bool{}
	for _, q := range f.p {
		heads[q] = true
	}
	p := maps.Clone(f.p)
	var placed, without []string
	extent := ""
	for i := 0; i < len(seq); i++ {
		w := seq[i]
		if heads[w] || !in.withheld(w) {
			without = append(without, w)
			continue
		}
		j := i + 1
		for j < len(seq) && !heads[seq[j]] && !in.withheld(seq[j]) {
			j++
		}
		if j-i-1 < 2 || !in.mayBePart(seq[i+1:j]) {
			return f, false
		}
		if j-i-1 > 2 && extent == "" {
			extent = fmt.Sprintf("%s: %q is withheld on every line and the %d rows right %s it head no run: the total adds up whichever of them it holds (two or more), so the hierarchy is ambiguous and not used; declare it with suppression.hierarchies", name, audit.CodeText(w), j-i-1, f.where())
		}
		for _, c := range seq[i+1 : j] {
			p[c] = w
			without = append(without, c)
		}
		placed = append(placed, w)
		i = j - 1
	}
	if len(placed) == 0 || !closes(without) {
		return f, false
	}
	var left []string
	for _, c := range f.seq {
		if _, ok := p[c]; !ok {
			left = append(left, c)
		}
	}
	if f.after {
		slices.Reverse(without)
	}
	return flatPass{after: f.after, p: p, seq: left, ambiguous: f.ambiguous, extent: extent, byLayout: placed, without: without}, true
}

// withheldRuns are the blocks the layout gives where arithmetic cannot
// (a received table): a row without parts, published somewhere, right
// above a run of two or more rows withheld on every line, up to the next
// row published somewhere (or the end), heads the run. Used only where a
// labelled total then closes the levels on a complete line (flatTotal):
// what is published confirms the rows above them.
func (in *axisInference) withheldRuns(seq []string, isMargin map[string]bool) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(seq); i++ {
		h := seq[i]
		if isMargin[h] || in.withheld(h) {
			continue
		}
		j := i + 1
		for j < len(seq) && !isMargin[seq[j]] && in.withheld(seq[j]) {
			j++
		}
		if j-i-1 < 2 {
			continue
		}
		k := j
		for k < len(seq) && !isMargin[seq[k]] && !in.withheld(seq[k]) {
			k++
		}
		if k-j >= 2 {
			// two rows or more on the run's other side: the run may be
			// their subtotals instead, and the total adds up either way
			// (TestRvFlatWithheldRunHead)
			i = j - 1
			continue
		}
		for _, c := range seq[i+1 : j] {
			out[c] = h
		}
		i = j - 1
	}
	return out
}

// flatUnconfirmed records the margins of two flat trees that both hold
// (subtotals above their parts, and below them) as unconfirmed: the
// relations are unknown, not absent, so the audit calls no suppressed
// cell protected (a person decides).
func (in *axisInference) flatUnconfirmed(tr *axisTree, trees ...flatPass) {
	for _, f := range trees {
		for _, q := range f.margins() {
			if name := tr.name + "=" + audit.CodeText(q); !slices.Contains(in.unconfirmed, name) {
				in.unconfirmed = append(in.unconfirmed, name)
			}
		}
	}
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

// describeRows quotes a few codes for messages ("a", "b" and 3 more).
func describeRows(codes []string) string {
	var q []string
	for i, c := range codes {
		if i == 3 {
			q = append(q, fmt.Sprintf("and %d more", len(codes)-3))
			break
		}
		q = append(q, fmt.Sprintf("%q", audit.CodeText(c)))
	}
	return strings.Join(q, ", ")
}
