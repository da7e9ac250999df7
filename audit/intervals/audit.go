package intervals

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/lp"
	"github.com/sdcaudit/sdcaudit/internal/unionfind"
)

// ErrInconsistent reports a table whose published cells admit no
// non-negative values for the suppressed cells.
var ErrInconsistent = errors.New("published cells contradict the margins")

// Audit computes, for every suppressed cell of t (primary,
// secondary, or carrying a suppression marker or no value), its
// feasibility interval given every published cell, the additive relations
// of the table and non-negativity, and checks it against the cell's
// protection levels.
//
// Relations with a single suppressed cell give it away exactly; these are
// resolved first in exact decimal arithmetic, repeatedly. Interval
// propagation through the relations then gives every other cell sound
// outer bounds. The remaining cells are split into connected components;
// small ones (and those of received tables) are solved by linear
// programming (two objectives per cell, warm-started). In large components
// with known values a cell is settled without LP when a balanced move
// through suppressed cells proves its protection (inner bound) or the
// outer bounds prove it unprotected; only the others get LPs: one sparse
// LP over the whole component (lp.Sparse), or neighbourhood LPs if that
// fails (see docs/suppression.md). The LP is floating point: a cell is
// reported exact when Hi - Lo is below 1e-9 times the largest magnitude in
// the table.
//
// With opt.TimeLimit set, cells not settled when it runs out are returned
// with Undetermined set; cancelling ctx returns ctx.Err().
func Audit(ctx context.Context, t *audit.Table, opt Options) (audit.Intervals, error) {
	opt.exact = true
	res, _, err := audit1(ctx, t, opt)
	return res, err
}

// AuditVerdicts is Audit for a suppression method comparing patterns:
// every verdict is settled as by Audit, but the cells of large components
// get exact bounds only where their verdicts need them (as Check). full
// reports whether the result is Audit's, byte for byte: no cell was left
// with bounds that Audit would have made exact.
func AuditVerdicts(ctx context.Context, t *audit.Table, opt Options) (res audit.Intervals, full bool, err error) {
	opt.exact = false
	return audit1(ctx, t, opt)
}

// audit1 is Audit and AuditVerdicts (opt.exact says which).
func audit1(ctx context.Context, t *audit.Table, opt Options) (audit.Intervals, bool, error) {
	res := audit.Intervals{Dims: t.Dims}
	if err := opt.validate(); err != nil {
		return res, false, err
	}
	s, err := newStructure(t, opt)
	if err != nil {
		return res, false, err
	}
	sup := make([]bool, len(t.Cells))
	for i := range t.Cells {
		sup[i] = s.IsSuppressed(i)
	}
	iv, err := s.intervals(ctx, sup, opt)
	if err != nil {
		return res, false, err
	}
	if opt.stats != nil {
		opt.stats(iv)
	}
	res.Warnings = iv.warnings
	if st := t.Structure; st != nil && len(st.Unconfirmed) > 0 {
		res.Warnings = append(res.Warnings, unconfirmedWarning(st.Unconfirmed))
	}
	for i, c := range t.Cells {
		if !sup[i] || s.Unpublished(i) {
			continue
		}
		r := audit.Interval{Key: c.Key, Lo: iv.lo[i], Hi: iv.hi[i], Status: c.Status}
		r.Exact = iv.ohi[i]-iv.olo[i] <= iv.tol
		if r.Exact {
			r.Lo, r.Hi = iv.olo[i], iv.olo[i]
		} else {
			r.Approximate = math.Abs(iv.lo[i]-iv.olo[i]) > iv.tol ||
				!(math.Abs(iv.hi[i]-iv.ohi[i]) <= iv.tol || math.IsInf(iv.hi[i], 1) && math.IsInf(iv.ohi[i], 1))
		}
		r.Undetermined = iv.undet[i] && !r.Exact
		needs := c.Status != audit.StatusSecondary
		switch {
		case s.Known[i]:
			r.Value, r.HasValue = s.Val[i], true
			if needs {
				r.Upper, r.Lower = s.levels(opt, i, r.Value)
				if s.isSigned(i) {
					r.Lower = r.Upper // no floor at 0 below a cell that may be negative
				}
				r.Protected = !r.Exact && r.Hi >= r.Value+r.Upper-levelTol(iv.tol, r.Upper) && r.Lo <= r.Value-r.Lower+levelTol(iv.tol, r.Lower)
			} else {
				r.Protected = !r.Exact && r.Hi-r.Lo > iv.tol
			}
		case math.IsInf(r.Hi, 1):
			r.Protected = !r.Exact
		default:
			// True value unknown (received table): the interval must hold
			// the protection range around its midpoint.
			mid := (r.Lo + r.Hi) / 2
			up, low := opt.Protection.Levels(nil, mid)
			if s.isSigned(i) {
				low = up // no floor at 0 below a cell that may be negative
			}
			r.Upper, r.Lower = up, low
			r.Protected = !r.Exact && r.Hi-r.Lo >= up+low-levelTol(iv.tol, up+low)
		}
		if st := t.Structure; st != nil && len(st.Unconfirmed) > 0 && !r.Exact {
			r.Undetermined = true // relations missing (rounded totals not confirmed): audit_rounded.go
		}
		if r.Undetermined {
			r.Protected, r.Approximate = false, false
		}
		if r.Status.Effective() == audit.StatusOK || r.Status == audit.StatusReview {
			r.Status = audit.StatusMarked
		}
		res.Add(r)
	}
	return res, !iv.partial, nil
}

// levels returns the protection levels of cell i with value x.
func (s *structure) levels(opt Options, i int, x float64) (float64, float64) {
	c := s.T.Cells[i]
	if s.Role != audit.RoleTotal {
		c = nil
	}
	return opt.Protection.Levels(c, x)
}

// intervalSet holds the audit of every cell (only suppressed ones are set):
// inner bounds [lo, hi] (every value inside is feasible; the reported
// interval) and outer bounds [olo, ohi] (every feasible value lies inside).
// They coincide where the cell's interval is known exactly.
type intervalSet struct {
	lo, hi   []float64
	olo, ohi []float64
	// undet marks cells not settled: neither protection proven by the inner
	// bounds nor its failure by the outer ones.
	undet    []bool
	tol      float64
	warnings []string
	// partial is set when a large component's cells were left with
	// inner and outer bounds apart because only verdicts were asked for
	// (Options.exact unset): Audit's result would differ.
	partial bool
	// stats
	components, largest, lps, witnessed int
	// sparse counts the cells given to the sparse whole-component LP;
	// bulkLPs and bulkIters the LPs and simplex iterations of its bulk
	// phase (sparseRun.bulk).
	sparse, bulkLPs, bulkIters int
	// bulkPooled counts the bulk LPs of a low lane turned high (the
	// pooled budget, Tuning.BulkSplit unset).
	bulkPooled int
	// bulkSkipped counts the components whose bulk phase had fewer
	// iterations than targets and did not run.
	bulkSkipped int
	// chunkIters counts the simplex iterations of the sparse LP's
	// chunks (one LP per cell side); chunks the chunks, chunksStarted
	// those that cloned the solver, chunksSolving those that solved an LP.
	chunkIters                           int
	chunks, chunksStarted, chunksSolving int
}

// settled reports whether cell i's verdict is proven: exact, protected by
// its inner bounds, or unprotected by its outer bounds. up and down are the
// levels required (a secondary cell, sec, needs only not to be exact).
func (iv *intervalSet) settled(i int, x, up, down float64, sec bool) bool {
	if iv.ohi[i]-iv.olo[i] <= iv.tol {
		return true
	}
	if sec {
		return iv.hi[i]-iv.lo[i] > iv.tol
	}
	wide := iv.hi[i]-iv.lo[i] > iv.tol
	inner := iv.hi[i] >= x+up-iv.tol && iv.lo[i] <= x-down+iv.tol && wide
	// Unprotected, and the label too: under-protected needs an inner
	// interval of non-zero width (otherwise the cell may be exact).
	return inner || iv.outerFails(i, x, up, down) && wide
}

// outerFails reports whether cell i's outer bounds miss a level.
func (iv *intervalSet) outerFails(i int, x, up, down float64) bool {
	return iv.ohi[i] < x+up-iv.tol || iv.olo[i] > x-down+iv.tol
}

// intervals computes the bounds of every cell with sup set.
func (s *structure) intervals(ctx context.Context, sup []bool, opt Options) (*intervalSet, error) {
	if opt.Rounded > 0 || s.hasSigned(sup) {
		return s.roundedIntervals(ctx, sup, opt)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = 2
	}
	bctx := ctx
	if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	n := len(s.T.Cells)
	iv := &intervalSet{lo: make([]float64, n), hi: make([]float64, n), olo: make([]float64, n), ohi: make([]float64, n), undet: make([]bool, n)}
	scale := s.Scale()
	iv.tol = 1e-9 * scale
	warn := func(format string, args ...any) {
		if len(iv.warnings) < 20 {
			iv.warnings = append(iv.warnings, fmt.Sprintf(format, args...))
		}
	}
	resid, free, fixed := s.prepass(sup, iv, warn)
	residF := s.startBounds(sup, fixed, free, resid, iv)
	list := s.components(sup, fixed, free)
	iv.components = len(list)
	if len(list) > 0 {
		iv.largest = len(list[0])
	}
	need := func(i int) (up, down float64, sec bool) {
		if s.T.Cells[i].Status == audit.StatusSecondary || s.Unpublished(i) {
			return 0, 0, true
		}
		up, down = s.levels(opt, i, s.Val[i])
		return up, down, false
	}
	env := &auditEnv{sup: sup, fixed: fixed, resid: resid, residF: residF, free: free, iv: iv, need: need, exact: opt.exact, tune: opt.tuning()}
	serr := s.solveComponents(bctx, list, env, workers)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if serr != nil && !(bctx.Err() != nil && errors.Is(serr, context.DeadlineExceeded)) {
		return nil, serr
	}
	if bctx.Err() != nil {
		iv.noteHardStop(opt.TimeLimit)
	}
	s.snapAll(sup, iv)
	return iv, nil
}

// startBounds sets the starting bounds of every suppressed cell not fixed
// by the prepass: outer bounds by interval propagation, inner bounds at the
// true value (or, unknown, at the outer bounds, reported only while the
// cell is undetermined). It returns the residuals as floats.
func (s *structure) startBounds(sup, fixed []bool, free []int, resid []decimal.Dec, iv *intervalSet) []float64 {
	n := len(s.T.Cells)
	residF := make([]float64, len(s.Rels))
	for r := range resid {
		residF[r] = resid[r].Float64()
	}
	for i := 0; i < n; i++ {
		if sup[i] && !fixed[i] {
			iv.olo[i], iv.ohi[i] = 0, math.Inf(1)
			iv.undet[i] = true
		}
	}
	s.propagate(sup, fixed, residF, free, iv.olo, iv.ohi, iv.tol, 30)
	for i := 0; i < n; i++ {
		if sup[i] && !fixed[i] {
			if s.Known[i] {
				iv.lo[i], iv.hi[i] = s.Val[i], s.Val[i]
			} else {
				iv.lo[i], iv.hi[i] = iv.olo[i], iv.ohi[i]
			}
		}
	}
	return residF
}

// solveComponents solves the components of list (largest first) under
// bctx: small ones concurrently on up to workers goroutines, each with one
// worker inside; large ones (200 cells or more, when workers > 1) one at a
// time in order with every worker inside. It adds the LPs solved to
// env.iv.lps and returns the first error met, if any.
func (s *structure) solveComponents(bctx context.Context, list [][]int, env *auditEnv, workers int) error {
	iv := env.iv
	var mu sync.Mutex
	solve := func(ctx context.Context, comp []int, split int) error {
		lps, err := s.solveComponent(ctx, comp, env, split)
		mu.Lock()
		iv.lps += lps
		mu.Unlock()
		return err
	}
	g, gctx := errgroup.WithContext(bctx)
	g.SetLimit(workers)
	var serr error
	for _, comp := range list {
		if err := gctx.Err(); err != nil {
			break
		}
		if len(comp) >= 200 && workers > 1 {
			// Large components use every worker inside.
			if err := solve(gctx, comp, workers); err != nil {
				serr = err
				break
			}
			continue
		}
		g.Go(func() error { return solve(gctx, comp, 1) })
	}
	if err := g.Wait(); err != nil && serr == nil {
		serr = err
	}
	return serr
}

// noteHardStop puts first among the warnings (at most 20 kept) that the
// user's hard stop, the time limit limit, fired: what it cut depends on the
// machine, and the report says so.
func (iv *intervalSet) noteHardStop(limit time.Duration) {
	open := 0
	for i := range iv.undet {
		if iv.undet[i] {
			open++
		}
	}
	msg := fmt.Sprintf("interval audit: the time limit of %v (a hard stop) ran out; %d suppressed cells not settled by then are undetermined (on another machine the audit may settle more)", limit, open)
	iv.warnings = append([]string{msg}, iv.warnings...)
	if len(iv.warnings) > 20 {
		iv.warnings = iv.warnings[:20]
	}
}

// prepass computes the residual of every relation over the published cells
// (exactly) and its number of unknown cells, and gives every cell alone in
// a relation exactly, repeatedly; such cells are fixed, with lo = hi.
func (s *structure) prepass(sup []bool, iv *intervalSet, warn func(string, ...any)) (resid []decimal.Dec, free []int, fixed []bool) {
	n := len(s.T.Cells)
	// Residual of each relation over the published cells, exactly.
	resid = make([]decimal.Dec, len(s.Rels))
	free = make([]int, len(s.Rels))
	for r, rel := range s.Rels {
		add := func(i int, coef int) {
			if sup[i] {
				free[r]++
				return
			}
			if coef > 0 {
				resid[r] = resid[r].Sub(s.Dec[i])
			} else {
				resid[r] = resid[r].Add(s.Dec[i])
			}
		}
		add(rel.Total, 1)
		for _, j := range rel.Parts {
			add(j, -1)
		}
		if free[r] == 0 && !resid[r].IsZero() {
			warn("%s: published cells do not add up (difference %s)", s.Describe(r), resid[r].Neg())
		}
	}
	// Pre-pass: a relation with one unknown cell gives it exactly.
	fixed = make([]bool, n)
	var queue []int
	for r := range s.Rels {
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
		for _, i := range s.RelCells(r) {
			if sup[i] && !fixed[i] {
				v = i
				break
			}
		}
		x := resid[r]
		if s.Coef(r, v) < 0 {
			x = x.Neg()
		}
		fixed[v] = true
		f := x.Float64()
		iv.lo[v], iv.hi[v] = f, f
		iv.olo[v], iv.ohi[v] = f, f
		if x.Sign() < 0 {
			warn("%s is recomputed as %s, a negative value", s.T.KeyString(s.T.Cells[v].Key), x)
		}
		for _, r2 := range s.CellRels[v] {
			if s.Coef(int(r2), v) > 0 {
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
					warn("%s: recomputed cells do not add up (difference %s)", s.Describe(int(r2)), resid[r2].Neg())
				}
			}
		}
	}
	return resid, free, fixed
}

// components splits the unknown cells that are not fixed into connected
// components (cells linked by a relation with two or more unknowns),
// largest first.
func (s *structure) components(sup, fixed []bool, free []int) [][]int {
	n := len(s.T.Cells)
	// Components of the remaining unknown cells.
	uf := unionfind.New(n)
	for r := range s.Rels {
		if free[r] < 2 {
			continue
		}
		first := -1
		for _, i := range s.RelCells(r) {
			if sup[i] && !fixed[i] {
				if first < 0 {
					first = i
				} else {
					uf.Union(first, i)
				}
			}
		}
	}
	comps := map[int][]int{}
	for i := 0; i < n; i++ {
		if sup[i] && !fixed[i] {
			root := uf.Find(i)
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
	return list
}

// snapAll rounds every bound to the table's decimal places where it is
// within the tolerance of them.
func (s *structure) snapAll(sup []bool, iv *intervalSet) {
	places := 0
	for i, d := range s.Dec {
		if s.Known[i] && d.Scale() > places {
			places = d.Scale()
		}
	}
	for i := range iv.lo {
		if sup[i] {
			iv.lo[i] = snap(iv.lo[i], places, iv.tol)
			iv.hi[i] = snap(iv.hi[i], places, iv.tol)
			iv.olo[i] = snap(iv.olo[i], places, iv.tol)
			iv.ohi[i] = snap(iv.ohi[i], places, iv.tol)
		}
	}
}

// auditEnv is the state shared by the component solvers.
type auditEnv struct {
	sup, fixed []bool
	resid      []decimal.Dec
	residF     []float64
	free       []int
	iv         *intervalSet
	need       func(i int) (up, down float64, sec bool)
	// exact asks for exact bounds beyond the verdicts (Options.exact).
	exact bool
	// tune bounds the work (Options.Tuning).
	tune Tuning
	mu   sync.Mutex
	// lines holds the witness searches' line lists (linemoves.go), made
	// on first use.
	lines     *lineCache
	linesOnce sync.Once
}

// lineCache returns the audit's line lists (nil: the enumeration).
func (env *auditEnv) lineCache(s *structure) *lineCache {
	env.linesOnce.Do(func() { env.lines = newLineCache(s, env.sup) })
	return env.lines
}

// warn adds a warning to the audit (safe for concurrent use).
func (env *auditEnv) warn(msg string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if len(env.iv.warnings) < 20 {
		env.iv.warnings = append(env.iv.warnings, msg)
	}
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

// solveComponent finds lo and hi of every cell in comp by LP. split > 1
// shares the objectives among that many copies of the solved basis.
func (s *structure) solveComponent(ctx context.Context, comp []int, env *auditEnv, split int) (int, error) {
	iv := env.iv
	known := true
	for _, i := range comp {
		known = known && s.Known[i]
	}
	if known && len(comp) > env.tune.LargeComponent {
		return s.solveLarge(ctx, comp, env, split)
	}
	if len(comp) > env.tune.LargeComponent {
		// Unknown values (or true values that do not fit): one sparse LP
		// from a phase 1 (its tableau would grow with the square of the
		// cells in the dense solver).
		return s.solveUnknown(ctx, comp, env, split)
	}
	inF := func(int) bool { return true }
	rows, rowRel := s.compRows(comp, env.sup, env.fixed, env.resid, env.free, inF, false)
	if len(rows) == 0 {
		for _, i := range comp {
			iv.lo[i], iv.hi[i] = 0, math.Inf(1)
			iv.olo[i], iv.ohi[i] = 0, math.Inf(1)
			iv.undet[i] = false
		}
		return 0, nil
	}
	var x0 []float64
	if known {
		for _, i := range comp {
			x0 = append(x0, s.Val[i])
		}
	}
	return s.solveRange(ctx, comp, env, rows, rowRel, x0, split)
}

// solveRange sets the interval of every cell of comp from the LP rows
// (from the feasible point x0, or from a phase 1 when x0 is nil).
func (s *structure) solveRange(ctx context.Context, comp []int, env *auditEnv, rows []lp.Row, rowRel []int, x0 []float64, split int) (int, error) {
	iv := env.iv
	targets := make([]int, 0, len(comp))
	for j, i := range comp {
		if s.Unpublished(i) {
			iv.undet[i] = false // needs no interval
		} else {
			targets = append(targets, j)
		}
	}
	lo, hi, lps, err := rangeLP(ctx, len(comp), rows, x0, targets, iv.tol, split)
	if err != nil {
		if errors.Is(err, lp.ErrInfeasible) {
			return 0, fmt.Errorf("table %s: %w: no non-negative values of the suppressed cells around %s satisfy %s (if the table is rounded, say so with input.rounded)",
				s.T.Name, ErrInconsistent, s.T.KeyString(s.T.Cells[comp[0]].Key), s.Describe(rowRel[0]))
		}
		return 0, fmt.Errorf("table %s: audit LP around %s: %w", s.T.Name, s.T.KeyString(s.T.Cells[comp[0]].Key), err)
	}
	for t, j := range targets {
		i := comp[j]
		iv.lo[i], iv.hi[i] = lo[t], hi[t]
		iv.olo[i], iv.ohi[i] = lo[t], hi[t]
		iv.undet[i] = false
	}
	return lps, nil
}

// compRows builds the LP rows of the relations with two or more unknown
// cells among comp, over the cells for which inF holds (local indices
// follow comp's order, cells outside inF dropped). With relax, relations
// that involve an unknown cell outside inF are left out (a relaxation);
// otherwise those cells are fixed at their true values.
func (s *structure) compRows(comp []int, sup, fixed []bool, resid []decimal.Dec, free []int, inF func(int) bool, relax bool) ([]lp.Row, []int) {
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
		for _, r := range s.CellRels[i] {
			if seen[r] || free[r] < 2 {
				continue
			}
			seen[r] = true
			row := lp.Row{RHS: resid[r].Float64()}
			skip := false
			for _, j := range s.RelCells(int(r)) {
				if !sup[j] || fixed[j] {
					continue
				}
				c := s.Coef(int(r), j)
				if l, ok := local[j]; ok {
					row.Idx = append(row.Idx, l)
					row.Coef = append(row.Coef, c)
				} else if relax {
					skip = true
					break
				} else {
					row.RHS -= c * s.Val[j]
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
	ub := outerUpperBounds(k, rows)
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
	if nt == 0 {
		return lo, hi, 0, nil
	}
	// The targets are cut into fixed chunks, each solved from its own copy
	// of the solved basis (all taken before any pivot), so that the LPs and
	// the bounds do not depend on split (the number of goroutines) or on
	// timing.
	parts := chunks(nt, 2*exactChunk)
	solvers := make([]*lp.Solver, len(parts))
	solvers[0] = base
	for c := 1; c < len(parts); c++ {
		solvers[c] = base.Clone()
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(split, 1))
	for c, part := range parts {
		rc := rangeChunk{sv: solvers[c], part: part, targets: targets, ub: ub, tol: tol, x0: x0, lo: lo, hi: hi}
		g.Go(func() error {
			n, err := rc.solve(gctx)
			mu.Lock()
			lps += n
			mu.Unlock()
			return err
		})
	}
	err = g.Wait()
	return lo, hi, lps, err
}

// outerUpperBounds returns, for each of the k variables, the smallest
// upper bound a single row implies: a row whose other variables all have
// the same sign as v bounds v by its right-hand side. Variables no row
// bounds get +Inf.
func outerUpperBounds(k int, rows []lp.Row) []float64 {
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
	return ub
}

// rangeChunk is one fixed chunk of rangeLP's targets, solved on its own
// solver; lo and hi are the shared result slices, of which the chunk
// writes only the entries part[0] <= a < part[1].
type rangeChunk struct {
	sv      *lp.Solver
	part    [2]int
	targets []int
	ub      []float64
	tol     float64
	// x0 is the point the LPs start from (the true values), nil when
	// unknown: it scales the scan's tolerances (scanTols)
	x0     []float64
	lo, hi []float64
}

// scanTols are the tolerances within which rangeChunk's scan settles a
// target's minimum at zero (lo) and its maximum at its single-row bound
// u (hi) from a vertex: the audit's (1e-9 of the table's largest value)
// but, where the cell's value x is known, at most 1e-9 of x (a minimum
// at zero moves the cell down by x) and of u - x (a maximum at u moves it
// up by u - x), so that a settled bound widens the intruder's move by
// at most a billionth of the move itself, below any verdict's tolerance
// (levelTol: a millionth of the level, which a protected move exceeds).
// With the table's tolerance alone a vertex at 78 settled a maximum at
// its row bound 79 on a table whose largest value is 1.5e9, and a primary
// of 71 whose intruder reaches 78 counted as protected at level 7.1;
// with 1e-9 of u, a primary of 1e10 whose row allows it 6 more but whose
// intruder reaches only 5 counted as protected at level 6. Unknown
// values (x0 nil): 1e-9 absolute for a minimum, 1e-9 of u for a
// maximum. A vertex outside them only costs the LP of that bound.
func scanTols(tol, u float64, x0 []float64, j int) (lo, hi float64) {
	if x0 == nil {
		return min(tol, 1e-9), min(tol, 1e-9*max(1, math.Abs(u)))
	}
	x := x0[j]
	return min(tol, 1e-9*math.Abs(x)), min(tol, 1e-9*math.Abs(u-x))
}

// solve minimizes and maximizes each target of the chunk in turn, after
// each finite optimum settling every target that the current vertex
// already puts at zero or at its outer upper bound. It returns the number
// of LPs solved, counted also when it fails.
func (rc *rangeChunk) solve(ctx context.Context) (n int, err error) {
	nt := len(rc.targets)
	loDone := make([]bool, nt)
	hiDone := make([]bool, nt)
	scan := func() {
		for a := rc.part[0]; a < rc.part[1]; a++ {
			j := rc.targets[a]
			v, u := rc.sv.Value(j), rc.ub[j]
			loTol, hiTol := scanTols(rc.tol, u, rc.x0, j)
			if !loDone[a] && v <= loTol {
				loDone[a], rc.lo[a] = true, 0
			}
			if !hiDone[a] && v >= u-hiTol {
				hiDone[a], rc.hi[a] = true, u
			}
		}
	}
	scan()
	for a := rc.part[0]; a < rc.part[1]; a++ {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		for _, max := range []bool{true, false} {
			if max && hiDone[a] || !max && loDone[a] {
				continue
			}
			v, err := rc.sv.Optimize(ctx, rc.targets[a], max)
			n++
			if err != nil {
				return n, err
			}
			if max {
				hiDone[a], rc.hi[a] = true, v
			} else {
				loDone[a], rc.lo[a] = true, math.Max(v, 0)
			}
			if !math.IsInf(v, 1) {
				scan()
			}
		}
	}
	return n, nil
}

// levelTol is the float tolerance of a protection verdict: the audit's
// tolerance (1e-9 of the table's largest value) but at most a millionth
// of the protection level itself. A table whose largest value is 6e9
// has a tolerance of 6, which let a primary whose level is 10 count as
// protected when the intruder's interval reached only 5 beyond it.
// Float noise above a millionth of the level makes a cell unprotected,
// the safe side.
func levelTol(tol, level float64) float64 {
	return min(tol, 1e-6*math.Abs(level))
}
