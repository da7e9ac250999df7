package suppress

// An independent minimum-cost secondary suppression solver for the joint
// suite (joint_suite_test.go). It shares no code with the product: the
// relations are rebuilt from the cells' keys and the hierarchies, every
// LP is gonum's simplex (gonum.org/v1/gonum/optimize/convex/lp), and the
// search is its own branch-and-bound.
//
// Model (Fischetti-Salazar): y_i = 1 when cell i is suppressed, minimise
// Σ cost_i·y_i such that for every primary p and side s (up: +U, down: −L)
// the intruder's deviation LP
//
//	max s·f_p  s.t.  Σ_i a_ri·f_i = 0 (every relation r),  −x_i·y_i ≤ f_i ≤ ∞·y_i
//
// reaches the level. Written as its dual, min Σ_i β_i·x_i·y_i over
// (γ, β ≥ 0) with (Aᵀγ)_i − β_i = s·[i = p] on the suppressed cells and
// (Aᵀγ)_i ≤ s·[i = p] + α_i on the others (α_i ≥ 0 free of cost when
// y_i = 0, at cost level·y_i in the relaxation). Every dual solution gives
// the capacity cut Σ_i c_i·y_i ≥ level with c_i = level where α_i > 0 and
// min(level, β_i·x_i) elsewhere, which every protected pattern meets.
// A branch-and-bound over the LP relaxation of the cuts (gonum again),
// integer nodes checked by the exact dual LP, gives the optimum (proven
// when the tree is exhausted) or the best pattern and a bound.

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"gonum.org/v1/gonum/mat"
	glp "gonum.org/v1/gonum/optimize/convex/lp"
)

// orTable is the oracle's view of a table.
type orTable struct {
	n int
	// flat2D: two dimensions, no hierarchy (the relations are those of a
	// bipartite network: writeCBCModel caps each flow at its level).
	flat2D bool
	val    []float64
	rels   [][]orTerm // each relation: Σ coef·x = 0
	cellR  [][]int    // relations of each cell
	prim   []int
	margin []bool
	levelU []float64
	levelL []float64
}

type orTerm struct {
	cell int
	coef float64
}

// newOrTable rebuilds the relations from the keys: in every dimension, a
// cell whose code is the total label or a parent code (hierarchies, child
// -> parent) equals the sum of the cells with that code replaced by each
// child (top-level codes are the total's children).
func newOrTable(tb *audit.Table, hier map[string]map[string]string, share float64) *orTable {
	o := &orTable{n: len(tb.Cells), flat2D: len(tb.Dims) == 2}
	for _, h := range hier {
		if len(h) > 0 {
			o.flat2D = false
		}
	}
	index := map[string]int{}
	for i, c := range tb.Cells {
		index[strings.Join(c.Key, "\x00")] = i
		o.val = append(o.val, c.Total.Float64())
	}
	nd := len(tb.Dims)
	children := make([]map[string][]string, nd)
	for d := range nd {
		children[d] = map[string][]string{}
		codes := map[string]bool{}
		for _, c := range tb.Cells {
			codes[c.Key[d]] = true
		}
		var list []string
		for c := range codes {
			list = append(list, c)
		}
		sort.Strings(list)
		h := hier[tb.Dims[d]]
		for _, c := range list {
			if c == tb.TotalLabel {
				continue
			}
			par, ok := h[c]
			if !ok {
				par = tb.TotalLabel
			}
			children[d][par] = append(children[d][par], c)
		}
	}
	o.cellR = make([][]int, o.n)
	o.margin = make([]bool, o.n)
	for i, c := range tb.Cells {
		for d := range nd {
			kids := children[d][c.Key[d]]
			if len(kids) == 0 {
				continue
			}
			o.margin[i] = true
			rel := []orTerm{{i, 1}}
			key := slices.Clone(c.Key)
			for _, k := range kids {
				key[d] = k
				j, ok := index[strings.Join(key, "\x00")]
				if ok {
					rel = append(rel, orTerm{j, -1})
				}
			}
			r := len(o.rels)
			o.rels = append(o.rels, rel)
			for _, t := range rel {
				o.cellR[t.cell] = append(o.cellR[t.cell], r)
			}
		}
	}
	for i, c := range tb.Cells {
		if c.Status == audit.StatusPrimary {
			o.prim = append(o.prim, i)
		}
		u := share * o.val[i]
		o.levelU = append(o.levelU, u)
		o.levelL = append(o.levelL, math.Min(u, o.val[i]))
	}
	return o
}

// orCom is one side of one primary.
type orCom struct {
	p     int
	sign  float64
	level float64
}

func (o *orTable) coms() []orCom {
	var out []orCom
	for _, p := range o.prim {
		out = append(out, orCom{p, 1, o.levelU[p]})
		if o.levelL[p] > 0 {
			out = append(out, orCom{p, -1, o.levelL[p]})
		}
	}
	return out
}

// orAttack solves the intruder's dual LP for commodity k over pattern y
// with gonum; it returns the intruder's best deviation (+Inf: unbounded)
// and the cut's coefficients over every cell (nil when none).
func (o *orTable) attack(c orCom, y []float64) (float64, []float64) {
	var rows []int
	for i, v := range y {
		if v > 0 {
			rows = append(rows, i)
		}
	}
	relVar := map[int]int{}
	var rels []int
	for _, i := range rows {
		for _, r := range o.cellR[i] {
			if _, ok := relVar[r]; !ok {
				relVar[r] = 2 * len(rels)
				rels = append(rels, r)
			}
		}
	}
	nv := 2 * len(rels)
	type ab struct{ a, b int }
	vars := make([]ab, len(rows))
	var cost []float64
	cost = append(cost, make([]float64, nv)...)
	for k, i := range rows {
		v := ab{-1, nv}
		cost = append(cost, o.val[i]*y[i])
		nv++
		if y[i] < 1 {
			v.a = nv
			cost = append(cost, c.level*y[i])
			nv++
		}
		vars[k] = v
	}
	A := mat.NewDense(len(rows), nv, nil)
	b := make([]float64, len(rows))
	for k, i := range rows {
		for _, r := range o.cellR[i] {
			coef := 0.0
			for _, t := range o.rels[r] {
				if t.cell == i {
					coef = t.coef
				}
			}
			g := relVar[r]
			A.Set(k, g, A.At(k, g)+coef)
			A.Set(k, g+1, A.At(k, g+1)-coef)
		}
		A.Set(k, vars[k].b, -1)
		if vars[k].a >= 0 {
			A.Set(k, vars[k].a, 1)
		}
		if i == c.p {
			b[k] = c.sign
		}
	}
	val, x, err := glp.Simplex(cost, A, b, 1e-10, nil)
	if err == glp.ErrInfeasible {
		return math.Inf(1), nil
	}
	if err != nil {
		// gonum's simplex failed (a singular basis, or a false
		// "unbounded" on a degenerate problem): no cut, no verdict.
		return math.NaN(), nil
	}
	t := make([]float64, o.n)
	for _, r := range rels {
		g := relVar[r]
		gam := x[g] - x[g+1]
		if math.Abs(gam) < 1e-12 {
			continue
		}
		for _, term := range o.rels[r] {
			t[term.cell] += term.coef * gam
		}
	}
	coef := make([]float64, o.n)
	for i := range o.n {
		e := 0.0
		if i == c.p {
			e = c.sign
		}
		alpha := math.Max(0, e-t[i])
		beta := math.Max(0, t[i]-e)
		switch {
		case alpha > 1e-10:
			coef[i] = c.level
		case beta > 1e-12:
			coef[i] = math.Min(c.level, beta*o.val[i]*(1+1e-9))
		}
	}
	return val, coef
}

// orCut is Σ coef·y ≥ rhs over the free cells.
type orCut struct {
	idx  []int
	coef []float64
	rhs  float64
}

// orSolver is the oracle's branch-and-bound.
type orSolver struct {
	o     *orTable
	fixed []bool // primaries
	cand  []bool
	cost  []float64
	coms  []orCom
	cuts  []orCut
	seen  map[string]bool
	lps   int
}

func (s *orSolver) makeCut(c orCom, coef []float64) (orCut, bool) {
	cut := orCut{rhs: c.level}
	for i, v := range coef {
		if v <= 0 {
			continue
		}
		switch {
		case s.fixed[i]:
			cut.rhs -= v
		case s.cand[i]:
			cut.idx = append(cut.idx, i)
			cut.coef = append(cut.coef, v)
		}
	}
	return cut, cut.rhs > 1e-9*c.level
}

func (s *orSolver) add(c orCut) bool {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%.6g", c.rhs)
	for k, i := range c.idx {
		fmt.Fprintf(&sb, " %d:%.6g", i, c.coef[k])
	}
	key := sb.String()
	if s.seen[key] {
		return false
	}
	s.seen[key] = true
	s.cuts = append(s.cuts, c)
	return true
}

// protects checks an integer pattern exactly (adding violated cuts).
func (s *orSolver) protects(sup []bool) bool {
	y := make([]float64, s.o.n)
	for i := range y {
		if sup[i] || s.fixed[i] {
			y[i] = 1
		}
	}
	ok := true
	for _, c := range s.coms {
		val, coef := s.o.attack(c, y)
		s.lps++
		if val >= c.level*(1-1e-7)-1e-9 { // (NaN: not protected)
			continue
		}
		ok = false
		if coef != nil {
			if cut, useful := s.makeCut(c, coef); useful {
				s.add(cut)
			}
		}
	}
	return ok
}

// relax solves the LP relaxation of the cuts under the fixings fx (1, 0,
// -1 free) with gonum; feasible false when some cut cannot be met.
func (s *orSolver) relax(fx []int8) (float64, []float64, bool) {
	n := s.o.n
	y := make([]float64, n)
	base := 0.0
	for i := range n {
		if s.fixed[i] {
			y[i] = 1
		} else if s.cand[i] && fx[i] == 1 {
			y[i] = 1
			base += s.cost[i]
		}
	}
	varOf := map[int]int{}
	var active []int
	var cs []orCut
	for _, c := range s.cuts {
		r := orCut{rhs: c.rhs}
		for k, i := range c.idx {
			switch fx[i] {
			case 1:
				r.rhs -= c.coef[k]
			case 0:
			default:
				r.idx = append(r.idx, i)
				r.coef = append(r.coef, c.coef[k])
			}
		}
		if r.rhs <= 1e-9 {
			continue
		}
		if len(r.idx) == 0 {
			return 0, nil, false
		}
		cs = append(cs, r)
		for _, i := range r.idx {
			if _, ok := varOf[i]; !ok {
				varOf[i] = len(active)
				active = append(active, i)
			}
		}
	}
	if len(cs) == 0 {
		return base, y, true
	}
	na := len(active)
	nv := 2*na + len(cs)
	A := mat.NewDense(len(cs)+na, nv, nil)
	b := make([]float64, len(cs)+na)
	for k, c := range cs {
		// Each cut scaled to rhs 1 (gonum's basis stays well conditioned).
		for m, i := range c.idx {
			A.Set(k, varOf[i], c.coef[m]/c.rhs)
		}
		A.Set(k, 2*na+k, -1)
		b[k] = 1
	}
	for k := range active {
		A.Set(len(cs)+k, k, 1)
		A.Set(len(cs)+k, na+k, 1)
		b[len(cs)+k] = 1
	}
	cost := make([]float64, nv)
	for k, i := range active {
		cost[k] = s.cost[i]
	}
	// Start from y = 1 everywhere: basic y_j and the surpluses (the basis
	// [[C, −I], [I, 0]] is nonsingular); infeasible there means infeasible.
	basic := make([]int, 0, len(cs)+na)
	for k := range na {
		basic = append(basic, k)
	}
	for k, c := range cs {
		sum := 0.0
		for _, v := range c.coef {
			sum += v / c.rhs
		}
		if sum < 1-1e-9 {
			return 0, nil, false
		}
		basic = append(basic, 2*na+k)
	}
	z, x, err := glp.Simplex(cost, A, b, 1e-10, basic)
	s.lps++
	if err == glp.ErrInfeasible {
		return 0, nil, false
	}
	if err != nil {
		panic("oracle: gonum: " + err.Error())
	}
	for k, i := range active {
		v := x[k]
		if v < 1e-9 {
			v = 0
		}
		if v > 1-1e-9 {
			v = 1
		}
		y[i] = v
	}
	return base + z, y, true
}

// separate adds the cuts the fractional y violates.
func (s *orSolver) separate(y []float64) int {
	added := 0
	for _, c := range s.coms {
		_, coef := s.o.attack(c, y)
		s.lps++
		if coef == nil {
			continue
		}
		cut, useful := s.makeCut(c, coef)
		if !useful {
			continue
		}
		lhs := 0.0
		for k, i := range cut.idx {
			lhs += cut.coef[k] * y[i]
		}
		if lhs < cut.rhs-1e-7*c.level && s.add(cut) {
			added++
		}
	}
	return added
}

// jointOracleResult is the oracle's answer.
type jointOracleResult struct {
	Best   float64 `json:"best"`   // cost of the best pattern found
	Bound  float64 `json:"bound"`  // proven lower bound
	Proven bool    `json:"proven"` // Best is optimal (Bound = Best)
	Totals int     `json:"totals"` // totals in the best pattern
	Cells  []int   `json:"cells"`  // the best pattern (cell indices); nil when the cutoff (the product's cost) was not beaten
	// Interior: an interior pattern exists (the oracle then solved the
	// interior-only problem, as the default margin weight 0 asks).
	Interior bool `json:"interior"`
	// Source: "cbc" when computed by CBC (bench/joint_oracle_cbc.sh),
	// "zero" when gonum's attack finds the primaries alone protected,
	// "bb+cbc" for this file's pattern with the better of its bound and
	// CBC's, empty for this file's branch-and-bound alone.
	Source string `json:"source,omitempty"`
}

// solveOracle finds the cheapest pattern of the candidates (interior
// cells, or every cell with margins) within maxNodes nodes. cutoff is
// the cost of a known pattern (+Inf: none): the search looks only for
// cheaper ones, and when the tree is exhausted without one, the optimum
// is proven to be at least cutoff (Best = cutoff, Cells nil). feasible
// is false when no pattern of the candidates exists (the root's
// relaxation already has none).
func solveOracle(o *orTable, margins bool, maxNodes int, cutoff float64) (res jointOracleResult, feasible bool) {
	s := &orSolver{o: o, fixed: make([]bool, o.n), cand: make([]bool, o.n), cost: o.val, coms: o.coms(), seen: map[string]bool{}}
	for _, p := range o.prim {
		s.fixed[p] = true
	}
	for i := range o.n {
		s.cand[i] = !s.fixed[i] && (margins || !o.margin[i])
	}
	res = jointOracleResult{Best: cutoff}
	var bestSet []bool
	fx0 := make([]int8, o.n)
	for i := range fx0 {
		fx0[i] = -1
	}
	// Root: cut loop (rounds bounded: near-duplicate cuts could cycle).
	rounds := 300
	switch {
	case o.n > 300:
		rounds = 8
	case o.n > 200:
		rounds = 40
	}
	for round := 0; round < rounds; round++ {
		z, y, ok := s.relax(fx0)
		if !ok {
			return res, false
		}
		res.Bound = z
		if s.separate(y) == 0 {
			break
		}
	}
	type node struct {
		fx []int8
		lb float64
	}
	stack := []node{{fx0, res.Bound}}
	nodes := 0
	complete := true
	for len(stack) > 0 {
		if nodes >= maxNodes {
			complete = false
			break
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		var z float64
		var y []float64
		ok := true
		for round := 0; round < 40; round++ {
			z, y, ok = s.relax(nd.fx)
			if !ok || z >= res.Best-1e-9*math.Max(1, res.Best) || s.separate(y) == 0 {
				break
			}
		}
		if !ok || z >= res.Best-1e-9*math.Max(1, res.Best) {
			continue
		}
		bi, bf := -1, 0.0
		for i := range o.n {
			if s.cand[i] && nd.fx[i] < 0 {
				if f := math.Min(y[i], 1-y[i]); f > bf+1e-9 {
					bi, bf = i, f
				}
			}
		}
		if bi < 0 {
			sup := make([]bool, o.n)
			for i := range o.n {
				sup[i] = s.cand[i] && y[i] > 0.5
			}
			if s.protects(sup) {
				res.Best = z
				bestSet = sup
			} else {
				stack = append(stack, nd)
			}
			continue
		}
		zero := slices.Clone(nd.fx)
		zero[bi] = 0
		one := slices.Clone(nd.fx)
		one[bi] = 1
		stack = append(stack, node{zero, z}, node{one, z})
	}
	if complete {
		res.Proven = !math.IsInf(res.Best, 1)
		res.Bound = res.Best
	} else {
		lb := res.Best
		for _, nd := range stack {
			lb = math.Min(lb, nd.lb)
		}
		res.Bound = math.Max(res.Bound, lb)
	}
	if bestSet == nil {
		return res, !math.IsInf(res.Best, 1) || !complete
	}
	res.Best = 0
	for i, v := range bestSet {
		if v {
			res.Best += o.val[i]
			res.Cells = append(res.Cells, i)
			if o.margin[i] {
				res.Totals++
			}
		}
	}
	return res, true
}

// oracleProtected attacks every primary of the pattern sup with gonum
// (the dual LP above, exact for an integer pattern): the interval must
// reach x+U and x−L.
func oracleProtected(o *orTable, sup []bool) (bool, string) {
	y := make([]float64, o.n)
	for i, v := range sup {
		if v {
			y[i] = 1
		}
	}
	for _, c := range o.coms() {
		val, _ := o.attack(c, y)
		if !(val >= c.level*(1-1e-7)-1e-9) {
			return false, fmt.Sprintf("primary %d side %v reaches %v of %v", c.p, c.sign, val, c.level)
		}
	}
	return true, ""
}

// The second oracle: the compact Fischetti-Salazar model of an orTable,
// written in CPLEX LP format for an external MIP solver (CBC, run by
// bench/joint_oracle_cbc.sh; never by a test). One flow per commodity
// (primary p, side s): f^k_i for every candidate cell and every primary,
// Σ_i a_ri·f^k_i = 0 for every relation r, −x_i·y_i ≤ f^k_i ≤ M·y_i on
// the candidates, −x_p ≤ f^k_p ≤ M on the primaries (suppressed), and
// s·f^k_p ≥ level on the commodity's own primary; minimise Σ x_i·y_i
// over the candidates (the primaries are fixed, as in solveOracle).
// Cells that are neither candidates nor primaries are published: their
// flow is 0 and they leave the relations.
//
// M: without margins the grand total is published, every cell is a
// sub-sum of it over nonnegative cells, so no cell can rise above it and
// M = the grand total is exact. With margins (only when no interior
// pattern exists) M = the sum of all cell values; an unbounded
// deviation reaches any level through the cells of one leaf and its
// aggregates (each moving by the level alone), a bounded one is no
// larger than a vertex of the intruder's polyhedron, taken here to be
// within that sum. Every pattern CBC returns is attacked again by gonum
// (oracleProtected, with no M) before it is stored.
//
// Tighter caps (the same optimum, a stronger relaxation):
//   - a cell i that is a child of a relation whose aggregate is
//     published (flow 0) has f_i = −Σ_{j≠i} f_j ≤ Σ_{j≠i} x_j over the
//     relation's other variable children, so M_i is the least such sum;
//   - interior model of a flat 2-D table (orTable.flat2D): the flows are
//     circulations of the bipartite graph rows × columns whose edges are
//     the variable cells. A feasible flow with s·f_p ≥ level splits
//     conformally into simple cycles (each ±w on its edges, each within
//     the bounds); those through p, scaled to total weight level, are a
//     feasible flow with s·f_p = level and |f_i| ≤ level everywhere. So
//     f^k_i ∈ [−min(x_i, level)·y_i, level·y_i] for commodity k loses no
//     pattern.
func writeCBCModel(w io.Writer, o *orTable, margins bool) (ncand int, err error) {
	bw := bufio.NewWriter(w)
	prim := make([]bool, o.n)
	for _, p := range o.prim {
		prim[p] = true
	}
	cand := make([]bool, o.n)
	varCell := make([]bool, o.n)
	for i := range o.n {
		cand[i] = !prim[i] && (margins || !o.margin[i])
		varCell[i] = cand[i] || prim[i]
		if cand[i] {
			ncand++
		}
	}
	bigM := 0.0
	if margins {
		for _, v := range o.val {
			bigM += v
		}
	} else {
		for i := range o.n {
			if o.margin[i] {
				bigM = math.Max(bigM, o.val[i]) // the grand total: the largest margin
			}
		}
		if bigM == 0 {
			for _, v := range o.val {
				bigM += v
			}
		}
	}
	// capUp[i]: the least sum of the other variable children of a
	// relation in which i is a child and whose aggregate is published.
	capUp := make([]float64, o.n)
	for i := range capUp {
		capUp[i] = bigM
	}
	for _, rel := range o.rels {
		if varCell[rel[0].cell] {
			continue // the aggregate (coef 1) moves
		}
		sum := 0.0
		for _, t := range rel[1:] {
			if varCell[t.cell] {
				sum += o.val[t.cell]
			}
		}
		for _, t := range rel[1:] {
			if varCell[t.cell] {
				capUp[t.cell] = math.Min(capUp[t.cell], sum-o.val[t.cell])
			}
		}
	}
	network := o.flat2D && !margins
	// up(c, i), down(c, i): the caps of commodity c's flow on cell i
	// (−down ≤ f ≤ up).
	up := func(c orCom, i int) float64 {
		if network {
			return math.Min(capUp[i], c.level)
		}
		return capUp[i]
	}
	down := func(c orCom, i int) float64 {
		if network {
			return math.Min(o.val[i], c.level)
		}
		return o.val[i]
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	line := 0
	term := func(s string) {
		// CoinLpIO reads tokens: wrap long rows for readability only.
		if line >= 8 {
			bw.WriteString("\n  ")
			line = 0
		}
		bw.WriteString(s)
		line++
	}
	fmt.Fprintf(bw, "\\ compact Fischetti-Salazar model, %d cells, %d primaries, margins %v, M %s\nMinimize\n obj:", o.n, len(o.prim), margins, num(bigM))
	line = 0
	first := true
	for i := range o.n {
		if cand[i] {
			term(fmt.Sprintf(" + %s y%d", num(o.val[i]), i))
			first = false
		}
	}
	if first {
		bw.WriteString(" 0 y_none")
	}
	bw.WriteString("\nSubject To\n")
	coms := o.coms()
	for k, c := range coms {
		for r, rel := range o.rels {
			nt := 0
			for _, t := range rel {
				if varCell[t.cell] {
					nt++
				}
			}
			if nt == 0 {
				continue
			}
			fmt.Fprintf(bw, " r%d_%d:", k, r)
			line = 0
			for _, t := range rel {
				if varCell[t.cell] {
					term(fmt.Sprintf(" + %s f%d_%d", num(t.coef), k, t.cell))
				}
			}
			bw.WriteString(" = 0\n")
		}
		for i := range o.n {
			if !cand[i] {
				continue
			}
			fmt.Fprintf(bw, " lo%d_%d: f%d_%d + %s y%d >= 0\n", k, i, k, i, num(down(c, i)), i)
			fmt.Fprintf(bw, " up%d_%d: f%d_%d - %s y%d <= 0\n", k, i, k, i, num(up(c, i)), i)
		}
	}
	bw.WriteString("Bounds\n")
	if first {
		bw.WriteString(" y_none = 0\n")
	}
	for k, c := range coms {
		for i := range o.n {
			switch {
			case cand[i]:
				fmt.Fprintf(bw, " f%d_%d free\n", k, i)
			case prim[i] && i == c.p && c.sign > 0:
				fmt.Fprintf(bw, " %s <= f%d_%d <= %s\n", num(c.level), k, i, num(math.Max(c.level, up(c, i))))
			case prim[i] && i == c.p:
				fmt.Fprintf(bw, " %s <= f%d_%d <= %s\n", num(-o.val[i]), k, i, num(-c.level))
			case prim[i]:
				fmt.Fprintf(bw, " %s <= f%d_%d <= %s\n", num(-down(c, i)), k, i, num(up(c, i)))
			}
		}
	}
	if ncand > 0 {
		bw.WriteString("Binaries\n")
		line = 0
		for i := range o.n {
			if cand[i] {
				term(fmt.Sprintf(" y%d", i))
			}
		}
		bw.WriteString("\n")
	}
	bw.WriteString("End\n")
	return ncand, bw.Flush()
}

// cbcRun is what bench/joint_oracle_cbc.sh left of one CBC run: its log
// (stdout) and its solution file.
type cbcRun struct {
	status     string // optimal, stopped, infeasible, none (stopped without a pattern)
	objective  float64
	lowerBound float64
	cells      []int // y = 1
}

// readCBC parses CBC 2.10's log ("Result - ...", "Objective value:",
// "Lower bound:") and solution file (rows "index name value reduced").
func readCBC(logPath, solPath string) (cbcRun, error) {
	var r cbcRun
	b, err := os.ReadFile(logPath)
	if err != nil {
		return r, err
	}
	result := ""
	haveBound, haveObj := false, false
	for _, ln := range strings.Split(string(b), "\n") {
		ln = strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(ln, "Problem is infeasible"): // the presolve's
			result = "infeasible"
		case strings.HasPrefix(ln, "Result - "):
			result = strings.TrimPrefix(ln, "Result - ")
		case strings.HasPrefix(ln, "Objective value:"):
			_, err := fmt.Sscan(strings.TrimPrefix(ln, "Objective value:"), &r.objective)
			haveObj = err == nil
		case strings.HasPrefix(ln, "Lower bound:"):
			_, err := fmt.Sscan(strings.TrimPrefix(ln, "Lower bound:"), &r.lowerBound)
			haveBound = err == nil
		}
	}
	lr := strings.ToLower(result)
	switch {
	case result == "":
		return r, fmt.Errorf("%s: no \"Result - \" line (did CBC finish?)", logPath)
	case strings.Contains(lr, "infeasible"):
		r.status = "infeasible"
		return r, nil
	case strings.HasPrefix(lr, "optimal solution found"):
		r.status = "optimal"
	case strings.HasPrefix(lr, "stopped"):
		r.status = "stopped"
	default:
		return r, fmt.Errorf("%s: unknown result %q", logPath, result)
	}
	sb, err := os.ReadFile(solPath)
	if err != nil {
		return r, err
	}
	lines := strings.Split(string(sb), "\n")
	head := strings.ToLower(lines[0])
	if strings.Contains(head, "no feasible") || strings.Contains(head, "no integer solution") || strings.Contains(head, "infeasible") || !haveObj {
		r.status = "none"
		return r, nil
	}
	for _, ln := range lines[1:] {
		fs := strings.Fields(ln)
		if len(fs) < 3 || !strings.HasPrefix(fs[1], "y") || fs[1] == "y_none" {
			continue
		}
		v, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			return r, fmt.Errorf("%s: %q: %v", solPath, ln, err)
		}
		if v > 0.5 {
			i, err := strconv.Atoi(fs[1][1:])
			if err != nil {
				return r, fmt.Errorf("%s: %q: %v", solPath, ln, err)
			}
			r.cells = append(r.cells, i)
		}
	}
	if r.status == "optimal" && !haveBound {
		r.lowerBound = r.objective
	}
	return r, nil
}

// cbcResult turns CBC's runs of a case (the interior model, and the
// model with margins when the interior one is infeasible) into the
// oracle's result, after gonum attacked the pattern (no big-M there).
// The costs are integers, so the bound is rounded up.
func cbcResult(o *orTable, interior, withMargins *cbcRun) (jointOracleResult, error) {
	run := interior
	res := jointOracleResult{Interior: true, Source: "cbc"}
	switch interior.status {
	case "infeasible":
		if withMargins == nil {
			return res, fmt.Errorf("no interior pattern: the model with margins is needed")
		}
		res.Interior = false
		run = withMargins
	case "none":
		return res, fmt.Errorf("CBC stopped without an interior pattern and without proving there is none")
	}
	switch run.status {
	case "infeasible":
		return res, fmt.Errorf("CBC: no pattern at all")
	case "none":
		return res, fmt.Errorf("CBC stopped without a pattern")
	}
	sup := make([]bool, o.n)
	for _, p := range o.prim {
		sup[p] = true
	}
	for _, i := range run.cells {
		if i < 0 || i >= o.n {
			return res, fmt.Errorf("cell %d out of range", i)
		}
		sup[i] = true
		res.Best += o.val[i]
		if o.margin[i] {
			res.Totals++
		}
	}
	res.Cells = slices.Clone(run.cells)
	slices.Sort(res.Cells)
	if math.Abs(res.Best-run.objective) > 1e-6*math.Max(1, res.Best) {
		return res, fmt.Errorf("the pattern's cells cost %v, CBC's objective %v", res.Best, run.objective)
	}
	if ok, why := oracleProtected(o, sup); !ok {
		return res, fmt.Errorf("gonum's attack on CBC's pattern: %s", why)
	}
	res.Proven = run.status == "optimal"
	res.Bound = math.Min(res.Best, math.Ceil(run.lowerBound-1e-6*math.Max(1, math.Abs(run.lowerBound))))
	if res.Proven {
		res.Bound = res.Best
	}
	return res, nil
}
