// Package link protects linked tables together (docs/suppression.md,
// "Linked tables"): tables of a release that share cells (cut from the
// same microdata, or linked by the release file's links:) are protected
// on their cover table, the table over the union of their dimensions in
// which every cell of every member is a cell, by one secondary
// suppression and one interval audit; statuses, secondary cells and
// intervals are then spread back to every copy of a cell. The pipeline
// plans which tables link and calls Protect once per group.
package link

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
)

// Member is one table of a linked group and how it asks to be protected.
type Member struct {
	Table *audit.Table
	// Options are the table's suppression options as it would be
	// protected alone; the cover gets the strictest of the members'.
	Options suppress.Options
	// Hierarchies are the hierarchies its configuration declares
	// (suppression.hierarchies), merged into the cover's.
	Hierarchies map[string]map[string]string
	// Secondary is true when the table asks for secondary suppression
	// (else only the interval audit).
	Secondary bool
	// Keep are the cells an override protects: never chosen as secondary
	// cells on the cover.
	Keep map[*audit.Cell]bool
}

// Options are how a group is protected.
type Options struct {
	// Records, when set, builds the cover table from the group's records
	// (the microdata the members are cut from) over dims; a non-empty
	// reason says why it cannot. When nil, the cover is built from the
	// members' cells (aggregate tables linked by links:).
	Records func(ctx context.Context, dims []string) (cover *audit.Table, reason string, err error)
	// MaxCells bounds the cells of a cover table; 0 means 250,000. A
	// group whose cover would be larger is not protected together.
	MaxCells int
}

// DefaultMaxCells is the cover size bound when Options.MaxCells is 0.
const DefaultMaxCells = 250_000

// Protect protects the members together on their cover table: their
// statuses unified (the strictest copy wins), secondary suppression and
// the interval audit run once on the cover, and the results spread back
// to every member. A non-empty reason says why the group could not be
// protected together (nothing is changed then): the caller protects each
// member on its own and marks it with Apart.
func Protect(ctx context.Context, group []Member, opt Options) (reason string, err error) {
	limit := opt.MaxCells
	if limit <= 0 {
		limit = DefaultMaxCells
	}
	var cover *audit.Table
	var alias map[string]string
	var codes *coverCodes
	if opt.Records == nil {
		cover, codes, reason = buildCellCover(group, roleOf(group), limit, "the cover table of the linked tables")
		alias = map[string]string{}
	} else {
		cover, alias, reason, err = recordsCover(ctx, group, opt.Records, limit)
		if err != nil {
			return "", err
		}
	}
	if reason != "" {
		return reason, nil
	}
	return protectCover(ctx, cover, alias, codes, group, nil)
}

// Apart marks a member of a group protected on its own (not together
// with the tables others, for reason): a table warning, and a review
// finding on each of its primary cells, since an intruder combining the
// tables may narrow them.
func Apart(t *audit.Table, others []string, reason string) {
	msg := fmt.Sprintf("protected on its own, not together with the linked tables %s (%s): an intruder combining them may narrow this cell", strings.Join(others, ", "), reason)
	t.Warnings = append(t.Warnings, "not protected together with the linked tables "+strings.Join(others, ", ")+": "+reason+"; its primary cells need review")
	for _, c := range t.Cells {
		if c.Status == audit.StatusPrimary {
			c.Findings = append(c.Findings, audit.Said("linked", audit.Review, msg, nil))
		}
	}
}

// addHierarchies copies every child -> parent code of from into h.
func addHierarchies(h, from map[string]map[string]string) {
	for d, m := range from {
		if h[d] == nil {
			h[d] = map[string]string{}
		}
		maps.Copy(h[d], m)
	}
}

func tables(group []Member) []*audit.Table {
	out := make([]*audit.Table, len(group))
	for i, m := range group {
		out[i] = m.Table
	}
	return out
}

// recordsCover builds the cover table from the group's records over the
// union of the members' dimensions, with the members' declared
// hierarchies and nested dimensions merged (mergeNested). A non-empty
// reason says why the group cannot be linked exactly.
func recordsCover(ctx context.Context, group []Member, records func(context.Context, []string) (*audit.Table, string, error), limit int) (*audit.Table, map[string]string, string, error) {
	members := tables(group)
	dims := CoverDims(members)
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
	if size > float64(limit) {
		return nil, nil, fmt.Sprintf("the cover table of the linked tables (%s) would have %.0f cells, more than the limit of %d", strings.Join(dims, " x "), size, limit), nil
	}
	cover, reason, err := records(ctx, dims)
	if err != nil || reason != "" {
		return nil, nil, reason, err
	}
	if len(cover.Cells) > limit {
		return nil, nil, fmt.Sprintf("the cover table of the linked tables (%s) has %d cells, more than the limit of %d", strings.Join(dims, " x "), len(cover.Cells), limit), nil
	}
	cover.Name = "cover(" + strings.Join(tableNames(members), ", ") + ")"
	cover.Hierarchies = map[string]map[string]string{}
	for _, m := range group {
		addHierarchies(cover.Hierarchies, m.Hierarchies)
	}
	alias := map[string]string{}
	for mergeNested(cover, alias, members) {
	}
	return cover, alias, "", nil
}

// CoverDims is the union of the members' dimensions, in order of first
// appearance.
func CoverDims(members []*audit.Table) []string {
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
func sameFigure(role audit.Role, a, b *audit.Cell) bool {
	if role == audit.RoleCount {
		return a.HasN == b.HasN && a.N == b.N
	}
	return a.HasTotal == b.HasTotal && a.Total.Cmp(b.Total) == 0
}

// protectCover maps the members' statuses onto the cover, runs secondary
// suppression and the interval audit on it and maps the results back. A
// non-empty reason says why the group cannot be linked exactly (nothing is
// changed then). When run is set and the suppression ran, it gets how
// (audit.SuppressionRun: method, cost, lower bound, gap).
func protectCover(ctx context.Context, cover *audit.Table, alias map[string]string, codes *coverCodes, group []Member, run *audit.SuppressionRun) (string, error) {
	members := tables(group)
	opt := mergedOptions(cover, group)
	role := opt.Role
	if role == "" {
		role = roleOf(group)
		opt.Role = role
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
	if keep := coverKeep(cover, group, where); len(keep) > 0 {
		opt.Keep = func(c *audit.Cell) bool { return keep[c] }
	}
	secondary := false
	for _, m := range group {
		secondary = secondary || m.Secondary
	}
	// done is the cover's audit when the suppression computed it on the
	// way (a large cover); spreadSecondary changes only the members' cells
	var done *audit.Intervals
	var prot suppress.Result
	if secondary {
		var err error
		if prot, err = suppress.Protect(ctx, cover, opt); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "secondary suppression of the cover table: " + err.Error(), nil
		}
		done = prot.Audit
		if run != nil {
			*run = prot.Run
		}
		spreadSecondary(cover, members, copies, with)
	}
	for _, w := range cover.Warnings {
		for _, t := range members {
			t.Warnings = append(t.Warnings, "linked tables ("+with+"): "+w)
		}
	}
	for _, u := range prot.Unprotected {
		if u.Reason == suppress.NoPattern {
			continue // the joint audit below tells which primaries are unprotected
		}
		for _, t := range members {
			t.Warnings = append(t.Warnings, "linked tables ("+with+"): "+u.Warning(cover))
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
func placeMembers(cover *audit.Table, idx map[string]int, alias map[string]string, codes *coverCodes, members []*audit.Table, role audit.Role) ([][]int, [][]cellRef, string) {
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
			st = audit.Stricter(st, members[r.m].Cells[r.c].Status)
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
			c.Findings = append(c.Findings, audit.Said("linked", fs, msg, []audit.Figure{audit.TextsFig("tables", from)}))
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
			for _, f := range cv.EachFinding() {
				if f.Rule == "secondary" {
					msg := f.Message() + " (protected together with " + with + ")"
					c.Findings = append(c.Findings, audit.Said(f.Rule, f.Outcome, msg, f.FigureList()))
					c.Notes = append(c.Notes, msg)
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
			ir.Add(r)
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
func mergedOptions(cover *audit.Table, group []Member) suppress.Options {
	opt := group[0].Options
	for _, m := range group {
		o := m.Options
		opt.Protection.Share = math.Max(opt.Protection.Share, o.Protection.Share)
		opt.Protection.Min = math.Max(opt.Protection.Min, o.Protection.Min)
		if opt.TimeLimit > 0 && (o.TimeLimit == 0 || o.TimeLimit > opt.TimeLimit) {
			opt.TimeLimit = o.TimeLimit
		}
	}
	opt.Hierarchies = cover.Hierarchies
	return opt
}

// coverKeep maps the members' protected overrides onto the cover: a cover
// cell that any member protects is never chosen as a secondary cell.
func coverKeep(cover *audit.Table, group []Member, where [][]int) map[*audit.Cell]bool {
	var keep map[*audit.Cell]bool
	for m, g := range group {
		t, cells := g.Table, g.Keep
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
