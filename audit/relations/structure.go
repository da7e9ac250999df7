package relations

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	tablestructure "github.com/sdcaudit/sdcaudit/audit/structure"
)

// Options says what a Structure reads of a table.
type Options struct {
	// Role names the cell figure that the relations add up:
	// audit.RoleTotal (the cell total X, a magnitude table),
	// audit.RoleCount (contributors N, a frequency table) or "" for the
	// table's own (Table.Frequency).
	Role audit.Role
	// Hierarchies gives, per dimension, the parent of each code that is not
	// a top-level code, for a table without a Structure (see
	// structure.Declared).
	Hierarchies map[string]map[string]string
	// Unpublished, when set (one entry per cell of the table), marks cells
	// that no output publishes (Structure.Unpublished).
	Unpublished []bool
	// Column, when set, is the key in Cell.Stats of another count column
	// whose relations are read instead of the count or total.
	Column string
}

func (o Options) valueRole(t *audit.Table) audit.Role {
	switch o.Role {
	case audit.RoleTotal, audit.RoleCount:
		return o.Role
	}
	if t.Frequency() {
		return audit.RoleCount
	}
	return audit.RoleTotal
}

// Rel says that cell Total equals the sum of the cells Parts along the
// structure's dimension Dim.
type Rel struct {
	Dim   int
	Total int
	Parts []int
}

// Structure is the additive structure of a table: code trees per dimension,
// a cell index by code tuple, and every relation.
type Structure struct {
	// T is the table.
	T *audit.Table
	// NDim is the number of the structure's dimensions (its axes: a
	// table dimension, or nested dimensions read as one).
	NDim int
	// Codes are, per dimension, its codes in table order; CodeIdx maps a
	// code to its index.
	Codes   [][]string
	CodeIdx []map[string]int
	// Parent is, per dimension and code, the parent code (-1 at a root);
	// Children the child codes.
	Parent   [][]int
	Children [][][]int
	// Keys are, per cell, its code index in each dimension.
	Keys    [][]int
	dense   []int32 // cell by linear code index (when small), -1 absent
	sparse  map[string]int
	strides []int
	// Rels are the relations; CellRels, per cell, the relations it
	// belongs to (as total or part).
	Rels     []Rel
	CellRels [][]int32
	// Role is the figure the relations add up: "total" or "count".
	Role audit.Role
	// Column is Options.Column.
	Column string
	// Val is each cell's value in Role (0 when unknown), Dec the same
	// exactly, Known whether the table has it.
	Val   []float64
	Dec   []decimal.Dec
	Known []bool
	unpub []bool // Options.Unpublished (nil when not set)

	// Axes are the table's structure's axes (Table.Structure, else the
	// structure its configuration declares): the structure's dimension
	// d is axis d.
	Axes []audit.Axis

	lvOnce sync.Once
	lv     [][][]int // per dim and code: the leaves below it (leavesOf)
}

const denseLimit = 1 << 24

// New indexes the relations of t as opt reads them.
func New(t *audit.Table, opt Options) (*Structure, error) {
	nd := len(t.Dims)
	total := t.TotalLabel
	if total == "" {
		total = "Total"
	}
	s := &Structure{T: t, NDim: nd, Role: opt.valueRole(t), Column: opt.Column}
	if s.Column != "" {
		s.Role = audit.RoleCount
	}
	if opt.Unpublished != nil {
		if len(opt.Unpublished) != len(t.Cells) {
			return nil, fmt.Errorf("table %s: %d unpublished flags for %d cells", t.Name, len(opt.Unpublished), len(t.Cells))
		}
		s.unpub = opt.Unpublished
	}
	// the table's structure: one code tree per axis (a dimension, or
	// nested dimensions read as one); a table without one (built from
	// records) has the margins its configuration declares
	st := t.Structure
	if st == nil {
		st = tablestructure.Declared(t, total, opt.Hierarchies)
	}
	nd = len(st.Axes)
	s.NDim = nd
	s.Axes = st.Axes
	s.Codes = make([][]string, nd)
	s.CodeIdx = make([]map[string]int, nd)
	for d := 0; d < nd; d++ {
		s.CodeIdx[d] = map[string]int{}
	}
	s.Keys = make([][]int, len(t.Cells))
	for i, c := range t.Cells {
		if len(c.Key) != len(t.Dims) {
			return nil, fmt.Errorf("table %s: cell %d has %d key values for %d dimensions", t.Name, i, len(c.Key), len(t.Dims))
		}
		k := make([]int, nd)
		for d := range nd {
			v := s.code(c.Key, d)
			id, ok := s.CodeIdx[d][v]
			if !ok {
				id = len(s.Codes[d])
				s.CodeIdx[d][v] = id
				s.Codes[d] = append(s.Codes[d], v)
			}
			k[d] = id
		}
		s.Keys[i] = k
	}
	if err := s.axisTrees(); err != nil {
		return nil, err
	}
	if err := s.buildIndex(); err != nil {
		return nil, err
	}
	s.buildRelations()
	s.loadValues()
	return s, nil
}

// code is the code of a cell key in the structure's dimension d.
func (s *Structure) code(key []string, d int) string {
	return s.Axes[d].AxisCode(key)
}

// dimName names the structure's dimension d.
func (s *Structure) dimName(d int) string {
	return s.Axes[d].Name()
}

// axisTrees sets the code tree of every axis from the table's structure.
func (s *Structure) axisTrees() error {
	s.Parent = make([][]int, s.NDim)
	s.Children = make([][][]int, s.NDim)
	for d := range s.NDim {
		n := len(s.Codes[d])
		s.Parent[d] = make([]int, n)
		s.Children[d] = make([][]int, n)
		for id, code := range s.Codes[d] {
			s.Parent[d][id] = -1
			if p, ok := s.Axes[d].Parent[code]; ok {
				if pid, ok := s.CodeIdx[d][p]; ok {
					s.Parent[d][id] = pid
				}
			}
		}
		for id := range s.Codes[d] {
			cur, steps := id, 0
			for cur >= 0 {
				cur = s.Parent[d][cur]
				if steps++; steps > n {
					return fmt.Errorf("table %s: hierarchy of %s has a cycle through %q", s.T.Name, s.dimName(d), audit.CodeText(s.Codes[d][id]))
				}
			}
			if p := s.Parent[d][id]; p >= 0 {
				s.Children[d][p] = append(s.Children[d][p], id)
			}
		}
	}
	return nil
}

// buildIndex sets the cell index by code tuple (dense when small).
func (s *Structure) buildIndex() error {
	t, nd := s.T, s.NDim
	s.strides = make([]int, nd)
	size := 1
	for d := nd - 1; d >= 0; d-- {
		s.strides[d] = size
		if size > 0 && len(s.Codes[d]) > 0 && size <= denseLimit/len(s.Codes[d]) {
			size *= len(s.Codes[d])
		} else {
			size = -1
		}
	}
	if size > 0 && size <= denseLimit {
		s.dense = make([]int32, size)
		for i := range s.dense {
			s.dense[i] = -1
		}
	} else {
		s.sparse = make(map[string]int, len(t.Cells))
	}
	for i, k := range s.Keys {
		if s.dense != nil {
			li := s.linear(k)
			if s.dense[li] >= 0 {
				return fmt.Errorf("table %s: duplicate cell %s", t.Name, t.KeyString(t.Cells[i].Key))
			}
			s.dense[li] = int32(i)
		} else {
			ks := keyStr(k)
			if _, dup := s.sparse[ks]; dup {
				return fmt.Errorf("table %s: duplicate cell %s", t.Name, t.KeyString(t.Cells[i].Key))
			}
			s.sparse[ks] = i
		}
	}
	return nil
}

// buildRelations lists every relation: per cell and dimension in which
// its code has children, the cell equals the sum of its children present.
func (s *Structure) buildRelations() {
	t, nd := s.T, s.NDim
	s.CellRels = make([][]int32, len(t.Cells))
	tmp := make([]int, nd)
	var st *audit.Structure
	for d := 0; d < nd; d++ {
		if len(s.Axes[d].NonAdditive) > 0 {
			st = &audit.Structure{Axes: s.Axes}
		}
	}
	for i, k := range s.Keys {
		if st != nil && !st.Additive(t.Cells[i].Key) {
			// a median or a rate beside the counts: the margins hold
			// in the additive codes only
			continue
		}
		for d := 0; d < nd; d++ {
			ch := s.Children[d][k[d]]
			if len(ch) == 0 {
				continue
			}
			copy(tmp, k)
			r := Rel{Dim: d, Total: i}
			for _, c := range ch {
				tmp[d] = c
				if j := s.Lookup(tmp); j >= 0 {
					r.Parts = append(r.Parts, j)
				}
			}
			if len(r.Parts) == 0 {
				continue
			}
			ri := int32(len(s.Rels))
			s.Rels = append(s.Rels, r)
			s.CellRels[i] = append(s.CellRels[i], ri)
			for _, j := range r.Parts {
				s.CellRels[j] = append(s.CellRels[j], ri)
			}
		}
	}
}

// loadValues reads the value of every cell in the structure's role.
func (s *Structure) loadValues() {
	t := s.T
	s.Val = make([]float64, len(t.Cells))
	s.Dec = make([]decimal.Dec, len(t.Cells))
	s.Known = make([]bool, len(t.Cells))
	for i, c := range t.Cells {
		switch {
		case s.Column != "":
			if st, ok := c.Stats.Get(s.Column); ok && !st.Missing {
				s.Dec[i], s.Known[i] = st.Value, true
			}
		case s.Role == audit.RoleTotal && c.HasTotal:
			s.Dec[i], s.Known[i] = c.Total, true
		case s.Role == audit.RoleCount && c.HasN:
			s.Dec[i], s.Known[i] = decimal.FromInt(c.N), true
		case t.Structure != nil:
			// a count beside medians in a table read as one statistic
			s.Dec[i], s.Known[i] = tablestructure.CountValue(t.Structure, c)
		}
		if t.Structure != nil && s.Known[i] && !t.Structure.Additive(c.Key) {
			// a median, a rate or a percentage change beside the counts
			// (negative, maybe) is in no relation: its value is no
			// figure of the audit's
			s.Dec[i] = decimal.Dec{}
		}
		s.Val[i] = s.Dec[i].Float64()
	}
}

// Relation is one additive relation of a table: the cell Total (an index
// into Table.Cells) equals the sum of the cells Parts along dimension Dim,
// the other dimensions held fixed.
type Relation struct {
	// Dim is the first table dimension of the axis along which the
	// relation adds up; Along names the axis (nested dimensions joined
	// by " / ").
	Dim   int
	Along string
	Total int
	Parts []int
}

// Of returns the additive relations of t as secondary suppression
// and the interval audit read them: margins by the table's structure, or
// by its total label and t.Hierarchies.
func Of(t *audit.Table) ([]Relation, error) {
	s, err := New(t, Options{Hierarchies: t.Hierarchies})
	if err != nil {
		return nil, err
	}
	out := make([]Relation, len(s.Rels))
	for i, r := range s.Rels {
		dim := s.Axes[r.Dim].Dims[0]
		out[i] = Relation{Dim: dim, Along: s.dimName(r.Dim), Total: r.Total, Parts: r.Parts}
	}
	return out, nil
}

func keyStr(k []int) string {
	var b strings.Builder
	for _, v := range k {
		fmt.Fprintf(&b, "%d,", v)
	}
	return b.String()
}

func (s *Structure) linear(k []int) int {
	li := 0
	for d, v := range k {
		li += v * s.strides[d]
	}
	return li
}

// Lookup returns the cell with the given code indices, or -1.
func (s *Structure) Lookup(k []int) int {
	if s.dense != nil {
		return int(s.dense[s.linear(k)])
	}
	if i, ok := s.sparse[keyStr(k)]; ok {
		return i
	}
	return -1
}

// BoxCells returns, in increasing order, the cells whose code in every
// dimension d is one of codes[d].
func (s *Structure) BoxCells(codes [][]int) []int {
	var out []int
	tuple := make([]int, s.NDim)
	var rec func(d int)
	rec = func(d int) {
		if d == s.NDim {
			if j := s.Lookup(tuple); j >= 0 {
				out = append(out, j)
			}
			return
		}
		for _, c := range codes[d] {
			tuple[d] = c
			rec(d + 1)
		}
	}
	rec(0)
	sort.Ints(out)
	return out
}

// Coef is the coefficient of cell i in relation r: +1 for the total, -1 for
// a part, so that every relation reads Σ coef·x = 0.
func (s *Structure) Coef(r, i int) float64 {
	if s.Rels[r].Total == i {
		return 1
	}
	return -1
}

// Describe names relation r for messages: "row region=A" style, the
// dimensions held fixed.
func (s *Structure) Describe(r int) string {
	rel := s.Rels[r]
	key := s.T.Cells[rel.Total].Key
	var parts []string
	for d := range s.NDim {
		if d != rel.Dim {
			parts = append(parts, s.dimName(d)+"="+audit.CodeText(s.code(key, d)))
		}
	}
	kind := "row"
	if rel.Dim == 0 && s.NDim == 2 {
		kind = "column"
	}
	name, code := s.dimName(rel.Dim), audit.CodeText(s.code(key, rel.Dim))
	if len(parts) == 0 {
		return fmt.Sprintf("the %s total %s=%s", name, name, code)
	}
	sub := code != s.T.TotalLabel && s.T.TotalLabel != ""
	if s.T.Structure != nil {
		sub = s.Parent[rel.Dim][s.Keys[rel.Total][rel.Dim]] >= 0 // a subtotal
	}
	if sub {
		return fmt.Sprintf("%s %s (%s=%s)", kind, strings.Join(parts, ", "), name, code)
	}
	return kind + " " + strings.Join(parts, ", ")
}

// IsSuppressed reports whether cell c is withheld from publication: a
// primary or secondary cell, or one whose value carries a suppression
// marker (or is missing) in a received table.
func (s *Structure) IsSuppressed(i int) bool {
	if s.Unpublished(i) {
		return true
	}
	c := s.T.Cells[i]
	if c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary {
		return true
	}
	key := string(s.Role)
	if s.Column != "" {
		key = s.Column
	}
	if st, ok := c.Stats.Get(key); ok && st.Marker {
		return true
	}
	if _, ok := c.Stats.Get(key); !ok {
		for _, st := range c.Stats.All() {
			if st.Marker {
				return true
			}
		}
	}
	if !s.Known[i] && s.T.Structure != nil && !s.T.Structure.Additive(c.Key) {
		// a median beside the counts, published: not in the relations
		return false
	}
	return !s.Known[i]
}

// Unpublished reports whether cell i is published by no output
// (Options.Unpublished).
func (s *Structure) Unpublished(i int) bool { return s.unpub != nil && s.unpub[i] }

// Scale is the largest absolute known value of the table, at least 1.
func (s *Structure) Scale() float64 {
	m := 1.0
	for i, v := range s.Val {
		if s.Known[i] {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// RelCells lists the cells of relation r, total first.
func (s *Structure) RelCells(r int) []int {
	rel := s.Rels[r]
	out := make([]int, 0, len(rel.Parts)+1)
	out = append(out, rel.Total)
	return append(out, rel.Parts...)
}
