package suppress

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/sdcaudit/sdcaudit/audit/intervals"
	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// dropLocal is the redundancy pass of a table too large for a full
// interval audit per candidate. Every primary p keeps a support (the
// cells whose suppression alone protects p; not the interval audit's
// witness, a move that proves an interval wide) through suppressed cells
// only and no singleton that could recover p: the move
// or deviations that protected it (rec), else a balanced move
// (protectedNow's check), else two feasible tables that differ from the
// true one only in suppressed cells of a box around p, one with p at
// x+U or more and one at x−L or less (reach: the sparse simplex from the
// true values). The intruder's interval for p then reaches its levels
// while the support's cells stay suppressed, whatever else is published,
// and also when a singleton is published (its contributor knows it). The
// secondary cells are tried most costly first: a cell is dropped when
// every primary whose support uses it finds another support without it
// (a local check: one box per primary, first the former support's). The
// whole pattern is then audited once; should a primary that was
// protected before the pass no longer be (the LPs are in floating
// point), every dropped cell is put back.
//
// When some primary has no support (before the pass), the pass does
// nothing: its protection could depend on any cell. The support searches
// are bounded by Tuning.LocalSearchBudget, a count, not a clock, so that
// the pattern does not depend on the machine.
func (lm *lpMethod) dropLocal(ctx context.Context, prim []int) error {
	sp := lm.sp
	var cand []int
	for _, i := range lm.added {
		if !lm.hyper[i] {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return nil
	}
	sort.SliceStable(cand, func(a, b int) bool { return sp.cost[cand[a]] > sp.cost[cand[b]] })
	ls, ok, err := lm.initialSupports(ctx, prim)
	if err != nil || !ok {
		return err
	}
	supp, users := ls.supp, ls.users
	var dropped []int
	searches := 0
	for _, c := range cand {
		if err := ctx.Err(); err != nil {
			return err
		}
		if lm.expired() {
			break // the user's hard stop: the cells not tried stay
		}
		if searches >= lm.tune.LocalSearchBudget {
			break // the costliest candidates, most of the gain, were tried
		}
		if lm.spent() {
			lm.stopRedundancy() // the cells not tried stay
			break
		}
		sp.sup[c] = false
		ok := true
		for _, p := range users[c] {
			w := supp[p]
			if k := sort.SearchInts(w, c); k == len(w) || w[k] != c {
				continue // a stale entry: p's support no longer uses c
			}
			searches++
			nw, found, err := lm.support(ctx, p, w)
			if err != nil {
				sp.sup[c] = true
				return err
			}
			if !found {
				ok = false
				break
			}
			ls.set(p, nw)
		}
		if !ok {
			// The supports found so far avoid c: they stay valid.
			sp.sup[c] = true
			continue
		}
		delete(users, c)
		dropped = append(dropped, c)
	}
	if len(dropped) == 0 {
		return nil
	}
	return lm.commitDropped(ctx, prim, dropped)
}

// localSupports are dropLocal's supports: the sorted cells of each
// primary's support, and for each cell the primaries whose support used
// it (entries may be stale: a support found later may avoid the cell).
type localSupports struct {
	supp  map[int][]int // sorted cells of p's support
	users map[int][]int // cell -> primaries whose support used it
}

// set records w as p's support.
func (ls *localSupports) set(p int, w []int) {
	ls.supp[p] = w
	for _, c := range w {
		ls.users[c] = append(ls.users[c], p)
	}
}

// initialSupports finds a support for every primary of prim, in order:
// the recorded one, else a search (support). It reports false, and no
// error, when some primary has none: dropLocal then does nothing.
func (lm *lpMethod) initialSupports(ctx context.Context, prim []int) (*localSupports, bool, error) {
	ls := &localSupports{
		supp:  make(map[int][]int, len(prim)),
		users: map[int][]int{},
	}
	for _, p := range prim {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if lm.spent() {
			lm.stopRedundancy() // no pass: the pattern stays as it is
			return nil, false, nil
		}
		w, ok := lm.recorded(p)
		var err error
		if !ok {
			w, ok, err = lm.support(ctx, p, nil)
		}
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, nil
		}
		ls.set(p, w)
	}
	return ls, true, nil
}

// commitDropped audits the pattern without the dropped cells once: should
// a primary protected before the pass no longer be, every dropped cell is
// put back; otherwise the dropped cells leave lm's records and lm.added.
func (lm *lpMethod) commitDropped(ctx context.Context, prim, dropped []int) error {
	sp := lm.sp
	after, err := lm.unprotected(ctx, prim)
	if err != nil {
		return err
	}
	if len(after) > 0 {
		for _, c := range dropped {
			sp.sup[c] = true
		}
		before, err := lm.unprotected(ctx, prim)
		if err != nil {
			return err
		}
		for p := range after {
			if !before[p] {
				return nil // keep the pattern as it was
			}
		}
		for _, c := range dropped {
			sp.sup[c] = false
		}
	}
	for _, c := range dropped {
		delete(lm.by, c)
		delete(lm.viaMargin, c)
	}
	kept := lm.added[:0]
	for _, i := range lm.added {
		if sp.sup[i] {
			kept = append(kept, i)
		}
	}
	lm.added = kept
	return nil
}

// recorded returns p's recorded support (rec), sorted, when every cell of
// it is suppressed and none is a singleton that could recover p.
func (lm *lpMethod) recorded(p int) ([]int, bool) {
	s, sp := lm.s, lm.sp
	r, ok := lm.rec[p]
	if !ok {
		return nil, false
	}
	w := append([]int(nil), r...)
	sort.Ints(w)
	w = slices.Compact(w)
	for _, i := range w {
		if !sp.sup[i] || (sp.singleton(i) && !s.Covers(i, p)) {
			return nil, false
		}
	}
	return w, true
}

// hintBox is the box of the cells whose code in every dimension is p's,
// an ancestor of it or the code of a cell of hint (p's former support),
// or nil when it would hold more than hintBoxCells cells.
func (lm *lpMethod) hintBox(p int, hint []int) []int {
	s := lm.s
	codes := make([][]int, s.NDim)
	size := 1
	for d := 0; d < s.NDim; d++ {
		seen := map[int]bool{}
		for c := s.Keys[p][d]; c >= 0; c = s.Parent[d][c] {
			seen[c] = true
		}
		for _, i := range hint {
			seen[s.Keys[i][d]] = true
		}
		for c := range seen {
			codes[d] = append(codes[d], c)
		}
		sort.Ints(codes[d])
		size *= len(codes[d])
		if size > hintBoxCells {
			return nil
		}
	}
	return s.BoxCells(codes)
}

// hintBoxCells bounds the size of hintBox.
const hintBoxCells = 400

// support returns the sorted cells other than p of a support of p's
// protection through suppressed cells only (see dropLocal), or ok false.
// hint, p's former support, gives the first box to search.
func (lm *lpMethod) support(ctx context.Context, p int, hint []int) ([]int, bool, error) {
	s, sp := lm.s, lm.sp
	up, low := s.levels(lm.opt, p, s.Val[p])
	if up <= 0 {
		up = 1000 * lm.tol
	}
	single := func(i int) bool { return i != p && sp.singleton(i) && !s.Covers(i, p) }
	forbid := func(i int) bool { return i != p && (!sp.sup[i] || single(i)) }
	set := map[int]bool{}
	lm.moveWork(p)
	if m := sp.bestMove(p, up, low, forbid); m != nil {
		for _, i := range m.cells {
			if i != p {
				set[i] = true
			}
		}
	} else {
		// Boxes, built when needed: the former support's, then p's boxes
		// (as in protectSide) until one holds both sides.
		var sizes []float64
		switch {
		case len(s.T.Cells) <= lpWholeTable:
			sizes = []float64{0}
		case len(hint) > 0:
			sizes = append([]float64{-1}, lm.tune.BoxCells...)
		default:
			sizes = lm.tune.BoxCells
		}
		allow := func(i int) bool { return sp.sup[i] && !single(i) }
		costOf := func(i int) float64 { return sp.cost[i] }
		found := false
		for _, size := range sizes {
			var box []int
			if size < 0 {
				if box = lm.hintBox(p, hint); box == nil {
					continue
				}
			} else {
				box = lm.box(p, size)
			}
			f, ok, dense, err := lm.reach(ctx, p, box, up, low, allow)
			if err != nil {
				return nil, false, err
			}
			if dense {
				// The deviation LP, side by side.
				ok = true
				for _, dev := range []float64{up, -low} {
					if dev == 0 {
						continue
					}
					g, okSide, err := lm.deviationCost(ctx, p, box, dev, allow, costOf)
					if err != nil {
						return nil, false, err
					}
					if !okSide {
						ok = false
						break
					}
					f = append(f, g...)
				}
			}
			if ok {
				for _, i := range f {
					set[i] = true
				}
				found = true
				break
			}
		}
		if !found {
			return nil, false, nil
		}
	}
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	sort.Ints(out)
	return out, true, nil
}

// unprotected audits the pattern sp.sup once and returns the primaries
// whose interval does not reach their levels.
func (lm *lpMethod) unprotected(ctx context.Context, prim []int) (map[int]bool, error) {
	s, sp := lm.s, lm.sp
	iv, err := intervals.Check(ctx, s.Structure, sp.sup, lm.opt.checkOptions(lm.opt.Workers, lm.remaining(), -1, len(s.T.Cells)))
	if err != nil {
		return nil, err
	}
	out := map[int]bool{}
	for _, p := range prim {
		x := s.Val[p]
		up, down := s.levels(lm.opt, p, x)
		if !iv.Reaches(p, x, up, down) || iv.Failed(p) {
			out[p] = true
		}
	}
	return out, nil
}

// reach looks for feasible tables that differ from the true one only in
// the cells of box that allow admits (and p), with p moved up by up and
// down by low (or further): the sparse simplex (lp.Sparse) started at the
// true values and stopped once p reaches x+up (and, from the true values
// again, x−low). It returns the cells other than p whose values differ at
// either point. The relations through these cells keep their sums;
// every other cell keeps its true value.
//
// dense is true when the sparse solver could not be used (a cell without
// a value, or a solver failure): the caller then solves the deviation LP.
func (lm *lpMethod) reach(ctx context.Context, p int, box []int, up, low float64, allow func(int) bool) (cells []int, ok, dense bool, err error) {
	s := lm.s
	local := map[int]int{p: 0}
	vars := []int{p}
	for _, j := range box {
		if j != p && allow(j) {
			if !s.Known[j] {
				return nil, false, true, nil
			}
			local[j] = len(vars)
			vars = append(vars, j)
		}
	}
	seen := map[int32]bool{}
	var rows []lp.Row
	for _, j := range vars {
		for _, r := range s.CellRels[j] {
			if seen[r] {
				continue
			}
			seen[r] = true
			var row lp.Row
			for _, k := range s.RelCells(int(r)) {
				if l, ok := local[k]; ok {
					c := s.Coef(int(r), k)
					row.Idx = append(row.Idx, l)
					row.Coef = append(row.Coef, c)
					row.RHS += c * s.Val[k]
				}
			}
			rows = append(rows, row)
		}
	}
	x0 := make([]float64, len(vars))
	for l, j := range vars {
		x0[l] = s.Val[j]
	}
	// The work counted: rows + columns per iteration (a sparse
	// iteration's solves with the factors) and once to factorise.
	size := float64(len(rows) + len(vars))
	lm.spend(size / 1e6)
	base, err := lp.NewSparseAt(ctx, len(vars), rows, x0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, false, ctx.Err()
		}
		return nil, false, true, nil
	}
	x := s.Val[p]
	changed := map[int]bool{}
	down := base
	if up != 0 && low != 0 {
		down = base.Clone() // at the true values
	}
	for _, dev := range []float64{up, -low} {
		if dev == 0 {
			continue
		}
		sv := base
		if dev < 0 {
			sv = down
		}
		target := x + dev
		it0 := sv.Iters
		v, err := sv.OptimizeTo(ctx, 0, dev > 0, target)
		lm.spend(float64(sv.Iters-it0) * size / 1e6)
		if err != nil {
			if ctx.Err() != nil {
				return nil, false, false, ctx.Err()
			}
			return nil, false, true, nil
		}
		// Reached within searchTol of the level; a cell whose value moved
		// by more than flowTol is in the support (see deviationCost).
		tol := searchTol(lm.tol, dev)
		if dev > 0 && !(v >= target-tol) || dev < 0 && !(v <= target+tol) {
			return nil, false, false, nil
		}
		ftol := flowTol(lm.tol, dev)
		for l, j := range vars {
			if l > 0 && (math.IsInf(v, 1) || math.Abs(sv.Value(l)-s.Val[j]) > ftol) {
				changed[j] = true
			}
		}
	}
	for j := range changed {
		cells = append(cells, j)
	}
	sort.Ints(cells)
	return cells, true, false, nil
}
