package pipeline

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/writers"
)

// Linked tables (issue 17, docs/suppression.md "Linked tables"): the
// microdata tables of a run that come from the same records (same file and
// sheet, value, holding and total label) share cells, at least the grand
// total. They are protected together on their cover table: the microdata
// table over the union of their dimensions, built from the same records,
// in which every cell of every member is a cell (a margin in the
// dimensions the member lacks). Cover cells that no member publishes are
// unpublished: free for the intruder, never suppressed in any output.

// maxCoverCells bounds the cells of a cover table. A group whose cover
// would be larger is protected table by table and its primary cells go to
// review (the joint system is not checked).
var maxCoverCells = 250_000

// linkPlan is the link groups of a run.
type linkPlan struct {
	groups []*linkGroup
	of     []int // unit -> group, -1 when in none
	on     bool  // protect the groups together
}

type linkGroup struct {
	units []int
	names []string
	exact bool
	why   string
	cells bool // the cover is built from the members' cells (links_cells.go)
}

// linkUnit is what planning needs of one input table.
type linkUnit struct {
	job        int
	name       string
	file, page string
}

// planLinks finds the groups of units that come from the same microdata.
// linkKey is what tables linked as "the same microdata" share: the file
// (and sheet), value, holding, total label and reader settings; ok is
// false for tables that are not microdata.
func linkKey(s *configs.Settings, path, page string) (key string, ok bool) {
	if s == nil || s.Microdata == nil || len(s.Microdata.Dims) == 0 {
		return "", false
	}
	file, err := filepath.Abs(path)
	if err != nil {
		file = path
	}
	ro := ReaderOptions(s)
	return strings.Join([]string{file, page, s.Microdata.Value, s.Microdata.Holding, s.TotalLabel, ro.Format, string(ro.Delimiter), s.Input.Range}, "\x00"), true
}

func planLinks(jobs []Job, units []linkUnit, opt Options) (*linkPlan, error) {
	lp := &linkPlan{of: make([]int, len(units)), on: opt.Linked}
	for i := range lp.of {
		lp.of[i] = -1
	}
	if !opt.Linked && !opt.LinkedOff {
		return lp, nil
	}
	// Union-find over the units: the same microdata, then links:.
	root := make([]int, len(units))
	for k := range root {
		root[k] = k
	}
	find := func(k int) int {
		for root[k] != k {
			root[k] = root[root[k]]
			k = root[k]
		}
		return k
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			root[max(ra, rb)] = min(ra, rb)
		}
	}
	keys := make([]string, len(units))
	firstOf := map[string]int{}
	for k, u := range units {
		key, ok := linkKey(jobs[u.job].Settings, u.file, u.page)
		if !ok {
			continue
		}
		keys[k] = key
		if f, seen := firstOf[key]; seen {
			union(f, k)
		} else {
			firstOf[key] = k
		}
	}
	explicit, err := explicitLinks(units, opt.Links)
	if err != nil {
		return nil, err
	}
	for _, g := range explicit {
		for _, k := range g[1:] {
			union(g[0], k)
		}
	}
	byRoot := map[int]*linkGroup{}
	var order []int
	for k, u := range units {
		r := find(k)
		g := byRoot[r]
		if g == nil {
			g = &linkGroup{exact: true}
			byRoot[r] = g
			order = append(order, r)
		}
		g.units = append(g.units, k)
		g.names = append(g.names, u.name)
	}
	for _, r := range order {
		g := byRoot[r]
		if len(g.units) < 2 {
			continue
		}
		g.why = "the same microdata"
		for _, k := range g.units {
			if keys[k] == "" || keys[k] != keys[g.units[0]] {
				g.cells = true // not all from one file's records
			}
		}
		if g.cells {
			g.why = "linked in the release file (links:)"
		}
		for _, k := range g.units {
			lp.of[k] = len(lp.groups)
		}
		lp.groups = append(lp.groups, g)
	}
	return lp, nil
}

// deferred reports whether unit k is protected with its group after every
// table of the run is evaluated.
func (lp *linkPlan) deferred(k int) bool { return lp.on && lp.of[k] >= 0 }

// settings returns the settings to evaluate unit k with: without
// protection when its group protects it later.
func (lp *linkPlan) settings(k int, s *configs.Settings) *configs.Settings {
	if !lp.deferred(k) {
		return s
	}
	c := *s
	c.Suppression.Secondary, c.Suppression.Audit = false, false
	return &c
}

// link is the Link of unit k (named name) for its report, or nil.
func (lp *linkPlan) link(k int, name string) *audit.Link {
	if lp.of[k] < 0 {
		return nil
	}
	g := lp.groups[lp.of[k]]
	others := slices.DeleteFunc(slices.Clone(g.names), func(n string) bool { return n == name })
	return &audit.Link{Linked: lp.on, Tables: others, Exact: lp.on && g.exact, Reason: g.why}
}

// summary lists the groups for summary.json.
func (lp *linkPlan) summary() []writers.LinkGroup {
	var out []writers.LinkGroup
	for _, g := range lp.groups {
		out = append(out, writers.LinkGroup{Tables: slices.Clone(g.names), Linked: lp.on, Exact: lp.on && g.exact, Reason: g.why})
	}
	return out
}

// protectLinked protects every group of the plan together: the evaluated
// tables of the run are in tables (by unit).
func (lp *linkPlan) protectLinked(ctx context.Context, jobs []Job, units []linkUnit, tables []*audit.Table, workers int) error {
	if !lp.on {
		return nil
	}
	for _, g := range lp.groups {
		if err := ctx.Err(); err != nil {
			return err
		}
		members := make([]*audit.Table, len(g.units))
		settings := make([]*configs.Settings, len(g.units))
		for a, k := range g.units {
			members[a], settings[a] = tables[k], jobs[units[k].job].Settings
		}
		if !wantsProtection(settings) {
			continue
		}
		var cover *audit.Table
		var alias map[string]string
		var codes *coverCodes
		var reason string
		var err error
		if g.cells {
			cover, codes, reason = buildCellCover(members, settings, memberRole(members, settings, workers))
			alias = map[string]string{}
		} else {
			u := units[g.units[0]]
			cover, alias, reason, err = buildCover(ctx, jobs[u.job].Path, u.page, settings, members, workers)
			if err != nil {
				return err
			}
		}
		if reason == "" {
			reason, err = protectCover(ctx, cover, alias, codes, members, settings, workers)
			if err != nil {
				return err
			}
		}
		if reason != "" {
			g.exact = false
			g.why = reason
			if err := protectApart(ctx, members, settings, reason, workers); err != nil {
				return err
			}
		}
	}
	return nil
}

func wantsProtection(ss []*configs.Settings) bool {
	for _, s := range ss {
		if s.Suppression.Secondary || s.Suppression.Audit {
			return true
		}
	}
	return false
}

// coverDims is the union of the members' dimensions, in order of first
// appearance.
func coverDims(members []*audit.Table) []string {
	var dims []string
	for _, t := range members {
		for _, d := range t.Dims {
			if !slices.Contains(dims, d) {
				dims = append(dims, d)
			}
		}
	}
	return dims
}

// buildCover reads the group's records again into the cover table. A
// non-empty reason says why the group cannot be linked exactly.
func buildCover(ctx context.Context, path, page string, settings []*configs.Settings, members []*audit.Table, workers int) (*audit.Table, map[string]string, string, error) {
	s := settings[0]
	dims := coverDims(members)
	size := 1.0
	for _, d := range dims {
		levels := 0
		for _, t := range members {
			di := slices.Index(t.Dims, d)
			if di < 0 {
				continue
			}
			seen := map[string]bool{}
			for _, c := range t.Cells {
				if c.Key[di] != t.TotalLabel {
					seen[c.Key[di]] = true
				}
			}
			levels = max(levels, len(seen))
		}
		size *= float64(levels + 1)
	}
	if size > float64(maxCoverCells) {
		return nil, nil, fmt.Sprintf("the cover table of the linked tables (%s) would have %.0f cells, more than the limit of %d", strings.Join(dims, " x "), size, maxCoverCells), nil
	}
	cs := *s
	md := *s.Microdata
	md.Dims = dims
	cs.Microdata = &md
	cs.Measure = nil
	cs.Publish = configs.Publish{}
	srcs, err := readers.Open(path, ReaderOptions(&cs))
	if err != nil {
		return nil, nil, "", err
	}
	defer func() {
		for _, src := range srcs {
			src.Close()
		}
	}()
	var src readers.Source
	for _, x := range srcs {
		if _, sh := x.Where(); sh == page {
			src = x
		}
	}
	if src == nil {
		return nil, nil, fmt.Sprintf("the sheet %q of %s could not be read again for the cover table", page, path), nil
	}
	sc, err := compileSchema(&cs, path)
	if err != nil {
		return nil, nil, "", err
	}
	cover, err := loadTable(ctx, src, &cs, sc, rules.Needs{}, nil, workers)
	if err != nil {
		return nil, nil, "", err
	}
	if len(cover.Cells) > maxCoverCells {
		return nil, nil, fmt.Sprintf("the cover table of the linked tables (%s) has %d cells, more than the limit of %d", strings.Join(dims, " x "), len(cover.Cells), maxCoverCells), nil
	}
	cover.Name = "cover(" + strings.Join(tableNames(members), ", ") + ")"
	cover.Hierarchies = map[string]map[string]string{}
	for _, ms := range settings {
		for d, h := range ms.Suppression.Hierarchies {
			if cover.Hierarchies[d] == nil {
				cover.Hierarchies[d] = map[string]string{}
			}
			maps.Copy(cover.Hierarchies[d], h)
		}
	}
	alias := map[string]string{}
	for mergeNested(cover, alias, members) {
	}
	return cover, alias, "", nil
}

// mergeNested finds two dimensions a and b of the cover where every code
// of a lies within one code of b (district within region, read from the
// records) and merges b into a (alias[b] = a): b's codes become parent codes of a's
// (Hierarchies[a]), and the cross cells of a and b are dropped (each is a
// copy of an a cell or empty). A nested pair crossed as two dimensions is
// exact too, but its structural zeros leave secondary suppression few
// usable patterns. A pair that some member crosses is kept. It reports
// whether it merged a pair.
func mergeNested(cover *audit.Table, alias map[string]string, members []*audit.Table) bool {
	tl := cover.TotalLabel
	nd := len(cover.Dims)
	for a := 0; a < nd; a++ {
	pairs:
		for b := 0; b < nd; b++ {
			if a == b {
				continue
			}
			for _, t := range members {
				if slices.Contains(t.Dims, cover.Dims[a]) && slices.Contains(t.Dims, cover.Dims[b]) {
					continue pairs // a member crosses them: keep both
				}
			}
			up := map[string]string{}
			codesA, codesB := map[string]bool{}, map[string]bool{}
			for _, c := range cover.Cells {
				codesA[c.Key[a]], codesB[c.Key[b]] = true, true
				other := false
				for d, v := range c.Key {
					other = other || d != a && d != b && v != tl
				}
				if other || c.Key[a] == tl || c.Key[b] == tl || c.N == 0 {
					continue
				}
				if p, ok := up[c.Key[a]]; ok && p != c.Key[b] {
					continue pairs
				}
				up[c.Key[a]] = c.Key[b]
			}
			if len(up) == 0 {
				continue
			}
			for code := range codesB {
				if code != tl && codesA[code] {
					continue pairs // a code in both: ambiguous
				}
			}
			for code := range codesA {
				if _, ok := up[code]; !ok && code != tl {
					continue pairs // a code of a without records
				}
			}
			// Merge b into a.
			var cells []*audit.Cell
			for _, c := range cover.Cells {
				if c.Key[a] != tl && c.Key[b] != tl {
					continue
				}
				k := slices.Clone(c.Key)
				if k[b] != tl {
					k[a] = k[b]
				}
				c.Key = slices.Delete(k, b, b+1)
				cells = append(cells, c)
			}
			h := cover.Hierarchies[cover.Dims[a]]
			if h == nil {
				h = map[string]string{}
			}
			maps.Copy(h, up)
			maps.Copy(h, cover.Hierarchies[cover.Dims[b]])
			cover.Hierarchies[cover.Dims[a]] = h
			delete(cover.Hierarchies, cover.Dims[b])
			for from, to := range alias {
				if to == cover.Dims[b] {
					alias[from] = cover.Dims[a]
				}
			}
			alias[cover.Dims[b]] = cover.Dims[a]
			cover.Dims = slices.Delete(slices.Clone(cover.Dims), b, b+1)
			cover.Cells = cells
			return true
		}
	}
	return false
}

func tableNames(ts []*audit.Table) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// coverKey is the cover key of a member's cell: its codes in the member's
// dimensions (a dimension merged into another by nesting, alias, gives
// its code there), the total label in the others.
func coverKey(cover *audit.Table, alias map[string]string, codes *coverCodes, t *audit.Table, c *audit.Cell) string {
	k := make([]string, len(cover.Dims))
	for d := range k {
		k[d] = cover.TotalLabel
	}
	for i, dim := range t.Dims {
		if a, ok := alias[dim]; ok {
			dim = a
		}
		if d := slices.Index(cover.Dims, dim); d >= 0 && c.Key[i] != t.TotalLabel {
			k[d] = codes.code(dim, c.Key[i])
		}
	}
	return strings.Join(k, "\x00")
}

// sameFigure reports whether two cells have the same figure of the ones
// the relations add up.
func sameFigure(role string, a, b *audit.Cell) bool {
	if role == "count" {
		return a.HasN == b.HasN && a.N == b.N
	}
	return a.HasTotal == b.HasTotal && a.Total.Cmp(b.Total) == 0
}

// protectCover maps the members' statuses onto the cover, runs secondary
// suppression and the interval audit on it and maps the results back. A
// non-empty reason says why the group cannot be linked exactly (nothing is
// changed then).
func protectCover(ctx context.Context, cover *audit.Table, alias map[string]string, codes *coverCodes, members []*audit.Table, settings []*configs.Settings, workers int) (string, error) {
	opt := mergedOptions(cover, members, settings, workers)
	role := opt.Value
	if role == "" {
		role = memberRole(members, settings, workers)
		opt.Value = role
	}
	idx := make(map[string]int, len(cover.Cells))
	for i, c := range cover.Cells {
		idx[strings.Join(c.Key, "\x00")] = i
	}
	where, copies, reason := placeMembers(cover, idx, alias, codes, members, role)
	if reason != "" {
		return reason, nil
	}
	with := strings.Join(tableNames(members), ", ")
	for _, t := range members {
		t.Warnings = append(t.Warnings, codes.warnings(t, with)...)
	}
	opt.Unpublished = unifyStatuses(cover, members, copies)
	if keep := coverKeep(cover, members, where); len(keep) > 0 {
		opt.Keep = func(c *audit.Cell) bool { return keep[c] }
	}
	secondary := false
	for _, s := range settings {
		secondary = secondary || s.Suppression.Secondary
	}
	// done is the cover's audit when the suppression computed it on the
	// way (a large cover); spreadSecondary changes only the members' cells
	var done *audit.Intervals
	if secondary {
		var err error
		if _, done, err = suppress.ProtectAudit(ctx, cover, opt); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "secondary suppression of the cover table: " + err.Error(), nil
		}
		spreadSecondary(cover, members, copies, with)
	}
	for _, w := range cover.Warnings {
		if strings.HasPrefix(w, "secondary suppression: no complementary pattern protects") {
			continue // the joint audit below tells which primaries are unprotected
		}
		for _, t := range members {
			t.Warnings = append(t.Warnings, "linked tables ("+with+"): "+w)
		}
	}
	if done == nil {
		res, err := suppress.Audit(ctx, cover, opt)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			for _, t := range members {
				t.Warnings = append(t.Warnings, "interval audit of the linked tables ("+with+") not possible: "+err.Error())
			}
			return "", nil
		}
		done = &res
	}
	spreadAudit(*done, idx, members, where, with)
	return "", nil
}

// placeMembers finds each member cell's cover cell: where[m][ci] is the
// cover index of cell ci of member m, copies[i] the member cells of cover
// cell i. A non-empty reason names a member cell that is not a cover cell
// or whose figure differs from it.
func placeMembers(cover *audit.Table, idx map[string]int, alias map[string]string, codes *coverCodes, members []*audit.Table, role string) ([][]int, [][]cellRef, string) {
	where := make([][]int, len(members))
	copies := make([][]cellRef, len(cover.Cells))
	for m, t := range members {
		where[m] = make([]int, len(t.Cells))
		for ci, c := range t.Cells {
			i, ok := idx[coverKey(cover, alias, codes, t, c)]
			if !ok {
				return nil, nil, fmt.Sprintf("cell %s of table %s is not a cell of the cover table", t.KeyString(c.Key), t.Name)
			}
			if !sameFigure(role, c, cover.Cells[i]) {
				return nil, nil, fmt.Sprintf("cell %s of table %s does not equal the same cell of the cover table of the linked tables", t.KeyString(c.Key), t.Name)
			}
			where[m][ci] = i
			copies[i] = append(copies[i], cellRef{m, ci})
		}
	}
	return where, copies, ""
}

// unifyStatuses gives every cover cell and all its copies the strictest
// status of the copies, noting the change on the copies it tightens, and
// returns which cover cells no member publishes.
func unifyStatuses(cover *audit.Table, members []*audit.Table, copies [][]cellRef) []bool {
	unpub := make([]bool, len(cover.Cells))
	for i, cc := range copies {
		unpub[i] = len(cc) == 0
		st := audit.StatusOK
		for _, r := range cc {
			switch members[r.m].Cells[r.c].Status {
			case audit.StatusPrimary:
				st = audit.StatusPrimary
			case audit.StatusReview:
				if st == audit.StatusOK {
					st = audit.StatusReview
				}
			}
		}
		cover.Cells[i].Status = st
		if st == audit.StatusOK {
			continue
		}
		for _, r := range cc {
			c := members[r.m].Cells[r.c]
			if c.Status == st || c.Status == audit.StatusPrimary {
				continue
			}
			var from []string
			for _, o := range cc {
				if members[o.m].Cells[o.c].Status == st {
					from = append(from, members[o.m].Name)
				}
			}
			fs := audit.Fail
			if st == audit.StatusReview {
				fs = audit.Review
			}
			msg := fmt.Sprintf("the same cell is %s in the linked table %s", st, strings.Join(from, ", "))
			c.Findings = append(c.Findings, audit.Finding{Rule: "linked", Status: fs, Text: msg, Figures: []audit.Figure{audit.TextsFig("tables", from)}})
			c.Notes = append(c.Notes, msg)
			c.Status = st
		}
	}
	return unpub
}

// spreadSecondary marks the copies of the cover's secondary suppressions
// secondary in the members, with the cover's finding.
func spreadSecondary(cover *audit.Table, members []*audit.Table, copies [][]cellRef, with string) {
	for i, cc := range copies {
		cv := cover.Cells[i]
		if cv.Status != audit.StatusSecondary {
			continue
		}
		for _, r := range cc {
			c := members[r.m].Cells[r.c]
			if c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary {
				continue
			}
			for _, f := range cv.Findings {
				if f.Rule == "secondary" {
					figs, msg := f.FigureList(), f.Message()
					f.Figures, f.Text, f.Say, f.Facts = figs, msg+" (protected together with "+with+")", nil, nil
					c.Findings = append(c.Findings, f)
					c.Notes = append(c.Notes, f.Text)
				}
			}
			c.Status = audit.StatusSecondary
		}
	}
}

// spreadAudit gives each member the cover's interval audit of its cells,
// counted and annotated as its own.
func spreadAudit(res audit.Intervals, idx map[string]int, members []*audit.Table, where [][]int, with string) {
	byCover := make(map[int]audit.Interval, len(res.Cells))
	for _, r := range res.Cells {
		byCover[idx[strings.Join(r.Key, "\x00")]] = r
	}
	for m, t := range members {
		ir := audit.Intervals{Dims: t.Dims}
		for _, w := range res.Warnings {
			ir.Warnings = append(ir.Warnings, "linked tables ("+with+"): "+w)
		}
		for ci, c := range t.Cells {
			r, ok := byCover[where[m][ci]]
			if !ok {
				continue
			}
			r.Key, r.Status = c.Key, c.Status
			switch {
			case r.Exact:
				ir.ExactlyDisclosed++
			case r.Undetermined:
				ir.Undetermined++
			case !r.Protected:
				ir.UnderProtected++
			}
			if r.Approximate {
				ir.Approximate++
			}
			ir.Cells = append(ir.Cells, r)
		}
		t.Audit = &ir
		t.Warnings = append(t.Warnings, ir.Warnings...)
		suppress.Annotate(t, &ir)
	}
}

type cellRef struct{ m, c int }

// mergedOptions are the strictest of the members' suppression options on
// the cover: the largest protection share and minimum, the longest time
// limit; the cover's hierarchies; cost as the first member asks.
func mergedOptions(cover *audit.Table, members []*audit.Table, settings []*configs.Settings, workers int) suppress.Options {
	opt := suppressOptions(members[0], settings[0], workers)
	for a := range members {
		o := suppressOptions(members[a], settings[a], workers)
		opt.Protection.Share = math.Max(opt.Protection.Share, o.Protection.Share)
		opt.Protection.Min = math.Max(opt.Protection.Min, o.Protection.Min)
		if opt.TimeLimit > 0 && (o.TimeLimit == 0 || o.TimeLimit > opt.TimeLimit) {
			opt.TimeLimit = o.TimeLimit
		}
	}
	opt.Hierarchies = cover.Hierarchies
	return opt
}

// protectApart protects every member on its own (the group cannot be
// linked exactly) and sends its primary cells to review with the reason.
func protectApart(ctx context.Context, members []*audit.Table, settings []*configs.Settings, reason string, workers int) error {
	for a, t := range members {
		if err := protectTable(ctx, t, settings[a], workers, protectedCells(t)); err != nil {
			return err
		}
		others := slices.DeleteFunc(tableNames(members), func(n string) bool { return n == t.Name })
		msg := fmt.Sprintf("protected on its own, not together with the linked tables %s (%s): an intruder combining them may narrow this cell", strings.Join(others, ", "), reason)
		t.Warnings = append(t.Warnings, "not protected together with the linked tables "+strings.Join(others, ", ")+": "+reason+"; its primary cells need review")
		for _, c := range t.Cells {
			if c.Status == audit.StatusPrimary {
				c.Findings = append(c.Findings, audit.Finding{Rule: "linked", Status: audit.Review, Text: msg})
			}
		}
	}
	return nil
}

// finishLinked protects the deferred tables of the run together and writes
// their outputs.
func finishLinked(ctx context.Context, lp *linkPlan, jobs []Job, units []linkUnit, dir string, res *Result, outputs [][]string, opt Options) error {
	if err := lp.protectLinked(ctx, jobs, units, res.Tables, opt.workers()); err != nil {
		return err
	}
	for k, t := range res.Tables {
		if !lp.deferred(k) {
			continue
		}
		t.Link = lp.link(k, t.Name)
		overrideStatuses(t)
		start := time.Now()
		files, err := writeTable(ctx, dir, t, tableWriters(jobs[units[k].job].Settings), opt.workers())
		if err != nil {
			return err
		}
		log := opt.Log.With().Str("table", t.Name).Logger()
		s := t.Summarize()
		log.Debug().Dur("write", time.Since(start)).Msg("stage times")
		log.Info().Int("cells", s.Cells).Int("primary", s.Primary).Int("secondary", s.Secondary).Int("review", s.Review).Msg("audited with its linked tables")
		outputs[k] = files
	}
	return nil
}

// coverKeep maps the members' protected overrides onto the cover: a cover
// cell that any member protects is never chosen as a secondary cell.
func coverKeep(cover *audit.Table, members []*audit.Table, where [][]int) map[*audit.Cell]bool {
	var keep map[*audit.Cell]bool
	for m, t := range members {
		cells := protectedCells(t)
		if len(cells) == 0 {
			continue
		}
		if keep == nil {
			keep = map[*audit.Cell]bool{}
		}
		for ci, c := range t.Cells {
			if cells[c] {
				keep[cover.Cells[where[m][ci]]] = true
			}
		}
	}
	return keep
}
