package suppress

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
)

// Protect chooses secondary (complementary) suppressions for the primary
// cells of t so that each primary cell keeps an interval that reaches its
// protection levels whatever an intruder does with the margins. It marks
// the chosen cells StatusSecondary with a "secondary" finding saying which
// primary cell they protect and in which relation.
//
// The method generalises the hypercube heuristic (GHMITER, used by
// tau-argus): for each primary cell p, largest first, it picks the cheapest
// "move" — a tensor product of one-dimensional moves, one per dimension,
// each a pair of sibling codes with opposite signs or a path to the total —
// that keeps every relation of the table in balance. Shifting the cells of
// the move by +t and −t is invisible in the published cells, so when the
// cells on the move's negative side are at least the upper protection
// level and those on its positive side at least the lower level, p's
// interval covers [x−L, x+U] once the move's cells are suppressed; later
// suppressions only widen it. Already suppressed cells cost nothing, so
// primaries share complements. Hierarchical codes give paths from a leaf up
// to the sibling of the other side. Cost is the cells' value, contributors
// or count (Options.Cost).
//
// Singletons: a cell with one contributor is known exactly to that
// contributor. A move that uses a singleton other than p would let it
// recover p, so moves without other singletons are preferred; failing
// that, each singleton of the move gets a second move avoiding it.
//
// With opt.TimeLimit set, Protect stops choosing complements when it runs
// out and adds a table warning; the result is not an error.
func Protect(ctx context.Context, t *audit.Table, opt Options) error {
	_, err := ProtectRun(ctx, t, opt)
	return err
}

// ProtectRun is Protect that also returns what was run: the method, the
// cost model, the margin weight and how many primaries the lp method left
// to the hypercube method's move, and why (the audit's "suppression"
// object).
func ProtectRun(ctx context.Context, t *audit.Table, opt Options) (audit.SuppressionRun, error) {
	run, _, err := ProtectAudit(ctx, t, opt)
	return run, err
}

// ProtectAudit is ProtectRun that also returns the interval audit of the
// pattern it leaves when it computed one on the way (a large table, whose
// lp and hypercube patterns are both audited to choose between them), or
// nil. That audit is Audit(ctx, t, opt) on t as ProtectAudit leaves it, so
// a caller that audits next can use it instead of auditing again.
func ProtectAudit(ctx context.Context, t *audit.Table, opt Options) (audit.SuppressionRun, *audit.Intervals, error) {
	run := audit.SuppressionRun{Method: MethodFor(t, opt), Cost: opt.Cost, MarginWeight: opt.MarginWeight}
	if run.Cost == "" {
		run.Cost = "value"
	}
	if err := opt.validate(); err != nil {
		return run, nil, err
	}
	s, err := newStructure(t, opt)
	if err != nil {
		return run, nil, err
	}
	sp := &suppressor{s: s, opt: opt, sup: make([]bool, len(t.Cells)), cost: make([]float64, len(t.Cells)), single: make([]bool, len(t.Cells))}
	delta := s.scale() * 1e-6
	for i, c := range t.Cells {
		sp.sup[i] = s.isSuppressed(i)
		sp.single[i] = s.role == audit.RoleTotal && c.HasN && c.N == 1
		switch opt.Cost {
		case "unity":
			sp.cost[i] = 1
		case "count":
			if c.HasN {
				sp.cost[i] = float64(c.N) + 1e-6
			} else {
				sp.cost[i] = math.Abs(s.val[i]) + delta
			}
		default:
			sp.cost[i] = math.Abs(s.val[i]) + delta
		}
		if opt.CostOf != nil {
			if v, ok := opt.CostOf(c); ok {
				sp.cost[i] = math.Max(v, 0) + delta
			}
		}
	}
	var prim []int
	for i, c := range t.Cells {
		if c.Status == audit.StatusPrimary {
			prim = append(prim, i)
		}
	}
	sort.SliceStable(prim, func(a, b int) bool { return s.val[prim[a]] > s.val[prim[b]] })
	var deadline time.Time
	if opt.TimeLimit > 0 {
		deadline = time.Now().Add(opt.TimeLimit)
	}
	if run.Method == "lp" && compareLarge {
		return protectBest(ctx, t, opt, s, sp, prim, deadline, run)
	}
	if run.Method == "lp" {
		lm := newLPMethod(s, sp, opt)
		err := lm.run(ctx, prim, deadline)
		if lm.fallback > 0 {
			run.Fallback = lm.fallback
			run.FallbackReason = fallbackReason(lm.fallback)
		}
		return run, nil, err
	}
	for k, p := range prim {
		if err := ctx.Err(); err != nil {
			return run, nil, err
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			t.Warnings = append(t.Warnings, fmt.Sprintf("secondary suppression: time limit %v reached; %d of %d primary cells not protected (the interval audit shows which)",
				opt.TimeLimit, len(prim)-k, len(prim)))
			return run, nil, nil
		}
		sp.protect(p)
	}
	return run, nil, nil
}

func fallbackReason(n int) string {
	return fmt.Sprintf("no deviation of the intruder found among the candidate cells around %d primary cells (the deviation LP has no solution there, or failed): the hypercube method's move protects them", n)
}

type suppressor struct {
	s    *structure
	opt  Options
	sup  []bool
	cost []float64
	// single[i]: cell i has one contributor (see singleton), kept beside
	// sup so that move searches need not touch the cells themselves.
	single []bool
}

// move is a candidate complementary pattern: cells with weights ±1.
type move struct {
	cells []int
	w     []int8
	cost  float64
}

// move1 is a one-dimensional move: codes of one dimension with weights.
type move1 struct {
	codes []int
	w     []int8
}

func (sp *suppressor) singleton(i int) bool { return sp.single[i] }

// lessFirst turns a "less" pair into a comparison for slices.SortStableFunc
// (the generic sort avoids sort.SliceStable's reflection in the move
// searches; the order is the same, ties kept in input order).
func lessFirst(aFirst, bFirst bool) int {
	switch {
	case aFirst:
		return -1
	case bFirst:
		return 1
	}
	return 0
}

func (sp *suppressor) protect(p int) {
	s := sp.s
	x := s.val[p]
	up, low := s.levels(sp.opt, p, x)
	best := sp.bestMove(p, up, low, nil)
	if best == nil {
		s.t.Warnings = append(s.t.Warnings, fmt.Sprintf("secondary suppression: no complementary pattern protects %s", s.t.KeyString(s.t.Cells[p].Key)))
		return
	}
	var singles []int
	for _, i := range best.cells {
		if i != p && sp.singleton(i) && !s.covers(i, p) {
			singles = append(singles, i)
		}
	}
	if len(singles) == 0 {
		sp.apply(p, best)
		return
	}
	noSingles := func(i int) bool { return i != p && sp.singleton(i) && !s.covers(i, p) }
	if alt := sp.bestMove(p, up, low, noSingles); alt != nil {
		sp.apply(p, alt)
		return
	}
	sp.apply(p, best)
	for _, sg := range singles {
		avoid := func(i int) bool { return i == sg }
		if alt := sp.bestMove(p, up, low, avoid); alt != nil {
			sp.apply(p, alt)
		} else {
			s.t.Warnings = append(s.t.Warnings, fmt.Sprintf("secondary suppression: %s can be recovered by the single contributor of %s",
				s.t.KeyString(s.t.Cells[p].Key), s.t.KeyString(s.t.Cells[sg].Key)))
		}
	}
}

// apply suppresses the cells of m, recording which primary they protect.
func (sp *suppressor) apply(p int, m *move) {
	s := sp.s
	for _, i := range m.cells {
		if sp.sup[i] {
			continue
		}
		sp.sup[i] = true
		c := s.t.Cells[i]
		where := "(a corner of its suppression hypercube)"
		for _, r := range s.cellRels[i] {
			if s.inRel(int(r), p) {
				where = "in " + s.describe(int(r))
				break
			}
		}
		msg := fmt.Sprintf("protects %s %s", s.t.KeyString(s.t.Cells[p].Key), where)
		c.Findings = append(c.Findings, audit.Said("secondary", audit.Fail, msg, []audit.Figure{audit.TextFig("protects", s.t.KeyString(s.t.Cells[p].Key))}))
		c.Notes = append(c.Notes, msg)
		c.Status = audit.StatusSecondary
	}
}

// covers reports whether cell a is a margin of cell b (or b itself): in
// every dimension a's code is b's or an ancestor of it. A singleton margin
// over b has the same single contributor as b, who is no intruder.
func (s *structure) covers(a, b int) bool {
	for d := 0; d < s.nd; d++ {
		c := s.keys[b][d]
		for c >= 0 && c != s.keys[a][d] {
			c = s.parent[d][c]
		}
		if c < 0 {
			return false
		}
	}
	return true
}

func (s *structure) inRel(r, i int) bool {
	rel := s.rels[r]
	if rel.total == i {
		return true
	}
	for _, j := range rel.parts {
		if j == i {
			return true
		}
	}
	return false
}

// maxCombos bounds the moves tried per primary cell.
const maxCombos = 4000

// bestMove returns the cheapest valid move through p, or nil. forbid, when
// set, excludes cells.
func (sp *suppressor) bestMove(p int, up, low float64, forbid func(int) bool) *move {
	s := sp.s
	if keep := sp.opt.Keep; keep != nil {
		// a kept cell may take part only when it is already suppressed
		other := forbid
		forbid = func(i int) bool {
			return (!sp.sup[i] && keep(s.t.Cells[i])) || (other != nil && other(i))
		}
	}
	nd := s.nd
	key := s.keys[p]
	ms := make([][]move1, nd)
	counts := make([]int, nd)
	total := 1
	for d := 0; d < nd; d++ {
		counts[d] = s.count1D(d, key[d])
		total = min(total*counts[d], maxCombos+1) // every count is at least 1
	}
	k := math.MaxInt // no pruning
	if total > maxCombos {
		k = max(2, int(math.Pow(maxCombos, 1/float64(nd))))
	}
	for d := 0; d < nd; d++ {
		if counts[d] > k {
			ms[d] = sp.prune(p, d, up, low, k, forbid)
		} else {
			ms[d] = s.moves1D(d, key[d])
		}
	}
	var cands []*move
	idx := make([]int, nd)
	tuple := make([]int, nd)
	var cells []int
	var ws []int8
	var cost, upCap, downCap float64
	var free *move // a valid move through suppressed cells only
	visit := func(i int, w int8) bool {
		if i < 0 || (forbid != nil && forbid(i)) {
			return false
		}
		v := s.val[i]
		if !s.known[i] {
			v = 0
		}
		if !sp.sup[i] {
			cost += sp.cost[i]
			if len(cands) == 4 && cost >= cands[3].cost {
				return false
			}
		}
		if w < 0 {
			upCap = math.Min(upCap, v)
		} else {
			downCap = math.Min(downCap, v)
		}
		cells = append(cells, i)
		ws = append(ws, w)
		return true
	}
	// Enumerate combinations of one-dimensional moves.
	var combo func(d int)
	combo = func(d int) {
		if d == nd {
			cells, ws = cells[:0], ws[:0]
			cost, upCap, downCap = 0, math.Inf(1), math.Inf(1)
			if !s.walkMove(ms, idx, tuple, visit) || upCap < up || upCap <= 0 || downCap < low {
				return
			}
			if len(cands) == 4 && cost >= cands[3].cost {
				return
			}
			m := &move{cells: append([]int(nil), cells...), w: append([]int8(nil), ws...), cost: cost}
			if cost == 0 && s.balanced(m) {
				// Only cells already suppressed: nothing is cheaper.
				free = m
				return
			}
			cands = append(cands, m)
			sort.SliceStable(cands, func(a, b int) bool { return cands[a].cost < cands[b].cost })
			if len(cands) > 4 {
				cands = cands[:4]
			}
			return
		}
		for i := range ms[d] {
			if free != nil {
				return
			}
			idx[d] = i
			combo(d + 1)
		}
	}
	combo(0)
	if free != nil {
		return free
	}
	for _, m := range cands {
		if s.balanced(m) {
			return m
		}
	}
	return nil
}

// prune keeps the k most promising one-dimensional moves through p's code
// of dimension d, judged on the line through p: the k first by (score,
// position in moves1D's order), in that order. The moves are scored as
// eachMove1D builds them, and only those among the k best so far are
// copied (a bounded heap), so that a dimension of many codes costs no
// list of every move; the enumeration stops once k moves of score 0 (all
// their cells on the line already suppressed, wide enough) are kept.
func (sp *suppressor) prune(p, d int, up, low float64, k int, forbid func(int) bool) []move1 {
	s := sp.s
	type scored struct {
		m     move1
		score float64
		pos   int
	}
	before := func(a, b *scored) bool {
		if a.score != b.score {
			return a.score < b.score
		}
		return a.pos < b.pos
	}
	h := make([]scored, 0, k) // a max-heap: h[0] is the last of those kept
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && before(&h[m], &h[l]) {
				m = l
			}
			if r := l + 1; r < len(h) && before(&h[m], &h[r]) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	tuple := append([]int(nil), s.keys[p]...)
	var sc move1
	pos := 0
	s.eachMove1D(d, s.keys[p][d], &sc, func(m move1) bool {
		score := 0.0
		for b, code := range m.codes {
			tuple[d] = code
			i := s.lookup(tuple)
			if i < 0 || (forbid != nil && forbid(i)) {
				score = math.Inf(1)
				break
			}
			if !sp.sup[i] {
				score += sp.cost[i]
			}
			if m.w[b] < 0 && s.val[i] < up || m.w[b] > 0 && s.val[i] < low {
				score += 1e6 * (sp.cost[i] + 1)
			}
		}
		x := scored{score: score, pos: pos}
		pos++
		switch {
		case len(h) < k:
			x.m = move1{codes: slices.Clone(m.codes), w: slices.Clone(m.w)}
			h = append(h, x)
			for i := len(h) - 1; i > 0; {
				q := (i - 1) / 2
				if !before(&h[q], &h[i]) {
					break
				}
				h[i], h[q] = h[q], h[i]
				i = q
			}
		case before(&x, &h[0]):
			// reuse the evicted move's arrays
			x.m = move1{codes: append(h[0].m.codes[:0], m.codes...), w: append(h[0].m.w[:0], m.w...)}
			h[0] = x
			down(0)
		}
		// Scores are never negative: once the k kept all score 0, no
		// later move (a later position) can displace one of them.
		return len(h) < k || h[0].score > 0
	})
	order := make([]int32, len(h)) // sort positions, not the entries
	for a := range order {
		order[a] = int32(a)
	}
	slices.SortFunc(order, func(a, b int32) int { return lessFirst(before(&h[a], &h[b]), before(&h[b], &h[a])) })
	out := make([]move1, len(h))
	for a, o := range order {
		out[a] = h[o].m
	}
	return out
}

// balanced checks that m leaves every relation of the table unchanged
// (always true on a complete table; a table with partial margins may
// break the tensor-product construction).
func (s *structure) balanced(m *move) bool {
	acc := map[int32]int{}
	for a, i := range m.cells {
		for _, r := range s.cellRels[i] {
			acc[r] += int(s.coef(int(r), i)) * int(m.w[a])
		}
	}
	for _, v := range acc {
		if v != 0 {
			return false
		}
	}
	return true
}

// moves1D lists the one-dimensional moves through code k of dimension d:
// a path from a leaf below k up to the root, or a path from a leaf below k
// up to an ancestor-or-self a paired with the opposite path below a
// sibling of a. A code in no relation moves alone. The moves share one
// backing array each for codes and weights (callers must not append to
// them).
func (s *structure) moves1D(d, k int) []move1 {
	var out []move1
	var codes []int
	var ws []int8
	var ends []int
	var sc move1
	s.eachMove1D(d, k, &sc, func(m move1) bool {
		codes = append(codes, m.codes...)
		ws = append(ws, m.w...)
		ends = append(ends, len(codes))
		return true
	})
	out = make([]move1, len(ends))
	from := 0
	for a, e := range ends {
		out[a] = move1{codes: codes[from:e:e], w: ws[from:e:e]}
		from = e
	}
	return out
}

// eachMove1D calls yield with every move of moves1D(d, k), in the same
// order, without listing them: the move is built in sc and valid only
// during the call. It stops, returning false, when yield returns false.
func (s *structure) eachMove1D(d, k int, sc *move1, yield func(move1) bool) bool {
	par, ch := s.parent[d], s.children[d]
	if par[k] < 0 && len(ch[k]) == 0 {
		sc.codes, sc.w = append(sc.codes[:0], k), append(sc.w[:0], 1)
		return yield(*sc)
	}
	path := func(l, a int, w int8) { // l up to a inclusive
		for y := l; ; y = par[y] {
			sc.codes = append(sc.codes, y)
			sc.w = append(sc.w, w)
			if y == a || y < 0 {
				break
			}
		}
	}
	root := k
	for par[root] >= 0 {
		root = par[root]
	}
	below := s.leavesOf(d, k)
	for _, l := range below {
		sc.codes, sc.w = sc.codes[:0], sc.w[:0]
		path(l, root, 1)
		if !yield(*sc) {
			return false
		}
	}
	for a := k; par[a] >= 0; a = par[a] {
		for _, b := range ch[par[a]] {
			if b == a {
				continue
			}
			for _, l := range below {
				for _, l2 := range s.leavesOf(d, b) {
					sc.codes, sc.w = sc.codes[:0], sc.w[:0]
					path(l, a, 1)
					path(l2, b, -1)
					if !yield(*sc) {
						return false
					}
				}
			}
		}
	}
	return true
}

// count1D is len(moves1D(d, k)), without listing the moves.
func (s *structure) count1D(d, k int) int {
	par, ch := s.parent[d], s.children[d]
	if par[k] < 0 && len(ch[k]) == 0 {
		return 1
	}
	below := len(s.leavesOf(d, k))
	n := below
	for a := k; par[a] >= 0; a = par[a] {
		for _, b := range ch[par[a]] {
			if b != a {
				n += below * len(s.leavesOf(d, b))
			}
		}
	}
	return n
}

// leavesOf returns the leaves below code x of dimension d (x itself when
// it is a leaf), depth first; computed once per structure for every code.
// Safe for concurrent use; callers must not modify the result.
func (s *structure) leavesOf(d, x int) []int {
	s.lvOnce.Do(func() {
		s.lv = make([][][]int, s.nd)
		for e := 0; e < s.nd; e++ {
			ch := s.children[e]
			s.lv[e] = make([][]int, len(ch))
			var rec func(y int) []int
			rec = func(y int) []int {
				if s.lv[e][y] != nil {
					return s.lv[e][y]
				}
				var out []int
				if len(ch[y]) == 0 {
					out = []int{y}
				} else {
					for _, c := range ch[y] {
						out = append(out, rec(c)...)
					}
				}
				s.lv[e][y] = out
				return out
			}
			for y := range ch {
				rec(y)
			}
		}
	})
	return s.lv[d][x]
}

// moveRange returns how far cell i can move up and down along the
// tensor-product moves whose cells are all suppressed: feasible changes
// that no published cell sees, hence a witness that i's interval reaches at
// least [x−down, x+up]. Cells without a known value count as zero.
func (s *structure) moveRange(i int, sup []bool) (up, down float64) {
	nd := s.nd
	key := s.keys[i]
	ms := make([][]move1, nd)
	tuple := make([]int, nd)
	for d := 0; d < nd; d++ {
		copy(tuple, key)
		for _, m := range s.moves1D(d, key[d]) {
			ok := true
			for _, c := range m.codes {
				tuple[d] = c
				if j := s.lookup(tuple); j < 0 || !sup[j] {
					ok = false
					break
				}
			}
			if ok {
				ms[d] = append(ms[d], m)
			}
		}
		if len(ms[d]) == 0 {
			return 0, 0
		}
	}
	idx := make([]int, nd)
	var combo func(d int)
	combo = func(d int) {
		if d < nd {
			for a := range ms[d] {
				idx[d] = a
				combo(d + 1)
			}
			return
		}
		m := &move{}
		upCap, downCap := math.Inf(1), math.Inf(1)
		ok := s.walkMove(ms, idx, tuple, func(j int, w int8) bool {
			if j < 0 || !sup[j] {
				return false
			}
			v := s.val[j]
			if !s.known[j] {
				v = 0
			}
			if w < 0 {
				upCap = math.Min(upCap, v)
			} else {
				downCap = math.Min(downCap, v)
			}
			m.cells = append(m.cells, j)
			m.w = append(m.w, w)
			return true
		})
		if !ok || (upCap <= up && downCap <= down) || !s.balanced(m) {
			return
		}
		up, down = math.Max(up, upCap), math.Max(down, downCap)
	}
	combo(0)
	return up, down
}

// walkMove visits every cell of the tensor product of the one-dimensional
// moves ms[d][idx[d]] with its weight (the product of the per-dimension
// weights); j is -1 for a cell absent from the table. tuple is scratch of
// length nd. It stops, returning false, as soon as visit returns false.
func (s *structure) walkMove(ms [][]move1, idx, tuple []int, visit func(j int, w int8) bool) bool {
	return s.walkFrom(0, 1, ms, idx, tuple, visit)
}

func (s *structure) walkFrom(e int, w int8, ms [][]move1, idx, tuple []int, visit func(j int, w int8) bool) bool {
	if e == s.nd {
		return visit(s.lookup(tuple), w)
	}
	mv := ms[e][idx[e]]
	for a, c := range mv.codes {
		tuple[e] = c
		if !s.walkFrom(e+1, w*mv.w[a], ms, idx, tuple, visit) {
			return false
		}
	}
	return true
}
