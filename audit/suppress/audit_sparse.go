package suppress

import (
	"context"
	"errors"
	"fmt"
	"math"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// sparseComponent settles the open cells of a large component whose true
// values are a feasible point with one sparse LP over the whole component
// (lp.Sparse, a revised simplex with a sparse LU basis): for each open
// cell, maximise it until it reaches its upper level (a feasible point
// there proves the level, an inner bound) or to its optimum (then the
// bound is exact, inner and outer), and the same downwards. Every point
// the simplex stops at is feasible, so it widens the inner bounds of every
// cell of the component. Open cells are shared among the workers by
// index, each with its own copy of the solver, and the workers' bounds are
// merged by hull (inner) and intersection (outer): the result does not
// depend on timing. It returns the number of LPs; an error of the solver
// (iteration limit, singular basis) is returned as errSparse, leaving the
// cells open.
func (s *structure) sparseComponent(ctx context.Context, comp, open []int, env *auditEnv, workers int) (int, error) {
	iv := env.iv
	inF := func(int) bool { return true }
	rows, _ := s.compRows(comp, env.sup, env.fixed, env.resid, env.free, inF, false)
	if len(rows) == 0 {
		return 0, nil
	}
	x0 := make([]float64, len(comp))
	local := make(map[int]int, len(comp))
	for l, i := range comp {
		x0[l] = s.val[i]
		local[i] = l
	}
	base, err := lp.NewSparseAt(ctx, len(comp), rows, x0)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("%w: %w", errSparse, err)
	}
	type result struct {
		lo, hi   []float64 // inner hull over the component (local indices)
		olo, ohi []float64 // outer bounds of the worker's targets (NaN: none)
		lps      int
	}
	split := max(1, min(workers, len(open)))
	results := make([]result, split)
	solvers := make([]*lp.Sparse, split)
	solvers[0] = base
	for w := 1; w < split; w++ {
		solvers[w] = base.Clone()
	}
	g, gctx := errgroup.WithContext(ctx)
	for w := 0; w < split; w++ {
		sv := solvers[w]
		g.Go(func() error {
			res := result{lo: append([]float64(nil), x0...), hi: append([]float64(nil), x0...),
				olo: make([]float64, len(comp)), ohi: make([]float64, len(comp))}
			for l := range res.olo {
				res.olo[l], res.ohi[l] = math.NaN(), math.NaN()
			}
			hull := func() {
				for l := range comp {
					v := sv.Value(l)
					res.lo[l] = math.Min(res.lo[l], v)
					res.hi[l] = math.Max(res.hi[l], v)
				}
			}
			for a := w; a < len(open); a += split {
				if err := gctx.Err(); err != nil {
					return err
				}
				i := open[a]
				l := local[i]
				x := s.val[i]
				up, down, sec := env.need(i)
				if sec || iv.outerFails(i, x, up, down) {
					// Only a non-zero width is left to prove (or
					// the cell is exact).
					up, down, sec = 0, 0, true
				}
				tU := x + math.Max(up, 2*iv.tol)
				tD := x - math.Max(down, 2*iv.tol)
				if res.hi[l] < tU {
					v, err := sv.OptimizeTo(gctx, l, true, tU)
					res.lps++
					if err != nil {
						return err
					}
					if math.IsInf(v, 1) {
						res.hi[l], res.ohi[l] = v, v
					} else {
						hull()
						if v < tU {
							res.ohi[l] = v
						}
					}
				}
				if sec && res.hi[l] >= tU {
					continue
				}
				if res.lo[l] > tD {
					v, err := sv.OptimizeTo(gctx, l, false, tD)
					res.lps++
					if err != nil {
						return err
					}
					hull()
					if v > tD {
						res.olo[l] = math.Max(v, 0)
					}
				}
			}
			results[w] = res
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("%w: %w", errSparse, err)
	}
	lps := 0
	for _, res := range results {
		lps += res.lps
		for l, i := range comp {
			iv.lo[i] = math.Max(math.Min(iv.lo[i], res.lo[l]), iv.olo[i])
			iv.hi[i] = math.Min(math.Max(iv.hi[i], res.hi[l]), iv.ohi[i])
		}
	}
	for _, res := range results {
		for l, i := range comp {
			if !math.IsNaN(res.ohi[l]) {
				iv.ohi[i] = math.Min(iv.ohi[i], math.Max(res.ohi[l], iv.hi[i]))
			}
			if !math.IsNaN(res.olo[l]) {
				iv.olo[i] = math.Max(iv.olo[i], math.Min(res.olo[l], iv.lo[i]))
			}
		}
	}
	return lps, nil
}

// sparseLarge enables the sparse whole-component LP of solveLarge (tests
// switch it off to exercise the witnesses and neighbourhood LPs alone).
var sparseLarge = true

// errSparse marks a failure of the sparse solver (not of the table): the
// caller falls back to neighbourhood LPs.
var errSparse = errors.New("sparse audit LP failed")
