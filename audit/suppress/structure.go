package suppress

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	tablestructure "github.com/sdcaudit/sdcaudit/audit/structure"
)

// Options configures secondary suppression (Protect) and the
// interval audit (Audit).
//
// Table structure: in every dimension that has margins, a cell whose value
// in that dimension is the total label (or a parent code of Hierarchies)
// equals the sum of the cells that replace it by each of its children,
// the other dimensions held fixed. A child cell absent from the table counts
// as an empty (zero) cell; a relation whose total cell is absent does not
// exist.
type Options struct {
	// Value names the cell figure that the relations add up: "total" (the
	// cell total X, a magnitude table), "count" (contributors N, a
	// frequency table) or "" for total when any cell has a total, else count.
	Value string
	// Method is the secondary suppression method: "lp" (the default,
	// near-optimal cost: deviation LPs, then redundant cells dropped) or
	// "hypercube" (the generalised hypercube method, faster, more cells).
	Method string
	// MarginWeight, when positive, lets the lp method use margins (cells
	// that are the total of a relation) at their cost times MarginWeight;
	// 0 (the default) uses a margin only when no pattern of interior cells
	// protects the primary.
	MarginWeight float64
	// Cost is what secondary suppression minimises: "value" (the sum of the
	// suppressed cells' values, the default), "count" (their contributors)
	// or "unity" (the number of suppressed cells).
	Cost string
	// Protection sets the protection levels of sensitive cells.
	Protection Protection
	// Hierarchies gives, per dimension, the parent of each code that is not
	// a top-level code (e.g. district -> region). Codes without a parent
	// add up to the total label. A parent missing from the table is skipped:
	// its children add up to the nearest ancestor present.
	Hierarchies map[string]map[string]string
	// Workers bounds the audit's parallelism; 0 means 2.
	Workers int
	// TimeLimit bounds the wall time of Protect and Audit; 0
	// means none. When it runs out, Protect stops choosing complements
	// (with a table warning) and Audit returns what it has
	// settled, marking the other cells Undetermined; neither is an error.
	TimeLimit time.Duration
	// Unpublished, when set (one entry per cell of the table), marks cells
	// that no output publishes: the cells of a cover table that no linked
	// table shows (docs/suppression.md, "Linked tables"). They are unknown
	// to the intruder and free for complementary patterns (already
	// withheld: never marked secondary, cost nothing), need no protection,
	// and Audit reports no interval for them.
	Unpublished []bool
	// Column, when set, is the key in Cell.Stats of another count column
	// of the table's cells whose relations are protected and audited
	// instead of the count or total (Value is then count): counts of
	// the same cells published beside the count (employees beside
	// workers).
	Column string
	// Rounded, when positive, is the base B the published values were
	// already rounded to (input.rounded): Audit treats every published
	// cell as the interval [v − B/2, v + B/2] (cut at 0) instead of the
	// exact value v (docs/suppression.md, "Rounded tables").
	Rounded float64
	// exact is set by Audit: large components also get exact bounds
	// within the work budget (the internal audits of the suppression
	// methods need only verdicts).
	exact bool
	// lpBaseline runs the sparse LPs of the audit with the simplex of
	// before (Dantzig pricing, lp.SparseOptions): the baseline of the
	// benchmarks.
	lpBaseline bool
	// Keep, when set, marks cells that secondary suppression must never
	// choose (cells an output checker protected); they may still be
	// primary.
	Keep func(c *audit.Cell) bool
	// CostOf, when set, gives a cell's own cost in secondary suppression
	// (a tau-argus cost variable or a-priori file, or a reduced cost for
	// a cell suppressed in the previous release); ok false keeps the
	// cost model's.
	CostOf func(c *audit.Cell) (cost float64, ok bool)
	// Joint tunes the joint search of the lp method (budgets in simplex
	// pivots, nodes and cut rounds; docs/suppression.md).
	Joint JointOptions
}

func (o Options) valueRole(t *audit.Table) string {
	switch o.Value {
	case "total", "count":
		return o.Value
	}
	for _, c := range t.Cells {
		if c.HasTotal {
			return "total"
		}
	}
	return "count"
}

func (o Options) validate() error {
	switch o.Value {
	case "", "total", "count":
	default:
		return fmt.Errorf("suppression: value %q: want total or count", o.Value)
	}
	switch o.Method {
	case "", "lp", "hypercube":
	default:
		return fmt.Errorf("suppression: method %q: want lp or hypercube", o.Method)
	}
	if o.MarginWeight < 0 || math.IsNaN(o.MarginWeight) || math.IsInf(o.MarginWeight, 0) {
		return fmt.Errorf("suppression: margin weight %v: want 0 (margins as a last resort) or a positive factor", o.MarginWeight)
	}
	switch o.Cost {
	case "", "value", "count", "unity":
	default:
		return fmt.Errorf("suppression: cost %q: want value, count or unity", o.Cost)
	}
	return o.Protection.validate()
}

// relation says that cell total equals the sum of cells parts.
type relation struct {
	dim   int
	total int
	parts []int
}

// structure is the additive structure of a table: code trees per dimension,
// a cell index by code tuple, and every relation.
type structure struct {
	t        *audit.Table
	nd       int
	codes    [][]string
	codeIdx  []map[string]int
	parent   [][]int   // per dim and code: parent code, -1 at a root
	children [][][]int // per dim and code: child codes
	keys     [][]int   // per cell: code index per dim
	dense    []int32   // cell by linear code index (when small), -1 absent
	sparse   map[string]int
	strides  []int
	rels     []relation
	cellRels [][]int32 // per cell: relations it belongs to (as total or part)
	role     string
	column   string    // Options.Column
	val      []float64 // value per cell (0 when unknown)
	dec      []decimal.Dec
	known    []bool // the cell's value is present in the table
	unpub    []bool // Options.Unpublished (nil when not set)
	relName  func(r int) string

	// axes are the table's structure's axes (Table.Structure, else the
	// structure its configuration declares): the structure's dimension
	// d is axis d.
	axes []audit.Axis

	lvOnce sync.Once
	lv     [][][]int // per dim and code: the leaves below it (leavesOf)
}

const denseLimit = 1 << 24

func newStructure(t *audit.Table, opt Options) (*structure, error) {
	nd := len(t.Dims)
	total := t.TotalLabel
	if total == "" {
		total = "Total"
	}
	s := &structure{t: t, nd: nd, role: opt.valueRole(t), column: opt.Column}
	if s.column != "" {
		s.role = "count"
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
	s.nd = nd
	s.axes = st.Axes
	s.codes = make([][]string, nd)
	s.codeIdx = make([]map[string]int, nd)
	for d := 0; d < nd; d++ {
		s.codeIdx[d] = map[string]int{}
	}
	s.keys = make([][]int, len(t.Cells))
	for i, c := range t.Cells {
		if len(c.Key) != len(t.Dims) {
			return nil, fmt.Errorf("table %s: cell %d has %d key values for %d dimensions", t.Name, i, len(c.Key), len(t.Dims))
		}
		k := make([]int, nd)
		for d := range nd {
			v := s.code(c.Key, d)
			id, ok := s.codeIdx[d][v]
			if !ok {
				id = len(s.codes[d])
				s.codeIdx[d][v] = id
				s.codes[d] = append(s.codes[d], v)
			}
			k[d] = id
		}
		s.keys[i] = k
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
func (s *structure) code(key []string, d int) string {
	return s.axes[d].AxisCode(key)
}

// dimName names the structure's dimension d.
func (s *structure) dimName(d int) string {
	return s.axes[d].Name()
}

// axisTrees sets the code tree of every axis from the table's structure.
func (s *structure) axisTrees() error {
	s.parent = make([][]int, s.nd)
	s.children = make([][][]int, s.nd)
	for d := range s.nd {
		n := len(s.codes[d])
		s.parent[d] = make([]int, n)
		s.children[d] = make([][]int, n)
		for id, code := range s.codes[d] {
			s.parent[d][id] = -1
			if p, ok := s.axes[d].Parent[code]; ok {
				if pid, ok := s.codeIdx[d][p]; ok {
					s.parent[d][id] = pid
				}
			}
		}
		for id := range s.codes[d] {
			cur, steps := id, 0
			for cur >= 0 {
				cur = s.parent[d][cur]
				if steps++; steps > n {
					return fmt.Errorf("table %s: hierarchy of %s has a cycle through %q", s.t.Name, s.dimName(d), audit.CodeText(s.codes[d][id]))
				}
			}
			if p := s.parent[d][id]; p >= 0 {
				s.children[d][p] = append(s.children[d][p], id)
			}
		}
	}
	return nil
}

// buildIndex sets the cell index by code tuple (dense when small).
func (s *structure) buildIndex() error {
	t, nd := s.t, s.nd
	s.strides = make([]int, nd)
	size := 1
	for d := nd - 1; d >= 0; d-- {
		s.strides[d] = size
		if size > 0 && len(s.codes[d]) > 0 && size <= denseLimit/len(s.codes[d]) {
			size *= len(s.codes[d])
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
	for i, k := range s.keys {
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
func (s *structure) buildRelations() {
	t, nd := s.t, s.nd
	s.cellRels = make([][]int32, len(t.Cells))
	tmp := make([]int, nd)
	for i, k := range s.keys {
		for d := 0; d < nd; d++ {
			ch := s.children[d][k[d]]
			if len(ch) == 0 {
				continue
			}
			copy(tmp, k)
			r := relation{dim: d, total: i}
			for _, c := range ch {
				tmp[d] = c
				if j := s.lookup(tmp); j >= 0 {
					r.parts = append(r.parts, j)
				}
			}
			if len(r.parts) == 0 {
				continue
			}
			ri := int32(len(s.rels))
			s.rels = append(s.rels, r)
			s.cellRels[i] = append(s.cellRels[i], ri)
			for _, j := range r.parts {
				s.cellRels[j] = append(s.cellRels[j], ri)
			}
		}
	}
}

// loadValues reads the value of every cell in the structure's role.
func (s *structure) loadValues() {
	t := s.t
	s.val = make([]float64, len(t.Cells))
	s.dec = make([]decimal.Dec, len(t.Cells))
	s.known = make([]bool, len(t.Cells))
	for i, c := range t.Cells {
		switch {
		case s.column != "":
			if st, ok := c.Stats[s.column]; ok && !st.Missing {
				s.dec[i], s.known[i] = st.Value, true
			}
		case s.role == "total" && c.HasTotal:
			s.dec[i], s.known[i] = c.Total, true
		case s.role == "count" && c.HasN:
			s.dec[i], s.known[i] = decimal.FromInt(c.N), true
		}
		s.val[i] = s.dec[i].Float64()
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

// Relations returns the additive relations of t as secondary suppression
// and the interval audit read them (see Options): margins by the
// table's total label and t.Hierarchies.
func Relations(t *audit.Table) ([]Relation, error) {
	s, err := newStructure(t, Options{Hierarchies: t.Hierarchies})
	if err != nil {
		return nil, err
	}
	out := make([]Relation, len(s.rels))
	for i, r := range s.rels {
		dim := s.axes[r.dim].Dims[0]
		out[i] = Relation{Dim: dim, Along: s.dimName(r.dim), Total: r.total, Parts: r.parts}
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

func (s *structure) linear(k []int) int {
	li := 0
	for d, v := range k {
		li += v * s.strides[d]
	}
	return li
}

// lookup returns the cell with the given code indices, or -1.
func (s *structure) lookup(k []int) int {
	if s.dense != nil {
		return int(s.dense[s.linear(k)])
	}
	if i, ok := s.sparse[keyStr(k)]; ok {
		return i
	}
	return -1
}

// boxCells returns, in increasing order, the cells whose code in every
// dimension d is one of codes[d].
func (s *structure) boxCells(codes [][]int) []int {
	var out []int
	tuple := make([]int, s.nd)
	var rec func(d int)
	rec = func(d int) {
		if d == s.nd {
			if j := s.lookup(tuple); j >= 0 {
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

// coef is the coefficient of cell i in relation r: +1 for the total, -1 for
// a part, so that every relation reads Σ coef·x = 0.
func (s *structure) coef(r, i int) float64 {
	if s.rels[r].total == i {
		return 1
	}
	return -1
}

// describe names relation r for messages: "row region=A" style, the
// dimensions held fixed.
func (s *structure) describe(r int) string {
	rel := s.rels[r]
	key := s.t.Cells[rel.total].Key
	var parts []string
	for d := range s.nd {
		if d != rel.dim {
			parts = append(parts, s.dimName(d)+"="+audit.CodeText(s.code(key, d)))
		}
	}
	kind := "row"
	if rel.dim == 0 && s.nd == 2 {
		kind = "column"
	}
	name, code := s.dimName(rel.dim), audit.CodeText(s.code(key, rel.dim))
	if len(parts) == 0 {
		return fmt.Sprintf("the %s total %s=%s", name, name, code)
	}
	sub := code != s.t.TotalLabel && s.t.TotalLabel != ""
	if s.t.Structure != nil {
		sub = s.parent[rel.dim][s.keys[rel.total][rel.dim]] >= 0 // a subtotal
	}
	if sub {
		return fmt.Sprintf("%s %s (%s=%s)", kind, strings.Join(parts, ", "), name, code)
	}
	return kind + " " + strings.Join(parts, ", ")
}

// isSuppressed reports whether cell c is withheld from publication: a
// primary or secondary cell, or one whose value carries a suppression
// marker (or is missing) in a received table.
func (s *structure) isSuppressed(i int) bool {
	if s.unpublished(i) {
		return true
	}
	c := s.t.Cells[i]
	if c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary {
		return true
	}
	key := s.role
	if s.column != "" {
		key = s.column
	}
	if st, ok := c.Stats[key]; ok && st.Marker {
		return true
	}
	if _, ok := c.Stats[key]; !ok {
		for _, st := range c.Stats {
			if st.Marker {
				return true
			}
		}
	}
	return !s.known[i]
}

// unpublished reports whether cell i is published by no output
// (Options.Unpublished).
func (s *structure) unpublished(i int) bool { return s.unpub != nil && s.unpub[i] }
