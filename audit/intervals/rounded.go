package intervals

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

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
//
// A table with signed cells (audit.Structure.IsSigned: a balance row, a
// row with negative values) is audited here too, also when it is not
// rounded (half = 0): a published signed cell is [v − B/2, v + B/2], not
// cut at 0, and a suppressed one is y − K with y ≥ 0 and K = 16·(1 + the
// sum of the published magnitudes), a bound below every value a vertex of
// the relations reaches in practice; an interval whose minimum meets it is
// unbounded below (Lo −Inf). Cutting there narrows no verdict: an interval
// reaching −K reaches every protection level.
func (s *structure) roundedIntervals(ctx context.Context, sup []bool, opt Options) (*intervalSet, error) {
	n := len(s.T.Cells)
	iv := &intervalSet{lo: make([]float64, n), hi: make([]float64, n), olo: make([]float64, n), ohi: make([]float64, n), undet: make([]bool, n)}
	half := opt.Rounded / 2
	iv.tol = 1e-9 * (s.Scale() + half)
	shift := s.signedShift(sup, half)
	rows, nv := s.roundedRows(sup, half, shift, iv, opt.Pinned)
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
		return nil, s.roundedLPError(err, half, opt.Rounded)
	}
	for a, i := range targets {
		if s.isSigned(i) {
			if tlo[a] <= iv.tol*16 {
				tlo[a] = math.Inf(-1)
			} else {
				tlo[a] -= shift
			}
			thi[a] -= shift
		}
		iv.lo[i], iv.hi[i] = tlo[a], thi[a]
		iv.olo[i], iv.ohi[i] = tlo[a], thi[a]
		iv.undet[i] = false
	}
	s.snapAll(sup, iv)
	return iv, nil
}

// signedShift returns K, the shift of the signed suppressed cells (x =
// y − K with y ≥ 0): 16·(1 + the sum of the published magnitudes, each
// widened by half), or 0 when no suppressed cell is signed.
func (s *structure) signedShift(sup []bool, half float64) float64 {
	n := len(s.T.Cells)
	shift := 0.0 // K, when a suppressed cell is signed
	for i := 0; i < n; i++ {
		if sup[i] && s.isSigned(i) {
			shift = 1
			for j := 0; j < n; j++ {
				if !sup[j] {
					shift += math.Abs(s.Val[j]) + half
				}
			}
			shift *= 16
			break
		}
	}
	return shift
}

// roundedRows builds the LP of roundedIntervals over nv variables: per
// cell, x (suppressed, shifted by shift when signed) or s (published, its
// value less its lower end), then the slacks t of the published cells
// (none when half is 0: published values are then constants; none for a
// pinned cell, Options.Pinned: its value is a constant too). It also sets
// the starting bounds in iv of every suppressed cell.
func (s *structure) roundedRows(sup []bool, half, shift float64, iv *intervalSet, pinned []bool) (rows []lp.Row, nv int) {
	n := len(s.T.Cells)
	nv = n
	exact := func(j int) bool { return half == 0 || pinned != nil && pinned[j] }
	lo := make([]float64, n)
	for i := 0; i < n; i++ {
		if sup[i] {
			iv.olo[i], iv.ohi[i] = 0, math.Inf(1)
			if s.isSigned(i) {
				iv.olo[i] = math.Inf(-1)
			}
			iv.lo[i], iv.hi[i] = iv.olo[i], math.Inf(1)
			iv.undet[i] = !s.Unpublished(i)
			continue
		}
		v := s.Val[i]
		lo[i] = v - half
		if !s.isSigned(i) {
			lo[i] = math.Max(0, lo[i])
		}
		if exact(i) {
			continue // exact: a constant
		}
		// s + t = hi − lo
		rows = append(rows, lp.Row{Idx: []int{i, nv}, Coef: []float64{1, 1}, RHS: v + half - lo[i]})
		nv++
	}
	for r := range s.Rels {
		if half == 0 && !slices.ContainsFunc(s.RelCells(r), func(j int) bool { return sup[j] }) {
			// exact published values: a relation without a suppressed
			// cell says nothing of one (the consistency rule reports
			// one that does not add up)
			continue
		}
		row := lp.Row{}
		for _, j := range s.RelCells(r) {
			c := s.Coef(r, j)
			if !sup[j] && exact(j) {
				row.RHS -= c * s.Val[j] // exact: a constant
				continue
			}
			row.Idx = append(row.Idx, j)
			row.Coef = append(row.Coef, c)
			if !sup[j] {
				row.RHS -= c * lo[j]
			} else if s.isSigned(j) {
				row.RHS += c * shift // x = y − K
			}
		}
		rows = append(rows, row)
	}
	return rows, nv
}

// roundedLPError wraps err, the failure of the LP of roundedIntervals
// (rounding base, half of it half), naming the table: an infeasible LP is
// an inconsistent table.
func (s *structure) roundedLPError(err error, half, base float64) error {
	if errors.Is(err, lp.ErrInfeasible) {
		if half == 0 {
			return fmt.Errorf("table %s: %w: no values of the suppressed cells (those that may be negative included) satisfy the margins with the published values; if the table is rounded, say so with input.rounded", s.T.Name, ErrInconsistent)
		}
		return fmt.Errorf("table %s: %w: no values within the rounding (base %v) of the published cells satisfy the margins", s.T.Name, ErrInconsistent, base)
	}
	return fmt.Errorf("table %s: audit LP of the rounded table: %w", s.T.Name, err)
}

// unconfirmedWarning says why the audit leaves every suppressed cell
// that is not exact undetermined: totals were not used as margins,
// because they add up only within a rounding base the configuration
// does not give, or because they are the sum of two breakdowns of which
// only the first is a margin (the structure's warnings say which).
func unconfirmedWarning(totals []string) string {
	return fmt.Sprintf("interval audit: %s were not used as margins (they add up only within the rounding, they have a second breakdown, or the indentation proposes them and the arithmetic does not confirm them: the structure's warnings say which): the audit cannot confirm any suppressed cell protected; if the table is rounded, set input.rounded to the base it is rounded to", strings.Join(totals, ", "))
}

// isSigned reports whether cell i may be negative (the table's structure
// says so: audit.Structure.IsSigned).
func (s *structure) isSigned(i int) bool { return s.signed != nil && s.signed[i] }

// hasSigned reports whether some suppressed cell may be negative: such a
// table's intervals come from roundedIntervals, the one LP that gives
// cells other lower bounds than 0.
func (s *structure) hasSigned(sup []bool) bool {
	for i, on := range s.signed {
		if on && sup[i] {
			return true
		}
	}
	return false
}

// loadSigned sets which cells may be negative from the table's structure.
func (s *structure) loadSigned() {
	st := s.T.Structure
	if st == nil {
		return
	}
	for i, c := range s.T.Cells {
		if st.IsSigned(c.Key) {
			if s.signed == nil {
				s.signed = make([]bool, len(s.T.Cells))
			}
			s.signed[i] = true
		}
	}
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
