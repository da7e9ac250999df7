package suppress

import (
	"errors"
	"math"
	"slices"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// Warm-started separation. The joint search's cut rounds solve, for
// every commodity and every master LP, the dual of the intruder's LP
// (attack). attack builds it afresh over the cells that may move (y >
// 0), so every call pays a phase 1 on a new dense tableau. Here each
// commodity keeps one LP over a fixed set of rows: every cell that can
// ever move (suppressed before the search or a candidate) in p's
// component, with α_i (cost level·y_i) for every candidate. Only the
// costs change with y, so each round starts from the last optimal basis
// (lp.Solver.Minimize) and needs a few pivots.
//
// The LP differs from attack's only where that cannot make a cut
// invalid: a row whose cell has y_i = 0 costs nothing (β_i and α_i are
// free), so it only lets γ absorb (Mᵀγ)_i; a candidate with y_i = 1
// keeps α_i at cost level (the intruder's rise of that cell capped at
// the level, as for fractional y), where attack drops it. Any γ gives a
// valid capacity cut (joint.go), and only the cuts that y violates are
// added, so the master stays a relaxation and its bound a proven lower
// bound. Verdicts (protects: is an integer pattern protected?) still
// come from attack's exact LP.
//
// Budget: a warm LP is counted as the cold LP it replaces (attack's
// rows and columns for y, its rows as phase-1 pivots plus the pivots the
// warm LP did), so the work budget stops the search after about as many
// LPs as before; the time it takes is what falls.

// jointWarm enables the warm-started separation (tests and the
// benchmark switch it off for the cold path).
var jointWarm = true

// warmEntries bounds the tableau entries the warm LPs of one search keep
// (8 Mi float64s, 64 MiB): commodities beyond it use attack.
const warmEntries = 8 << 20

// warmRows bounds a warm LP's rows: p's component of movable cells
// beyond it uses attack, whose LP has only the cells with y > 0 (on a
// larger table a fractional y has far fewer).
const warmRows = 200

// warmRefresh is the number of warm solves after which a commodity's LP
// is built afresh (the tableau's rounding error does not accumulate).
const warmRefresh = 64

// warmLP is one commodity's kept LP.
type warmLP struct {
	built, off, infeasible bool
	solver                 *lp.Solver
	rows                   []int   // cells with a row, p first
	rels                   []int32 // relations of the rows: γ_k = x[2k] − x[2k+1]
	beta, alpha            []int   // per row: its β and α variables (α -1: none)
	lpRows                 []lp.Row
	nv                     int
	costs                  []float64
	pivots                 int // solver.Pivots when last counted
	solves                 int
}

// warmCache holds the warm LPs of one search (one per commodity).
type warmCache struct {
	lps     []warmLP
	entries int
	t       []float64 // (Mᵀγ) scratch, per cell
	mark    []bool
	rel     []bool // coldSize's scratch, per relation
}

// separateOne returns commodity k's capacity cut for y (nil: none), from
// the warm LP when the commodity has one, else from attack.
func (js *jointSolver) separateOne(k int, y []float64) (*cut, error) {
	if jointWarm && !js.boundOnly {
		c, ok, err := js.attackWarm(k, y)
		if err != nil || ok {
			return c, err
		}
	}
	_, c, err := js.attack(k, y, false)
	return c, err
}

// warmFor returns commodity k's warm LP, building it at first use; nil
// when the commodity has none (its component is larger than warmRows
// cells, or the cache is full, or its LP failed).
func (js *jointSolver) warmFor(k int) (*warmLP, error) {
	if js.warm == nil || len(js.warm.lps) != len(js.coms) {
		n := len(js.s.t.Cells)
		js.warm = &warmCache{lps: make([]warmLP, len(js.coms)), t: make([]float64, n), mark: make([]bool, n)}
	}
	w := &js.warm.lps[k]
	if w.off {
		return nil, nil
	}
	if w.built && w.solves < warmRefresh {
		return w, nil
	}
	if !w.built {
		w.built = true
		if !js.warmRows(k, w) {
			w.off = true
			return nil, nil
		}
		m := len(w.lpRows)
		if float64(m)*float64(w.nv) > float64(js.jo.maxTableau()) || js.warm.entries+m*w.nv > warmEntries {
			w.off = true
			return nil, nil
		}
		js.warm.entries += m * w.nv
	}
	m := len(w.lpRows)
	if err := js.fits(m, w.nv); err != nil {
		return nil, err
	}
	w.solves = 0
	solver, err := lp.New(js.ctx, w.nv, w.lpRows)
	if errors.Is(err, lp.ErrInfeasible) {
		// The intruder's deviation is unbounded whatever y (the rows'
		// cells that lack α are suppressed before the search): no cut.
		w.infeasible = true
		return w, js.spend(m, m, w.nv)
	}
	if err != nil {
		if js.ctx.Err() != nil {
			return nil, js.ctx.Err()
		}
		w.off, w.solver = true, nil
		return nil, js.spend(m, m, w.nv)
	}
	w.solver, w.pivots = solver, solver.Pivots
	return w, js.spend(solver.Pivots, m, w.nv)
}

// warmRows sets w's rows, variables and LP rows for commodity k; false
// when p's component of movable cells exceeds warmRows cells.
func (js *jointSolver) warmRows(k int, w *warmLP) bool {
	s := js.s
	com := js.coms[k]
	mark := js.warm.mark
	rows := []int{com.p}
	mark[com.p] = true
	defer func() {
		for _, i := range rows {
			mark[i] = false
		}
	}()
	for q := 0; q < len(rows); q++ {
		for _, r := range s.cellRels[rows[q]] {
			for _, j := range s.relCells(int(r)) {
				if !mark[j] && (js.fixed[j] || js.cand[j]) {
					mark[j] = true
					rows = append(rows, j)
					if len(rows) > warmRows {
						return false
					}
				}
			}
		}
	}
	slices.Sort(rows[1:])
	relVar := map[int32]int{}
	var rels []int32
	for _, i := range rows {
		for _, r := range s.cellRels[i] {
			if _, ok := relVar[r]; !ok {
				relVar[r] = 2 * len(rels)
				rels = append(rels, r)
			}
		}
	}
	nv := 2 * len(rels)
	w.beta, w.alpha = make([]int, len(rows)), make([]int, len(rows))
	for n, i := range rows {
		w.beta[n] = nv
		nv++
		w.alpha[n] = -1
		if js.cand[i] && !js.fixed[i] && i != com.p {
			w.alpha[n] = nv
			nv++
		}
	}
	w.lpRows = make([]lp.Row, len(rows))
	for n, i := range rows {
		var row lp.Row
		for _, r := range s.cellRels[i] {
			c := s.coef(int(r), i)
			g := relVar[r]
			row.Idx = append(row.Idx, g, g+1)
			row.Coef = append(row.Coef, c, -c)
		}
		row.Idx = append(row.Idx, w.beta[n])
		row.Coef = append(row.Coef, -1)
		if w.alpha[n] >= 0 {
			row.Idx = append(row.Idx, w.alpha[n])
			row.Coef = append(row.Coef, 1)
		}
		if i == com.p {
			row.RHS = com.sign
		}
		w.lpRows[n] = row
	}
	w.rows, w.rels, w.nv = rows, rels, nv
	w.costs = make([]float64, nv)
	return true
}

// attackWarm is attack's cut for commodity k and y from its warm LP; ok
// false when k has none (the caller uses attack).
func (js *jointSolver) attackWarm(k int, y []float64) (*cut, bool, error) {
	w, err := js.warmFor(k)
	if err != nil || w == nil {
		return nil, w != nil, err
	}
	if w.infeasible {
		return nil, true, nil
	}
	s := js.s
	com := js.coms[k]
	for n, i := range w.rows {
		w.costs[w.beta[n]] = s.val[i] * y[i]
		if a := w.alpha[n]; a >= 0 {
			w.costs[a] = com.level * y[i]
		}
	}
	m := len(w.lpRows)
	if err := js.fits(m, w.nv); err != nil {
		return nil, true, err
	}
	val, err := w.solver.Minimize(js.ctx, w.costs)
	if err == nil && (math.IsNaN(val) || math.IsInf(val, -1)) {
		err = errors.New("no finite optimum")
	}
	if err != nil {
		if js.ctx.Err() != nil {
			return nil, true, js.ctx.Err()
		}
		// The tableau may be spoilt: this commodity goes back to attack.
		w.off, w.solver = true, nil
		return nil, false, nil
	}
	w.solves++
	piv := w.solver.Pivots - w.pivots
	w.pivots = w.solver.Pivots
	mc, nc := js.coldSize(w, y)
	if err := js.spend(mc+piv, mc, nc); err != nil {
		return nil, true, err
	}
	return js.warmCut(k, w), true, nil
}

// coldSize is the size of the LP attack would build for y (its rows:
// the cells with y > 0; its columns: two per relation through them, β
// for each, α for each with y < 1), by which a warm LP is counted.
func (js *jointSolver) coldSize(w *warmLP, y []float64) (m, n int) {
	if len(js.warm.rel) != len(js.s.rels) {
		js.warm.rel = make([]bool, len(js.s.rels))
	}
	var seen []int32
	for _, i := range w.rows {
		if y[i] <= 0 {
			continue
		}
		m++
		n++
		if y[i] < 1 {
			n++
		}
		for _, r := range js.s.cellRels[i] {
			if !js.warm.rel[r] {
				js.warm.rel[r] = true
				seen = append(seen, r)
			}
		}
	}
	for _, r := range seen {
		js.warm.rel[r] = false
	}
	return m, n + 2*len(seen)
}

// warmCut is the capacity cut of the warm LP's γ (as in attack).
func (js *jointSolver) warmCut(k int, w *warmLP) *cut {
	s := js.s
	com := js.coms[k]
	t, mark := js.warm.t, js.warm.mark
	touched := []int{com.p}
	mark[com.p] = true
	for g, r := range w.rels {
		gam := w.solver.Value(2*g) - w.solver.Value(2*g+1)
		if math.Abs(gam) < 1e-12 {
			continue
		}
		for _, i := range s.relCells(int(r)) {
			t[i] += s.coef(int(r), i) * gam
			if !mark[i] {
				mark[i] = true
				touched = append(touched, i)
			}
		}
	}
	slices.Sort(touched)
	c := &cut{rhs: com.level, com: k}
	for _, i := range touched {
		e := 0.0
		if i == com.p {
			e = com.sign
		}
		alpha := math.Max(0, e-t[i])
		beta := math.Max(0, t[i]-e)
		t[i], mark[i] = 0, false
		var coef float64
		switch {
		case alpha > 1e-10:
			coef = com.level
		case beta > 1e-12:
			coef = math.Min(com.level, beta*math.Abs(s.val[i])*(1+1e-9)+1e-12*js.tol)
		}
		if coef <= 0 {
			continue
		}
		switch {
		case js.fixed[i]:
			c.rhs -= coef
		case js.cand[i]:
			c.idx = append(c.idx, i)
			c.coef = append(c.coef, coef)
		}
	}
	if c.rhs <= js.tol {
		return nil
	}
	return c
}
