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
	iv := env.iv
	inF := func(int) bool { return true }
	rows, rowRel := s.compRows(comp, env.sup, env.fixed, env.resid, env.free, inF, false)
	if len(rows) == 0 {
		return 0, nil
	}
	local := make(map[int]int, len(comp))
	for l, i := range comp {
		local[i] = l
	}
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
			return 0, ctx.Err()
		}
		if x0 == nil && errors.Is(err, lp.ErrInfeasible) {
			return 0, fmt.Errorf("table %s: %w: no non-negative values of the suppressed cells around %s satisfy %s",
				s.T.Name, ErrInconsistent, s.T.KeyString(s.T.Cells[comp[0]].Key), s.Describe(rowRel[0]))
		}
		return 0, fmt.Errorf("%w: %w", errSparse, err)
	}
	n := len(comp)
	// Bounds known before the chunks: inner [slo, shi] (the starting point
	// included) and outer [solo, sohi].
	slo, shi := make([]float64, n), make([]float64, n)
	solo, sohi := make([]float64, n), make([]float64, n)
	for l, i := range comp {
		v := base.Value(l)
		if x0 != nil {
			slo[l], shi[l] = math.Min(iv.lo[i], v), math.Max(iv.hi[i], v)
		} else {
			slo[l], shi[l] = v, v // iv.lo/hi hold outer bounds only
		}
		solo[l], sohi[l] = iv.olo[i], iv.ohi[i]
	}
	// Accumulated results: inner hull over every chunk, outer optima of
	// each target (NaN: not solved).
	alo, ahi := append([]float64(nil), slo...), append([]float64(nil), shi...)
	aolo, aohi := make([]float64, n), make([]float64, n)
	for l := range aolo {
		aolo[l], aohi[l] = math.NaN(), math.NaN()
	}
	tl := make([]int, len(targets))
	for a, i := range targets {
		tl[a] = local[i]
	}
	var mu sync.Mutex
	lps, failed := 0, 0
	var firstErr error
	tol := iv.tol
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	parts := chunks(len(tl), exactChunk)
	for _, ch := range parts {
		g.Go(func() error {
			sv := base.Clone()
			lo, hi := append([]float64(nil), slo...), append([]float64(nil), shi...)
			olo, ohi := map[int]float64{}, map[int]float64{}
			nlp, nfail := 0, 0
			var ferr error
			hull := func() {
				for l := range lo {
					v := sv.Value(l)
					lo[l] = math.Min(lo[l], v)
					hi[l] = math.Max(hi[l], v)
				}
			}
			merge := func() {
				mu.Lock()
				defer mu.Unlock()
				for l := range lo {
					alo[l] = math.Min(alo[l], lo[l])
					ahi[l] = math.Max(ahi[l], hi[l])
				}
				for l, v := range olo {
					aolo[l] = v
				}
				for l, v := range ohi {
					aohi[l] = v
				}
				lps += nlp
				failed += nfail
				if firstErr == nil && ferr != nil {
					firstErr = ferr
				}
			}
			budget := min(env.tune.ExactIters*(ch[1]-ch[0]), env.tune.ExactBudget/len(parts))
			if x0 != nil && !env.exact {
				budget = 0 // verdicts only
			}
			spent := 0
			// lp runs one objective to target (NaN: the optimum) and
			// widens the bounds by the point reached; limited, it counts
			// against the chunk's budget. It reports false when the
			// objective did not finish (budget or failure).
			run := func(l int, max bool, target float64, limited bool) (float64, bool) {
				sv.IterLimit = 0
				if limited {
					if spent >= budget {
						return 0, false
					}
					sv.IterLimit = sv.Iters + budget - spent
				}
				before := sv.Iters
				v, err := sv.OptimizeTo(gctx, l, max, target)
				nlp++
				if limited {
					spent += sv.Iters - before
				}
				if err != nil {
					if gctx.Err() != nil || errors.Is(err, lp.ErrIterations) && limited {
						hull() // the point reached is feasible
						return 0, false
					}
					// This objective failed: start afresh.
					nfail++
					if ferr == nil {
						ferr = err
					}
					sv = base.Clone()
					return 0, false
				}
				if !math.IsInf(v, 1) {
					hull()
				}
				return v, true
			}
			for a, l := range tl[ch[0]:ch[1]] {
				if err := gctx.Err(); err != nil {
					merge()
					return err
				}
				i := targets[ch[0]+a]
				if x0 != nil && iv.undet[i] {
					// Verdict first (not counted against the budget):
					// each side to its protection level, a feasible
					// point there proves it, or to the optimum.
					x := s.Val[i]
					up, down, sec := env.need(i)
					if sec || iv.outerFails(i, x, up, down) {
						up, down, sec = 0, 0, true
					}
					tU := x + math.Max(up, 2*tol)
					tD := x - math.Max(down, 2*tol)
					if hi[l] < tU && hi[l] < sohi[l]-tol {
						if v, ok := run(l, true, tU, false); ok && v < tU {
							ohi[l] = v
						} else if ok && math.IsInf(v, 1) {
							hi[l], ohi[l] = v, v
						}
					}
					if !(sec && hi[l] >= tU) && lo[l] > tD && lo[l] > solo[l]+tol {
						if v, ok := run(l, false, tD, false); ok && v > tD {
							olo[l] = math.Max(v, 0)
						}
					}
				}
				// Then the exact bounds, within the chunk's budget.
				for _, max := range []bool{true, false} {
					if max {
						if _, done := ohi[l]; done || hi[l] >= sohi[l]-tol {
							continue
						}
					} else if _, done := olo[l]; done || lo[l] <= solo[l]+tol {
						continue
					}
					// Stop at the outer bound when reached: a proof.
					target := solo[l]
					if max {
						target = sohi[l]
						if math.IsInf(target, 1) {
							target = math.NaN()
						}
					}
					v, ok := run(l, max, target, true)
					switch {
					case !ok:
					case math.IsInf(v, 1):
						hi[l], ohi[l] = v, v
					case max:
						ohi[l] = v
					default:
						olo[l] = math.Max(v, 0)
					}
				}
			}
			merge()
			return nil
		})
	}
	werr := g.Wait()
	for l, i := range comp {
		if !math.IsNaN(aolo[l]) {
			iv.olo[i] = math.Max(iv.olo[i], math.Min(aolo[l], alo[l]))
		}
		if !math.IsNaN(aohi[l]) {
			iv.ohi[i] = math.Min(iv.ohi[i], math.Max(aohi[l], ahi[l]))
		}
		iv.lo[i] = math.Max(alo[l], iv.olo[i])
		iv.hi[i] = math.Min(ahi[l], iv.ohi[i])
	}
	if werr != nil {
		return lps, werr
	}
	if failed > 0 {
		env.warn(fmt.Sprintf("interval audit: %d of the LPs around %s failed (%v); those bounds are inner bounds only",
			failed, s.T.KeyString(s.T.Cells[comp[0]].Key), firstErr))
	}
	return lps, nil
}

// errSparse marks a failure of the sparse solver (not of the table): the
// caller falls back to neighbourhood LPs.
var errSparse = errors.New("sparse audit LP failed")
