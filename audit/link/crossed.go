package link

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// Two breakdowns of one total (issue 24): a published table often gives
// one total two breakdowns in one label column ("All persons", "Men",
// "Women", "Aged 0-15", "Aged 16-64", "Aged 65+"), which the structure
// inference records as Axis.Breakdowns. The relations of one table hold
// one tree per axis, so the table is split into member views, one per
// breakdown (the total and that breakdown's codes, the axis renamed
// "Group (1)", "Group (2)"), and the views are protected as linked
// tables on a cover: the cross of the breakdowns (Sex x Age) whose
// interior cells (men aged 0-15) no view publishes and the intruder
// does not know. The views' statuses, findings and intervals are mapped
// back to the table's cells (the total's cells, in every view, get the
// strictest status once).

// CrossedView is one breakdown's view of a table with two breakdowns
// of one total.
type crossedView struct {
	t    *audit.Table
	from []int // view cell -> table cell
}

// ProtectCrossed protects a table whose structure has a margin with two
// or more breakdowns (audit.Structure.Crossed) through a cover with the
// breakdowns as crossed dimensions: secondary suppression when secondary
// is set (opt as the table would be protected alone; keep are the cells
// an override protects), then the interval audit, whose result it
// returns (already annotated on t's cells, its warnings already among
// t's). The cover's interior is a non-negative completion of the
// published cells when every cell of t has its figure, else (a received
// table with withheld cells) unknown: only the audit runs then. A
// non-empty reason says why it cannot (nothing is changed then): the
// caller protects the table as before, with CrossedApart.
func ProtectCrossed(ctx context.Context, t *audit.Table, opt suppress.Options, secondary bool, keep map[*audit.Cell]bool, maxCells int) (*audit.Intervals, string, error) {
	views, reason := crossedViews(t)
	if reason != "" {
		return nil, reason, nil
	}
	limit := maxCells
	if limit <= 0 {
		limit = DefaultMaxCells
	}
	opt.Unpublished, opt.Keep = nil, nil
	role := opt.Role
	if role == "" {
		role = audit.RoleTotal
		if t.Frequency() {
			role = audit.RoleCount
		}
		opt.Role = role
	}
	hier := maps.Clone(opt.Hierarchies)
	ax, _ := t.Structure.Crossed()
	delete(hier, t.Dims[ax.Dims[0]])
	opt.Hierarchies = hier
	group := make([]Member, len(views))
	complete := true
	for k, v := range views {
		g := Member{Table: v.t, Options: opt, Hierarchies: hier, Secondary: secondary}
		for i, o := range v.from {
			if keep[t.Cells[o]] {
				if g.Keep == nil {
					g.Keep = map[*audit.Cell]bool{}
				}
				g.Keep[v.t.Cells[i]] = true
			}
			if _, ok := figureOf(role, v.t.Cells[i]); !ok {
				complete = false
			}
		}
		group[k] = g
	}
	var cover *audit.Table
	var codes *coverCodes
	if complete {
		cover, codes, reason = buildCellCover(group, role, limit, "the cover table of the breakdowns crossed")
	} else {
		if secondary {
			return nil, "cells without a figure: no completion of the cover table to protect", nil
		}
		cover, codes, reason = unknownCover(group, role, limit)
	}
	if reason != "" {
		return nil, reason, nil
	}
	// the cover cell of every table cell: its protection levels (the
	// p% and dominance rules' from its contributions, a-priori levels)
	// and its cost are the table cell's
	orig := map[*audit.Cell]*audit.Cell{}
	idx := make(map[string]int, len(cover.Cells))
	for i, c := range cover.Cells {
		idx[strings.Join(c.Key, "\x00")] = i
	}
	for _, v := range views {
		for i, c := range v.t.Cells {
			if at, ok := idx[coverKey(cover, nil, codes, v.t, c)]; ok {
				orig[cover.Cells[at]] = t.Cells[v.from[i]]
			}
		}
	}
	base, cost := opt.Protection, opt.CostOf
	levels := func(c *audit.Cell) (float64, float64, bool) {
		o := orig[c]
		if o == nil {
			return 0, 0, false
		}
		x, ok := figureOf(role, o)
		if !ok {
			return 0, 0, false
		}
		u, l := base.Levels(o, x.Float64())
		return u, l, true
	}
	for k := range group {
		group[k].Options.Protection.CellLevels = levels
		if cost != nil {
			group[k].Options.CostOf = func(c *audit.Cell) (float64, bool) {
				if o := orig[c]; o != nil {
					return cost(o)
				}
				return 0, false
			}
		}
	}
	var run audit.SuppressionRun
	if reason, err := protectCover(ctx, cover, map[string]string{}, codes, group, &run); err != nil || reason != "" {
		return nil, reason, err
	}
	res := mergeViews(t, views, crossedTexts(t, cover, codes, views))
	if secondary {
		// how the cover's suppression ran (report.json's
		// audit.suppression), as a table protected alone
		res.Suppression = &run
	}
	return res, "", nil
}

// maxTextCells bounds the cover cells whose key texts are translated
// back into the table's terms (crossedTexts).
const maxTextCells = 20_000

// crossedTexts translates the cover's texts in the views' messages into
// the table's terms: a cover cell's key ("Group (1)=Total, across=North,
// Group (2)=Aged 0-15") becomes the table cell's ("Group=Aged 0-15,
// across=North"), an interior cell's crossed codes are joined ("Group=Men
// x Aged 0-15"), the same for the lines of relations (a key less one
// dimension), and the views' names become the axis's. Nil (messages left
// as they are) for a cover over maxTextCells cells.
func crossedTexts(t *audit.Table, cover *audit.Table, codes *coverCodes, views []crossedView) *strings.Replacer {
	if len(cover.Cells) > maxTextCells {
		return nil
	}
	ax, total := t.Structure.Crossed()
	d := ax.Dims[0]
	dim := t.Dims[d]
	tl := cover.TotalLabel
	crossed := map[int]bool{}
	for i, name := range cover.Dims {
		crossed[i] = slices.ContainsFunc(views, func(v crossedView) bool { return v.t.Dims[d] == name })
	}
	// the member code of a cover code (the cover's total label stands
	// for a dimension's own total code)
	back := func(dimName, code string) string {
		if codes != nil {
			for m, c := range codes.rename[dimName] {
				if c == code {
					return m
				}
			}
		}
		return code
	}
	text := func(key []string, drop int) (string, string) {
		var from, to []string
		var parts []string
		for i, v := range key {
			if crossed[i] && v != tl && i != drop {
				parts = append(parts, v)
			}
		}
		code := total
		if len(parts) > 0 {
			code = strings.Join(parts, " x ")
		}
		for i, v := range key {
			if i != drop {
				from = append(from, cover.Dims[i]+"="+v)
			}
		}
		for i, name := range t.Dims {
			ci := slices.Index(cover.Dims, name)
			switch {
			case i == d:
				to = append(to, dim+"="+code)
			case ci >= 0 && ci != drop:
				to = append(to, name+"="+back(name, key[ci]))
			}
		}
		return strings.Join(from, ", "), strings.Join(to, ", ")
	}
	type pair struct{ from, to string }
	var pairs []pair
	seen := map[string]bool{}
	for _, c := range cover.Cells {
		for drop := -1; drop < len(cover.Dims); drop++ {
			f, to := text(c.Key, drop)
			if f != "" && !seen[f] {
				seen[f] = true
				pairs = append(pairs, pair{f, to})
			}
		}
	}
	with := make([]string, len(views))
	for i, v := range views {
		with[i] = v.t.Name
	}
	names := strings.Join(with, ", ")
	pairs = append(pairs,
		pair{"linked tables (" + names + ")", "the breakdowns of " + dim + " " + strconvQuote(total)},
		pair{"protected together with " + names, "protected through the breakdowns of " + dim + " " + strconvQuote(total)})
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.from) - len(a.from) })
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.from, p.to)
	}
	return strings.NewReplacer(args...)
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", audit.CodeText(s)) }

// translated is f with its message and text figures in the table's terms.
func translated(f audit.Finding, r *strings.Replacer) audit.Finding {
	if r == nil {
		return f
	}
	figs := slices.Clone(f.FigureList())
	for i := range figs {
		figs[i] = translateFigure(figs[i], r)
	}
	return audit.Finding{Rule: f.Rule, Outcome: f.Outcome, Facts: &audit.Statement{Text: r.Replace(f.Message()), Figs: figs}}
}

func translateFigure(g audit.Figure, r *strings.Replacer) audit.Figure {
	if g.Kind == audit.KindText {
		g.Text = r.Replace(g.Text)
	}
	if len(g.Items) > 0 {
		items := slices.Clone(g.Items)
		for i := range items {
			items[i] = translateFigure(items[i], r)
		}
		g.Items = items
	}
	return g
}

// crossedViews splits t into one view per breakdown of its crossed
// margin; a reason when it cannot.
func crossedViews(t *audit.Table) ([]crossedView, string) {
	st := t.Structure
	ax, total := st.Crossed()
	if ax == nil {
		return nil, "no margin with two breakdowns"
	}
	n := 0
	for i := range st.Axes {
		n += len(st.Axes[i].Breakdowns)
	}
	if n > 1 || len(ax.Dims) != 1 {
		return nil, "more than one margin with two breakdowns, or nested rows: not protected as a cross"
	}
	return splitViews(t, ax, total, true)
}

// splitViews splits t into one view per breakdown of total on the axis
// ax (one of t's axes): the total and that breakdown's codes, with the
// axis's dimension renamed "Group (1)", "Group (2)" when rename is set.
// The views keep t's other axes as they are.
func splitViews(t *audit.Table, ax *audit.Axis, total string, rename bool) ([]crossedView, string) {
	st := t.Structure
	for i := range st.Axes {
		if len(st.Axes[i].NonAdditive) > 0 {
			return nil, "codes that do not add up (statistics beside the counts): not protected as a cross"
		}
	}
	d := ax.Dims[0]
	dim := t.Dims[d]
	tl := t.TotalLabel
	codesOf := make([]map[string]bool, len(t.Dims))
	for i := range codesOf {
		codesOf[i] = map[string]bool{}
	}
	for _, c := range t.Cells {
		for i, v := range c.Key {
			codesOf[i][v] = true
		}
	}
	if tl == "" {
		tl = "Total"
		for taken := true; taken; {
			taken = false
			for i := range codesOf {
				taken = taken || codesOf[i][tl]
			}
			if taken {
				tl += " "
			}
		}
	}
	if tl != total && codesOf[d][tl] {
		return nil, fmt.Sprintf("%s has a code %q besides its total %q", dim, tl, audit.CodeText(total))
	}
	runs := ax.Breakdowns[total]
	views := make([]crossedView, len(runs))
	for k, run := range runs {
		in := map[string]bool{total: true}
		for _, c := range run {
			in[c] = true
		}
		name := fmt.Sprintf("%s (%d)", dim, k+1)
		for _, o := range t.Dims {
			if o == name && rename {
				return nil, fmt.Sprintf("the table has a dimension called %q already", name)
			}
		}
		vname := fmt.Sprintf("%s [%s]", t.Name, name)
		if !rename {
			name = dim
		}
		v := &audit.Table{Name: vname, Source: t.Source, Mode: t.Mode, Dims: slices.Clone(t.Dims), TotalLabel: tl, Value: t.Value}
		v.Dims[d] = name
		if len(t.Hierarchies) > 0 {
			v.Hierarchies = maps.Clone(t.Hierarchies)
			delete(v.Hierarchies, dim)
		}
		vs := &audit.Structure{Margins: true, Axes: slices.Clone(st.Axes)}
		for i := range vs.Axes {
			if &st.Axes[i] != ax {
				continue
			}
			a := audit.Axis{Dims: ax.Dims, Names: []string{name}, Parent: map[string]string{}, Found: map[string]string{total: ax.Found[total]}}
			for _, c := range ax.Codes {
				if in[c] {
					a.Codes = append(a.Codes, c)
					if c == total {
						continue
					}
					// a band's part (Aged 16-64 of Aged 16+) adds up
					// into its band, the others into the total
					if p := ax.Parent[c]; p != total && p != "" && in[p] {
						a.Parent[c] = p
						a.Found[p] = ax.Found[p]
					} else {
						a.Parent[c] = total
					}
				}
			}
			vs.Axes[i] = a
		}
		v.Structure = vs
		var from []int
		for i, c := range t.Cells {
			if !in[c.Key[d]] {
				continue
			}
			cp := *c
			cp.Key = slices.Clone(c.Key)
			cp.Findings = slices.Clip(slices.Clone(c.Findings))
			cp.Notes = slices.Clip(slices.Clone(c.Notes))
			v.Cells = append(v.Cells, &cp)
			from = append(from, i)
		}
		views[k] = crossedView{t: v, from: from}
	}
	return views, ""
}

// unknownCover is the cover table of the views of a received table (some
// cells withheld, without a figure): every combination of the cover's
// codes, with the figure of the view cell it is, else unknown (an
// interior cell no view publishes, or a withheld one). Only the audit
// runs on it.
func unknownCover(group []Member, role audit.Role, limit int) (*audit.Table, *coverCodes, string) {
	plan, reason := planCover(group, role, limit, "the cover table of the breakdowns crossed")
	if reason != "" {
		return nil, nil, reason
	}
	tl, cm, seen, dimNames, dims := plan.tl, plan.cm, plan.seen, plan.dimNames, plan.dims
	cover := coverTable(plan.members, dimNames, tl, plan.hier)
	nd := len(dimNames)
	key := make([]string, nd)
	var walk func(d int)
	walk = func(d int) {
		if d == nd {
			c := &audit.Cell{Key: slices.Clone(key)}
			var parts []string
			for i, v := range key {
				if v != tl {
					parts = append(parts, dimNames[i]+"\x01"+v)
				}
			}
			slices.Sort(parts)
			if o, ok := seen[strings.Join(parts, "\x00")]; ok {
				c.N, c.HasN = o.c.N, o.c.HasN
				c.Total, c.HasTotal = o.c.Total, o.c.HasTotal
			}
			cover.Cells = append(cover.Cells, c)
			return
		}
		for _, code := range append(slices.Clone(dims[dimNames[d]].codes), tl) {
			key[d] = code
			walk(d + 1)
		}
	}
	walk(0)
	return cover, cm, ""
}

// mergeViews maps the views' statuses, findings, notes, warnings and
// intervals back to t: each cell gets the strictest status of its
// copies, their findings and notes added since the split (once each),
// and one interval.
func mergeViews(t *audit.Table, views []crossedView, r *strings.Replacer) *audit.Intervals {
	tr := func(s string) string {
		if r == nil {
			return s
		}
		return r.Replace(s)
	}
	type fkey struct {
		rule    string
		outcome audit.Outcome
		msg     string
	}
	before := make([][2]int, len(t.Cells))
	for i, c := range t.Cells {
		before[i] = [2]int{len(c.Findings), len(c.Notes)}
	}
	seenF := map[int]map[fkey]bool{}
	seenN := map[int]map[string]bool{}
	for _, v := range views {
		for i, cp := range v.t.Cells {
			o := v.from[i]
			c := t.Cells[o]
			if statusRank(cp.Status) > statusRank(c.Status) {
				c.Status = cp.Status
			}
			if seenF[o] == nil {
				seenF[o], seenN[o] = map[fkey]bool{}, map[string]bool{}
			}
			for _, f := range cp.Findings[before[o][0]:] {
				f = translated(f, r)
				k := fkey{f.Rule, f.Outcome, f.Message()}
				if !seenF[o][k] {
					seenF[o][k] = true
					c.Findings = append(c.Findings, f)
				}
			}
			for _, n := range cp.Notes[before[o][1]:] {
				n = tr(n)
				if !seenN[o][n] {
					seenN[o][n] = true
					c.Notes = append(c.Notes, n)
				}
			}
		}
	}
	res := &audit.Intervals{Dims: t.Dims}
	warned := map[string]bool{}
	for _, w := range t.Warnings {
		warned[w] = true
	}
	for _, v := range views {
		for _, w := range v.t.Warnings {
			w = tr(w)
			if !warned[w] {
				warned[w] = true
				t.Warnings = append(t.Warnings, w)
			}
		}
	}
	auditWarned := map[string]bool{}
	done := make([]bool, len(t.Cells))
	for _, v := range views {
		if v.t.Audit == nil {
			continue
		}
		for _, w := range v.t.Audit.Warnings {
			w = tr(w)
			if !auditWarned[w] {
				auditWarned[w] = true
				res.Warnings = append(res.Warnings, w)
			}
		}
		at := make(map[string]int, len(v.t.Cells))
		for i, c := range v.t.Cells {
			at[strings.Join(c.Key, "\x00")] = v.from[i]
		}
		for _, r := range v.t.Audit.Cells {
			o, ok := at[strings.Join(r.Key, "\x00")]
			if !ok || done[o] {
				continue
			}
			done[o] = true
			r.Key = t.Cells[o].Key
			if r.Status != audit.StatusMarked {
				r.Status = t.Cells[o].Status
			}
			res.Add(r)
		}
	}
	// the table's order
	pos := make(map[string]int, len(t.Cells))
	for i, c := range t.Cells {
		pos[strings.Join(c.Key, "\x00")] = i
	}
	slices.SortStableFunc(res.Cells, func(a, b audit.Interval) int {
		return pos[strings.Join(a.Key, "\x00")] - pos[strings.Join(b.Key, "\x00")]
	})
	return res
}

// CrossedApart marks a table with two breakdowns of one total that was
// not protected through its cross (for reason): a table warning, and a
// review finding on each suppressed cell, since the relations of the
// second breakdown were not used.
func CrossedApart(t *audit.Table, reason string) {
	ax, total := t.Structure.Crossed()
	if ax == nil {
		return
	}
	crossedReview(t, fmt.Sprintf("%s %q has %d breakdowns, not protected through them (%s): an intruder combining them may narrow this cell; a person decides", ax.Name(), audit.CodeText(total), len(ax.Breakdowns[total]), reason))
}

// CrossedLinked marks a table with two breakdowns of one total that was
// protected in turn through its cross and with its linked tables (with,
// their names) until neither added a withheld cell: each pattern is safe
// in each system, yet an intruder combining the two systems is not
// modelled. A table warning and a review finding on each withheld cell,
// the total unconfirmed, as CrossedApart.
func CrossedLinked(t *audit.Table, with string) {
	ax, total := t.Structure.Crossed()
	if ax == nil {
		return
	}
	crossedReview(t, fmt.Sprintf("%s %q has %d breakdowns: protected through their cross and with the linked tables %s in turn until neither withheld another cell; an intruder combining the two may narrow this cell; a person decides", ax.Name(), audit.CodeText(total), len(ax.Breakdowns[total]), with))
}

// crossedReview names t's crossed total unconfirmed, warns msg and adds
// it as a review finding to every withheld cell.
func crossedReview(t *audit.Table, msg string) {
	ax, total := t.Structure.Crossed()
	name := ax.Name() + "=" + audit.CodeText(total)
	if !slices.Contains(t.Structure.Unconfirmed, name) {
		t.Structure.Unconfirmed = append(t.Structure.Unconfirmed, name)
	}
	t.Warnings = append(t.Warnings, msg)
	for _, c := range t.Cells {
		if c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary {
			c.Findings = append(c.Findings, audit.Said("secondary", audit.Review, msg, nil))
		}
	}
}

// statusRank orders the statuses of a cell's copies: primary over
// secondary (both withheld) over review over ok.
func statusRank(s audit.Status) int {
	switch s {
	case audit.StatusPrimary:
		return 3
	case audit.StatusSecondary:
		return 2
	case audit.StatusReview:
		return 1
	}
	return 0
}
