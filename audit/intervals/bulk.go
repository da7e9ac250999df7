package intervals

import (
	"context"
	"errors"
	"math"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// bulkYield is the fewest bound sides a bulk LP must settle per this many
// simplex iterations for the bulk phase to go on: below it one LP per
// cell side (about 150 iterations each on received 50 x 40 x 10
// components, 340-370 on the kept patterns at 20% and 50% primaries, where
// the bulk LPs settle a side per 30-60 iterations until near the end) is
// cheaper. Components of up to workRows rows and Tuning.BulkSplit (the
// bulk phase of before) stop at 150.
const bulkYield = 300

// bulk settles many bounds at once before sparseComponent's chunks,
// deterministically: two lanes, each a clone of the starting solver with
// half of Tuning.BulkIters simplex iterations, solve one LP each per
// round (concurrently when workers > 1; the rounds are in lockstep, so
// the LPs do not depend on the worker count or on timing). Each LP's
// optimum is a feasible point, so it widens the inner bounds of every
// cell of the component (slo, shi); a side of a target is settled when
// its inner bound reaches its outer bound (solo, sohi: a proof, the
// interval there is exact). The lanes:
//
//   - minimise the sum of every target whose minimum is not reached: the
//     vertex reached puts hundreds of them at 0 (most outer lower bounds
//     are 0);
//   - maximise Σ x_l / sohi_l over targets whose maximum is not reached,
//     no two of them in one relation (so that each can reach its bound
//     with the others): the outer bounds of propagation are mostly the
//     true maxima, and a vertex reaches many of them.
//
// A lane stops when its LP settles fewer than one side per bulkYield
// iterations, when nothing is left for it, or when the budget or the
// solver fails (the bounds found so far stand); the chunks then solve
// what is left, one side per LP. It returns the LPs and the iterations.
//
// The budget is pooled: each round's LPs share what is left of it
// equally (fixed before the round). Once the low lane is through, it
// maximises too, over an independent set of the targets the high lane's
// objective leaves out, so that both workers keep busy: on the kept
// patterns of 50 x 40 x 10 at 20% and 50% primaries the minima are
// through after a few rounds while the high lane, settling a side per
// 30-60 iterations, had many more rounds to go (where one LP per side
// takes 340-370). Tuning.BulkSplit keeps the phase of before (half the
// budget per lane, the low lane idle once through, a side per 150
// iterations).
func (r *sparseRun) bulk(ctx context.Context, comp []int, workers int) (lps, iters int, err error) {
	budget := r.work(r.env.tune.BulkIters)
	if budget <= 0 || len(r.tl) == 0 {
		return 0, 0, nil
	}
	if budget < len(r.tl) {
		// Fewer iterations than targets: the low lane's first LP alone
		// (a vertex where hundreds of targets are at 0 takes about a
		// pivot per target moved there) cannot finish, and no side is
		// proven by a point that stops mid-way more cheaply than by the
		// chunks. On the million-cell table (630,000 targets, a budget
		// scaled to 55,398 iterations of 1.26 M entries each) the phase
		// ran for more than 245 CPU-s without finishing its first LPs.
		// The budgets were set on components of up to 23,001 cells, for
		// which this never holds (1,000,000 iterations).
		r.bulkSkipped = true
		return 0, 0, nil
	}
	lanes := [2]*bulkLane{{max: false}, {max: true}}
	for _, ln := range lanes {
		ln.sv = r.base.Clone()
		ln.sv.IterLimit = ln.sv.Iters + budget/2
	}
	pool := !r.env.tune.BulkSplit
	// A side per bulkYield iterations above workRows rows (where one LP
	// per side costs 340-370); smaller components, whose LPs per side
	// are cheaper, keep 150.
	yield := bulkYield
	if !pool || r.base.Rows() <= workRows {
		yield = 150
	}
	for {
		active := false
		var taken map[int]bool // targets of the max lanes of this round
		for k, ln := range lanes {
			if pool && ln.done && !ln.max && ln.err == nil && !ln.failed {
				// The low lane is through: from now on it maximises too,
				// over other targets than the high lane's.
				ln.max, ln.done, ln.converted = true, false, true
			}
			if !ln.done {
				if pool && ln.max && k > 0 && !lanes[0].done && lanes[0].max {
					taken = lanes[0].taken()
				}
				r.bulkObjective(ln, comp, taken)
				ln.done = len(ln.idx) == 0
			}
			active = active || !ln.done
		}
		if !active {
			return lps, iters, nil
		}
		if pool {
			// The budget left is shared equally by the lanes of the round
			// (fixed before it starts: the same whatever the scheduling).
			n := 0
			for _, ln := range lanes {
				if !ln.done {
					n++
				}
			}
			for _, ln := range lanes {
				ln.sv.IterLimit = ln.sv.Iters + max(budget-iters, 0)/n
			}
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(workers, 1))
		for _, ln := range lanes {
			if ln.done {
				continue
			}
			g.Go(func() error {
				it0 := ln.sv.Iters
				_, ln.err = ln.sv.MinimizeSum(gctx, ln.idx, ln.coef)
				ln.iters = ln.sv.Iters - it0
				return nil
			})
		}
		_ = g.Wait()
		if err := ctx.Err(); err != nil {
			return lps, iters, err
		}
		before := r.bulkOpen()
		for _, ln := range lanes {
			if ln.done {
				continue
			}
			lps++
			iters += ln.iters
			if ln.converted {
				r.pooledLPs++
			}
			if ln.err != nil && !errors.Is(ln.err, lp.ErrIterations) {
				ln.done, ln.failed = true, true // the solver failed: its point is not trusted
				continue
			}
			// The point reached is feasible (also when the budget ran out
			// mid-way); an unbounded objective leaves it in place.
			for l := range r.slo {
				v := ln.sv.Value(l)
				r.slo[l] = math.Min(r.slo[l], v)
				r.shi[l] = math.Max(r.shi[l], v)
			}
			after := r.bulkOpen()
			// no side settled is the lane's end, also after no
			// iteration (an LP already at its optimum would otherwise
			// be solved again, round after round, with the same
			// objective)
			if ln.err != nil || after == before || (before-after)*yield < ln.iters {
				ln.done = true
			}
			before = after
		}
		if pool && iters >= budget {
			return lps, iters, nil
		}
	}
}

// bulkLane is one lane of the bulk phase: its solver, the objective of
// its next LP and the outcome of its last.
type bulkLane struct {
	max   bool
	sv    *lp.Sparse
	idx   []int
	coef  []float64
	used  map[int32]bool
	iters int
	err   error
	done  bool
	// failed: the solver failed (its lane stops for good); converted:
	// the low lane turned high (pooled budget).
	failed, converted bool
}

// taken returns the targets of the lane's objective, as a set.
func (ln *bulkLane) taken() map[int]bool {
	m := make(map[int]bool, len(ln.idx))
	for _, l := range ln.idx {
		m[l] = true
	}
	return m
}

// bulkLoOpen and bulkHiOpen report whether local cell l's minimum
// (maximum) is not yet reached by an inner bound (a maximum without a
// finite outer bound is left to the chunks).
func (r *sparseRun) bulkLoOpen(l int) bool { return r.slo[l] > r.solo[l]+r.env.iv.tol }
func (r *sparseRun) bulkHiOpen(l int) bool {
	return r.shi[l] < r.sohi[l]-r.env.iv.tol && !math.IsInf(r.sohi[l], 1)
}

// bulkOpen counts the targets' sides not yet settled.
func (r *sparseRun) bulkOpen() int {
	n := 0
	for _, l := range r.tl {
		if r.bulkLoOpen(l) {
			n++
		}
		if r.bulkHiOpen(l) {
			n++
		}
	}
	return n
}

// bulkObjective sets the lane's next objective from the bounds reached;
// a high lane leaves out the targets of taken (another high lane's).
func (r *sparseRun) bulkObjective(ln *bulkLane, comp []int, taken map[int]bool) {
	ln.idx, ln.coef = ln.idx[:0], ln.coef[:0]
	if !ln.max {
		for _, l := range r.tl {
			if r.bulkLoOpen(l) {
				ln.idx, ln.coef = append(ln.idx, l), append(ln.coef, 1)
			}
		}
		return
	}
	if ln.used == nil {
		ln.used = map[int32]bool{}
	}
	clear(ln.used)
	for _, l := range r.tl {
		if !r.bulkHiOpen(l) || r.sohi[l] <= r.env.iv.tol || taken[l] {
			continue
		}
		free := true
		for _, rel := range r.s.CellRels[comp[l]] {
			free = free && (r.env.free[rel] < 2 || !ln.used[rel])
		}
		if !free {
			continue
		}
		for _, rel := range r.s.CellRels[comp[l]] {
			if r.env.free[rel] >= 2 {
				ln.used[rel] = true
			}
		}
		ln.idx, ln.coef = append(ln.idx, l), append(ln.coef, -1/r.sohi[l])
	}
}
