package intervals

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// exactChunk is the number of target cells one chunk of an exact range
// computation takes. Chunks are fixed by the targets alone and each starts
// from its own copy of the solver at the starting point, so that the LPs
// solved, and every bound found, are the same whatever the number of
// workers or their scheduling (workers only decide which goroutine runs a
// chunk).
const exactChunk = 32

// chunks splits n targets into consecutive chunks of size at most size.
func chunks(n, size int) [][2]int {
	var out [][2]int
	for a := 0; a < n; a += size {
		out = append(out, [2]int{a, min(a+size, n)})
	}
	return out
}

// sparseComponent gives every cell of targets (cells of comp) its exact
// interval with one sparse LP over the whole component (lp.Sparse, a
// revised simplex with a sparse LU basis): its minimum and its maximum,
// each solved to the optimum, unless a feasible point already reaches the
// cell's outer bound on that side (a proof: lo = olo, e.g. a point where
// the cell is 0, or hi = the bound propagation gives). The start is the
// true values when known (x0 set; they are a feasible point), else a
// phase 1 (lp.NewSparse). Every point the simplex reaches is feasible, so
// it widens the inner bounds of every cell of the component. The targets
// are split into fixed chunks (exactChunk), each solved from its own copy
// of the starting solver and reading only the bounds known before the
// chunks began, and the chunks' bounds are merged by hull (inner) and by
// the LP optima (outer): the result does not depend on the worker count or
// timing. It returns the number of LPs; a failure of the solver (iteration
// limit, singular basis) on a cell leaves that cell's side inexact (its
// verdict then rests on the bounds known) and is reported as a warning;
// a failure to start is returned as errSparse.
func (s *structure) sparseComponent(ctx context.Context, comp, targets []int, env *auditEnv, workers int, x0 []float64) (int, error) {
	inF := func(int) bool { return true }
	rows, rowRel := s.compRows(comp, env.sup, env.fixed, env.resid, env.free, inF, false)
	if len(rows) == 0 {
		return 0, nil
	}
	local := make(map[int]int, len(comp))
	for l, i := range comp {
		local[i] = l
	}
	base, err := s.sparseStart(ctx, comp, rows, rowRel, env, x0)
	if err != nil {
		return 0, err
	}
	r := newSparseRun(s, comp, targets, local, env, base, x0)
	if env.exact || x0 == nil {
		blps, biters, err := r.bulk(ctx, comp, workers)
		r.lps += blps
		env.mu.Lock()
		env.iv.bulkLPs += blps
		env.iv.bulkIters += biters
		env.iv.bulkPooled += r.pooledLPs
		if r.bulkSkipped {
			env.iv.bulkSkipped++
		}
		env.mu.Unlock()
		if err != nil {
			r.finish(comp) // the bounds found before the stop stand
			return r.lps, err
		}
		if blps > 0 {
			copy(r.alo, r.slo)
			copy(r.ahi, r.shi)
			r.dropSettled()
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	parts := chunks(len(r.tl), exactChunk)
	for _, ch := range parts {
		g.Go(func() error {
			return r.newChunk(ch, len(parts)).solve(gctx)
		})
	}
	werr := g.Wait()
	r.finish(comp)
	env.mu.Lock()
	env.iv.chunkIters += r.iters
	env.iv.chunks += r.chunks
	env.iv.chunksStarted += r.started
	env.iv.chunksSolving += r.solving
	env.mu.Unlock()
	if werr != nil {
		return r.lps, werr
	}
	if r.failed > 0 {
		env.warn(fmt.Sprintf("interval audit: %d of the LPs around %s failed (%v); those bounds are inner bounds only",
			r.failed, s.T.KeyString(s.T.Cells[comp[0]].Key), r.firstErr))
	}
	return r.lps, nil
}

// sparseStart returns the starting solver of sparseComponent over the rows
// of comp: at x0 when given, else after a phase 1. A start that fails is
// the context's error, an inconsistent table (no feasible point, found by
// phase 1) or errSparse.
func (s *structure) sparseStart(ctx context.Context, comp []int, rows []lp.Row, rowRel []int, env *auditEnv, x0 []float64) (*lp.Sparse, error) {
	var base *lp.Sparse
	var err error
	if x0 != nil {
		base, err = lp.NewSparseAt(ctx, len(comp), rows, x0)
		if err == nil {
			base.Dantzig = env.tune.Dantzig
		}
	} else {
		base, err = lp.NewSparseOpt(ctx, len(comp), rows, env.tune.Phase1Iters, lp.SparseOptions{Dantzig: env.tune.Dantzig})
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if x0 == nil && errors.Is(err, lp.ErrInfeasible) {
			return nil, fmt.Errorf("table %s: %w: no non-negative values of the suppressed cells around %s satisfy %s",
				s.T.Name, ErrInconsistent, s.T.KeyString(s.T.Cells[comp[0]].Key), s.Describe(rowRel[0]))
		}
		return nil, fmt.Errorf("%w: %w", errSparse, err)
	}
	return base, nil
}

// sparseRun is the state sparseComponent's chunks share, indexed by the
// local number of a cell of the component: what is known before the
// chunks (read only while they run) and what they accumulate (under mu).
type sparseRun struct {
	s   *structure
	env *auditEnv
	// base is the starting solver, each chunk working on a clone.
	base *lp.Sparse
	// verdicts is set when the start is the true values (x0): the
	// undetermined targets' verdicts are then settled first.
	verdicts bool
	targets  []int
	// tl holds the local number of each target.
	tl []int
	// Bounds known before the chunks: inner [slo, shi] (the starting
	// point included) and outer [solo, sohi].
	slo, shi, solo, sohi []float64

	mu sync.Mutex
	// Accumulated results: inner hull over every chunk, outer optima of
	// each target (NaN: not solved), LPs, failures and the first one.
	alo, ahi, aolo, aohi []float64
	lps, failed          int
	firstErr             error
	// iters counts the chunks' simplex iterations.
	iters int
	// chunks counts the chunks, started those that made their clone of
	// the solver (sparseChunk.start), solving those that solved an LP.
	chunks, started, solving int
	// pooledLPs counts the bulk phase's LPs of its low lane turned high.
	pooledLPs int
	// bulkSkipped: the bulk phase's budget was below one iteration per
	// target (bulk).
	bulkSkipped bool
}

// newSparseRun sets up the shared state of sparseComponent's chunks over
// comp (local: the local number of each cell) from base and the bounds in
// env.iv.
func newSparseRun(s *structure, comp, targets []int, local map[int]int, env *auditEnv, base *lp.Sparse, x0 []float64) *sparseRun {
	iv := env.iv
	n := len(comp)
	r := &sparseRun{s: s, env: env, base: base, verdicts: x0 != nil, targets: targets}
	r.slo, r.shi = make([]float64, n), make([]float64, n)
	r.solo, r.sohi = make([]float64, n), make([]float64, n)
	for l, i := range comp {
		v := base.Value(l)
		if x0 != nil {
			r.slo[l], r.shi[l] = math.Min(iv.lo[i], v), math.Max(iv.hi[i], v)
		} else {
			r.slo[l], r.shi[l] = v, v // iv.lo/hi hold outer bounds only
		}
		r.solo[l], r.sohi[l] = iv.olo[i], iv.ohi[i]
	}
	r.alo, r.ahi = append([]float64(nil), r.slo...), append([]float64(nil), r.shi...)
	r.aolo, r.aohi = make([]float64, n), make([]float64, n)
	for l := range r.aolo {
		r.aolo[l], r.aohi[l] = math.NaN(), math.NaN()
	}
	r.tl = make([]int, len(targets))
	for a, i := range targets {
		r.tl[a] = local[i]
	}
	return r
}

// finish writes the accumulated bounds of the cells of comp into env.iv:
// outer bounds tightened by the optima found (never inside the inner
// hull), inner bounds the hull cut to the outer bounds.
func (r *sparseRun) finish(comp []int) {
	iv := r.env.iv
	for l, i := range comp {
		if !math.IsNaN(r.aolo[l]) {
			iv.olo[i] = math.Max(iv.olo[i], math.Min(r.aolo[l], r.alo[l]))
		}
		if !math.IsNaN(r.aohi[l]) {
			iv.ohi[i] = math.Min(iv.ohi[i], math.Max(r.aohi[l], r.ahi[l]))
		}
		iv.lo[i] = math.Max(r.alo[l], iv.olo[i])
		iv.hi[i] = math.Min(r.ahi[l], iv.ohi[i])
	}
}

// sparseChunk is one fixed chunk of sparseComponent's targets,
// tl[ch[0]:ch[1]], solved on its own clone of the starting solver: its
// inner bounds lo, hi (starting from those known before the chunks), the
// outer optima it found, its LPs and failures, and its iteration budget.
// The clone and the bounds (each as long as the component) are made at
// the chunk's first LP (start): a chunk that solves none, such as every
// chunk of a component whose scaled ExactBudget leaves each chunk no
// iteration, reads the bounds known before the chunks and costs nothing
// in proportion to the component (the million-cell table: about 20,000
// chunks of a component of 630,000 cells).
type sparseChunk struct {
	r             *sparseRun
	ch            [2]int
	sv            *lp.Sparse
	lo, hi        []float64
	olo, ohi      map[int]float64
	nlp, nfail    int
	ferr          error
	budget, spent int
	// iters counts every iteration of the chunk (limited or not).
	iters int
}

// newChunk starts chunk ch of the nparts chunks: a clone of the starting
// solver and an iteration budget of ExactIters per target, at most an
// equal share of ExactBudget (none when the start is the true values and
// only verdicts are asked for).
func (r *sparseRun) newChunk(ch [2]int, nparts int) *sparseChunk {
	c := &sparseChunk{r: r, ch: ch, olo: map[int]float64{}, ohi: map[int]float64{}}
	c.budget = min(r.work(r.env.tune.ExactIters)*(ch[1]-ch[0]), r.work(r.env.tune.ExactBudget)/nparts)
	if r.verdicts && !r.env.exact {
		c.budget = 0 // verdicts only
	}
	return c
}

// start makes the chunk's clone of the starting solver and its own inner
// bounds, once, before its first LP.
func (c *sparseChunk) start() {
	if c.sv != nil {
		return
	}
	c.sv = c.r.base.Clone()
	c.lo, c.hi = append([]float64(nil), c.r.slo...), append([]float64(nil), c.r.shi...)
}

// loOf and hiOf are the chunk's inner bounds of local cell l: those known
// before the chunks until its first LP.
func (c *sparseChunk) loOf(l int) float64 {
	if c.lo == nil {
		return c.r.slo[l]
	}
	return c.lo[l]
}

func (c *sparseChunk) hiOf(l int) float64 {
	if c.hi == nil {
		return c.r.shi[l]
	}
	return c.hi[l]
}

// hull widens the chunk's inner bounds by the solver's current point.
func (c *sparseChunk) hull() {
	for l := range c.lo {
		v := c.sv.Value(l)
		c.lo[l] = math.Min(c.lo[l], v)
		c.hi[l] = math.Max(c.hi[l], v)
	}
}

// merge adds the chunk's results to the shared ones.
func (c *sparseChunk) merge() {
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for l := range c.lo { // none before the chunk's first LP
		r.alo[l] = math.Min(r.alo[l], c.lo[l])
		r.ahi[l] = math.Max(r.ahi[l], c.hi[l])
	}
	for l, v := range c.olo {
		r.aolo[l] = v
	}
	for l, v := range c.ohi {
		r.aohi[l] = v
	}
	r.lps += c.nlp
	r.iters += c.iters
	r.chunks++
	if c.sv != nil {
		r.started++
	}
	if c.nlp > 0 {
		r.solving++
	}
	r.failed += c.nfail
	if r.firstErr == nil && c.ferr != nil {
		r.firstErr = c.ferr
	}
}

// solve settles the chunk's targets in order: for an undetermined target
// of a run started at the true values, its verdict first, then its exact
// bounds within the chunk's budget. It merges its results also when ctx
// ends it.
func (c *sparseChunk) solve(ctx context.Context) error {
	r := c.r
	for a, l := range r.tl[c.ch[0]:c.ch[1]] {
		if err := ctx.Err(); err != nil {
			c.merge()
			return err
		}
		i := r.targets[c.ch[0]+a]
		if r.verdicts && r.env.iv.undet[i] {
			c.verdict(ctx, l, i)
		}
		c.exact(ctx, l)
	}
	c.merge()
	return nil
}

// run runs one objective on local variable l to target (NaN: the optimum)
// and widens the bounds by the point reached; limited, it counts against
// the chunk's budget. It reports false when the objective did not finish
// (budget or failure); a failure other than the budget or ctx is counted
// and the chunk starts afresh from a new clone.
func (c *sparseChunk) run(ctx context.Context, l int, max bool, target float64, limited bool) (float64, bool) {
	if limited && c.spent >= c.budget {
		return 0, false
	}
	c.start()
	c.sv.IterLimit = 0
	if limited {
		c.sv.IterLimit = c.sv.Iters + c.budget - c.spent
	}
	before := c.sv.Iters
	v, err := c.sv.OptimizeTo(ctx, l, max, target)
	c.nlp++
	c.iters += c.sv.Iters - before
	if limited {
		c.spent += c.sv.Iters - before
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, lp.ErrIterations) && limited {
			c.hull() // the point reached is feasible
			return 0, false
		}
		// This objective failed: start afresh.
		c.nfail++
		if c.ferr == nil {
			c.ferr = err
		}
		c.sv = c.r.base.Clone()
		return 0, false
	}
	if !math.IsInf(v, 1) {
		c.hull()
	}
	return v, true
}

// verdict settles the verdict of target cell i (local l), not counted
// against the budget: each side to its protection level, a feasible point
// there proves it, or to the optimum.
func (c *sparseChunk) verdict(ctx context.Context, l, i int) {
	r := c.r
	iv := r.env.iv
	tol := iv.tol
	x := r.s.Val[i]
	up, down, sec := r.env.need(i)
	if sec || iv.outerFails(i, x, up, down) {
		up, down, sec = 0, 0, true
	}
	tU := x + math.Max(up, 2*tol)
	tD := x - math.Max(down, 2*tol)
	if c.hiOf(l) < tU && c.hiOf(l) < r.sohi[l]-tol {
		if v, ok := c.run(ctx, l, true, tU, false); ok && v < tU {
			c.ohi[l] = v
		} else if ok && math.IsInf(v, 1) {
			c.hi[l], c.ohi[l] = v, v
		}
	}
	if !(sec && c.hiOf(l) >= tU) && c.loOf(l) > tD && c.loOf(l) > r.solo[l]+tol {
		if v, ok := c.run(ctx, l, false, tD, false); ok && v > tD {
			c.olo[l] = math.Max(v, 0)
		}
	}
}

// exact solves the maximum and then the minimum of local variable l
// within the chunk's budget, each side not yet known and not already at
// its outer bound; it stops at the outer bound when reached (a proof).
func (c *sparseChunk) exact(ctx context.Context, l int) {
	r := c.r
	tol := r.env.iv.tol
	for _, max := range []bool{true, false} {
		if max {
			if _, done := c.ohi[l]; done || c.hiOf(l) >= r.sohi[l]-tol {
				continue
			}
		} else if _, done := c.olo[l]; done || c.loOf(l) <= r.solo[l]+tol {
			continue
		}
		// Stop at the outer bound when reached: a proof.
		target := r.solo[l]
		if max {
			target = r.sohi[l]
			if math.IsInf(target, 1) {
				target = math.NaN()
			}
		}
		v, ok := c.run(ctx, l, max, target, true)
		switch {
		case !ok:
		case math.IsInf(v, 1):
			c.hi[l], c.ohi[l] = v, v
		case max:
			c.ohi[l] = v
		default:
			c.olo[l] = math.Max(v, 0)
		}
	}
}

// errSparse marks a failure of the sparse solver (not of the table): the
// caller falls back to neighbourhood LPs.
var errSparse = errors.New("sparse audit LP failed")

// dropSettled removes from the run's targets those whose inner bounds
// already reach their outer bounds on both sides (exact), so that the
// fixed chunks hold only targets with work left.
func (r *sparseRun) dropSettled() {
	tol := r.env.iv.tol
	var tl, targets []int // new slices: the caller's targets stay whole
	for a, l := range r.tl {
		lo := r.slo[l] <= r.solo[l]+tol
		hi := r.shi[l] >= r.sohi[l]-tol || math.IsInf(r.shi[l], 1) && math.IsInf(r.sohi[l], 1)
		if !lo || !hi {
			tl, targets = append(tl, l), append(targets, r.targets[a])
		}
	}
	r.tl, r.targets = tl, targets
}

// workRows is the size, in LP rows, of the components for which the exact
// bounds' iteration budgets (Tuning.ExactIters, ExactBudget, BulkIters)
// are set; larger components, whose iterations cost in proportion to
// their rows, get proportionally fewer.
const workRows = 2500

// workEntries is the size, in nonzero entries of the constraint matrix,
// above which the budgets shrink in proportion to the entries too: a
// pivot row reads every entry, so on a component of few rows and many
// cells (the million-cell table, two dimensions of 1,000 codes: 2,001
// rows and 1,263,581 entries) an iteration costs in proportion to the
// cells, not the rows, and a budget scaled by rows alone does not bound
// the work (the exact bounds of that table's kept pattern ran for more
// than an hour). The budgets were set on components of up to workRows
// rows of three-dimensional tables, about 20 entries per row; every
// component of the tests has under 20,000 entries and keeps its budgets,
// and so does every component of the 50x40x10 table at any density
// (issue 25's exact audit at 1% to 50%): its 23,001 cells lie in three
// relations each, at most 69,003 entries.
const workEntries = 70_000

// work is the iteration budget b scaled to the run's component
// (scaledWork): deterministic counts, never a clock.
func (r *sparseRun) work(b int) int { return scaledWork(b, r.base.Rows(), r.base.Entries()) }

// scaledWork is the iteration budget b for a component of m LP rows and
// e nonzero entries: b up to workRows rows and workEntries entries,
// proportionally fewer above either, so that the budget bounds the
// work (iterations times rows, iterations times entries) whatever the
// component's shape.
func scaledWork(b, m, e int) int {
	w := b
	if m > workRows {
		w = int(int64(b) * workRows / int64(m))
	}
	if e > workEntries {
		w = min(w, int(int64(b)*workEntries/int64(e)))
	}
	return w
}
