package structure

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

const (
	indentHow = "indentation and arithmetic"
	caseHow   = "case and arithmetic"
)

// QualifySep joins a repeated row label to the label of its group's row
// ("Services / Other"): the reader's readers.QualifySep (the two are
// equal: a test in pipeline/cells says so). Such a code is a repeat
// named by the layout, not a code that continues another (prefixTree).
const QualifySep = " / "

// indentTree finds a hierarchy printed in one column by indentation
// ("All industries", "  Manufacturing", "    Food", "    Textiles",
// "  Services", ...; Options.Indent): the indentation proposes the tree,
// each code's parent the nearest code less indented above it (parents
// printed before their children) or below it (parents printed after);
// where the column has no indentation, an upper-case code over
// mixed-case codes proposes it the same way (a hint only). Every parent
// is the margin of its children only where it is their sum on every
// complete line (every column; within Options.Rounded where declared);
// one that is not is a warning with the difference, and no relation. A
// parent read as a total by its label ("All industries") is a part of
// the tree, not a total of the axis. It runs whatever the other axes'
// margins, and settles what the contiguous runs of blockTree cannot (a
// zero row after a run, a coincidental sum). The work is one check per
// parent.
func (in *axisInference) indentTree(tr *axisTree) bool {
	if !in.arithmetic || len(in.ax.Dims) != 1 || len(tr.hier) > 0 || tr.how != "configuration" || len(tr.parent) > 0 {
		return false
	}
	isTotal := map[string]bool{}
	for _, c := range tr.totals {
		isTotal[c] = true
	}
	var codes []string // the additive codes in table order
	for _, c := range in.ax.Codes {
		if isTotal[c] || slices.Contains(tr.members, c) {
			codes = append(codes, c)
		}
	}
	if len(codes) < 3 {
		return false
	}
	levels, how := in.indentLevels(codes)
	if levels == nil {
		return false
	}
	// the layout proposes the direction: the least indented code first
	// (parents before their children) or last (after)
	low := slices.Min(levels)
	before, after := in.proposeTree(codes, levels, false), in.proposeTree(codes, levels, true)
	var p map[string]string
	switch first, last := levels[0] == low, levels[len(levels)-1] == low; {
	case first && !last:
		p = before
	case last && !first:
		p = after
	default:
		// both ends (or neither) least indented: the direction whose
		// parents add up, when only one does
		nb, na := in.confirmedParents(before), in.confirmedParents(after)
		switch {
		case nb > na:
			p = before
		case na > nb:
			p = after
		default:
			if nb > 0 {
				in.warnings = append(in.warnings, fmt.Sprintf("%s: the %s proposes a hierarchy with parents above or below their children, and both add up: not used as margins; declare it with suppression.hierarchies", tr.name, describeHint(how)))
			}
			return false
		}
	}
	if len(p) == 0 {
		return false
	}
	children := map[string][]string{}
	var parents []string
	for _, c := range codes {
		if q, ok := p[c]; ok {
			if len(children[q]) == 0 {
				parents = append(parents, q)
			}
			children[q] = append(children[q], c)
		}
	}
	// parents in table order
	slices.SortFunc(parents, func(a, b string) int { return slices.Index(codes, a) - slices.Index(codes, b) })
	// every proposed parent is checked before any is used: a parent the
	// arithmetic contradicts on a complete line means the indentation
	// lies, and none of its parents is trusted (review finding: a false
	// margin kept beside a true one rejected made every withheld cell
	// "protected" where each was exactly recoverable)
	type relation struct {
		q  string
		ch []string
		h  string
	}
	var use []relation
	lies, refused := false, false
	// corroborated: a parent confirmed by what is published (a line
	// complete, or published parts that never exceed it); byLayout: the
	// parents placed by the indentation alone
	corroborated := false
	var byLayout []string
	var unused []string // the parents refused
	for _, q := range parents {
		ch := children[q]
		holds, checked, nontrivial, diff, at := in.check(q, ch)
		if holds && checked > 0 && (!in.mayBePart(ch) || how == caseHow && !nontrivial) {
			continue // a difference (Balance), or a case hint no line confirms
		}
		h := how
		switch {
		case holds && checked > 0:
			corroborated = true
		case holds && how == indentHow && in.published(q, ch):
			// a received table: no line complete, the published parts
			// (one or more) never exceed it
			h, checked, corroborated = "indentation, consistent with the published parts (no line complete)", 1, true
		case holds && how == indentHow && in.consistent(q, ch):
			// withheld wherever its parts are published (a subtotal row
			// marked in a received table): nothing published can
			// confirm or contradict it; the indentation places it, when
			// another parent of the column confirms the indentation
			// (review finding: refused, the labelled total took every
			// row as its parts, and the audit stopped on "published
			// cells contradict the margins")
			h, checked = "indentation (its figures withheld where its parts are published)", 1
			byLayout = append(byLayout, q)
		}
		if how == caseHow && (!holds || checked == 0) {
			continue // a hint only: no warning
		}
		if !holds || checked == 0 {
			refused, unused = true, append(unused, q)
			switch {
			case holds && !in.consistent(q, ch):
				// its published parts exceed it: the indentation lies
				lies = true
				in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is above %s by its %s but its published parts exceed it: not used as a margin", tr.name, audit.CodeText(q), report.Plural(int64(len(ch)), "code", "codes"), describeHint(how)))
				continue
			case holds:
				in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is above %s by its %s, but no line of the table publishes it with any of them to confirm it: not used as a margin", tr.name, audit.CodeText(q), report.Plural(int64(len(ch)), "code", "codes"), describeHint(how)))
				continue
			}
			lies = true
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is above %s by its %s but is not their sum (difference %s%s%s): not used as a margin", tr.name, audit.CodeText(q), report.Plural(int64(len(ch)), "code", "codes"), describeHint(how), diff, in.where(at), in.rounding(diff, len(ch))))
			continue
		}
		if in.inexact {
			h += ", within rounding"
		}
		if how == indentHow && in.declared(q) {
			// a total the configuration names (totals:, total_label):
			// the configuration is why it is a margin, the indentation
			// only which codes it adds up (as assignTotals says of a
			// declared total)
			h = "configuration" + strings.TrimPrefix(h, "indentation")
		}
		use = append(use, relation{q, ch, h})
	}
	if refused {
		// a relation the layout shows is left out: the relations are
		// incomplete, no suppressed cell can be called protected
		for _, q := range unused {
			if name := tr.name + "=" + audit.CodeText(q); !slices.Contains(in.unconfirmed, name) {
				in.unconfirmed = append(in.unconfirmed, name)
			}
		}
		if lies {
			in.warnings = append(in.warnings, fmt.Sprintf("%s: the indentation proposes a parent the arithmetic contradicts: the indentation of the column is not used, and the audit cannot confirm a suppressed cell protected (a person decides); declare the hierarchy with suppression.hierarchies", tr.name))
			return false
		}
	}
	// the tree is used only where it accounts for every code of the
	// column (each a confirmed part of its proposed parent, or a root
	// confirmed as the sum of its own parts): part of a column confirmed
	// left the rest with no parent, and the other finders did not run
	// (review finding: SERVICES, found by case before, lost)
	covered, sums := map[string]bool{}, map[string]bool{}
	for _, r := range use {
		sums[r.q] = true
		for _, c := range r.ch {
			covered[c] = true
		}
	}
	whole := len(use) > 0
	// an unlabelled total flush with the groups ("United Kingdom" below
	// "Manufacturing" and "Services", none indented under it): the one
	// flush code without parts that is the sum of the tree's roots on
	// every complete line is a total beside the tree, found as the sum of
	// the other roots (unlabelledTotal) as a labelled one is by its
	// label (review finding: it left the tree unused, and with blockTree
	// refusing the column (a zero row) no margin was found at all)
	beside := ""
	if len(use) > 0 && len(tr.totals) == 0 {
		var flush, roots []string
		for _, c := range codes {
			if _, ok := p[c]; ok {
				continue
			}
			if len(children[c]) == 0 {
				flush = append(flush, c)
			} else {
				roots = append(roots, c)
			}
		}
		if len(flush) == 1 && len(roots) >= 2 && in.mayBePart(roots) {
			if h, checked, nontrivial, _, _ := in.check(flush[0], roots); h && checked > 0 && nontrivial && !in.negative {
				beside = flush[0]
			}
		}
	}
	for _, c := range codes {
		if c == beside {
			continue
		}
		if _, ok := p[c]; !ok && isTotal[c] && len(children[c]) == 0 {
			// a labelled total flush with the groups ("All industries"
			// over "Manufacturing" and "Services", none indented under
			// it): no part of the tree, a total of the axis
			// (assignTotals)
			continue
		}
		if _, ok := p[c]; ok && !covered[c] || !ok && !sums[c] {
			whole = false
		}
	}
	if len(byLayout) > 0 && !corroborated {
		// no parent the published figures confirm: the indentation
		// alone is not trusted
		whole = false
	}
	if !whole {
		if len(use) > 0 {
			in.warnings = append(in.warnings, fmt.Sprintf("%s: the %s proposes a hierarchy that arithmetic confirms for only part of the column: not used; declare it with suppression.hierarchies", tr.name, describeHint(how)))
		}
		return false
	}
	found := map[string]string{}
	for _, r := range use {
		q := r.q
		in.setTotal(q, r.ch, tr.parent, r.h)
		for _, c := range r.ch {
			found[c] = q
		}
		// a part of the tree, not a total of the axis
		if isTotal[q] {
			tr.totals = slices.DeleteFunc(tr.totals, func(x string) bool { return x == q })
			if !slices.Contains(tr.members, q) {
				tr.members = append(tr.members, q)
			}
		}
	}
	// a labelled total that is a child keeps its place in the tree
	for c := range found {
		if isTotal[c] {
			tr.totals = slices.DeleteFunc(tr.totals, func(x string) bool { return x == c })
			if !slices.Contains(tr.members, c) {
				tr.members = append(tr.members, c)
			}
		}
	}
	pos := map[string]int{}
	for i, c := range in.ax.Codes {
		pos[c] = i
	}
	slices.SortFunc(tr.members, func(a, b string) int { return pos[a] - pos[b] })
	in.notes = append(in.notes, fmt.Sprintf("%s: a hierarchy in one column proposed by its %s and confirmed by arithmetic: %s the sum of the codes below it", tr.name, describeHint(how), describeTree(found)))
	if n := len(byLayout); n > 0 {
		q := make([]string, n)
		for i, c := range byLayout {
			q[i] = fmt.Sprintf("%q", audit.CodeText(c))
		}
		in.notes = append(in.notes, fmt.Sprintf("%s: %s withheld wherever %s parts are published: placed by the indentation, which the column's other parents confirm (%s)", tr.name, report.Plural(int64(n), "subtotal", "subtotals"), map[bool]string{true: "its", false: "their"}[n == 1], strings.Join(q, ", ")))
	}
	return true
}

// describeHint names what proposed a tree in messages.
func describeHint(how string) string {
	if how == caseHow {
		return "case (upper-case codes over mixed-case ones)"
	}
	return "indentation"
}

// indentLevels are the codes' levels of indentation (Options.Indent), or,
// where the column has none, 0 for upper-case codes and 1 for the others
// when both are present; nil when neither proposes two levels. how is
// indentHow or caseHow.
func (in *axisInference) indentLevels(codes []string) (levels []int, how string) {
	ind := in.opt.Indent[in.ax.Names[0]]
	levels = make([]int, len(codes))
	distinct := map[int]bool{}
	for i, c := range codes {
		levels[i] = ind[c]
		distinct[levels[i]] = true
	}
	if len(distinct) >= 2 {
		return levels, indentHow
	}
	if len(ind) > 0 {
		return nil, ""
	}
	// case, as a hint: upper-case codes over mixed-case ones (a code
	// without letters is neither)
	up, mixed := 0, 0
	for i, c := range codes {
		switch l := label(c); {
		case upper(c):
			levels[i] = 0
			up++
		case hasLower(l[len(l)-1]):
			levels[i] = 1
			mixed++
		default:
			return nil, ""
		}
	}
	if up == 0 || mixed == 0 {
		return nil, ""
	}
	return levels, caseHow
}

// hasLower reports whether s has a lower-case letter.
func hasLower(s string) bool {
	for _, r := range s {
		if unicode.IsLower(r) {
			return true
		}
	}
	return false
}

// proposeTree is the tree the levels propose: each code's parent is the
// nearest code less indented before it (after: after it) with no code
// between them as little indented as the parent.
func (in *axisInference) proposeTree(codes []string, levels []int, after bool) map[string]string {
	p := map[string]string{}
	type open struct {
		code  string
		level int
	}
	var stack []open
	for k := range codes {
		i := k
		if after {
			i = len(codes) - 1 - k
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= levels[i] {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			p[codes[i]] = stack[len(stack)-1].code
		}
		stack = append(stack, open{codes[i], levels[i]})
	}
	return p
}

// confirmedParents counts the parents of p that are the sum of their
// children on every complete line, with one line complete.
func (in *axisInference) confirmedParents(p map[string]string) int {
	children := map[string][]string{}
	var parents []string
	for _, c := range in.ax.Codes {
		if q, ok := p[c]; ok {
			if len(children[q]) == 0 {
				parents = append(parents, q)
			}
			children[q] = append(children[q], c)
		}
	}
	n := 0
	for _, q := range parents {
		if h, c, _, _, _ := in.check(q, children[q]); h && c > 0 && in.mayBePart(children[q]) {
			n++
		}
	}
	return n
}

// published reports whether the proposed parent total is published on a
// line with at least one of its parts, and its published parts never
// exceed it on any line (consistent): in a received table, where no line
// is complete, the indentation is then taken as the relation.
func (in *axisInference) published(total string, parts []string) bool {
	if !in.consistent(total, parts) {
		return false
	}
	for l := range in.cells {
		if _, ok := in.cells[l][total]; !ok || !in.value(l, total).known {
			continue
		}
		for _, p := range parts {
			if in.value(l, p).known {
				return true
			}
		}
	}
	return false
}
