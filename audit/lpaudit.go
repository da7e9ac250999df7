package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// IntervalResult is what an intruder can learn of one suppressed cell: the
// interval [Lo, Hi] of every value the cell can take given all published
// cells, the table's additivity and non-negativity.
type IntervalResult struct {
	Key []string
	// Lo and Hi bound the cell; Hi is +Inf when nothing bounds it above.
	Lo, Hi float64
	// Exact is true when Lo = Hi: the cell can be recomputed.
	Exact bool
	// Protected is true when the interval reaches the cell's protection
	// levels on both sides (primary cells and marked cells of a received
	// table), or, for a secondary cell, when it is not exact.
	Protected bool
	// Value is the true value when the table holds it (confidential).
	Value    float64
	HasValue bool
	// Upper and Lower are the protection levels required of the cell (zero
	// for a secondary cell).
	Upper, Lower float64
	Status       Status
}

// AuditResult is the interval audit of one table's suppression pattern.
type AuditResult struct {
	Dims  []string
	Cells []IntervalResult
	// ExactlyDisclosed counts the suppressed cells with Lo = Hi.
	ExactlyDisclosed int
	// UnderProtected counts the cells that are not exactly disclosed but
	// whose interval misses a protection level (partially disclosed).
	UnderProtected int
	// Warnings are remarks on the table such as published cells that
	// contradict a margin.
	Warnings []string
}

// NeedsPerson reports whether some cell is exactly disclosed or
// under-protected.
func (r AuditResult) NeedsPerson() bool { return r.ExactlyDisclosed+r.UnderProtected > 0 }

// MarshalJSON writes the contract's form: {"cells": [{"key": {dim: value},
// "lo", "hi", "exact", "protected"}], "exactly_disclosed",
// "under_protected"}; an unbounded hi is null. True values are not written.
func (r AuditResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"cells":[`)
	for i, c := range r.Cells {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"key":{`)
		for d, v := range c.Key {
			if d > 0 {
				b.WriteByte(',')
			}
			name := fmt.Sprintf("dim%d", d)
			if d < len(r.Dims) {
				name = r.Dims[d]
			}
			writeJSON(&b, name)
			b.WriteByte(':')
			writeJSON(&b, v)
		}
		b.WriteString(`},"lo":`)
		writeJSON(&b, c.Lo)
		b.WriteString(`,"hi":`)
		if math.IsInf(c.Hi, 1) {
			b.WriteString("null")
		} else {
			writeJSON(&b, c.Hi)
		}
		fmt.Fprintf(&b, `,"exact":%v,"protected":%v`, c.Exact, c.Protected)
		if c.Status != "" {
			b.WriteString(`,"status":`)
			writeJSON(&b, c.Status)
		}
		b.WriteByte('}')
	}
	fmt.Fprintf(&b, `],"exactly_disclosed":%d,"under_protected":%d`, r.ExactlyDisclosed, r.UnderProtected)
	if len(r.Warnings) > 0 {
		b.WriteString(`,"warnings":`)
		writeJSON(&b, r.Warnings)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) {
	out, _ := json.Marshal(v)
	b.Write(out)
}

// ErrInconsistent reports a table whose published cells admit no
// non-negative values for the suppressed cells.
var ErrInconsistent = errors.New("published cells contradict the margins")

// AuditIntervals computes, for every suppressed cell of t (primary,
// secondary, or carrying a suppression marker or no value), its
// feasibility interval given every published cell, the additive relations
// of the table and non-negativity, and checks it against the cell's
// protection levels.
//
// Relations with a single suppressed cell give it away exactly; these are
// resolved first in exact decimal arithmetic, repeatedly. The remaining
// cells are split into connected components and each component's intervals
// are found by linear programming (two objectives per cell, warm-started).
// The LP is floating point: a cell is reported exact when Hi - Lo is below
// 1e-9 times the largest magnitude in the table.
func AuditIntervals(ctx context.Context, t *Table, opt SuppressOptions) (AuditResult, error) {
	res := AuditResult{Dims: t.Dims}
	if err := opt.validate(); err != nil {
		return res, err
	}
	s, err := newStructure(t, opt)
	if err != nil {
		return res, err
	}
	sup := make([]bool, len(t.Cells))
	for i := range t.Cells {
		sup[i] = s.isSuppressed(i)
	}
	iv, err := s.intervals(ctx, sup, opt.Workers)
	if err != nil {
		return res, err
	}
	res.Warnings = iv.warnings
	for i, c := range t.Cells {
		if !sup[i] {
			continue
		}
		r := IntervalResult{Key: c.Key, Lo: iv.lo[i], Hi: iv.hi[i], Status: c.Status}
		r.Exact = iv.hi[i]-iv.lo[i] <= iv.tol
		if r.Exact {
			r.Hi = r.Lo
		}
		needs := c.Status != StatusSecondary
		switch {
		case s.known[i]:
			r.Value, r.HasValue = s.val[i], true
			if needs {
				r.Upper, r.Lower = s.levels(opt, i, r.Value)
				r.Protected = !r.Exact && r.Hi >= r.Value+r.Upper-iv.tol && r.Lo <= r.Value-r.Lower+iv.tol
			} else {
				r.Protected = !r.Exact
			}
		case math.IsInf(r.Hi, 1):
			r.Protected = !r.Exact
		default:
			// True value unknown (received table): the interval must hold
			// the protection range around its midpoint.
			mid := (r.Lo + r.Hi) / 2
			up, low := opt.Protection.Levels(nil, mid)
			r.Upper, r.Lower = up, low
			r.Protected = !r.Exact && r.Hi-r.Lo >= up+low-iv.tol
		}
		if r.Status == "" || r.Status == StatusOK || r.Status == StatusReview {
			r.Status = "marked"
		}
		switch {
		case r.Exact:
			res.ExactlyDisclosed++
		case !r.Protected:
			res.UnderProtected++
		}
		res.Cells = append(res.Cells, r)
	}
	return res, nil
}

// levels returns the protection levels of cell i with value x.
func (s *structure) levels(opt SuppressOptions, i int, x float64) (float64, float64) {
	c := s.t.Cells[i]
	if s.role != "total" {
		c = nil
	}
	return opt.Protection.Levels(c, x)
}

// intervalSet holds the audit of every cell (only suppressed ones are set).
type intervalSet struct {
	lo, hi   []float64
	tol      float64
	warnings []string
	// stats
	components, largest, lps int
}

func (s *structure) scale() float64 {
	m := 1.0
	for i, v := range s.val {
		if s.known[i] {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// intervals computes [lo, hi] for every cell with sup set.
func (s *structure) intervals(ctx context.Context, sup []bool, workers int) (*intervalSet, error) {
	if workers <= 0 {
		workers = 2
	}
	n := len(s.t.Cells)
	iv := &intervalSet{lo: make([]float64, n), hi: make([]float64, n)}
	scale := s.scale()
	iv.tol = 1e-9 * scale
	warn := func(format string, args ...any) {
		if len(iv.warnings) < 20 {
			iv.warnings = append(iv.warnings, fmt.Sprintf(format, args...))
		}
	}
	// Residual of each relation over the published cells, exactly.
	resid := make([]Dec, len(s.rels))
	free := make([]int, len(s.rels))
	for r, rel := range s.rels {
		add := func(i int, coef int) {
			if sup[i] {
				free[r]++
				return
			}
			if coef > 0 {
				resid[r] = resid[r].Sub(s.dec[i])
			} else {
				resid[r] = resid[r].Add(s.dec[i])
			}
		}
		add(rel.total, 1)
		for _, j := range rel.parts {
			add(j, -1)
		}
		if free[r] == 0 && !resid[r].IsZero() {
			warn("%s: published cells do not add up (difference %s)", s.describe(r), resid[r].Neg())
		}
	}
	// Pre-pass: a relation with one unknown cell gives it exactly.
	fixed := make([]bool, n)
	var queue []int
	for r := range s.rels {
		if free[r] == 1 {
			queue = append(queue, r)
		}
	}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if free[r] != 1 {
			continue
		}
		v := -1
		for _, i := range s.relCells(r) {
			if sup[i] && !fixed[i] {
				v = i
				break
			}
		}
		x := resid[r]
		if s.coef(r, v) < 0 {
			x = x.Neg()
		}
		fixed[v] = true
		f := x.Float64()
		iv.lo[v], iv.hi[v] = f, f
		if x.Sign() < 0 {
			warn("%s is recomputed as %s, a negative value", s.t.KeyString(s.t.Cells[v].Key), x)
		}
		for _, r2 := range s.cellRels[v] {
			if s.coef(int(r2), v) > 0 {
				resid[r2] = resid[r2].Sub(x)
			} else {
				resid[r2] = resid[r2].Add(x)
			}
			free[r2]--
			switch free[r2] {
			case 1:
				queue = append(queue, int(r2))
			case 0:
				if !resid[r2].IsZero() {
					warn("%s: recomputed cells do not add up (difference %s)", s.describe(int(r2)), resid[r2].Neg())
				}
			}
		}
	}
	// Components of the remaining unknown cells.
	uf := newUnionFind(n)
	for r := range s.rels {
		if free[r] < 2 {
			continue
		}
		first := -1
		for _, i := range s.relCells(r) {
			if sup[i] && !fixed[i] {
				if first < 0 {
					first = i
				} else {
					uf.union(first, i)
				}
			}
		}
	}
	comps := map[int][]int{}
	for i := 0; i < n; i++ {
		if sup[i] && !fixed[i] {
			root := uf.find(i)
			comps[root] = append(comps[root], i)
		}
	}
	var list [][]int
	for _, c := range comps {
		list = append(list, c)
	}
	sort.Slice(list, func(a, b int) bool {
		if len(list[a]) != len(list[b]) {
			return len(list[a]) > len(list[b])
		}
		return list[a][0] < list[b][0]
	})
	iv.components = len(list)
	if len(list) > 0 {
		iv.largest = len(list[0])
	}
	var mu sync.Mutex
	solve := func(ctx context.Context, comp []int, split int) error {
		lps, err := s.solveComponent(ctx, comp, sup, fixed, resid, free, iv, split)
		mu.Lock()
		iv.lps += lps
		mu.Unlock()
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, comp := range list {
		if err := gctx.Err(); err != nil {
			break
		}
		if len(comp) >= 200 && workers > 1 {
			// Large components use every worker inside.
			if err := solve(gctx, comp, workers); err != nil {
				g.Wait()
				return nil, err
			}
			continue
		}
		g.Go(func() error { return solve(gctx, comp, 1) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	places := 0
	for i, d := range s.dec {
		if s.known[i] && d.Scale() > places {
			places = d.Scale()
		}
	}
	for i := range iv.lo {
		if sup[i] {
			iv.lo[i] = snap(iv.lo[i], places, iv.tol)
			iv.hi[i] = snap(iv.hi[i], places, iv.tol)
		}
	}
	return iv, nil
}

// snap rounds v to the table's decimal places when it is within tol of it,
// removing floating-point noise from LP bounds.
func snap(v float64, places int, tol float64) float64 {
	if math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(min(places, 15)))
	if r := math.Round(v*p) / p; math.Abs(r-v) <= tol {
		return r
	}
	return v
}

// relCells lists the cells of relation r, total first.
func (s *structure) relCells(r int) []int {
	rel := s.rels[r]
	out := make([]int, 0, len(rel.parts)+1)
	out = append(out, rel.total)
	return append(out, rel.parts...)
}

// solveComponent finds lo and hi of every cell in comp by LP. split > 1
// shares the objectives among that many copies of the solved basis.
func (s *structure) solveComponent(ctx context.Context, comp []int, sup, fixed []bool, resid []Dec, free []int, iv *intervalSet, split int) (int, error) {
	local := make(map[int]int, len(comp))
	for k, i := range comp {
		local[i] = k
	}
	// Rows: every relation with two or more unknown cells in this component.
	seen := map[int32]bool{}
	var rows []lp.Row
	var rowRel []int
	for _, i := range comp {
		for _, r := range s.cellRels[i] {
			if seen[r] || free[r] < 2 {
				continue
			}
			seen[r] = true
			row := lp.Row{RHS: resid[r].Float64()}
			for _, j := range s.relCells(int(r)) {
				if sup[j] && !fixed[j] {
					row.Idx = append(row.Idx, local[j])
					row.Coef = append(row.Coef, s.coef(int(r), j))
				}
			}
			rows = append(rows, row)
			rowRel = append(rowRel, int(r))
		}
	}
	k := len(comp)
	// Outer upper bounds: a relation whose other unknowns all have the
	// same sign as the cell bounds it by its residual.
	ub := make([]float64, k)
	for j := range ub {
		ub[j] = math.Inf(1)
	}
	for _, row := range rows {
		for a, j := range row.Idx {
			same := true
			for b := range row.Idx {
				if row.Coef[b] != row.Coef[a] {
					same = false
					break
				}
			}
			if same {
				ub[j] = math.Min(ub[j], row.RHS*row.Coef[a])
			}
		}
	}
	if len(rows) == 0 {
		for _, i := range comp {
			iv.lo[i], iv.hi[i] = 0, math.Inf(1)
		}
		return 0, nil
	}
	base, err := lp.New(ctx, k, rows)
	if err != nil {
		if errors.Is(err, lp.ErrInfeasible) {
			return 0, fmt.Errorf("table %s: %w: no non-negative values of the suppressed cells around %s satisfy %s",
				s.t.Name, ErrInconsistent, s.t.KeyString(s.t.Cells[comp[0]].Key), s.describe(rowRel[0]))
		}
		return 0, fmt.Errorf("table %s: audit LP: %w", s.t.Name, err)
	}
	tol := iv.tol
	if split < 1 || k < 2*split {
		split = 1
	}
	var total int
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for w := 0; w < split; w++ {
		sv := base
		if w > 0 {
			sv = base.Clone()
		}
		g.Go(func() error {
			loDone := make([]bool, k)
			hiDone := make([]bool, k)
			mine := func(j int) bool { return j%split == w }
			scan := func() {
				for j := w; j < k; j += split {
					v := sv.Value(j)
					if !loDone[j] && v <= tol {
						loDone[j] = true
						iv.lo[comp[j]] = 0
					}
					if !hiDone[j] && v >= ub[j]-tol {
						hiDone[j] = true
						iv.hi[comp[j]] = ub[j]
					}
				}
			}
			scan()
			lps := 0
			for j := 0; j < k; j++ {
				if !mine(j) {
					continue
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				for _, max := range []bool{true, false} {
					if max && hiDone[j] || !max && loDone[j] {
						continue
					}
					v, err := sv.Optimize(gctx, j, max)
					lps++
					if err != nil {
						return fmt.Errorf("table %s: audit LP for %s: %w", s.t.Name, s.t.KeyString(s.t.Cells[comp[j]].Key), err)
					}
					if max {
						hiDone[j] = true
						iv.hi[comp[j]] = v
					} else {
						loDone[j] = true
						iv.lo[comp[j]] = math.Max(v, 0)
					}
					if !math.IsInf(v, 1) {
						scan()
					}
				}
			}
			mu.Lock()
			total += lps
			mu.Unlock()
			return nil
		})
	}
	err = g.Wait()
	return total, err
}

type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u unionFind) union(a, b int) {
	if ra, rb := u.find(a), u.find(b); ra != rb {
		u[ra] = rb
	}
}
