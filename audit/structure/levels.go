package structure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// levelTree finds a hierarchy printed in one column whose lowest level
// alone has codes in a code column beside it (Options.Uncoded: ASHE's
// United Kingdom, Great Britain, countries and regions above the
// constituencies E14000554 ...): each uncoded row is the total of the
// block of rows right below it that adds up to it, the blocks of coded
// rows first, then blocks of the totals already found, level by level
// (a region of its constituencies, England of the regions, England and
// Wales of England and Wales, ...), and last the uncoded rows without a
// block (Northern Ireland beside Great Britain). The blocks are
// delimited within the rounding (input.rounded, else one unit of the
// table's finest decimal place); each total is then confirmed as every
// margin is: exactly, or within input.rounded. A total that adds up only
// within a rounding the configuration does not give is not a margin: a
// warning proposes input.rounded, and audit.Structure.Unconfirmed names
// it.
//
// It reports whether the code column gave the axis a tree (then the
// other searches by arithmetic alone do not run).
func (in *axisInference) levelTree(tr *axisTree) bool {
	if len(in.ax.Dims) != 1 || len(in.opt.Uncoded[in.ax.Names[0]]) == 0 {
		return false
	}
	unc := map[string]bool{}
	for _, c := range in.opt.Uncoded[in.ax.Names[0]] {
		unc[c] = true
	}
	tol := in.opt.Rounded
	if tol.Sign() <= 0 {
		scale := 0
		for _, f := range in.figs {
			if f.known {
				scale = max(scale, f.v.Scale())
			}
		}
		tol = decimal.Scaled(1, scale)
	}
	seq := tr.roots()
	resolved := map[string]bool{}
	children := map[string][]string{}
	var order []string
	// collapse gives each unresolved uncoded row of seq the block
	// seq[i+1:end] that block(i) finds (two rows or more, else none) as
	// its children and takes them out of seq; it reports whether any was.
	collapse := func(block func(i int) int) bool {
		changed := false
		var next []string
		for i := 0; i < len(seq); i++ {
			c := seq[i]
			next = append(next, c)
			if !unc[c] || resolved[c] {
				continue
			}
			end := block(i)
			if end-i-1 < 2 {
				continue
			}
			children[c] = slices.Clone(seq[i+1 : end])
			order = append(order, c)
			resolved[c], changed = true, true
			i = end - 1
		}
		seq = next
		return changed
	}
	loose := false // uncoded rows without a block may be parts
	for range len(seq) + 2 {
		changed := collapse(func(i int) int {
			if j := in.levelBlock(seq, i, unc, resolved, loose, tol); j >= 0 {
				return j + 1
			}
			return -1
		})
		if !changed {
			if loose {
				break
			}
			loose = true
		}
	}
	// rows the arithmetic cannot delimit because a figure is withheld (a
	// received table): an uncoded row withheld is the total of the run of
	// totals found right below it; the first row, of all the rows below
	// it. Confirmed below by the published figures not contradicting them.
	layout := map[string]bool{}
	for first, changed := false, true; !in.levelStopped && (changed || !first); {
		if !changed {
			first = true // the withheld rows done: the first row
		}
		before := len(order)
		changed = collapse(func(i int) int {
			j := i + 1
			switch {
			case !first && in.withheld(seq[i]):
				for j < len(seq) && resolved[seq[j]] {
					j++
				}
			case first && i == 0:
				j = len(seq)
			}
			return j
		})
		for _, c := range order[before:] {
			layout[c] = true
		}
		if first {
			break
		}
	}
	var refused []string
	accepted := map[string]bool{}
	for _, c := range order {
		ch := children[c]
		holds, checked, _, diff, at := in.check(c, ch)
		if layout[c] && holds && checked == 0 && in.consistent(c, ch) && !slices.ContainsFunc(ch, func(x string) bool { return children[x] != nil && !accepted[x] }) {
			// delimited by the layout, a figure withheld: what is
			// published does not contradict it, and its parts that are
			// totals are margins
			in.setTotal(c, ch, tr.parent, "code column, a figure withheld")
			accepted[c] = true
			continue
		}
		switch {
		case layout[c] && !holds && in.rounding(diff, len(ch)) == "":
			// the first row, not the sum of the rows below it: no
			// claim of the layout's
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q, first without a code in the code column, is not the sum of the %s below it (difference %s%s): not used as a margin", tr.name, audit.CodeText(c), report.Plural(int64(len(ch)), "row", "rows"), diff, in.where(at)))
			continue
		case checked == 0:
			refused = append(refused, fmt.Sprintf("%q (its figure withheld, rows below it totals within the rounding)", audit.CodeText(c)))
			in.unconfirmed = append(in.unconfirmed, tr.name+"="+audit.CodeText(c))
			continue
		case !holds:
			refused = append(refused, fmt.Sprintf("%q (difference %s%s)", audit.CodeText(c), diff, in.where(at)))
			in.unconfirmed = append(in.unconfirmed, tr.name+"="+audit.CodeText(c))
			continue
		}
		how := "code column and arithmetic"
		if in.inexact {
			how += ", within rounding"
		}
		in.setTotal(c, ch, tr.parent, how)
		accepted[c] = true
	}
	if n := len(accepted); n > 0 {
		in.notes = append(in.notes, fmt.Sprintf("%s: %s without a code in the code column %s the sum of the rows right below %s: read as their totals", tr.name, report.Plural(int64(n), "row", "rows"), map[bool]string{true: "is", false: "are"}[n == 1], map[bool]string{true: "it", false: "them"}[n == 1]))
	}
	if n := len(refused); n > 0 {
		if n > 4 {
			refused = append(refused[:4], fmt.Sprintf("and %d more", n-4))
		}
		in.warnings = append(in.warnings, fmt.Sprintf("%s: %s without a code in the code column %s the sum of the rows right below only within the rounding (%s): not used as margins; if the values are rounded to base %s, say so with input.rounded: %s", tr.name, report.Plural(int64(n), "row", "rows"), map[bool]string{true: "is", false: "are"}[n == 1], strings.Join(refused, ", "), tol, tol))
	}
	return len(order) > 0
}

// levelBlock returns the end j of the block seq[i+1..j] of two or more
// rows that adds up to seq[i] within the rounding tol on every line where
// all are known (at least one, with two parts nonzero), its rows coded or
// totals already found (or, loose, any row); -1 when none. Of the blocks
// that do, the one whose largest difference from the total is the least,
// and of those the longest (rows of zeros at its end): a longer block
// within the rounding would take in a small next sibling (Britain =
// England + Wales + Scotland + Ireland within 5 when England + Wales +
// Scotland is exact), replacing a true margin by a false one. The block
// stops growing where its sum exceeds the total.
func (in *axisInference) levelBlock(seq []string, i int, unc, resolved map[string]bool, loose bool, tol decimal.Dec) int {
	total := seq[i]
	nl := len(in.cells)
	sums := make([]decimal.Dec, nl)
	nonzero := make([]int, nl)
	unknown := make([]bool, nl)
	best := -1
	var bestDiff decimal.Dec
	parts := true // every row so far may be a part (mayBePart, row by row)
	for j := i + 1; j < len(seq); j++ {
		m := seq[j]
		if unc[m] && !resolved[m] && !loose {
			break
		}
		parts = parts && in.mayBePart(seq[j:j+1])
		// a deterministic bound on the cells compared, as blocks'
		if in.levelWork += nl; in.levelWork > in.opt.maxBlockWork() {
			if !in.levelStopped {
				in.levelStopped = true
				in.notes = append(in.notes, fmt.Sprintf("%s: the search for the totals of the code column's levels stopped at its work bound (%d cells compared); declare the hierarchy with suppression.hierarchies", in.ax.Name(), in.opt.maxBlockWork()))
			}
			return -1
		}
		n := j - i
		lim := tol.Mul(decimal.FromInt(int64(n + 1)))
		over, match, checked, nontrivial := false, true, 0, false
		var worst decimal.Dec // the largest |sum - total| of the lines
		for l := range nl {
			v := in.value(l, m)
			switch {
			case !v.known:
				unknown[l] = true
			case v.v.Sign() < 0:
				return best
			default:
				sums[l] = sums[l].Add(v.v)
				if !v.v.IsZero() {
					nonzero[l]++
				}
			}
			if _, has := in.cells[l][total]; !has || unknown[l] {
				continue
			}
			tv := in.value(l, total)
			if !tv.known {
				continue
			}
			d := sums[l].Sub(tv.v)
			if d.Add(d).Cmp(lim) > 0 {
				over = true
				break
			}
			if d.Abs().Add(d.Abs()).Cmp(lim) > 0 {
				match = false
			}
			if d.Abs().Cmp(worst) > 0 {
				worst = d.Abs()
			}
			checked++
			nontrivial = nontrivial || nonzero[l] >= 2
		}
		if over {
			break
		}
		if match && checked > 0 && nontrivial && n >= 2 && parts && (best < 0 || worst.Cmp(bestDiff) <= 0) {
			best, bestDiff = j, worst
		}
	}
	return best
}

// withheld reports whether code has no known figure on any line (its
// cells suppressed or missing where they add up).
func (in *axisInference) withheld(code string) bool {
	for l := range in.cells {
		if _, ok := in.cells[l][code]; ok && in.value(l, code).known {
			return false
		}
	}
	return true
}

// consistent reports whether the published parts of total never exceed
// it (within the rounding) on a line where it is published, none
// negative.
func (in *axisInference) consistent(total string, parts []string) bool {
	for l := range in.cells {
		tv := in.value(l, total)
		if _, ok := in.cells[l][total]; !ok || !tv.known {
			continue
		}
		var sum decimal.Dec
		for _, p := range parts {
			if v := in.value(l, p); v.known {
				if v.v.Sign() < 0 {
					return false
				}
				sum = sum.Add(v.v)
			}
		}
		if over := sum.Sub(tv.v); over.Sign() > 0 && !in.within(over, len(parts)) {
			return false
		}
	}
	return true
}
