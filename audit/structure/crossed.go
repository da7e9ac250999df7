package structure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// maxCrossedCodes bounds the codes of an axis searched for two
// breakdowns of one total (crossed): the search checks O(codes²) sums.
const maxCrossedCodes = 64

// crossed finds two or more breakdowns of the total t of the axis ("All
// people" = Men + Women = the three age bands, as published tables give
// one total by sex and by age in one column): every other code of the
// axis is a plain member (no margin, no statistic, no ratio, no other
// total), and the other codes, in table order, split into runs of two
// or more consecutive codes, each the sum of t on every line where all
// are known (within input.rounded when set; exactly otherwise) and with
// two nonzero parts on some line. Each run is cut at the shortest prefix
// that adds up. When it holds, t is recorded as the margin of the first
// run (Parent) with every run in Axis.Breakdowns (found as how, "and
// arithmetic" added for a label or the configuration), with a note, and
// crossed reports true; else nothing changes.
func (in *axisInference) crossed(tr *axisTree, t, how string) bool {
	ax := in.ax
	if !in.arithmetic || len(ax.Dims) != 1 || len(tr.hier) > 0 || len(ax.NonAdditive) > 0 || len(tr.parent) > 0 {
		return false
	}
	var rest []string
	for _, c := range ax.Codes {
		if c != t {
			rest = append(rest, c)
		}
	}
	if len(rest) < 4 || len(rest) > maxCrossedCodes || len(rest) != len(tr.members)-boolInt(slices.Contains(tr.members, t)) {
		return false
	}
	for _, c := range rest {
		if !slices.Contains(tr.members, c) {
			return false
		}
	}
	if !in.mayBePart(rest) {
		return false
	}
	var runs [][]string
	inexact := false
	for start := 0; start < len(rest); {
		end := -1
		for j := start + 2; j <= len(rest); j++ {
			h, checked, nontrivial, _, _ := in.check(t, rest[start:j])
			if h && checked > 0 && nontrivial && !in.negative {
				end = j
				inexact = inexact || in.inexact
				break
			}
		}
		if end < 0 && len(runs) > 0 && !slices.ContainsFunc(rest[start:], func(c string) bool { return !in.publishedZero(c) }) {
			// codes left over that are zero on every line, all
			// published ("Age not stated"): part of the last breakdown
			// (its sum is unchanged). Refused, the total fell back to
			// no margin at all, and a withheld age band was called
			// protected though All people less the other bands gave
			// it back.
			runs[len(runs)-1] = append(runs[len(runs)-1], rest[start:]...)
			break
		}
		if end < 0 {
			return false
		}
		runs = append(runs, slices.Clone(rest[start:end]))
		start = end
	}
	if len(runs) < 2 || in.nestedRuns(runs) {
		return false
	}
	if inexact {
		how += ", within rounding"
	}
	in.setTotal(t, runs[0], tr.parent, how)
	if ax.Breakdowns == nil {
		ax.Breakdowns = map[string][][]string{}
	}
	ax.Breakdowns[t] = runs
	parts := make([]string, len(runs))
	dimNames := make([]string, len(runs))
	for i, r := range runs {
		dimNames[i] = fmt.Sprintf("%s (%d)", tr.name, i+1)
		if len(r) <= 3 {
			q := make([]string, len(r))
			for k, c := range r {
				q[k] = audit.CodeText(c)
			}
			parts[i] = strings.Join(q, " + ")
		} else {
			parts[i] = fmt.Sprintf("the %d codes %s ... %s", len(r), audit.CodeText(r[0]), audit.CodeText(r[len(r)-1]))
		}
	}
	in.notes = append(in.notes, fmt.Sprintf("%s: %q = %s (found by %s): %d breakdowns of one total, protected and audited as a cross of hidden dimensions (%s) whose interior cells are not published", tr.name, audit.CodeText(t), strings.Join(parts, " = "), how, len(runs), strings.Join(dimNames, " x ")))
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// publishedZero reports whether code's cells are published and zero on
// every line.
func (in *axisInference) publishedZero(code string) bool {
	for l := range in.cells {
		if _, ok := in.cells[l][code]; !ok {
			continue
		}
		if v := in.value(l, code); !v.known || !v.v.IsZero() {
			return false
		}
	}
	return true
}

// someBreakdown reports whether a run of two or more consecutive members
// of tr (table order) adds up to t on every line where all are known,
// with two nonzero parts on some line: t is then a total whose structure
// the inference did not place (a second breakdown with a nested band,
// "All people" = Men + Women = Aged 0-15 + Aged 16+ with Aged 16+ =
// Aged 16-64 + Aged 65+), and the audit must not read its withheld
// cells as unrelated to it.
func (in *axisInference) someBreakdown(tr *axisTree, t string) bool {
	var rest []string
	for _, c := range in.ax.Codes {
		if c != t && slices.Contains(tr.members, c) {
			rest = append(rest, c)
		}
	}
	if len(rest) > maxCrossedCodes {
		return false
	}
	neg, inexact := in.negative, in.inexact
	defer func() { in.negative, in.inexact = neg, inexact }()
	for i := range rest {
		for j := i + 2; j <= len(rest); j++ {
			if in.crossWork += len(in.cells) * (j - i + 1); in.crossWork > maxCrossWork {
				return true // not searched to the end: unconfirmed
			}
			if h, checked, nontrivial, _, _ := in.check(t, rest[i:j]); h && checked > 0 && nontrivial && !in.negative {
				return true
			}
		}
	}
	return false
}

// maxCrossWork bounds the cells compared by nestedRuns and someBreakdown
// on one axis; past it they answer conservatively (nested; a breakdown
// found), so that the total is unconfirmed, never a cross assumed.
const maxCrossWork = 20_000_000

// nestedRuns reports whether a code of one breakdown is, on every line
// where all are known, the sum of a part of another breakdown: a run
// of consecutive codes, or every k-th code from some start ("Men" =
// "Men aged 0-15" + "Men aged 16+" in the breakdown Men aged 0-15, Men
// aged 16+, Women aged 0-15, Women aged 16+). The breakdowns are then
// nested, not crossed: the cross would let the hidden cell "Men x Women
// aged 0-15" be positive, and call "Men aged 0-15" protected where Men
// less "Men aged 16+" gives it back.
func (in *axisInference) nestedRuns(runs [][]string) bool {
	for i, a := range runs {
		for j, b := range runs {
			if i == j {
				continue
			}
			for _, c := range a {
				for s := range b {
					for e := s + 1; e <= len(b); e++ {
						if e-s < len(b) && in.sumOf(c, b[s:e]) {
							return true
						}
					}
					for k := max(2, s+1); k < len(b); k++ {
						var part []string
						for x := s; x < len(b); x += k {
							part = append(part, b[x])
						}
						if len(part) > 1 && in.sumOf(c, part) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// sumOf reports whether c is the sum of parts on every line where all
// are known (within the rounding when set), on at least one line, and c
// is not zero on some such line.
func (in *axisInference) sumOf(c string, parts []string) bool {
	checked, nonzero := 0, false
	inexact := in.inexact
	defer func() { in.inexact = inexact }()
	for l := range in.cells {
		cv := in.value(l, c)
		if !cv.known {
			continue
		}
		if in.crossWork += len(parts) + 1; in.crossWork > maxCrossWork {
			return true // not searched to the end: nested
		}
		var sum decimal.Dec
		complete := true
		for _, p := range parts {
			v := in.value(l, p)
			if !v.known {
				complete = false
				break
			}
			sum = sum.Add(v.v)
		}
		if !complete {
			continue
		}
		if !in.within(cv.v.Sub(sum), len(parts)) {
			return false
		}
		checked++
		nonzero = nonzero || !cv.v.IsZero()
	}
	return checked > 0 && nonzero
}
