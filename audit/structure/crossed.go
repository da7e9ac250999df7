package structure

import (
	"fmt"
	"maps"
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
	runs, inexact, ok := in.breakdownRuns(t, rest, nil)
	var sub map[string]string
	if !ok {
		// a band nested inside one breakdown ("Aged 16+" above "Aged
		// 16-64" and "Aged 65+", or below them): the breakdowns over
		// the codes left without a band above them, each with its
		// bands' parts
		for _, order := range [][]string{rest, reversed(rest)} {
			if sub = in.nestedBands(order); len(sub) == 0 {
				continue
			}
			if runs, inexact, ok = in.breakdownRuns(t, rest, sub); ok && !in.bandAcross(runs, sub) {
				break
			}
			ok = false
		}
		if !ok {
			return false
		}
	}
	if len(runs) < 2 || in.nestedRuns(runs) {
		return false
	}
	if inexact {
		how += ", within rounding"
	}
	var top []string
	for _, c := range runs[0] {
		if sub[c] == "" {
			top = append(top, c)
		}
	}
	in.setTotal(t, top, tr.parent, how)
	bands := map[string]bool{}
	for _, c := range rest {
		if p := sub[c]; p != "" {
			tr.parent[c] = p
			bands[p] = true
		}
	}
	for p := range bands {
		in.ax.Found[p] = "arithmetic (a band of one breakdown)"
	}
	if ax.Breakdowns == nil {
		ax.Breakdowns = map[string][][]string{}
	}
	ax.Breakdowns[t] = runs
	parts := make([]string, len(runs))
	dimNames := make([]string, len(runs))
	for i, r := range runs {
		dimNames[i] = fmt.Sprintf("%s (%d)", tr.name, i+1)
		r = slices.DeleteFunc(slices.Clone(r), func(c string) bool { return sub[c] != "" })
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
	if len(bands) > 0 {
		var bs []string
		for _, c := range rest {
			if bands[c] {
				var q []string
				for _, d := range rest {
					if sub[d] == c {
						q = append(q, audit.CodeText(d))
					}
				}
				bs = append(bs, fmt.Sprintf("%q = %s", audit.CodeText(c), strings.Join(q, " + ")))
			}
		}
		parts[len(parts)-1] += " (with the bands " + strings.Join(bs, ", ") + ")"
	}
	in.notes = append(in.notes, fmt.Sprintf("%s: %q = %s (found by %s): %d breakdowns of one total, protected and audited as a cross of hidden dimensions (%s) whose interior cells are not published", tr.name, audit.CodeText(t), strings.Join(parts, " = "), how, len(runs), strings.Join(dimNames, " x ")))
	return true
}

// breakdownRuns splits the codes of rest without a band above them
// (sub: code -> the band it is a part of), in table order, into runs of
// two or more consecutive codes, each the sum of t on every line where
// all are known, with two nonzero parts on some line (cut at the
// shortest prefix that adds up; codes left over that are zero on every
// line join the last run). Each run is returned with its bands' parts
// (above or below their band), in table order: ok is false when no such
// split exists or a run's codes are not consecutive. inexact says a run
// held only within the rounding.
func (in *axisInference) breakdownRuns(t string, rest []string, sub map[string]string) (runs [][]string, inexact, ok bool) {
	var top []string
	for _, c := range rest {
		if sub[c] == "" {
			top = append(top, c)
		}
	}
	var tops [][]string
	for start := 0; start < len(top); {
		end := -1
		for j := start + 2; j <= len(top); j++ {
			h, checked, nontrivial, _, _ := in.check(t, top[start:j])
			if h && checked > 0 && nontrivial && !in.negative {
				end = j
				inexact = inexact || in.inexact
				break
			}
		}
		if end < 0 && len(tops) > 0 && !slices.ContainsFunc(top[start:], func(c string) bool { return !in.publishedZero(c) }) {
			// codes left over that are zero on every line, all
			// published ("Age not stated"): part of the last breakdown
			// (its sum is unchanged). Refused, the total fell back to
			// no margin at all, and a withheld age band was called
			// protected though All people less the other bands gave
			// it back.
			tops[len(tops)-1] = append(tops[len(tops)-1], top[start:]...)
			break
		}
		if end < 0 {
			return nil, false, false
		}
		tops = append(tops, slices.Clone(top[start:end]))
		start = end
	}
	// each run with its bands' parts (the codes whose outermost band
	// is one of its codes), consecutive in table order
	runOf := map[string]int{}
	for k, r := range tops {
		for _, c := range r {
			runOf[c] = k
		}
	}
	runs = make([][]string, len(tops))
	for _, c := range rest {
		top := c
		for guard := 0; sub[top] != "" && guard <= maxBandDepth; guard++ {
			top = sub[top]
		}
		k, in := runOf[top]
		if !in {
			return nil, false, false
		}
		runs[k] = append(runs[k], c)
	}
	at := 0
	for _, r := range runs {
		if !slices.Equal(r, rest[at:at+len(r)]) {
			return nil, false, false // a run's codes not consecutive
		}
		at += len(r)
	}
	return runs, inexact, true
}

// reversed is codes in reverse order.
func reversed(codes []string) []string {
	out := slices.Clone(codes)
	slices.Reverse(out)
	return out
}

// maxBandDepth bounds the levels of bands nestedBands looks for.
const maxBandDepth = 8

// nestedBands finds the bands among rest (one breakdown's code that is
// the sum of the codes right after it in rest, "Aged 16+" = "Aged 16-64"
// + "Aged 65+", blocks; rest reversed for bands printed below their
// parts), level by level, innermost first as blocks takes them: the
// parts found are taken out of the sequence and the next level is
// searched over the codes left, so a band whose part is itself a band
// ("Aged 65+" = "Aged 65-74" + "Aged 75+" under "Aged 16+") is found
// once its own parts are placed, and a band printed with its own parts
// between it and its other parts ("Aged 16+", "Aged 16-64", "Aged
// 16-39", "Aged 40-64", "Aged 65+"; missed, the total was unconfirmed
// and All people − Aged 16+ gave a withheld Aged 0-15 back). Each part
// -> its band, nil when there is none.
func (in *axisInference) nestedBands(rest []string) map[string]string {
	sub := map[string]string{}
	seq := rest
	for range maxBandDepth {
		found := in.blocks(seq, nil)
		if len(found) == 0 {
			break
		}
		maps.Copy(sub, found)
		seq = slices.DeleteFunc(slices.Clone(seq), func(c string) bool { return found[c] != "" })
	}
	if len(sub) == 0 {
		return nil
	}
	return sub
}

// bandAcross reports whether a band's part is labelled with a code of
// another breakdown ("Men aged 16+" under "Aged 16+" beside Men and
// Women): the band's parts are then cells of the cross (men aged 16+),
// not a finer breakdown of the band, and arithmetic cannot tell the
// two apart; the cross would let the hidden cell "Women x Men aged 16+"
// be positive, and call a cell protected that the labels give back.
func (in *axisInference) bandAcross(runs [][]string, sub map[string]string) bool {
	words := func(c string) []string {
		var w []string
		for _, p := range label(c) {
			w = append(w, strings.Fields(strings.NewReplacer(",", " ", "-", " ", "(", " ", ")", " ").Replace(normal(p)))...)
		}
		return w
	}
	for k, r := range runs {
		for _, c := range r {
			if sub[c] == "" {
				continue
			}
			cw := words(c)
			for j, o := range runs {
				if j == k {
					continue
				}
				for _, d := range o {
					if dw := words(d); len(dw) > 0 && containsRun(cw, dw) {
						return true
					}
				}
			}
		}
	}
	return false
}

// containsRun reports whether the words of part occur, consecutively, in
// words.
func containsRun(words, part []string) bool {
	for i := 0; i+len(part) <= len(words); i++ {
		if slices.Equal(words[i:i+len(part)], part) {
			return true
		}
	}
	return false
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
