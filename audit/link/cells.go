package link

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// The cover from cells: tables that do not come from one microdata file,
// such as aggregate tables received from elsewhere and linked by the
// release file's links:, share cells identified by key: the same
// dimensions and codes, a dimension a table lacks being its total. No
// records exist to build the cover table from, so it is built from the
// members' cells (buildCellCover).

// leafCell is a cell of the cover's finest level: codes per dimension of
// the dimensions placed so far, and its figure.
type leafCell struct {
	codes []string
	v     decimal.Dec
}

// cellCoverDim is one dimension of a cover built from cells: its codes
// (without the total), the parent of each code present, and its leaves.
type cellCoverDim struct {
	name   string
	codes  []string
	parent map[string]string // code -> nearest ancestor present, or the total
	leaf   map[string]bool
}

// coverPlan is what a cell cover is built from: the members, their total
// label, hierarchies and margins, their shared cells (one figure in every
// table that has them) and the cover's dimensions.
type coverPlan struct {
	members  []*audit.Table
	tl       string
	hier     map[string]map[string]string
	cm       *coverCodes
	seen     map[string]copyOf
	dimNames []string
	dims     map[string]*cellCoverDim
}

// planCover checks that the group's members can share a cell cover of at
// most limit cells (what names the cover in the reason) and plans it. A
// non-empty reason says why not.
func planCover(group []Member, role audit.Role, limit int, what string) (*coverPlan, string) {
	members := tables(group)
	tl := members[0].TotalLabel
	for _, t := range members[1:] {
		if t.TotalLabel != tl {
			return nil, fmt.Sprintf("tables %s and %s have different total labels (%q, %q)", members[0].Name, t.Name, tl, t.TotalLabel)
		}
	}
	hier := map[string]map[string]string{}
	for _, m := range group {
		addHierarchies(hier, m.Hierarchies)
	}
	for _, m := range group {
		addHierarchies(hier, m.Table.Hierarchies)
	}
	cm, reason := inferredMargins(members, tl, hier)
	if reason != "" {
		return nil, reason
	}
	seen, reason := sharedCells(members, cm, role)
	if reason != "" {
		return nil, reason
	}
	dimNames := CoverDims(members)
	dims, size, reason := cellCoverDims(members, dimNames, tl, hier, cm)
	if reason != "" {
		return nil, reason
	}
	if size > float64(limit) {
		return nil, fmt.Sprintf("%s (%s) would have %.0f cells, more than the limit of %d", what, strings.Join(dimNames, " x "), size, limit)
	}
	return &coverPlan{members, tl, hier, cm, seen, dimNames, dims}, ""
}

// coverTable is the cover table of members over dimNames, without cells
// yet.
func coverTable(members []*audit.Table, dimNames []string, tl string, hier map[string]map[string]string) *audit.Table {
	return &audit.Table{
		Name:        "cover(" + strings.Join(tableNames(members), ", ") + ")",
		Source:      members[0].Source,
		Mode:        members[0].Mode,
		Dims:        slices.Clone(dimNames),
		TotalLabel:  tl,
		Value:       members[0].Value,
		Hierarchies: hier,
	}
}

// buildCellCover builds the cover table of linked tables from their cells
// (no records): over the union of their dimensions, with the total label
// in the dimensions a member lacks. Its finest cells are a non-negative
// completion of the members' finest cells (north-west corner rule, exact
// decimals), joining the members one at a time over the dimensions each
// shares with those joined before; its other cells are sums. Any
// completion serves: the intruder knows the published cells only, so the
// cover's published cells (which equal the members') fix the joint
// system, and its unpublished cells are free (Options.Unpublished). A
// non-empty reason says why no cover is built (the group is then
// protected apart and its primaries go to review): different total
// labels, code lists, roles, a negative figure, a shared cell with
// different figures in two tables, or dimensions that no order joins
// exactly (three tables crossing three dimensions pairwise).
func buildCellCover(group []Member, role audit.Role, limit int, what string) (*audit.Table, *coverCodes, string) {
	plan, reason := planCover(group, role, limit, what)
	if reason != "" {
		return nil, nil, reason
	}
	members, tl, hier, cm, seen, dimNames, dims := plan.members, plan.tl, plan.hier, plan.cm, plan.seen, plan.dimNames, plan.dims
	// Join the members' finest cells one at a time.
	order, reason := joinOrder(members)
	if reason != "" {
		return nil, nil, reason
	}
	var placed []string // dimensions of the leaf cells so far
	var leaves []leafCell
	for step, m := range order {
		t := members[m]
		own, why := finestCells(t, dims, role, cm)
		if why != "" {
			return nil, nil, why
		}
		if step == 0 {
			placed, leaves = slices.Clone(t.Dims), own
			continue
		}
		var shared, extra []int // positions in t.Dims
		var sharedAt []int      // positions in placed
		for i, d := range t.Dims {
			if p := slices.Index(placed, d); p >= 0 {
				shared, sharedAt = append(shared, i), append(sharedAt, p)
			} else {
				extra = append(extra, i)
			}
		}
		rows := groupBy(leaves, sharedAt)
		cols := groupBy(own, shared)
		next := make([]leafCell, 0, len(leaves)+len(own))
		for _, s := range slices.Sorted(maps.Keys(unionKeys(rows, cols))) {
			r, c := rows[s], cols[s]
			if leafSum(r).Cmp(leafSum(c)) != 0 {
				return nil, nil, fmt.Sprintf("the cells of table %s do not add up to the cells they share with %s (%s: %s against %s)", t.Name, strings.Join(namesAt(members, order[:step]), ", "), sharedText(t, shared, s), leafSum(c), leafSum(r))
			}
			next = northWest(next, r, c, extra)
		}
		for _, i := range extra {
			placed = append(placed, t.Dims[i])
		}
		leaves = next
	}
	cover := sumCover(members, dimNames, dims, placed, leaves, tl, role, hier)
	// The published cells keep their other figure (the count of a
	// magnitude table, for the count cost; the total of a frequency table).
	for _, c := range cover.Cells {
		o, ok := seen[cm.globalKey(cover, c)]
		if !ok {
			continue
		}
		if role == audit.RoleCount {
			c.Total, c.HasTotal = o.c.Total, o.c.HasTotal
		} else {
			c.N, c.HasN = o.c.N, o.c.HasN
		}
	}
	return cover, cm, ""
}

// copyOf is a cell and its table.
type copyOf struct {
	t *audit.Table
	c *audit.Cell
}

// sharedCells indexes the members' cells by global key (one copy of each
// shared cell); a reason names a shared cell whose figures differ.
func sharedCells(members []*audit.Table, cm *coverCodes, role audit.Role) (map[string]copyOf, string) {
	seen := map[string]copyOf{}
	for _, t := range members {
		for _, c := range t.Cells {
			g := cm.globalKey(t, c)
			if o, ok := seen[g]; ok {
				if !sameFigure(role, o.c, c) {
					return nil, fmt.Sprintf("cell %s is %s in table %s but %s in table %s", t.KeyString(c.Key), figureText(role, o.c), o.t.Name, figureText(role, c), t.Name)
				}
				continue
			}
			seen[g] = copyOf{t, c}
		}
	}
	return seen, ""
}

// cellCoverDims are the cover's dimensions from the members' codes (the
// same list in every member that has the dimension, else a reason), each
// code's parent (nearest ancestor of hier present, else the total) and
// leaves, and the number of cells they imply.
func cellCoverDims(members []*audit.Table, dimNames []string, tl string, hier map[string]map[string]string, cm *coverCodes) (map[string]*cellCoverDim, float64, string) {
	dims := map[string]*cellCoverDim{}
	size := 1.0
	for _, name := range dimNames {
		var cd *cellCoverDim
		var from string
		for _, t := range members {
			di := slices.Index(t.Dims, name)
			if di < 0 {
				continue
			}
			set := map[string]bool{}
			for _, c := range t.Cells {
				if code := cm.code(name, c.Key[di]); code != tl {
					set[code] = true
				}
			}
			codes := slices.Sorted(maps.Keys(set))
			if cd == nil {
				cd, from = &cellCoverDim{name: name, codes: codes}, t.Name
				continue
			}
			if !slices.Equal(cd.codes, codes) {
				return nil, 0, fmt.Sprintf("tables %s and %s list different codes of %s", from, t.Name, name)
			}
		}
		cd.parent, cd.leaf = map[string]string{}, map[string]bool{}
		present := map[string]bool{}
		for _, c := range cd.codes {
			present[c], cd.leaf[c] = true, true
		}
		for _, c := range cd.codes {
			p, cur := tl, c
			for guard := 0; guard < 64; guard++ {
				up, ok := hier[name][cur]
				if !ok {
					break
				}
				if present[up] {
					p = up
					break
				}
				cur = up
			}
			cd.parent[c] = p
			if p != tl {
				cd.leaf[p] = false
			}
		}
		dims[name] = cd
		size *= float64(len(cd.codes) + 1)
	}
	return dims, size, ""
}

// joinOrder orders the members so that the dimensions each shares with
// those before it are all dimensions of one of them (the north-west
// completion is then exact); a reason when no such order exists.
func joinOrder(members []*audit.Table) ([]int, string) {
	order := []int{0}
	used := map[int]bool{0: true}
	for len(order) < len(members) {
		found := -1
		for m, t := range members {
			if used[m] {
				continue
			}
			var shared []string
			for _, d := range t.Dims {
				for _, o := range order {
					if slices.Contains(members[o].Dims, d) && !slices.Contains(shared, d) {
						shared = append(shared, d)
					}
				}
			}
			for _, o := range order {
				inside := true
				for _, d := range shared {
					inside = inside && slices.Contains(members[o].Dims, d)
				}
				if inside {
					found = m
					break
				}
			}
			if found >= 0 {
				break
			}
		}
		if found < 0 {
			return nil, "the linked tables' dimensions cross in a cycle (as region x sector, region x size and sector x size do): no cover table is built from their cells"
		}
		order = append(order, found)
		used[found] = true
	}
	return order, ""
}

// finestCells are the cells of t at the leaf code of every dimension of
// t, with their figure (an absent cell is zero).
func finestCells(t *audit.Table, dims map[string]*cellCoverDim, role audit.Role, m *coverCodes) ([]leafCell, string) {
	var out []leafCell
	for _, c := range t.Cells {
		leaf := true
		for i, d := range t.Dims {
			leaf = leaf && dims[d].leaf[m.code(d, c.Key[i])]
		}
		if !leaf {
			continue
		}
		v, ok := figureOf(role, c)
		if !ok {
			continue
		}
		if v.Sign() < 0 {
			return nil, fmt.Sprintf("cell %s of table %s is negative (%s): no cover table is built from negative cells", t.KeyString(c.Key), t.Name, v)
		}
		out = append(out, leafCell{codes: m.key(t, c), v: v})
	}
	slices.SortFunc(out, func(a, b leafCell) int { return slices.Compare(a.codes, b.codes) })
	return out, ""
}

func figureOf(role audit.Role, c *audit.Cell) (decimal.Dec, bool) {
	if role == audit.RoleCount {
		return decimal.FromInt(c.N), c.HasN
	}
	return c.Total, c.HasTotal
}

func figureText(role audit.Role, c *audit.Cell) string {
	v, ok := figureOf(role, c)
	if !ok {
		return "empty"
	}
	return v.String()
}

func groupBy(cells []leafCell, at []int) map[string][]leafCell {
	out := map[string][]leafCell{}
	for _, c := range cells {
		k := make([]string, len(at))
		for i, p := range at {
			k[i] = c.codes[p]
		}
		s := strings.Join(k, "\x00")
		out[s] = append(out[s], c)
	}
	return out
}

func unionKeys(a, b map[string][]leafCell) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func leafSum(cells []leafCell) decimal.Dec {
	var s decimal.Dec
	for _, c := range cells {
		s = s.Add(c.v)
	}
	return s
}

func sharedText(t *audit.Table, at []int, s string) string {
	if len(at) == 0 {
		return "the grand total"
	}
	codes := strings.Split(s, "\x00")
	var parts []string
	for i, p := range at {
		parts = append(parts, t.Dims[p]+"="+codes[i])
	}
	return strings.Join(parts, ", ")
}

// northWest appends to out the cells of a non-negative table whose row
// sums are rows' figures and column sums cols' (equal totals): each cell
// is a row's codes followed by the column's codes at extra.
func northWest(out []leafCell, rows, cols []leafCell, extra []int) []leafCell {
	i, j := 0, 0
	var r, c decimal.Dec
	if len(rows) > 0 {
		r = rows[0].v
	}
	if len(cols) > 0 {
		c = cols[0].v
	}
	for i < len(rows) && j < len(cols) {
		amt := r
		if c.Cmp(r) < 0 {
			amt = c
		}
		if amt.Sign() > 0 {
			codes := slices.Clone(rows[i].codes)
			for _, e := range extra {
				codes = append(codes, cols[j].codes[e])
			}
			out = append(out, leafCell{codes: codes, v: amt})
		}
		r, c = r.Sub(amt), c.Sub(amt)
		if r.Sign() == 0 {
			if i++; i < len(rows) {
				r = rows[i].v
			}
		}
		if c.Sign() == 0 {
			if j++; j < len(cols) {
				c = cols[j].v
			}
		}
	}
	return out
}

// sumCover builds the cover's cells from its finest cells: every code
// combination of the dimensions (the total included), each the sum of
// the finest cells under it.
func sumCover(members []*audit.Table, dimNames []string, dims map[string]*cellCoverDim, placed []string, leaves []leafCell, tl string, role audit.Role, hier map[string]map[string]string) *audit.Table {
	nd := len(dimNames)
	perm := make([]int, nd) // cover dimension -> position in placed
	for d, name := range dimNames {
		perm[d] = slices.Index(placed, name)
	}
	sums := map[string]decimal.Dec{}
	chains := make([][]string, nd)
	for _, lc := range leaves {
		for d, name := range dimNames {
			chains[d] = chains[d][:0]
			for code := lc.codes[perm[d]]; ; code = dims[name].parent[code] {
				chains[d] = append(chains[d], code)
				if code == tl {
					break
				}
			}
		}
		key := make([]string, nd)
		var walk func(d int)
		walk = func(d int) {
			if d == nd {
				s := strings.Join(key, "\x00")
				sums[s] = sums[s].Add(lc.v)
				return
			}
			for _, code := range chains[d] {
				key[d] = code
				walk(d + 1)
			}
		}
		walk(0)
	}
	cover := coverTable(members, dimNames, tl, hier)
	levels := make([][]string, nd)
	for d, name := range dimNames {
		levels[d] = append(slices.Clone(dims[name].codes), tl)
	}
	key := make([]string, nd)
	var walk func(d int)
	walk = func(d int) {
		if d == nd {
			v := sums[strings.Join(key, "\x00")]
			c := &audit.Cell{Key: slices.Clone(key)}
			if role == audit.RoleCount {
				n, _ := v.Int64()
				c.N, c.HasN = n, true
			} else {
				c.Total, c.HasTotal = v, true
			}
			cover.Cells = append(cover.Cells, c)
			return
		}
		for _, code := range levels[d] {
			key[d] = code
			walk(d + 1)
		}
	}
	walk(0)
	return cover
}

// coverCodes are the members' margins as the cover carries them (issue
// 24): the margins each member's structure found (audit.Structure, from
// structure.Infer: by label and arithmetic, GSS codes, sums) and declared,
// merged per dimension; a dimension's grand total under any label ("All
// ages", an unlabelled sum, a GSS country) is the cover's total label.
type coverCodes struct {
	tl     string
	rename map[string]map[string]string // dimension -> member code -> cover code
	// found lists the margins some member's structure found and another
	// member with the same codes did not: the cover uses them for both (a
	// union checked against every member's cells by placeMembers).
	found []marginNote
}

// marginFrom is a code's parent and the table whose structure found it.
type marginFrom struct{ parent, table string }

type marginNote struct {
	dim, code, in string
	not           []string
}

// code is the cover code of a member code of dimension dim.
func (m *coverCodes) code(dim, v string) string {
	if m == nil {
		return v
	}
	if r, ok := m.rename[dim][v]; ok {
		return r
	}
	return v
}

// key is the cover codes of a member cell's key.
func (m *coverCodes) key(t *audit.Table, c *audit.Cell) []string {
	k := make([]string, len(c.Key))
	for d, v := range c.Key {
		k[d] = m.code(t.Dims[d], v)
	}
	return k
}

// globalKey identifies a cell across tables: dimension=code of its
// codes other than the total, sorted.
func (m *coverCodes) globalKey(t *audit.Table, c *audit.Cell) string {
	var parts []string
	for d, v := range c.Key {
		if v = m.code(t.Dims[d], v); v != m.tl && v != t.TotalLabel {
			parts = append(parts, t.Dims[d]+"\x01"+v)
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x00")
}

// inferredMargins adds the margins the members' structures found to
// hier (dimension -> code -> parent code) and names each dimension's
// grand total: the one code every other code adds up into, when it is
// not the total label. A reason when the cover cannot carry them: nested
// rows with margins (two dimensions read as one), or two members that
// give one code different parents.
func inferredMargins(members []*audit.Table, tl string, hier map[string]map[string]string) (*coverCodes, string) {
	m := &coverCodes{tl: tl, rename: map[string]map[string]string{}}
	got := map[string]map[string]marginFrom{}
	var dimOrder []string
	for _, t := range members {
		if t.Structure == nil {
			continue
		}
		for _, ax := range t.Structure.Axes {
			if len(ax.Parent) == 0 {
				continue
			}
			if len(ax.Dims) > 1 {
				return nil, fmt.Sprintf("table %s has nested rows with margins (%s): a cover of linked tables does not carry them", t.Name, ax.Name())
			}
			dim := ax.Names[0]
			if got[dim] == nil {
				got[dim] = map[string]marginFrom{}
				dimOrder = append(dimOrder, dim)
			}
			for _, c := range ax.Codes {
				p, ok := ax.Parent[c]
				if !ok {
					continue
				}
				if o, seen := got[dim][c]; seen && o.parent != p {
					switch {
					case p == tl:
						continue // the other member knows a finer parent
					case o.parent != tl:
						return nil, fmt.Sprintf("%s %q adds up into %q in table %s but into %q in table %s", dim, c, o.parent, o.table, p, t.Name)
					}
				}
				got[dim][c] = marginFrom{p, t.Name}
			}
		}
	}
	for _, dim := range dimOrder {
		if hier[dim] == nil {
			hier[dim] = map[string]string{}
		}
		for c, f := range got[dim] {
			hier[dim][c] = f.parent
		}
	}
	// Each dimension's codes over the members, and its grand total.
	for _, dim := range CoverDims(members) {
		var codes []string
		for _, t := range members {
			if d := slices.Index(t.Dims, dim); d >= 0 {
				for _, c := range t.Cells {
					if !slices.Contains(codes, c.Key[d]) {
						codes = append(codes, c.Key[d])
					}
				}
			}
		}
		if slices.Contains(codes, tl) || len(codes) < 2 {
			continue
		}
		var roots []string
		for _, c := range codes {
			if !hasAncestor(hier[dim], c, codes) {
				roots = append(roots, c)
			}
		}
		if len(roots) != 1 {
			continue
		}
		root := roots[0]
		m.rename[dim] = map[string]string{root: tl}
		for c, p := range hier[dim] {
			if p == root {
				hier[dim][c] = tl
			}
		}
		delete(hier[dim], root)
	}
	m.found = missedMargins(members, got, dimOrder)
	return m, ""
}

// missedMargins are the margins one member's structure found (got:
// dimension -> code -> parent and table) that another member listing the
// same codes did not find.
func missedMargins(members []*audit.Table, got map[string]map[string]marginFrom, dimOrder []string) []marginNote {
	var found []marginNote
	for _, dim := range dimOrder {
		for _, c := range slices.Sorted(maps.Keys(got[dim])) {
			f := got[dim][c]
			var not []string
			for _, t := range members {
				d := slices.Index(t.Dims, dim)
				if d < 0 || t.Name == f.table || !hasCodes(t, d, c, f.parent) {
					continue
				}
				if t.Structure != nil {
					if ax := t.Structure.AxisOf(d); ax != nil && len(ax.Dims) == 1 && ax.Parent[c] != "" {
						continue
					}
				}
				not = append(not, t.Name)
			}
			if len(not) > 0 {
				found = append(found, marginNote{dim: dim, code: f.parent, in: f.table, not: not})
			}
		}
	}
	return slices.CompactFunc(found, func(a, b marginNote) bool {
		return a.dim == b.dim && a.code == b.code && a.in == b.in && slices.Equal(a.not, b.not)
	})
}

// hasAncestor reports whether code c has an ancestor among codes.
func hasAncestor(h map[string]string, c string, codes []string) bool {
	for guard := 0; guard < 64; guard++ {
		p, ok := h[c]
		if !ok {
			return false
		}
		if slices.Contains(codes, p) {
			return true
		}
		c = p
	}
	return false
}

// hasCodes reports whether dimension d of t has both codes.
func hasCodes(t *audit.Table, d int, a, b string) bool {
	var hasA, hasB bool
	for _, c := range t.Cells {
		hasA = hasA || c.Key[d] == a
		hasB = hasB || c.Key[d] == b
	}
	return hasA && hasB
}

// warnings are the members' warnings about margins used for a member
// whose own structure did not find them.
func (m *coverCodes) warnings(t *audit.Table, with string) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, f := range m.found {
		if slices.Contains(f.not, t.Name) {
			out = append(out, fmt.Sprintf("linked tables (%s): %s %q is a margin in table %s (its structure found it) but was not found in this table; it adds up in this table's cells too, so the tables are protected with it as a margin", with, f.dim, f.code, f.in))
		}
	}
	return out
}

// roleOf is the figure the members' relations add up: "total" or
// "count", as the first member's suppression options say.
func roleOf(members []Member) audit.Role {
	if v := members[0].Options.Role; v != "" {
		return v
	}
	if members[0].Table.Frequency() {
		return audit.RoleCount
	}
	return audit.RoleTotal
}

// namesAt names the members at the indices.
func namesAt(members []*audit.Table, at []int) []string {
	out := make([]string, len(at))
	for i, k := range at {
		out[i] = members[k].Name
	}
	return out
}
