package intervals

import (
	"context"
	"errors"
	"fmt"
	"math"

	"golang.org/x/sync/errgroup"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// roundedIntervals is intervals for a table whose published values are
// rounded to base B (Options.Rounded): every published cell v stands for
// any value in [max(0, v − B/2), v + B/2], so no relation gives a cell
// exactly and the published cells are variables too. One LP over every
// cell of the table: a suppressed cell is x ≥ 0; a published cell is
// lo + s with s, t ≥ 0 and s + t = hi − lo; each relation Σ c·x = 0. The
// interval of every suppressed cell is its minimum and maximum (exact
// bounds, inner = outer), from a phase 1 (no point is known: the
// published values need not add up). Work is bounded by the simplex's
// iteration limits, never by a clock.
func (s *structure) roundedIntervals(ctx context.Context, sup []bool, opt Options) (*intervalSet, error) {
	n := len(s.T.Cells)
	iv := &intervalSet{lo: make([]float64, n), hi: make([]float64, n), olo: make([]float64, n), ohi: make([]float64, n), undet: make([]bool, n)}
	half := opt.Rounded / 2
	iv.tol = 1e-9 * (s.Scale() + half)
	// Variables: per cell, x (suppressed) or s (published), then the
	// slacks t of the published cells.
	nv := n
	lo := make([]float64, n)
	var rows []lp.Row
	for i := 0; i < n; i++ {
		if sup[i] {
			iv.olo[i], iv.ohi[i] = 0, math.Inf(1)
			iv.lo[i], iv.hi[i] = 0, math.Inf(1)
			iv.undet[i] = !s.Unpublished(i)
			continue
		}
		v := s.Val[i]
		lo[i] = math.Max(0, v-half)
		// s + t = hi − lo
		rows = append(rows, lp.Row{Idx: []int{i, nv}, Coef: []float64{1, 1}, RHS: v + half - lo[i]})
		nv++
	}
	for r := range s.Rels {
		row := lp.Row{}
		for _, j := range s.RelCells(r) {
			c := s.Coef(r, j)
			row.Idx = append(row.Idx, j)
			row.Coef = append(row.Coef, c)
			if !sup[j] {
				row.RHS -= c * lo[j]
			}
		}
		rows = append(rows, row)
	}
	var targets []int
	for i := 0; i < n; i++ {
		if sup[i] && !s.Unpublished(i) {
			targets = append(targets, i)
		}
	}
	if len(targets) == 0 {
		return iv, nil
	}
	bctx := ctx
	if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	tlo, thi, err := rangeSparse(bctx, nv, rows, targets, iv.tol, max(opt.Workers, 1), opt.tuning().Phase1Iters)
	if err != nil && ctx.Err() == nil && bctx.Err() != nil {
		// The user's hard stop fired: every target stays undetermined.
		for _, i := range targets {
			iv.lo[i], iv.hi[i] = iv.olo[i], iv.ohi[i]
		}
		iv.warnings = append(iv.warnings, fmt.Sprintf("interval audit: the time limit of %v (a hard stop) ran out; %d suppressed cells are undetermined (on another machine the audit may settle more)", opt.TimeLimit, len(targets)))
		return iv, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, lp.ErrInfeasible) {
			return nil, fmt.Errorf("table %s: %w: no values within the rounding (base %v) of the published cells satisfy the margins", s.T.Name, ErrInconsistent, opt.Rounded)
		}
		return nil, fmt.Errorf("table %s: audit LP of the rounded table: %w", s.T.Name, err)
	}
	for a, i := range targets {
		iv.lo[i], iv.hi[i] = tlo[a], thi[a]
		iv.olo[i], iv.ohi[i] = tlo[a], thi[a]
		iv.undet[i] = false
	}
	s.snapAll(sup, iv)
	return iv, nil
}

// rangeSparse returns the minimum and maximum of each target variable over
// {x : rows, x ≥ 0}, from a phase 1 (lp.NewSparse). The targets are cut
// into fixed chunks (exactChunk), each solved from its own copy of the
// starting solver, so that the bounds do not depend on workers or timing;
// a point where a target is 0 proves its minimum.
func rangeSparse(ctx context.Context, nv int, rows []lp.Row, targets []int, tol float64, workers, phase1Iters int) (lo, hi []float64, err error) {
	base, err := lp.NewSparse(ctx, nv, rows, phase1Iters)
	if err != nil {
		return nil, nil, err
	}
	lo, hi = make([]float64, len(targets)), make([]float64, len(targets))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, ch := range chunks(len(targets), exactChunk) {
		g.Go(func() error {
			sv := base.Clone()
			for a := ch[0]; a < ch[1]; a++ {
				v, err := sv.Optimize(gctx, targets[a], true)
				if err != nil {
					return err
				}
				hi[a] = v
				if sv.Value(targets[a]) > tol {
					if v, err = sv.Optimize(gctx, targets[a], false); err != nil {
						return err
					}
				} else {
					v = 0
				}
				lo[a] = math.Max(v, 0)
			}
			return nil
		})
	}
	return lo, hi, g.Wait()
}
