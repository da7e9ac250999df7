// Package structure finds what an aggregate table's layout means: which
// dimensions are nested (a group label column beside a detail column),
// which codes of each dimension are margins of which (totals and
// hierarchies), found by label and confirmed by arithmetic, or found by
// arithmetic alone. The result is one audit.Structure per table, read by
// the rules, secondary suppression, the interval audit and the reports.
package structure

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// Options are what the configuration says of a table's structure.
type Options struct {
	// TotalLabels are codes declared as totals in every dimension
	// (total_label): trusted, as the configuration says so.
	TotalLabels []string
	// Totals are, per dimension, codes declared as totals (totals:).
	Totals map[string][]string
	// Hierarchies are the declared child -> parent codes per dimension
	// (suppression.hierarchies, hierarchy files): trusted.
	Hierarchies map[string]map[string]string
	// RowDims is the number of leading dimensions that are row label
	// columns and may nest (a group column beside a detail column).
	RowDims int
	// Wide is true for a crosstab read from its layout: every row of it
	// is printed, so rows that are not every combination of the row
	// labels are nesting, not empty cells.
	Wide bool
	// Rounded is the base B the published values are rounded to
	// (input.rounded, confirmed by the user; zero: not rounded). A total
	// within (n+1)·B/2 of the sum of its n parts on every line is a
	// margin "within rounding". Without it a labelled total that misses
	// by no more than the rounding is not used, and the warning proposes
	// the base.
	Rounded decimal.Dec
	// Uncoded are, per dimension, the codes of rows whose cell in a code
	// column is blank while other rows have a code (ASHE's countries and
	// regions above the coded constituencies): the candidates for totals
	// of the blocks of rows below them (levelTree).
	Uncoded map[string][]string
	// Indent are, per dimension, the levels of indentation of its codes
	// in the table's label column (leading spaces, the cell's indent
	// style; absent: not indented): a hierarchy in one column that the
	// indentation proposes and arithmetic confirms (indentTree).
	Indent map[string]map[string]int
	// Repeats are, per dimension, codes of rows printed twice (a grand
	// total at the top and again at the bottom, keyed apart by the
	// reader: readers.WideLayout.Repeats), each with the code of the row
	// it repeats: one margin published twice. The copy takes no part in
	// the searches; it is then the margin of the row it repeats (equal
	// to it), in that row's place in the tree.
	Repeats map[string]map[string]string
	// MaxBlockWork bounds the work (cells compared) of the search for
	// subtotals by arithmetic in one axis (0: 20,000,000): a
	// deterministic bound, so that a large table without labels costs a
	// bounded time and gives the same structure on every machine.
	MaxBlockWork int
}

// maxBlockWork is o.MaxBlockWork or its default.
func (o Options) maxBlockWork() int {
	if o.MaxBlockWork > 0 {
		return o.MaxBlockWork
	}
	return 20_000_000
}

// MaxCells bounds the cells whose structure is inferred by arithmetic;
// larger tables keep the declared structure only (with a note).
var MaxCells = 2_000_000

// defaultTotals are labels read as totals by default, compared after
// normalising case, spaces and "[note N]" markers.
var defaultTotals = []string{"total", "totals", "all", "all ages", "all persons", "all people", "persons", "both sexes", "all sexes", "all areas", "all industries", "all regions", "grand total", "all registrations"}

var (
	noteRe  = regexp.MustCompile(`(?i)\s*\[\s*(note|notes)\s*[0-9, ]+\]`)
	totalRe = regexp.MustCompile(`^(total\b.*|.*\btotal|.*\ball ages|.*\ball persons|.*\ball people)$`)
	spaceRe = regexp.MustCompile(`\s+`)
)

// normal is a label as compared: lower case, one space, no note markers.
func normal(s string) string {
	s = noteRe.ReplaceAllString(s, "")
	return strings.TrimSpace(spaceRe.ReplaceAllString(strings.ToLower(s), " "))
}

// IsTotalLabel reports whether a label reads as a total by default.
func IsTotalLabel(s string) bool {
	n := normal(s)
	if slices.Contains(defaultTotals, n) {
		return true
	}
	if strings.Contains(n, "sub-total") || strings.Contains(n, "subtotal") {
		return false
	}
	return totalRe.MatchString(n)
}

// Result is the structure found and the warnings for the table.
type Result struct {
	Structure *audit.Structure
	Warnings  []string
}

// figure is one cell's value in the figure margins add up, or unknown.
type figure struct {
	v     decimal.Dec
	known bool
}

// Infer finds the structure of an aggregate table from its cells (keys in
// table order, values in the figure the margins add up: the total when
// the table has totals, else the count).
func Infer(t *audit.Table, opt Options) (*Result, error) {
	nd := len(t.Dims)
	res := &Result{Structure: &audit.Structure{}}
	st := res.Structure
	figs := cellFigures(t)
	// the dimensions' codes in table order
	codes := make([][]string, nd)
	seen := make([]map[string]bool, nd)
	for d := range seen {
		seen[d] = map[string]bool{}
	}
	for _, c := range t.Cells {
		if len(c.Key) != nd {
			return nil, fmt.Errorf("table %s: a cell has %d key values for %d dimensions", t.Name, len(c.Key), nd)
		}
		for d, v := range c.Key {
			if !seen[d][v] {
				seen[d][v] = true
				codes[d] = append(codes[d], v)
			}
		}
	}
	// nested row dimensions
	groups := nesting(t, codes, opt, st)
	for _, g := range groups {
		ax := audit.Axis{Dims: g, Parent: map[string]string{}, Found: map[string]string{}}
		for _, d := range g {
			ax.Names = append(ax.Names, t.Dims[d])
		}
		seenCode := map[string]bool{}
		for _, c := range t.Cells {
			k := ax.AxisCode(c.Key)
			if !seenCode[k] {
				seenCode[k] = true
				ax.Codes = append(ax.Codes, k)
			}
		}
		st.Axes = append(st.Axes, ax)
	}
	// codes of statistics that do not add up (medians, rates, standard
	// errors beside a count or total): their cells are no figure of a
	// margin, so that a margin holds in the additive columns alone
	shared := make(axisLines, len(st.Axes))
	nonAdditive(t, st, figs, opt, &shared)
	countFigures(t, st, figs)
	big := len(t.Cells) > MaxCells
	if big {
		st.Notes = append(st.Notes, fmt.Sprintf("more than %d cells: margins are those of the configuration only (total_label, totals, suppression.hierarchies)", MaxCells))
	}
	// codes that may be negative first: a negative value they explain
	// (a Balance row) does not keep the other axes' codes from being
	// parts of a margin
	var diffs []difference
	if !big {
		var notes []string
		notes, diffs = findSigned(t, figs, st, opt, &shared)
		st.Notes = append(st.Notes, notes...)
	}
	for a := range st.Axes {
		ax := &st.Axes[a]
		in := &axisInference{t: t, opt: opt, ax: ax, figs: figs, axes: st.Axes, arithmetic: !big, shared: &shared, a: a}
		in.lines()
		in.run()
		in.groupWarnings()
		st.Notes = append(st.Notes, in.notes...)
		st.Unconfirmed = append(st.Unconfirmed, in.unconfirmed...)
		res.Warnings = append(res.Warnings, in.warnings...)
		st.MarginWarnings = append(st.MarginWarnings, in.warnings...)
		if len(ax.Parent) > 0 {
			st.Margins = true
		}
	}
	st.Notes = append(st.Notes, applyDifferences(st, diffs)...)
	if !st.Margins {
		st.Notes = append(st.Notes, "no margins found: no row or column is labelled as a total or adds up to others")
	}
	return res, nil
}

// cellFigures reads the figure margins add up: the total when any cell
// has one, else the count.
func cellFigures(t *audit.Table) []figure {
	total := false
	for _, c := range t.Cells {
		if _, ok := c.Stats.Get("total"); ok || c.HasTotal {
			total = true
			break
		}
	}
	out := make([]figure, len(t.Cells))
	for i, c := range t.Cells {
		switch {
		case total && c.HasTotal:
			out[i] = figure{c.Total, true}
		case !total && c.HasN:
			out[i] = figure{decimal.FromInt(c.N), true}
		}
	}
	return out
}

// nesting groups the dimensions into axes: adjacent row dimensions whose
// combinations in the table are not every combination of their codes
// are nested (one axis); every other dimension is an axis of its own.
func nesting(t *audit.Table, codes [][]string, opt Options, st *audit.Structure) [][]int {
	nd := len(t.Dims)
	var groups [][]int
	for d := 0; d < nd; d++ {
		// adjacent column dimensions of a crosstab nest too: a header
		// row whose codes each stand under one code of the row above
		// ("Census" and "Estimates Base" under April 1, 2010, the years
		// under "Population Estimate (as of July 1)")
		rows := d > 0 && d < opt.RowDims
		cols := opt.Wide && d > opt.RowDims
		if (rows || cols) && nestedPair(t, codes, d-1, d, opt.Wide) {
			g := groups[len(groups)-1]
			groups[len(groups)-1] = append(g, d)
			continue
		}
		groups = append(groups, []int{d})
	}
	for _, g := range groups {
		if len(g) > 1 {
			names := make([]string, len(g))
			for i, d := range g {
				names[i] = t.Dims[d]
			}
			what, line := "rows", "a row"
			if g[0] >= opt.RowDims {
				what, line = "columns", "a column"
			}
			st.Notes = append(st.Notes, fmt.Sprintf("%s nested: %s (each %s has its own %s; not every combination is %s), read as one dimension for margins and group disclosure", what, strings.Join(names, " > "), names[0], strings.Join(names[1:], ", "), line))
		}
	}
	return groups
}

// nestedPair reports whether dimension b is nested in dimension a: the
// pairs of codes present are not every combination, and (for a long
// table, where an absent combination may be an empty cell) the codes of
// b under different codes of a are disjoint.
func nestedPair(t *audit.Table, codes [][]string, a, b int, wide bool) bool {
	pairs := map[[2]string]bool{}
	under := map[string]map[string]bool{}
	for _, c := range t.Cells {
		p := [2]string{c.Key[a], c.Key[b]}
		if pairs[p] {
			continue
		}
		pairs[p] = true
		if under[p[1]] == nil {
			under[p[1]] = map[string]bool{}
		}
		under[p[1]][p[0]] = true
	}
	if len(pairs) == len(codes[a])*len(codes[b]) {
		return false
	}
	if wide {
		return true
	}
	for _, as := range under {
		if len(as) > 1 {
			return false
		}
	}
	return true
}

// axisInference finds the margins of one axis.
type axisInference struct {
	t          *audit.Table
	opt        Options
	ax         *audit.Axis
	axes       []audit.Axis
	figs       []figure
	arithmetic bool
	// per line (the other axes' codes), the cell of each axis code
	lineKeys []string
	cells    []map[string]int
	// shared, when set, keeps each axis's line index once built, for the
	// other inferences on the table (addingUp, findSigned, run); a is the
	// index of ax in axes
	shared   *axisLines
	a        int
	notes    []string
	warnings []string
	// negative is set by check when a part on a checked line is
	// negative: a sum found by arithmetic alone with a negative part is a
	// derived difference (Balance = Exports - Imports), not a margin.
	negative bool
	// inexact is set by check (and sumOfOthers) when a line held only
	// within the rounding (Options.Rounded).
	inexact bool
	// unconfirmed are labelled totals refused as margins because they
	// add up only within the rounding (audit.Structure.Unconfirmed).
	unconfirmed []string
	// crossWork counts the cells compared by nestedRuns and
	// someBreakdown (bounded by maxCrossWork: past it both answer
	// conservatively).
	crossWork int
	// levelWork counts the cells levelTree compared (bounded by
	// Options.MaxBlockWork); levelStopped is set when it ran out.
	levelWork    int
	levelStopped bool
	// pending are the labelled totals that no complete line confirms, in
	// table order, left for settlePartial once the members' own
	// subtotals are found; pendingDeclared is a declared one
	// (configuration, total_label), the axis's last total.
	pending         []string
	pendingDeclared string
	// first is the axis's total once one is taken (assignTotals,
	// settlePartial): a later total equal to it is its margin.
	first string
	// groupFailed are the labelled group subtotals of a nested axis that
	// are not their group's sum (groupSubtotals), warned about once the
	// axis is done unless taken as margins (groupWarnings).
	groupFailed []groupFail
}

// within reports whether a total that differs from the sum of its n
// parts by diff holds: exactly, or within (n+1)·B/2 for a table rounded
// to base B (Options.Rounded); the second sets inexact.
func (in *axisInference) within(diff decimal.Dec, n int) bool {
	if diff.IsZero() {
		return true
	}
	if in.opt.Rounded.Sign() <= 0 {
		return false
	}
	// |diff|·2 <= (n+1)·B
	lim := in.opt.Rounded.Mul(decimal.FromInt(int64(n + 1)))
	if diff.Abs().Add(diff.Abs()).Cmp(lim) <= 0 {
		in.inexact = true
		return true
	}
	return false
}

// upper reports whether a code has letters, all upper case.
func upper(code string) bool {
	parts := label(code)
	l := parts[len(parts)-1]
	return strings.ToUpper(l) == l && strings.ToLower(l) != l
}

func (in *axisInference) lines() {
	if in.shared != nil {
		if l := (*in.shared)[in.a]; l != nil {
			in.cells, in.lineKeys = l.cells, l.keys
			return
		}
	}
	idx := map[string]int{}
	for i, c := range in.t.Cells {
		var b strings.Builder
		for a := range in.axes {
			if &in.axes[a] == in.ax || slices.Equal(in.axes[a].Dims, in.ax.Dims) {
				continue
			}
			b.WriteString(in.axes[a].AxisCode(c.Key))
			b.WriteByte(0)
		}
		k := b.String()
		l, ok := idx[k]
		if !ok {
			l = len(in.cells)
			idx[k] = l
			in.cells = append(in.cells, map[string]int{})
			in.lineKeys = append(in.lineKeys, k)
		}
		in.cells[l][in.ax.AxisCode(c.Key)] = i
	}
	if in.shared != nil {
		(*in.shared)[in.a] = &lineIndex{cells: in.cells, keys: in.lineKeys}
	}
}

// lineIndex is an axis's lines: per line (the other axes' codes), the
// cell of each axis code, and the line's key. Read only once built.
type lineIndex struct {
	cells []map[string]int
	keys  []string
}

// axisLines are a table's line indexes by axis, built once (lines) and
// shared by addingUp, findSigned and the margins' inference (they depend
// on the cells' keys and the axes' dimensions only, not on the figures).
type axisLines []*lineIndex

// value is the figure of code on line l: an absent cell is an empty one.
func (in *axisInference) value(l int, code string) figure {
	i, ok := in.cells[l][code]
	if !ok {
		return figure{known: true}
	}
	return in.figs[i]
}

// check tests total = Σ parts on every line where all are known. It
// returns whether no line contradicts, the number of lines checked,
// whether some checked line has two or more nonzero parts, and the first
// difference met.
func (in *axisInference) check(total string, parts []string) (holds bool, checked int, nontrivial bool, diff decimal.Dec, at int) {
	holds, at = true, -1
	in.negative, in.inexact = false, false
	if checkCounter != nil {
		checkCounter.Add(1)
	}
	for l := range in.cells {
		if _, ok := in.cells[l][total]; !ok {
			continue
		}
		tv := in.value(l, total)
		if !tv.known {
			continue
		}
		var sum decimal.Dec
		nonzero, complete := 0, true
		for _, p := range parts {
			v := in.value(l, p)
			if !v.known {
				complete = false
				break
			}
			if !v.v.IsZero() {
				nonzero++
			}
			if v.v.Sign() < 0 {
				in.negative = true
			}
			sum = sum.Add(v.v)
		}
		if !complete {
			continue
		}
		checked++
		if nonzero >= 2 {
			nontrivial = true
		}
		if !in.within(tv.v.Sub(sum), len(parts)) && holds {
			holds, diff, at = false, tv.v.Sub(sum), l
		}
	}
	return holds, checked, nontrivial, diff, at
}

// partial reports whether a labelled total that no complete line
// confirms is consistent with the lines that lack parts (their cells
// suppressed or missing): on every line where the total is published,
// the published parts are non-negative and add up to no more than it
// (within the rounding, Options.Rounded), on at least one line with two
// parts published.
func (in *axisInference) partial(total string, parts []string) bool {
	if !in.consistent(total, parts) {
		return false
	}
	for l := range in.cells {
		if _, ok := in.cells[l][total]; !ok || !in.value(l, total).known {
			continue
		}
		known := 0
		for _, p := range parts {
			if in.value(l, p).known {
				known++
			}
		}
		if known >= 2 {
			return true
		}
	}
	return false
}

// label is the label of an axis code that decides whether it reads as a
// total: the innermost nested value that is not empty.
func label(code string) []string { return strings.Split(code, "\x1f") }

func (in *axisInference) declared(code string) bool {
	parts := label(code)
	for i, p := range parts {
		d := in.ax.Dims[i]
		if slices.Contains(in.opt.TotalLabels, p) || slices.Contains(in.opt.Totals[in.t.Dims[d]], p) {
			return true
		}
	}
	return false
}

func (in *axisInference) labelled(code string) bool {
	for _, p := range label(code) {
		if IsTotalLabel(p) {
			return true
		}
	}
	return false
}

// run finds the axis's margins.
func (in *axisInference) run() {
	tr := in.splitCodes()
	copies := in.repeats()
	if len(copies) > 0 {
		// the copies take no part in the searches (repeatTree places
		// them once the tree is found)
		drop := func(c string) bool { _, ok := copies[c]; return ok }
		tr.totals = slices.DeleteFunc(tr.totals, drop)
		tr.members = slices.DeleteFunc(tr.members, drop)
	}
	in.groupSubtotals(tr)
	in.censusTree(tr)
	indented := in.indentTree(tr)
	assigned := in.assignTotals(tr)
	if !assigned && !indented && in.arithmetic && len(tr.hier) == 0 && tr.how != "GSS codes" {
		if in.levelTree(tr) {
			in.settlePartial(tr)
			in.recordTree(tr)
			return
		}
		in.caseTree(tr)
		in.dotTree(tr)
		in.prefixTree(tr)
	}
	if !assigned && in.arithmetic && len(in.pending) == 0 && in.pendingDeclared == "" {
		in.blockTree(tr)
		in.unlabelledTotal(tr)
	}
	in.settlePartial(tr)
	in.recordTree(tr)
}

// settlePartial decides the pending labelled total (one that no complete
// line confirms, assignTotals) once the searches among the members have
// run: it is the margin of the members still without a parent when its
// published parts never exceed it (partial), else a warning. Taken at
// once, as the margin of every member, it counted the subtotals (NORTH
// above n_a and n_b) with their parts, a false relation whose intervals
// excluded the true values (review finding: "NORTH [0, 2] protected"
// where 60 is recoverable).
func (in *axisInference) settlePartial(tr *axisTree) {
	pending, declared := in.pending, in.pendingDeclared
	in.pending, in.pendingDeclared = nil, ""
	for _, t := range pending {
		if in.first != "" {
			in.secondTotal(tr, t)
			continue
		}
		if r := tr.roots(); len(r) > 0 && in.partialTotal(tr, t, r) {
			in.first = t
			continue
		}
		in.unconfirmedTotal(tr, t)
	}
	if declared != "" {
		if r := tr.roots(); len(r) > 0 && !in.consistent(declared, r) {
			// its published parts exceed it: the rows left are not its
			// parts (subtotals among them the searches could not find,
			// their parts withheld: a received table). Kept, the
			// relation was false and the audit stopped ("published
			// cells contradict the margins"); unconfirmed, a person
			// decides
			in.warnings = append(in.warnings, fmt.Sprintf("%s: the declared total %q is not the sum of the other %s: their published values exceed it, so some are subtotals of others that no complete line confirms; it is not used as their margin, and the audit cannot confirm a suppressed cell protected (declare the hierarchy with suppression.hierarchies)", tr.name, audit.CodeText(declared), report.Plural(int64(len(r)), "code", "codes")))
			in.unconfirmedName(tr.name, declared)
		} else if in.mayHeadRun(declared, r) {
			// a row withheld on every line may be the subtotal of rows
			// beside it (a received table), and no complete line tells
			// "declared = every row" from "declared = that row and the
			// rows outside its run" (TestRvFlatNoCompleteLine)
			in.warnings = append(in.warnings, fmt.Sprintf("%s: the declared total %q has no complete line to confirm it, and %s, withheld on every line, may be the subtotal of rows beside it: it is not used as the margin of the other %s, and the audit cannot confirm a suppressed cell protected (declare the hierarchy with suppression.hierarchies)", tr.name, audit.CodeText(declared), describeRows(slices.DeleteFunc(slices.Clone(r), func(c string) bool { return !in.withheld(c) })), report.Plural(int64(len(r)), "code", "codes")))
			in.unconfirmedName(tr.name, declared)
		} else if len(r) > 0 {
			in.setTotal(declared, r, tr.parent, "configuration")
		} else if in.first != "" {
			// kept, as declared totals are: the margin of the total
			// taken before it
			tr.parent[in.first] = declared
			in.ax.Found[declared] = "configuration"
		}
	}
}

// mayHeadRun reports whether one of the rows r (in the table's order) is
// withheld on every line with two rows or more of r right below it or
// right above it, so that it may be the subtotal of a run of them, and
// what is published does not refute that: read so, t is the sum of the
// rows r less that row (whatever the run's extent), which a line that
// publishes t and all of them would check. A received table with no
// complete line cannot tell "t = every row" from it.
func (in *axisInference) mayHeadRun(t string, r []string) bool {
	for i, c := range r {
		if (len(r)-i-1 < 2 && i < 2) || !in.withheld(c) {
			continue
		}
		refuted := false
		for l := range in.cells {
			tv := in.value(l, t)
			if _, ok := in.cells[l][t]; !ok || !tv.known {
				continue
			}
			var sum decimal.Dec
			all := true
			for _, p := range r {
				if p == c {
					continue
				}
				v := in.value(l, p)
				if _, ok := in.cells[l][p]; ok && !v.known {
					all = false
					break
				}
				if ok := v.known; ok {
					sum = sum.Add(v.v)
				}
			}
			if d := sum.Sub(tv.v); all && d.Sign() != 0 && !in.within(d.Abs(), len(r)) {
				refuted = true
				break
			}
		}
		if !refuted {
			return true
		}
	}
	return false
}

// repeats are the copies of the axis's rows printed twice
// (Options.Repeats) present in it, each with the code it repeats.
func (in *axisInference) repeats() map[string]string {
	if len(in.ax.Dims) != 1 || len(in.opt.Repeats[in.ax.Names[0]]) == 0 {
		return nil
	}
	present := map[string]bool{}
	for _, c := range in.ax.Codes {
		present[c] = true
	}
	out := map[string]string{}
	for c, o := range in.opt.Repeats[in.ax.Names[0]] {
		if present[c] && present[o] && c != o {
			out[c] = o
		}
	}
	return out
}

// repeatTree places each copy of a row printed twice (Options.Repeats) in
// the tree: the margin of the row it repeats (equal to it on every line),
// and a part of that row's margin in its place (Total (row 12) = Total;
// a repeated subtotal between its parts and its own margin). One whose
// published values differ from its row's on a line is no relation, with
// a warning, and unconfirmed (the audit then calls no cell protected).
func (in *axisInference) repeatTree(tr *axisTree) {
	copies := in.repeats()
	var order []string
	for _, c := range in.ax.Codes {
		if _, ok := copies[c]; ok {
			order = append(order, c)
		}
	}
	for _, c := range order {
		o := copies[c]
		if h, _, _, diff, at := in.check(c, []string{o}); !h {
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q repeats the row %q but differs from it (difference %s%s): not used as a margin", tr.name, audit.CodeText(c), audit.CodeText(o), diff, in.where(at)))
			in.unconfirmedName(tr.name, c)
			continue
		}
		// the copies of o placed before this one stand between o and
		// its margin: this one goes right above o too
		if p, ok := tr.parent[o]; ok {
			tr.parent[c] = p
		}
		tr.parent[o] = c
		in.ax.Found[c] = "layout (the row " + audit.CodeText(o) + " printed again, equal to it)"
	}
	if len(order) > 0 {
		in.notes = append(in.notes, fmt.Sprintf("%s: %s printed twice: each copy read as the same margin published again", tr.name, describeRows(order)))
	}
}

// secondTotal decides a total t of an axis whose total is taken
// (in.first): equal to it on every line, it is its margin (published, it
// gives the first away); else a warning.
func (in *axisInference) secondTotal(tr *axisTree, t string) {
	if in.arithmetic {
		h, c, _, _, _ := in.check(t, []string{in.first})
		if h && c > 0 {
			tr.parent[in.first] = t
			in.ax.Found[t] = "label and arithmetic (equal to " + audit.CodeText(in.first) + ")"
			return
		}
		if h && c == 0 {
			// no line publishes both (one withheld wherever the other
			// is published, a received table): two totals of the axis
			// by their labels, nothing published to tell them apart,
			// read as one (left unrelated, a withheld one was called
			// protected where the other gives it back)
			tr.parent[in.first] = t
			in.ax.Found[t] = "label (equal to " + audit.CodeText(in.first) + "; no line publishes both)"
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q and %q both read as the total, and no line publishes both to confirm they are equal: read as one total published twice (declare the totals with totals: if they are not)", tr.name, audit.CodeText(in.first), audit.CodeText(t)))
			return
		}
	}
	in.warnings = append(in.warnings, fmt.Sprintf("%s: %q reads as a total but %q is already the total and they differ; it is not used as a margin (declare the totals with totals:)", tr.name, audit.CodeText(t), audit.CodeText(in.first)))
}

// partialTotal makes t the margin of the members r when its published
// parts never exceed it (partial), with a note, and reports whether it did.
func (in *axisInference) partialTotal(tr *axisTree, t string, r []string) bool {
	if !in.partial(t, r) {
		return false
	}
	if in.mayHeadRun(t, r) {
		// a row withheld on every line may be the subtotal of rows
		// beside it (a received table): with no complete line, nothing
		// tells "t = every row" from "t = that row and the rows
		// outside its run" (TestRvFlatNoCompleteLine)
		return false
	}
	in.setTotal(t, r, tr.parent, "label, consistent with the published parts (no line complete)")
	in.notes = append(in.notes, fmt.Sprintf("%s: %q reads as a total and no line of the table is complete to confirm it; its published parts never exceed it: read as the margin of the other %s", tr.name, audit.CodeText(t), report.Plural(int64(len(r)), "code", "codes")))
	return true
}

// unconfirmedTotal warns that the labelled total t is not used as a
// margin, and records it unconfirmed (audit.Structure.Unconfirmed): its
// relations are unknown, not absent, so the audit cannot confirm a
// suppressed cell protected. A received table with two breakdowns of t
// ("All people" = Men + Women = the age bands) and one age band withheld
// on every line lands here (its published parts exceed t): without the
// record, every withheld age band was "protected" (exit 0) though All
// people less the other bands gives each back.
func (in *axisInference) unconfirmedTotal(tr *axisTree, t string) {
	in.warnings = append(in.warnings, fmt.Sprintf("%s: %q reads as a total but no line of the table is complete to confirm it: it is not used as a margin; declare it with totals: if it is one", tr.name, audit.CodeText(t)))
	in.unconfirmedName(tr.name, t)
}

// unconfirmedName records code t of the axis called name in
// audit.Structure.Unconfirmed, once.
func (in *axisInference) unconfirmedName(name, t string) {
	if n := name + "=" + audit.CodeText(t); !slices.Contains(in.unconfirmed, n) {
		in.unconfirmed = append(in.unconfirmed, n)
	}
}

// axisTree is what run's steps find on an axis: its codes split into
// totals and members, and the tree among them.
type axisTree struct {
	name string // the axis's name
	// hier is the declared hierarchy of the axis's single dimension.
	hier            map[string]string
	totals, members []string
	parent          map[string]string // a code -> its margin
	how             string            // how parent was found
	// census is set when parent holds only the Census regions' and
	// divisions' relations (censusTree): the other rows may still form
	// blocks by arithmetic (blockTree)
	census bool
}

// roots are the members without a parent.
func (tr *axisTree) roots() []string {
	var r []string
	for _, c := range tr.members {
		if _, ok := tr.parent[c]; !ok {
			r = append(r, c)
		}
	}
	return r
}

// splitCodes splits the axis's codes into totals (declared or labelled),
// ratios (noted, not parts) and members, and finds the tree among the
// members: declared, else from GSS codes (confirmed by arithmetic).
func (in *axisInference) splitCodes() *axisTree {
	ax := in.ax
	tr := &axisTree{name: ax.Name()}
	// declared hierarchies of a single dimension
	if len(ax.Dims) == 1 {
		tr.hier = in.opt.Hierarchies[ax.Names[0]]
	}
	for _, c := range ax.Codes {
		switch {
		case in.declared(c) || in.labelled(c):
			tr.totals = append(tr.totals, c)
		case ax.NonAdditive[c] != "":
			// a statistic beside the counts (a median, a standard error):
			// not a part, and its cells confirm nothing
		case ratioLabel(c):
			// a percentage or rate beside the counts: not a part
			in.notes = append(in.notes, fmt.Sprintf("%s: %q reads as a ratio of other codes: not a part of a margin", tr.name, audit.CodeText(c)))
		default:
			tr.members = append(tr.members, c)
		}
	}
	present := map[string]bool{}
	for _, c := range ax.Codes {
		present[c] = true
	}
	// the tree among the members: declared, else GSS codes
	tr.parent = map[string]string{}
	tr.how = "configuration"
	if len(tr.hier) > 0 {
		for _, c := range tr.members {
			for cur, guard := c, 0; guard < 64; guard++ {
				p, ok := tr.hier[cur]
				if !ok {
					break
				}
				if present[p] && !slices.Contains(tr.totals, p) {
					tr.parent[c] = p
					break
				}
				cur = p
			}
		}
	} else if in.arithmetic {
		if g := gssTree(tr.members); g != nil {
			tr.parent, tr.how = g, "GSS codes"
		} else if a := absTree(tr.members); a != nil {
			tr.parent, tr.how = a, absHow
		}
	}
	if tr.how == "GSS codes" || tr.how == absHow {
		in.confirmTree(tr.parent, tr.members, tr.how)
	}
	return tr
}

// assignTotals takes the first total that holds (or is declared) as the
// margin of the roots, looking for subtotals among the members when it
// does not hold; a later total equal to it is its margin. Totals refused
// are warned about. It reports whether a total was assigned.
func (in *axisInference) assignTotals(tr *axisTree) bool {
	name, parent := tr.name, tr.parent
	assigned := false
	for k, t := range tr.totals {
		if assigned {
			// a second total: equal to the first on every line, it is
			// its margin (published, it gives the first away)
			in.secondTotal(tr, t)
			continue
		}
		r := tr.roots()
		if len(r) == 0 {
			continue
		}
		declared := in.declared(t)
		if !in.arithmetic {
			if declared {
				in.setTotal(t, r, parent, "configuration")
				assigned, in.first = true, t
			}
			continue
		}
		holds, checked, _, diff, at := in.check(t, r)
		flat := ""
		if (!holds || checked == 0) && len(tr.hier) == 0 && len(tr.parent) == 0 && tr.how == "configuration" && in.arithmetic {
			// subtotals among the members, level by level: rows that
			// are the sum of a contiguous block beside them, up to the
			// level whose rows left t is the sum of (flatTotal)
			var f flatPass
			if f, flat = in.flatTotal(tr, t); len(f.p) > 0 {
				for c, q := range f.p {
					parent[c] = q
				}
				r2 := tr.roots()
				h2, c2, _, _, _ := in.check(t, r2)
				holds, checked, r, tr.how = h2, c2, r2, "arithmetic"
				in.notes = append(in.notes, fmt.Sprintf("%s: subtotals found by arithmetic: %s", name, describeTree(f.p)))
				for _, q := range f.runs {
					in.ax.Found[q] = "layout (its parts withheld on every line; the rows right " + f.where() + " it)"
				}
				if len(f.runs) > 0 {
					in.warnings = append(in.warnings, fmt.Sprintf("%s: the parts of %s are withheld on every line: read as the rows right %s each by the layout, as %q is then the sum of the rows left on every complete line (declare the hierarchy with suppression.hierarchies if it is not)", name, describeRows(f.runs), f.where(), audit.CodeText(t)))
				}
				if len(f.byLayout) > 0 {
					// t confirmed with each withheld row replaced by
					// its run (withheldHeads)
					holds, checked = true, max(c2, 1)
					for _, w := range f.byLayout {
						in.ax.Found[w] = "layout (withheld on every line; the sum of the rows right " + f.where() + " it)"
					}
					in.warnings = append(in.warnings, fmt.Sprintf("%s: %s withheld on every line: read as the subtotal of the rows right %s it by the layout, as %q is then the sum of the rows left on every complete line (declare the hierarchy with suppression.hierarchies if it is not)", name, describeRows(f.byLayout), f.where(), audit.CodeText(t)))
				}
			}
		} else if !holds && len(tr.hier) == 0 && tr.how != "GSS codes" {
			// subtotals among the members: a row that is the sum of a
			// contiguous block beside it
			if p := in.blocks(tr.members, nil); len(p) > 0 {
				for c, q := range p {
					parent[c] = q
				}
				r2 := tr.roots()
				if h2, c2, _, _, _ := in.check(t, r2); h2 && c2 > 0 {
					holds, checked, r, tr.how = true, c2, r2, "arithmetic"
					in.notes = append(in.notes, fmt.Sprintf("%s: subtotals found by arithmetic: %s", name, describeTree(p)))
				} else {
					for c := range p {
						delete(parent, c)
					}
				}
			}
		}
		if flat != "" {
			// both directions of a flat layout add up to t, with
			// different subtotals: no tree, t unconfirmed
			in.warnings = append(in.warnings, flat)
			in.unconfirmedName(name, t)
			continue
		}
		if !holds && in.crossed(tr, t, map[bool]string{false: "label and arithmetic", true: "configuration and arithmetic"}[declared]) {
			assigned, in.first = true, t // two breakdowns of t (crossed.go)
			continue
		}
		switch {
		case holds && checked > 0:
			found := "label and arithmetic"
			if declared {
				found = "configuration and arithmetic"
			}
			if in.inexact {
				found = "label, within rounding"
				if declared {
					found = "configuration, within rounding"
				}
			}
			in.setTotal(t, r, parent, found)
			assigned, in.first = true, t
		case declared && holds && checked == 0 && k == len(tr.totals)-1:
			// declared, and no complete line to confirm it: the margin
			// of the members left once their own subtotals are found
			// (settlePartial), not of every member
			in.pendingDeclared = t
		case declared:
			in.setTotal(t, r, parent, "configuration")
			assigned, in.first = true, t
			if !holds {
				in.warnings = append(in.warnings, fmt.Sprintf("%s: the declared total %q is not the sum of the other %s (difference %s%s); it is kept as a margin, and the consistency rule sends the cells involved to review", name, audit.CodeText(t), report.Plural(int64(len(r)), "code", "codes"), diff, in.where(at)))
			}
		case !holds:
			if in.rounding(diff, len(r)) != "" || in.someBreakdown(tr, t) {
				// within the rounding, or the sum of a run of its
				// members (a breakdown among others the inference
				// could not place: a nested band beside the flat
				// ones): its relations are unknown, not absent
				in.unconfirmed = append(in.unconfirmed, name+"="+audit.CodeText(t))
			}
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q reads as a total but is not the sum of the other %s (difference %s%s%s): it is not used as a margin; declare it with totals: if it is one", name, audit.CodeText(t), report.Plural(int64(len(r)), "code", "codes"), diff, in.where(at), in.rounding(diff, len(r))))
		case in.partial(t, r):
			// every line lacks a part (a received table with its
			// suppressed cells): the label, and published parts that
			// never exceed the total; decided once the subtotals
			// among the members are found (settlePartial), every such
			// total (an earlier one decided at once took a subtotal's
			// parts beside it)
			in.pending = append(in.pending, t)
		default:
			in.unconfirmedTotal(tr, t)
		}
	}
	return assigned
}

// caseTree finds a hierarchy by case: an upper-case code that is the sum
// of the codes below it (an area above its authorities).
func (in *axisInference) caseTree(tr *axisTree) {
	var p map[string]string
	if slices.ContainsFunc(tr.members, upper) {
		p = in.blocks(tr.members, upper)
	}
	for c := range p {
		if upper(c) {
			delete(p, c)
		}
	}
	if len(p) > 0 {
		for c, q := range p {
			tr.parent[c] = q
			in.ax.Found[q] = "case and arithmetic"
		}
		in.notes = append(in.notes, fmt.Sprintf("%s: upper-case codes that are the sum of the codes below them: %s", tr.name, describeTree(p)))
	}
}

// dotTree finds the total of sub-parts marked by leading dots (the US
// Census Bureau's "leading dots indicate sub-parts": ".Alabama" ...
// ".Wyoming" under "United States", the counties under their state): the
// one code without a dot, not yet in the tree, that is the sum of every
// root with one leading dot on every line. Codes without a dot that are
// not their sum (regions beside the states, Puerto Rico) are left alone.
func (in *axisInference) dotTree(tr *axisTree) {
	var parts, others []string
	for _, c := range tr.roots() {
		l := label(c)
		switch last := l[len(l)-1]; {
		case strings.HasPrefix(last, ".") && !strings.HasPrefix(last, ".."):
			parts = append(parts, c)
		case !strings.HasPrefix(last, "."):
			others = append(others, c)
		}
	}
	if len(parts) < 2 || len(others) == 0 || !in.mayBePart(parts) {
		return
	}
	var found []string
	for _, c := range others {
		if h, checked, nontrivial, _, _ := in.check(c, parts); h && checked > 0 && nontrivial {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return
	}
	in.setTotal(found[0], parts, tr.parent, "leading dots and arithmetic")
	in.notes = append(in.notes, fmt.Sprintf("%s: %q is the sum of the %s marked as sub-parts by a leading dot on every line: read as their total", tr.name, audit.CodeText(found[0]), report.Plural(int64(len(parts)), "code", "codes")))
}

// prefixTree finds totals named by the start of their parts' codes: a
// year above its quarters ("2019" and "2019 Q1" ... "2019 Q4", a period
// read down two header rows), a code above the codes that continue it
// after a space. A root with at least two such roots right below it
// (none between: "2019 Q1" is below "2019", not below "2019 Q1 Jan")
// that is their sum on every line, with two parts nonzero somewhere, is
// their margin; one that is not ("2018" above "2018 Q2" ... "2018 Q4"
// when "2018 Q1" is not shown) is left alone, as the label does not say
// it is a total.
func (in *axisInference) prefixTree(tr *axisTree) {
	roots := tr.roots()
	byLabel := map[string]string{} // single-label roots by their label
	for _, c := range roots {
		if l := label(c); len(l) == 1 {
			byLabel[l[0]] = c
		}
	}
	// each root's own parent: the longest root its label continues after
	// a space (one pass over the label, not over every pair of roots)
	children := map[string][]string{}
	for _, c := range roots {
		l := label(c)
		if len(l) != 1 {
			continue
		}
		for i := len(l[0]) - 1; i > 0; i-- {
			if l[0][i] != ' ' {
				continue
			}
			if strings.HasPrefix(l[0][i:], QualifySep) {
				// "Services / Other": a repeated label the reader named
				// by the row of its group (readers.QualifySep), whose
				// relation is the layout's (indentation, blocks: found
				// by indentTree or blockTree), not a code continued.
				// Review finding: taken as code prefixes, the groups
				// whose items all repeat kept blockTree from the rest
				// of the column (a subtotal and the total lost, a
				// primary exactly recoverable called protected).
				break
			}
			if p, ok := byLabel[l[0][:i]]; ok {
				children[p] = append(children[p], c)
				break
			}
		}
	}
	for _, p := range roots {
		ch := children[p]
		if len(ch) < 2 || !in.mayBePart(ch) {
			continue
		}
		h, checked, nontrivial, _, _ := in.check(p, ch)
		if !h || checked == 0 || !nontrivial {
			continue
		}
		how := "code prefix and arithmetic"
		if in.inexact {
			how += ", within rounding"
		}
		in.setTotal(p, ch, tr.parent, how)
		in.notes = append(in.notes, fmt.Sprintf("%s: %q is the sum of the %s whose codes continue it (%q ...): read as their total", tr.name, audit.CodeText(p), report.Plural(int64(len(ch)), "code", "codes"), audit.CodeText(ch[0])))
	}
}

// unlabelledTotal finds an unlabelled total: a root that is the sum of
// all the other roots (which may be parts) on every line.
func (in *axisInference) unlabelledTotal(tr *axisTree) {
	r := tr.roots()
	var found []string
	if len(r) >= 3 {
		for _, c := range in.sumOfOthers(r) {
			others := slices.DeleteFunc(slices.Clone(r), func(x string) bool { return x == c })
			if in.mayBePart(others) {
				found = append(found, c)
			}
		}
	}
	// with non-negative parts, two codes cannot each be the sum of
	// all the others on a line where two parts are nonzero
	if len(found) == 1 {
		c := found[0]
		others := slices.DeleteFunc(r, func(x string) bool { return x == c })
		if in.ax.Breakdowns != nil || in.secondBreakdown(tr, c) {
			return
		}
		how := "arithmetic"
		if in.opt.Rounded.Sign() > 0 {
			// confirm on the chosen parts, and say whether only
			// within the rounding
			in.check(c, others)
			if in.inexact {
				how = "arithmetic, within rounding"
			}
		}
		in.setTotal(c, others, tr.parent, how)
		in.notes = append(in.notes, fmt.Sprintf("%s: %q is not labelled as a total but is the sum of the other %s on every line: read as the total", tr.name, audit.CodeText(c), report.Plural(int64(len(others)), "code", "codes")))
	}
}

// recordTree adds the tree's parents the axis does not have yet (found
// as tr.how) and notes each margin of the axis with its count of codes.
func (in *axisInference) recordTree(tr *axisTree) {
	in.repeatTree(tr)
	ax := in.ax
	for c, p := range tr.parent {
		if _, ok := ax.Parent[c]; !ok {
			ax.Parent[c] = p
			if _, ok := ax.Found[p]; !ok {
				ax.Found[p] = tr.how
			}
		}
	}
	for _, c := range ax.Codes {
		if f, ok := ax.Found[c]; ok {
			n := 0
			for _, p := range ax.Parent {
				if p == c {
					n++
				}
			}
			in.notes = append(in.notes, fmt.Sprintf("%s: %q is the margin of %s (%s)", tr.name, audit.CodeText(c), report.Plural(int64(n), "code", "codes"), f))
		}
	}
}

// derivedWords label rows and columns derived as differences: a
// balance, a net figure, a change.
var derivedWords = []string{"balance", "net", "difference", "change", "surplus", "deficit"}

// mayBePart reports whether codes may be the parts of a sum found by
// arithmetic alone: none is labelled as a difference, and none has a
// negative value anywhere in the table (a part of a margin is a count
// or amount, never negative; Balance = Exports - Imports is not a part).
func (in *axisInference) mayBePart(codes []string) bool {
	for _, c := range codes {
		for _, p := range label(c) {
			for _, w := range strings.Fields(normal(p)) {
				if slices.Contains(derivedWords, w) {
					return false
				}
			}
		}
		for l := range in.cells {
			if v := in.value(l, c); v.known && v.v.Sign() < 0 && !in.signedElsewhere(l, c) {
				return false
			}
		}
	}
	return true
}

// signedElsewhere reports whether the cell of code on line l may be
// negative by another axis's signed code (a Balance row explains the
// negative values of an area's cells).
func (in *axisInference) signedElsewhere(l int, code string) bool {
	i, ok := in.cells[l][code]
	if !ok {
		return false
	}
	key := in.t.Cells[i].Key
	for a := range in.axes {
		ax := &in.axes[a]
		if slices.Equal(ax.Dims, in.ax.Dims) || len(ax.Signed) == 0 {
			continue
		}
		if _, ok := ax.Signed[ax.AxisCode(key)]; ok {
			return true
		}
	}
	return false
}

// ratioWords label codes that are ratios of others (a percentage, a
// rate, a share): never parts of a margin.
var ratioWords = []string{"percentage", "percent", "per cent", "rate", "rates", "proportion", "share", "ratio"}

// ratioLabel reports whether a code is labelled as a ratio: one of
// ratioWords as a whole word, or a "%" sign.
func ratioLabel(code string) bool {
	for _, p := range label(code) {
		n := normal(p)
		if strings.Contains(n, "%") {
			return true
		}
		words := " " + strings.Join(strings.FieldsFunc(n, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), " ") + " "
		for _, w := range ratioWords {
			if strings.Contains(words, " "+w+" ") {
				return true
			}
		}
	}
	return false
}

// rounding says when a difference is within the rounding of n parts
// published to the table's finest decimal place: the table looks
// rounded, and its totals cannot be exact relations.
func (in *axisInference) rounding(diff decimal.Dec, n int) string {
	scale := 0
	for _, f := range in.figs {
		if f.known {
			scale = max(scale, f.v.Scale())
		}
	}
	// |diff| <= n/2 units of 10^-scale
	lim := decimal.Scaled(int64(n)*5, scale+1)
	if diff.Abs().Cmp(lim) <= 0 && in.opt.Rounded.Sign() <= 0 {
		return fmt.Sprintf(", within the rounding of %d parts: the table looks rounded; if its values are rounded to base %s, say so with input.rounded: %s", n, in.base(scale), in.base(scale))
	}
	return ""
}

// base proposes the base the table's values look rounded to: the largest
// of 10, 5, 2 and 1 units of the finest decimal place (scale) that every
// published value is a multiple of. Proposed in a warning only: a base is
// never assumed.
func (in *axisInference) base(scale int) decimal.Dec {
	for _, m := range []int64{10, 5, 2} {
		b := decimal.Scaled(m, scale)
		all := true
		for _, f := range in.figs {
			if f.known && !new(big.Rat).Quo(f.v.Rat(), b.Rat()).IsInt() {
				all = false
				break
			}
		}
		if all {
			return b
		}
	}
	return decimal.Scaled(1, scale)
}

// where names the line of a difference for messages.
func (in *axisInference) where(l int) string {
	if l < 0 {
		return ""
	}
	var parts []string
	for a := range in.axes {
		if slices.Equal(in.axes[a].Dims, in.ax.Dims) {
			continue
		}
		for i, c := range in.cells[l] {
			_ = i
			parts = append(parts, in.axes[a].Name()+"="+audit.CodeText(in.axes[a].AxisCode(in.t.Cells[c].Key)))
			break
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " at " + strings.Join(parts, ", ")
}

func (in *axisInference) setTotal(t string, roots []string, parent map[string]string, how string) {
	for _, r := range roots {
		parent[r] = t
	}
	in.ax.Found[t] = how
}

// confirmTree keeps the edges of a tree among the members whose parent is
// the sum of its children; the others are warnings with the difference.
func (in *axisInference) confirmTree(parent map[string]string, members []string, how string) {
	children := map[string][]string{}
	for _, c := range members {
		if p, ok := parent[c]; ok {
			children[p] = append(children[p], c)
		}
	}
	for _, p := range members {
		ch := children[p]
		if len(ch) == 0 {
			continue
		}
		holds, _, _, diff, at := in.check(p, ch)
		if !holds {
			more := ""
			if how == absHow {
				more = in.absRounding(p, ch)
			}
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %q is above %s by its %s but is not their sum (difference %s%s%s): not used as a margin", in.ax.Name(), audit.CodeText(p), report.Plural(int64(len(ch)), "code", "codes"), how, diff, in.where(at), more))
			for _, c := range ch {
				delete(parent, c)
			}
			continue
		}
		in.ax.Found[p] = how
		if in.inexact {
			in.ax.Found[p] = how + ", within rounding"
		}
	}
}

// sumOfOthers returns the codes that are the sum of all the other codes
// on every line where all are known (at least one, with two nonzero
// parts, none negative), in one pass over the lines: v(c) = S - v(c).
func (in *axisInference) sumOfOthers(codes []string) []string {
	type lineSum struct {
		sum          decimal.Dec
		nonzero, neg int
		complete     bool
	}
	sums := make([]lineSum, len(in.cells))
	for l := range in.cells {
		ls := lineSum{complete: true}
		if len(codes) > 0 && in.signedElsewhere(l, codes[0]) {
			// a line that may be negative (a Balance row): its sums are
			// not those of non-negative parts; it confirms nothing
			ls.complete = false
			sums[l] = ls
			continue
		}
		for _, c := range codes {
			v := in.value(l, c)
			if !v.known {
				ls.complete = false
				break
			}
			ls.sum = ls.sum.Add(v.v)
			if !v.v.IsZero() {
				ls.nonzero++
			}
			if v.v.Sign() < 0 {
				ls.neg++
			}
		}
		sums[l] = ls
	}
	var out []string
	for _, c := range codes {
		holds, checked, nontrivial := true, 0, false
		for l, ls := range sums {
			if _, ok := in.cells[l][c]; !ok || !ls.complete {
				continue
			}
			v := in.value(l, c).v
			if !in.within(v.Add(v).Sub(ls.sum), len(codes)-1) {
				holds = false
				break
			}
			nz, neg := ls.nonzero, ls.neg
			if !v.IsZero() {
				nz--
			}
			if v.Sign() < 0 {
				neg--
			}
			if neg > 0 {
				holds = false
				break
			}
			checked++
			nontrivial = nontrivial || nz >= 2
		}
		if holds && checked > 0 && nontrivial {
			out = append(out, c)
		}
	}
	return out
}

// blocks finds subtotals: a member (one that parent accepts, when
// given) that is the sum of a contiguous block of two or more members
// right below it, on every complete line with at least one line where
// two of them are nonzero. The block grows one member at a time with
// running sums per line, and stops as soon as the sum exceeds the
// candidate on a complete line (the parts are never negative). The
// search stops, with a note, at Options.MaxBlockWork cells compared.
func (in *axisInference) blocks(members []string, parent func(string) bool) map[string]string {
	out := map[string]string{}
	maxWork := in.opt.maxBlockWork()
	nl := len(in.cells)
	sums := make([]decimal.Dec, nl)
	unknown := make([]bool, nl)
	work := 0
	// a table rounded (Options.Rounded) compares within the rounding: a
	// row may then be within the rounding of a run that holds a subtotal
	// and its first parts (Nation ≈ Northeast + Alpha + ... ), so the
	// rows are scanned from the last up, and a run stops at a row already
	// a part: the innermost runs are found first, the ones above them in
	// the next pass (blockTree). Exact tables keep the scan from the top.
	rounded := in.opt.Rounded.Sign() > 0
	ends := map[int]int{} // exact: each head's block's last member
	start, step := 0, 1
	if rounded {
		start, step = len(members)-1, -1
	}
	for i := start; i >= 0 && i < len(members); i += step {
		if _, ok := out[members[i]]; ok || parent != nil && !parent(members[i]) {
			continue
		}
		clear(sums)
		clear(unknown)
		for j := i + 1; j < len(members); j++ {
			if _, claimed := out[members[j]]; rounded && claimed {
				break
			}
			over, equal := false, true
			for l := range nl {
				v := in.value(l, members[j])
				switch {
				case !v.known:
					unknown[l] = true
				case v.v.Sign() < 0:
					over = true
				default:
					sums[l] = sums[l].Add(v.v)
				}
				if _, has := in.cells[l][members[i]]; !has || unknown[l] {
					continue
				}
				if tv := in.value(l, members[i]); tv.known {
					// within the rounding of j-i parts, as check
					// (Options.Rounded): 2·|diff| <= (j-i+1)·B
					d := sums[l].Sub(tv.v)
					if c := d.Sign(); c != 0 && (in.opt.Rounded.Sign() <= 0 || d.Abs().Add(d.Abs()).Cmp(in.opt.Rounded.Mul(decimal.FromInt(int64(j-i+1)))) > 0) {
						if c > 0 {
							over = true
						} else {
							equal = false
						}
					}
				}
			}
			if work += nl; work > maxWork {
				in.notes = append(in.notes, fmt.Sprintf("%s: the search for subtotals by arithmetic stopped at its work bound (%d cells compared); declare the hierarchy with suppression.hierarchies if the column holds one", in.ax.Name(), maxWork))
				innermost(members, ends, i, out)
				return out
			}
			if over {
				break
			}
			if !equal || j-i < 2 {
				continue
			}
			block := members[i+1 : j+1]
			if h, c, nt, _, _ := in.check(members[i], block); h && c > 0 && nt && !in.negative && in.mayBePart(block) {
				if !rounded {
					ends[i] = j
					break
				}
				for _, b := range block {
					out[b] = members[i]
				}
				break
			}
		}
	}
	innermost(members, ends, len(members), out)
	return out
}

// innermost adds to out the blocks of an exact table (ends: each head's
// index, its block's last index), each ending before scanned, the first
// row not scanned, from the top: a block is taken unless a row of it
// heads a block that runs past its end (the two cross: the outer one is
// found in the next pass, once the inner one is taken out), and the rows
// of a block taken are not heads in this pass (a block nested in one
// taken is a sum by chance of the same rows, as the top-down scan always
// read it). Taking the first block met from the top let a grand total
// claim the subtotals of a group printed after the others (Total = B +
// A, A's own subtotals below it never found: the tree did not close, and
// no margin was used).
func innermost(members []string, ends map[int]int, scanned int, out map[string]string) {
	covered := -1
	for i := range members {
		j, ok := ends[i]
		if !ok || j >= scanned || i <= covered {
			continue
		}
		crosses := false
		for k := i + 1; k <= j; k++ {
			if e, heads := ends[k]; heads && e > j {
				crosses = true
				break
			}
		}
		if crosses {
			continue
		}
		for _, b := range members[i+1 : j+1] {
			out[b] = members[i]
		}
		covered = j
	}
}

// describeTree lists "parent: n codes" for messages.
func describeTree(p map[string]string) string {
	n := map[string]int{}
	var order []string
	for _, q := range p {
		if n[q] == 0 {
			order = append(order, q)
		}
		n[q]++
	}
	slices.Sort(order)
	var parts []string
	for _, q := range order {
		parts = append(parts, fmt.Sprintf("%q of %d", audit.CodeText(q), n[q]))
	}
	return strings.Join(parts, ", ")
}

// groupTotal reports whether inner, the detail label of a code within
// the group labelled group of a nested axis, reads as the total of its
// group: a total label ("Total", "All"), "All <group>", "<group> total",
// "Total <group>", or a total declared in the configuration.
func (in *axisInference) groupTotal(group, inner string, dim int) bool {
	if IsTotalLabel(inner) || slices.Contains(in.opt.TotalLabels, inner) || slices.Contains(in.opt.Totals[in.t.Dims[dim]], inner) {
		return true
	}
	n, g := normal(inner), normal(group)
	return g != "" && (n == "all "+g || n == g+" total" || n == "total "+g || n == g+" all")
}

// groupSubtotals finds the subtotals of the groups of a nested axis
// (Region > Area), at every level of nesting (Country > Region > Area):
// within each group (the outer labels), the code whose label reads as
// the group's total ("North / All North", "North / Total", "England /
// All England / All England") is the margin of the group's other codes
// when it is their sum on every complete line (within the rounding,
// Options.Rounded); then it is a member, a part of the margin of the
// group above it, and last of the axis's grand total (whose labels are
// all total labels: "All regions / All regions"). The innermost level
// is found first: a group's parts are its subgroups' subtotals found,
// and the codes of a subgroup without one (never a subtotal that does
// not add up). A labelled subtotal that does not add up is a warning
// with the difference, and no total of the axis; one that no complete
// line confirms is its group's margin when its published parts never
// exceed it (a received table). The work is one check per group.
func (in *axisInference) groupSubtotals(tr *axisTree) {
	ax := in.ax
	if len(ax.Dims) < 2 || len(tr.hier) > 0 || tr.how == "GSS codes" || tr.how == absHow {
		return
	}
	n := len(ax.Dims)
	// level is the position of the label of a code that reads as the
	// total of the group its earlier labels name (0: the axis's grand
	// total, "All regions / All regions"; n-1: "North / All North"), the
	// labels after it repeating it, blank or totals too ("England / All
	// England / All England"); n for a detail.
	level := func(c string) int {
		l := label(c)
	next:
		for i := range l {
			group := ""
			if i > 0 {
				group = l[i-1]
			}
			if !in.groupTotal(group, l[i], ax.Dims[i]) {
				continue
			}
			for j := i + 1; j < len(l); j++ {
				if l[j] != l[i] && strings.TrimSpace(l[j]) != "" && !in.groupTotal(l[j-1], l[j], ax.Dims[j]) {
					continue next
				}
			}
			return i
		}
		return len(l)
	}
	// the groups in table order per level, their subtotal candidates
	type group struct {
		prefix string
		subs   []string
	}
	groups := make([][]*group, n)
	byPrefix := map[string]*group{}
	hasGrand := false
	isTotal := map[string]bool{}
	for _, c := range tr.totals {
		isTotal[c] = true
	}
	levels := map[string]int{}
	var codes []string // the additive codes, in table order
	for _, c := range ax.Codes {
		if !isTotal[c] && !slices.Contains(tr.members, c) {
			continue // a ratio or a non-additive code
		}
		codes = append(codes, c)
		lv := level(c)
		levels[c] = lv
		if lv == 0 {
			hasGrand = true
			continue
		}
		if lv == n {
			continue // a detail (or a total no group's)
		}
		prefix := strings.Join(label(c)[:lv], "\x1f")
		g := byPrefix[prefix]
		if g == nil {
			g = &group{prefix: prefix}
			byPrefix[prefix] = g
			groups[lv] = append(groups[lv], g)
		}
		g.subs = append(g.subs, c)
	}
	var found []string
	var failed []groupFail
	isFailed := map[string]bool{}
	unresolved := map[string]bool{} // subtotals left to the axis's totals
	// innermost level first: a group's parts are the codes under its
	// prefix below its level that are no part of a subtotal found
	// (the subtotals of its subgroups, and the details of a subgroup
	// without one), never a subtotal that does not add up
	for lv := n - 1; lv >= 1; lv-- {
		parts := map[string][]string{}
		var all []string // every group's parts at this level
		for _, c := range codes {
			if levels[c] <= lv || isFailed[c] || unresolved[c] {
				continue
			}
			if _, has := tr.parent[c]; has {
				continue
			}
			if levels[c] == n && isTotal[c] {
				continue
			}
			prefix := strings.Join(label(c)[:lv], "\x1f")
			parts[prefix] = append(parts[prefix], c)
			all = append(all, c)
		}
		for _, g := range groups[lv] {
			details := parts[g.prefix]
			if len(g.subs) != 1 || len(details) == 0 {
				if len(g.subs) > 1 {
					in.warnings = append(in.warnings, fmt.Sprintf("%s: the group %q has %d codes that read as its total (%q, %q): none is used as a margin; declare the totals with totals:", tr.name, audit.CodeText(g.prefix), len(g.subs), audit.CodeText(g.subs[0]), audit.CodeText(g.subs[1])))
				}
				continue
			}
			sub := g.subs[0]
			if !in.arithmetic {
				continue
			}
			holds, checked, _, diff, at := in.check(sub, details)
			how := "label and arithmetic (subtotal of its group)"
			if in.inexact {
				how = "label, within rounding (subtotal of its group)"
			}
			switch {
			case holds && checked > 0:
			case holds && in.partial(sub, details) && in.groupNotAxis(sub, all, hasGrand):
				how = "label, consistent with the published parts (subtotal of its group; no line complete)"
			case holds && in.consistent(sub, details) && in.groupNotAxis(sub, all, hasGrand):
				// no line has it and its parts published (a received
				// table that withholds the subgroup): a subtotal by its
				// label still, never left beside its parts as a part of
				// the group above (All England = N1 + N2 + All North + ...
				// counted North twice)
				how = "label (subtotal of its group; no line where it and its parts are published)"
				in.warnings = append(in.warnings, fmt.Sprintf("%s: %q reads as the total of its group, but no line publishes it with its %s: arithmetic cannot confirm it; taken as their margin by its label (declare the hierarchy with suppression.hierarchies if it is not)", tr.name, audit.CodeText(sub), report.Plural(int64(len(details)), "part", "parts")))
			case holds && !in.consistent(sub, details):
				// its published parts exceed it: not its group's
				// margin, and no part of the group above (its parts are)
				isFailed[sub] = true
				failed = append(failed, groupFail{sub, fmt.Sprintf("%s: %q reads as the total of its group but its group's published %s exceed it: it is not used as its group's margin; declare it with totals: if it is one", tr.name, audit.CodeText(sub), report.Plural(int64(len(details)), "code", "codes"))})
				continue
			case holds:
				// perhaps the axis's total printed beside the group,
				// decided with the axis's totals (assignTotals); no
				// part of the group above either way (its parts are)
				unresolved[sub] = true
				continue
			default:
				// not its group's sum: perhaps the total of the whole
				// axis printed beside one group ("Joint / Fathers All
				// ages"), decided once every group's subtotal is found
				if !holds {
					isFailed[sub] = true
					failed = append(failed, groupFail{sub, fmt.Sprintf("%s: %q reads as the total of its group but is not the sum of the group's other %s (difference %s%s%s): it is not used as its group's margin; declare it with totals: if it is one", tr.name, audit.CodeText(sub), report.Plural(int64(len(details)), "code", "codes"), diff, in.where(at), in.rounding(diff, len(details)))})
				}
				continue
			}
			if lv < n-1 {
				how = strings.Replace(how, "subtotal of its group", "subtotal of its group's subtotals", 1)
			}
			in.setTotal(sub, details, tr.parent, how)
			found = append(found, sub)
			// a part of the grand total: a member
			if i := slices.Index(tr.totals, sub); i >= 0 {
				tr.totals = slices.Delete(tr.totals, i, i+1)
			}
			if !slices.Contains(tr.members, sub) {
				tr.members = append(tr.members, sub)
			}
		}
	}
	// a subtotal that is not its group's sum: kept where it is the sum of
	// every root of the axis (the axis's total, wherever printed), else
	// no margin and no part of one, with a warning once the axis is done
	for _, f := range failed {
		others := slices.DeleteFunc(tr.roots(), func(x string) bool { return x == f.code })
		if h, c, _, _, _ := in.check(f.code, others); h && c > 0 {
			continue
		}
		in.dropTotal(tr, f.code)
		in.groupFailed = append(in.groupFailed, f)
	}
	if len(found) > 0 {
		// the members in table order (a subtotal read as a total moved)
		pos := map[string]int{}
		for i, c := range ax.Codes {
			pos[c] = i
		}
		slices.SortFunc(tr.members, func(a, b string) int { return pos[a] - pos[b] })
		in.notes = append(in.notes, fmt.Sprintf("%s: group subtotals found by label and confirmed by arithmetic: %s", tr.name, describeTree(tr.parent)))
	}
}

// groupNotAxis reports whether a group's labelled subtotal sub that no
// complete line confirms (a received table) is its group's margin rather
// than the axis's total printed beside the group ("Joint / Fathers All
// ages", the total of every registration): the axis has a grand total row
// of its own, the label names the group ("All North", "North total"), or
// the published details of every group (details) exceed it on some line.
func (in *axisInference) groupNotAxis(sub string, details []string, hasGrand bool) bool {
	if hasGrand {
		return true
	}
	l := label(sub)
	n, g := normal(l[len(l)-1]), normal(l[len(l)-2])
	if n == "all "+g || n == g+" total" || n == "total "+g || n == g+" all" {
		return true
	}
	return !in.consistent(sub, details)
}

// groupFail is a labelled group subtotal that is not its group's sum,
// with the warning it gets unless the axis takes it as a margin.
type groupFail struct{ code, warning string }

// groupWarnings warns of the labelled group subtotals that do not add up
// and that the axis did not take as margins otherwise.
func (in *axisInference) groupWarnings() {
	for _, f := range in.groupFailed {
		if !in.ax.IsMarginCode(f.code) {
			in.warnings = append(in.warnings, f.warning)
		}
	}
}

// dropTotal takes a labelled group subtotal that does not add up out of
// the axis's totals and members: it is no margin, and no part of one.
func (in *axisInference) dropTotal(tr *axisTree, c string) {
	tr.totals = slices.DeleteFunc(tr.totals, func(x string) bool { return x == c })
	tr.members = slices.DeleteFunc(tr.members, func(x string) bool { return x == c })
}
