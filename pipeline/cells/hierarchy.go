package cells

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// microHier is the code hierarchy of the dimensions of a microdata table
// (suppression.hierarchies, suppression.hierarchy_files or the parent
// columns of microdata.parents): the margin
// levels of a record's code are the code itself, each of its ancestors and
// the total, so every subtotal of the hierarchy becomes a cell.
type microHier struct {
	dims   []string
	parent []map[string]string // per dimension: child -> parent, nil without a hierarchy
	isPar  []map[string]bool   // per dimension: the codes that are some code's parent
	leaves []map[string]bool   // per dimension: the codes a record may carry (hierarchy files), else nil
	files  []string            // per dimension: the hierarchy file, "" for a YAML map
	anc    [][][]uint32        // per dimension and level id: ancestor level ids, nearest first (set by expand)
	// cols are the parent columns (microdata.parents) of each dimension
	// that has them, nearest first; nil elsewhere. found holds, per
	// builder (shard), the child -> parent codes its records give.
	cols   [][]int
	cname  [][]string
	dimCol []int
	file   string
	found  *foundParents
}

// foundParents are the child -> parent codes read from parent columns by
// one builder (shard), with the row and column first giving each, and the
// first contradiction found.
type foundParents struct {
	parent []map[string]string
	row    []map[string]int
	col    []map[string]string
	err    *readers.Error
}

// maxHierDepth bounds a chain of parents (and detects cycles).
const maxHierDepth = 64

// newMicroHier returns the hierarchies of t's dimensions, nil when none
// has one. A cycle in a child -> parent map is a configuration error.
func newMicroHier(t *audit.Table, s *configs.Settings, file string, header []string) (*microHier, error) {
	h := &microHier{dims: t.Dims}
	hasAny := false
	if err := h.parentColumns(t, s, file, header); err != nil {
		return nil, err
	}
	hasAny = h.cols != nil
	for _, d := range t.Dims {
		p := s.Suppression.Hierarchies[d]
		if len(p) == 0 {
			p = nil
		}
		isPar := map[string]bool{}
		for child, par := range p {
			isPar[par] = true
			cur, steps := child, 0
			for {
				next, ok := p[cur]
				if !ok || next == t.TotalLabel {
					break
				}
				if steps++; steps > maxHierDepth {
					return nil, &configs.Error{Msg: fmt.Sprintf("the hierarchy of %s has a cycle (or more than %d levels) through %q", d, maxHierDepth, child), Err: configs.ErrInvalid}
				}
				cur = next
			}
		}
		h.parent = append(h.parent, p)
		h.isPar = append(h.isPar, isPar)
		h.leaves = append(h.leaves, s.Suppression.Leaves[d])
		h.files = append(h.files, s.Suppression.HierarchyFiles[d])
		hasAny = hasAny || p != nil || s.Suppression.Leaves[d] != nil
	}
	if !hasAny {
		return nil, nil
	}
	return h, nil
}

// check is called for each level of dimension d the first time a builder
// sees it: a record must carry a leaf code of the hierarchy. A parent code
// would be counted twice in its subtotal; with a hierarchy file a code the
// file does not list is an input error (a typo or an outdated file must
// not silently become a level of its own).
func (h *microHier) check(file string, d int, v string, row int) error {
	if h.isPar[d][v] {
		where := "suppression.hierarchies"
		if h.files[d] != "" {
			where = h.files[d]
		}
		return &readers.Error{File: file, Row: row, Column: h.dims[d], Value: v, Err: fmt.Errorf("code %q is a parent code in %s; records must carry the codes below it", v, where)}
	}
	if l := h.leaves[d]; l != nil && !l[v] {
		return &readers.Error{File: file, Row: row, Column: h.dims[d], Value: v, Err: fmt.Errorf("code %q is not in the hierarchy file %s", v, h.files[d])}
	}
	return nil
}

// settle takes the hierarchies read from parent columns: a contradiction
// between records, or a record whose code is another record's parent code,
// is an input error. t.Hierarchies gets them for suppression and the audit.
func (h *microHier) settle(b *microBuilder) error {
	if h.found == nil {
		return nil
	}
	if h.found.err != nil {
		return h.found.err
	}
	hier := make(map[string]map[string]string, len(b.t.Hierarchies)+len(h.dims))
	for d, m := range b.t.Hierarchies {
		hier[d] = m
	}
	for d, cols := range h.cols {
		if cols == nil {
			continue
		}
		p := map[string]string{}
		isPar := map[string]bool{}
		for c, v := range h.found.parent[d] {
			if v != "" { // an empty parent column: a top-level code
				p[c] = v
				isPar[v] = true
			}
		}
		var bad *readers.Error
		for _, v := range b.names[d] {
			if !isPar[v] {
				continue
			}
			// v is a record's code and some record's parent code.
			for c, pv := range p {
				if pv == v && (bad == nil || h.found.row[d][c] < bad.Row || (h.found.row[d][c] == bad.Row && h.found.col[d][c] < bad.Column)) {
					bad = &readers.Error{File: h.file, Row: h.found.row[d][c], Column: h.found.col[d][c], Value: v, Err: fmt.Errorf("parent code %q is also a code of %s in other records; records must carry the codes below it", v, h.dims[d])}
				}
			}
		}
		if bad != nil {
			return bad
		}
		h.parent[d], h.isPar[d] = p, isPar
		hier[h.dims[d]] = p
	}
	b.t.Hierarchies = hier
	return nil
}

// expand adds the parent codes of the observed codes to the builder's
// levels (after every record and empty cell is in) and records, per level,
// its ancestors.
func (h *microHier) expand(b *microBuilder) error {
	if err := h.settle(b); err != nil {
		return err
	}
	h.anc = make([][][]uint32, len(b.names))
	for d := range b.names {
		p := h.parent[d]
		n := len(b.names[d])
		h.anc[d] = make([][]uint32, n)
		if p == nil {
			continue
		}
		for id := 0; id < n; id++ {
			var chain []uint32
			cur := b.names[d][id]
			for len(chain) < maxHierDepth {
				par, ok := p[cur]
				if !ok || par == b.t.TotalLabel {
					break
				}
				pid, ok := b.levels[d][par]
				if !ok {
					pid = uint32(len(b.names[d]))
					b.levels[d][par] = pid
					b.names[d] = append(b.names[d], par)
				}
				chain = append(chain, pid)
				cur = par
			}
			h.anc[d][id] = chain
		}
	}
	return nil
}

// eachMargin calls fn with the key of every margin cell the finest cell
// key adds to: in each dimension the code, each of its ancestors or the
// total, except key itself. k is reused between calls.
func eachMargin(h *microHier, key []uint32, totalID uint32, fn func(k []uint32)) {
	nd := len(key)
	opts := make([][]uint32, nd)
	for d, id := range key {
		o := []uint32{id}
		if h != nil && int(id) < len(h.anc[d]) {
			o = append(o, h.anc[d][id]...)
		}
		opts[d] = append(o, totalID)
	}
	marginKeys(opts, func(k []uint32, _ []int) bool {
		fn(k)
		return true
	})
}

// marginKeys calls fn with every key that takes in each dimension d one of
// opts[d], but the key of every first option: the margins a cell adds to
// when opts[d] is its code, the code's ancestors and the total, as the
// microdata (level ids) and cell summaries (codes) enumerate them. idx[d]
// is the option key[d] is; both are reused between calls. fn returns
// false to stop.
func marginKeys[T any](opts [][]T, fn func(key []T, idx []int) bool) {
	key := make([]T, len(opts))
	idx := make([]int, len(opts))
	// every combination but the all-zero one (the cell itself)
	for nextCombo(idx, func(d int) int { return len(opts[d]) }) {
		for i := range key {
			key[i] = opts[i][idx[i]]
		}
		if !fn(key, idx) {
			return
		}
	}
}

// parentColumns reads microdata.parents: per dimension, the chain of
// columns holding the parent of its code, the parent's parent, ...
func (h *microHier) parentColumns(t *audit.Table, s *configs.Settings, file string, header []string) error {
	if s.Microdata == nil || len(s.Microdata.Parents) == 0 {
		return nil
	}
	par := s.Microdata.Parents
	isDim := map[string]bool{}
	for _, d := range t.Dims {
		isDim[d] = true
	}
	for c := range par {
		if !isDim[c] && !isParentCol(par, c) {
			return &configs.Error{Msg: fmt.Sprintf("microdata.parents: %q is neither a dimension nor a parent column of one", c), Err: configs.ErrInvalid}
		}
	}
	h.file = file
	h.cols = make([][]int, len(t.Dims))
	h.dimCol = make([]int, len(t.Dims))
	h.cname = make([][]string, len(t.Dims))
	for d, dim := range t.Dims {
		h.dimCol[d] = slices.Index(header, dim)
		for cur := dim; ; {
			next, ok := par[cur]
			if !ok {
				break
			}
			if isDim[next] {
				return &configs.Error{Msg: fmt.Sprintf("microdata.parents: the parent column %q of %q is also a dimension", next, cur), Err: configs.ErrInvalid}
			}
			if len(h.cols[d]) >= maxHierDepth || next == dim || slices.Contains(h.cname[d], next) {
				return &configs.Error{Msg: fmt.Sprintf("microdata.parents: the parent columns of %q form a cycle through %q", dim, next), Err: configs.ErrInvalid}
			}
			i := slices.Index(header, next)
			if i < 0 {
				return &readers.Error{File: file, Row: 1, Column: next, Err: fmt.Errorf("%w: the parent column of %s is not in the header (columns: %s)", readers.ErrColumn, cur, readers.ColumnList(header))}
			}
			h.cols[d] = append(h.cols[d], i)
			h.cname[d] = append(h.cname[d], next)
			cur = next
		}
		if h.cols[d] != nil && (s.Suppression.Hierarchies[dim] != nil || s.Suppression.Leaves[dim] != nil) {
			return &configs.Error{Msg: fmt.Sprintf("dimension %q has both microdata.parents and a hierarchy in suppression: give one", dim), Err: configs.ErrInvalid}
		}
	}
	h.found = newFoundParents(len(t.Dims))
	return nil
}

func isParentCol(par map[string]string, c string) bool {
	for _, p := range par {
		if p == c {
			return true
		}
	}
	return false
}

func newFoundParents(nd int) *foundParents {
	f := &foundParents{parent: make([]map[string]string, nd), row: make([]map[string]int, nd), col: make([]map[string]string, nd)}
	for d := range f.parent {
		f.parent[d], f.row[d], f.col[d] = map[string]string{}, map[string]int{}, map[string]string{}
	}
	return f
}

// forShard returns the hierarchy for a shard builder: the same settings,
// its own parents found.
func (h *microHier) forShard() *microHier {
	if h == nil || h.cols == nil {
		return h
	}
	c := *h
	c.found = newFoundParents(len(h.dims))
	return &c
}

// record reads the parent columns of one record.
func (h *microHier) record(file string, row []string, line int) error {
	for d, cols := range h.cols {
		if cols == nil {
			continue
		}
		child := row[h.dimCol[d]]
		if strings.TrimSpace(child) == "" {
			child = EmptyLevel // as the builder names it
		}
		for j, c := range cols {
			p := row[c]
			// An empty parent: the code adds up to the total directly.
			if strings.TrimSpace(p) == "" {
				p = ""
			}
			h.found.set(file, d, child, p, line, h.cname[d][j])
			if p == "" {
				break
			}
			child = p
		}
	}
	if e := h.found.err; e != nil {
		return e
	}
	return nil
}

// set records child -> parent from row line; a different parent given
// before is a contradiction.
func (f *foundParents) set(file string, d int, child, parent string, line int, col string) {
	old, ok := f.parent[d][child]
	if !ok {
		f.parent[d][child], f.row[d][child], f.col[d][child] = parent, line, col
		return
	}
	if old != parent && (f.err == nil || line < f.err.Row) {
		first, second, at := old, parent, f.row[d][child]
		if line < at {
			first, second, line, at = parent, old, at, line
		}
		f.err = &readers.Error{File: file, Row: line, Column: col, Value: second, Err: fmt.Errorf("code %q has parent %q here but %q on row %d", child, second, first, at)}
	}
}

// absorb merges the parents a shard found.
func (h *microHier) absorb(o *microHier) {
	if h == nil || h.found == nil || o == nil || o.found == nil {
		return
	}
	for d := range o.found.parent {
		children := make([]string, 0, len(o.found.parent[d]))
		for c := range o.found.parent[d] {
			children = append(children, c)
		}
		sort.Strings(children)
		for _, c := range children {
			h.found.set(h.file, d, c, o.found.parent[d][c], o.found.row[d][c], o.found.col[d][c])
		}
	}
	if e := o.found.err; e != nil && (h.found.err == nil || e.Row < h.found.err.Row) {
		h.found.err = e
	}
}

// HierarchyTrail lists the hierarchy files of the settings for the audit
// trail, by dimension.
func HierarchyTrail(s *configs.Settings) []audit.HierarchyFileTrail {
	var out []audit.HierarchyFileTrail
	for d, p := range s.Suppression.HierarchyFiles {
		out = append(out, audit.HierarchyFileTrail{Dim: d, Name: filepath.Base(p), SHA256: s.Suppression.HierarchyDigests[d]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dim < out[j].Dim })
	return out
}

// nextCombo advances idx, a mixed-radix counter whose digit d runs over
// 0..n(d)-1, to the next combination, and reports false once every one
// has been visited. Started at all zeros, it skips that combination.
func nextCombo(idx []int, n func(d int) int) bool {
	for d := range idx {
		idx[d]++
		if idx[d] < n(d) {
			return true
		}
		idx[d] = 0
	}
	return false
}
