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
	// Approximate is true when the cell lies in a component too large for
	// one LP and its neighbourhood bounds did not close: [Lo, Hi] is then
	// an inner interval, inside the true one (see AuditIntervals).
	Approximate bool
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
	// Approximate counts the cells whose interval is an inner bound.
	Approximate int
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
		if c.Approximate {
			b.WriteString(`,"approximate":true`)
		}
		b.WriteByte('}')
	}
	fmt.Fprintf(&b, `],"exactly_disclosed":%d,"under_protected":%d`, r.ExactlyDisclosed, r.UnderProtected)
	if r.Approximate > 0 {
		fmt.Fprintf(&b, `,"approximate":%d`, r.Approximate)
	}
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
		r := IntervalResult{Key: c.Key, Lo: iv.lo[i], Hi: iv.hi[i], Status: c.Status, Approximate: iv.approx[i]}
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
		if r.Approximate {
			res.Approximate++
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
	approx   []bool
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
	iv := &intervalSet{lo: make([]float64, n), hi: make([]float64, n), approx: make([]bool, n)}
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

// largeComponent is the size above which a component whose true values
// are known is audited on neighbourhoods rather than as one LP.
const largeComponent = 400

// Neighbourhood sizes of the large-component audit: cells audited per LP
// (core) and cells free in the LP (core and halo).
const (
	coreSize = 50
	nbhdSize = 450
)

// solveComponent finds lo and hi of every cell in comp by LP. split > 1
// shares the objectives among that many copies of the solved basis.
func (s *structure) solveComponent(ctx context.Context, comp []int, sup, fixed []bool, resid []Dec, free []int, iv *intervalSet, split int) (int, error) {
	known := true
	for _, i := range comp {
		known = known && s.known[i]
	}
	if known && len(comp) > largeComponent {
		return s.solveLarge(ctx, comp, sup, fixed, resid, free, iv, split)
	}
	inF := func(int) bool { return true }
	rows, rowRel := s.compRows(comp, sup, fixed, resid, free, inF, false)
	if len(rows) == 0 {
		for _, i := range comp {
			iv.lo[i], iv.hi[i] = 0, math.Inf(1)
		}
		return 0, nil
	}
	var x0 []float64
	if known {
		for _, i := range comp {
			x0 = append(x0, s.val[i])
		}
	}
	targets := make([]int, len(comp))
	for j := range targets {
		targets[j] = j
	}
	lo, hi, lps, err := rangeLP(ctx, len(comp), rows, x0, targets, iv.tol, split)
	if err != nil {
		if errors.Is(err, lp.ErrInfeasible) {
			return 0, fmt.Errorf("table %s: %w: no non-negative values of the suppressed cells around %s satisfy %s",
				s.t.Name, ErrInconsistent, s.t.KeyString(s.t.Cells[comp[0]].Key), s.describe(rowRel[0]))
		}
		return 0, fmt.Errorf("table %s: audit LP around %s: %w", s.t.Name, s.t.KeyString(s.t.Cells[comp[0]].Key), err)
	}
	for j, i := range comp {
		iv.lo[i], iv.hi[i] = lo[j], hi[j]
	}
	return lps, nil
}

// compRows builds the LP rows of the relations with two or more unknown
// cells among comp, over the cells for which inF holds (local indices
// follow comp's order, cells outside inF dropped). With relax, relations
// that involve an unknown cell outside inF are left out (a relaxation);
// otherwise those cells are fixed at their true values.
func (s *structure) compRows(comp []int, sup, fixed []bool, resid []Dec, free []int, inF func(int) bool, relax bool) ([]lp.Row, []int) {
	local := make(map[int]int, len(comp))
	n := 0
	for _, i := range comp {
		if inF(i) {
			local[i] = n
			n++
		}
	}
	seen := map[int32]bool{}
	var rows []lp.Row
	var rowRel []int
	for _, i := range comp {
		if !inF(i) {
			continue
		}
		for _, r := range s.cellRels[i] {
			if seen[r] || free[r] < 2 {
				continue
			}
			seen[r] = true
			row := lp.Row{RHS: resid[r].Float64()}
			skip := false
			for _, j := range s.relCells(int(r)) {
				if !sup[j] || fixed[j] {
					continue
				}
				c := s.coef(int(r), j)
				if l, ok := local[j]; ok {
					row.Idx = append(row.Idx, l)
					row.Coef = append(row.Coef, c)
				} else if relax {
					skip = true
					break
				} else {
					row.RHS -= c * s.val[j]
				}
			}
			if !skip {
				rows = append(rows, row)
				rowRel = append(rowRel, int(r))
			}
		}
	}
	return rows, rowRel
}

// rangeLP returns the minimum and maximum of each target variable over
// {x : rows, x >= 0}, starting from x0 when given. Every vertex visited
// settles the variables it puts at zero or at a bound that one row alone
// implies, so most targets need fewer than two LPs.
func rangeLP(ctx context.Context, k int, rows []lp.Row, x0 []float64, targets []int, tol float64, split int) (lo, hi []float64, lps int, err error) {
	// Outer upper bounds: a row whose other variables all have the same
	// sign as v bounds v by its right-hand side.
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
	var base *lp.Solver
	if x0 != nil {
		base, err = lp.NewAt(ctx, k, rows, x0)
	}
	if x0 == nil || errors.Is(err, lp.ErrInfeasible) {
		base, err = lp.New(ctx, k, rows)
	}
	if err != nil {
		return nil, nil, 0, err
	}
	nt := len(targets)
	lo, hi = make([]float64, nt), make([]float64, nt)
	if split < 1 || nt < 2*split {
		split = 1
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for w := 0; w < split; w++ {
		sv := base
		if w > 0 {
			sv = base.Clone()
		}
		g.Go(func() error {
			loDone := make([]bool, nt)
			hiDone := make([]bool, nt)
			scan := func() {
				for a := w; a < nt; a += split {
					v := sv.Value(targets[a])
					if !loDone[a] && v <= tol {
						loDone[a], lo[a] = true, 0
					}
					if u := ub[targets[a]]; !hiDone[a] && v >= u-tol {
						hiDone[a], hi[a] = true, u
					}
				}
			}
			scan()
			n := 0
			for a := w; a < nt; a += split {
				if err := gctx.Err(); err != nil {
					return err
				}
				for _, max := range []bool{true, false} {
					if max && hiDone[a] || !max && loDone[a] {
						continue
					}
					v, err := sv.Optimize(gctx, targets[a], max)
					n++
					if err != nil {
						return err
					}
					if max {
						hiDone[a], hi[a] = true, v
					} else {
						loDone[a], lo[a] = true, math.Max(v, 0)
					}
					if !math.IsInf(v, 1) {
						scan()
					}
				}
			}
			mu.Lock()
			lps += n
			mu.Unlock()
			return nil
		})
	}
	err = g.Wait()
	return lo, hi, lps, err
}

// solveLarge audits a large component whose true values are known on
// neighbourhoods: the cells are split into clusters of coreSize connected
// cells; each cluster with its surrounding cells (up to nbhdSize) is solved
// twice, once with every other cell of the component fixed at its true
// value (an inner interval: every value found is feasible for the whole
// table) and once with the relations reaching outside left out (an outer
// interval). Where the two agree the interval is exact; elsewhere the
// inner interval is reported and marked approximate: it is contained in
// the true one, so a cell it shows protected is protected, and the
// verdicts err only on the side of caution.
func (s *structure) solveLarge(ctx context.Context, comp []int, sup, fixed []bool, resid []Dec, free []int, iv *intervalSet, workers int) (int, error) {
	// Adjacency of unknown cells sharing a relation.
	adj := map[int][]int{}
	for _, i := range comp {
		for _, r := range s.cellRels[i] {
			if free[r] < 2 {
				continue
			}
			for _, j := range s.relCells(int(r)) {
				if j != i && sup[j] && !fixed[j] {
					adj[i] = append(adj[i], j)
				}
			}
		}
	}
	bfs := func(start []int, limit int, ok func(int) bool) []int {
		seen := map[int]bool{}
		var out []int
		queue := append([]int(nil), start...)
		for _, i := range start {
			seen[i] = true
		}
		for len(queue) > 0 && len(out) < limit {
			i := queue[0]
			queue = queue[1:]
			out = append(out, i)
			for _, j := range adj[i] {
				if !seen[j] && ok(j) {
					seen[j] = true
					queue = append(queue, j)
				}
			}
		}
		return out
	}
	assigned := map[int]bool{}
	var clusters [][]int
	for _, i := range comp {
		if assigned[i] {
			continue
		}
		core := bfs([]int{i}, coreSize, func(j int) bool { return !assigned[j] })
		for _, j := range core {
			assigned[j] = true
		}
		clusters = append(clusters, core)
	}
	var mu sync.Mutex
	total := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for _, core := range clusters {
		g.Go(func() error {
			nb := bfs(core, nbhdSize, func(int) bool { return true })
			inF := map[int]bool{}
			for _, i := range nb {
				inF[i] = true
			}
			var cells []int // F in comp order
			for _, i := range comp {
				if inF[i] {
					cells = append(cells, i)
				}
			}
			pos := map[int]int{}
			x0 := make([]float64, len(cells))
			for l, i := range cells {
				pos[i] = l
				x0[l] = s.val[i]
			}
			targets := make([]int, len(core))
			for a, i := range core {
				targets[a] = pos[i]
			}
			in := func(i int) bool { return inF[i] }
			n := 0
			var bounds [2][2][]float64
			for v, relax := range []bool{false, true} {
				rows, _ := s.compRows(cells, sup, fixed, resid, free, in, relax)
				lo, hi, lps, err := rangeLP(gctx, len(cells), rows, x0, targets, iv.tol, 1)
				n += lps
				if err != nil {
					return fmt.Errorf("table %s: audit LP around %s: %w", s.t.Name, s.t.KeyString(s.t.Cells[core[0]].Key), err)
				}
				bounds[v] = [2][]float64{lo, hi}
			}
			mu.Lock()
			defer mu.Unlock()
			total += n
			for a, i := range core {
				ilo, ihi := bounds[0][0][a], bounds[0][1][a]
				olo, ohi := bounds[1][0][a], bounds[1][1][a]
				// Widen the inner interval by the moves among suppressed
				// cells, then keep it inside the outer one.
				up, down := s.moveRange(i, sup)
				ilo = math.Max(math.Min(ilo, s.val[i]-down), olo)
				ihi = math.Min(math.Max(ihi, s.val[i]+up), ohi)
				iv.lo[i], iv.hi[i] = ilo, ihi
				if math.Abs(ilo-olo) > iv.tol || !(math.Abs(ihi-ohi) <= iv.tol || math.IsInf(ihi, 1) && math.IsInf(ohi, 1)) {
					iv.approx[i] = true
				}
			}
			return nil
		})
	}
	err := g.Wait()
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
