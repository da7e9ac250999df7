package pipeline

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// microHier is the code hierarchy of the dimensions of a microdata table
// (suppression.hierarchies or suppression.hierarchy_files): the margin
// levels of a record's code are the code itself, each of its ancestors and
// the total, so every subtotal of the hierarchy becomes a cell.
type microHier struct {
	dims   []string
	parent []map[string]string // per dimension: child -> parent, nil without a hierarchy
	isPar  []map[string]bool   // per dimension: the codes that are some code's parent
	leaves []map[string]bool   // per dimension: the codes a record may carry (hierarchy files), else nil
	files  []string            // per dimension: the hierarchy file, "" for a YAML map
	anc    [][][]uint32        // per dimension and level id: ancestor level ids, nearest first (set by expand)
}

// maxHierDepth bounds a chain of parents (and detects cycles).
const maxHierDepth = 64

// newMicroHier returns the hierarchies of t's dimensions, nil when none
// has one. A cycle in a child -> parent map is a configuration error.
func newMicroHier(t *audit.Table, s *configs.Settings) (*microHier, error) {
	h := &microHier{dims: t.Dims}
	hasAny := false
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

// expand adds the parent codes of the observed codes to the builder's
// levels (after every record and empty cell is in) and records, per level,
// its ancestors.
func (h *microHier) expand(b *microBuilder) {
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
	k := make([]uint32, nd)
	idx := make([]int, nd)
	for {
		// next combination (the all-zero one, key itself, is skipped)
		d := 0
		for ; d < nd; d++ {
			idx[d]++
			if idx[d] < len(opts[d]) {
				break
			}
			idx[d] = 0
		}
		if d == nd {
			return
		}
		for i := range k {
			k[i] = opts[i][idx[i]]
		}
		fn(k)
	}
}
