package suppress

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// gonumCertify reports whether gonum's simplex (independent of audit/lp
// and of the audit's witnesses) proves primary p protected under the
// pattern sup: max x_p ≥ x+U and min x_p ≤ x−L over a restriction of the
// intruder's feasible set. The restriction frees the suppressed cells of
// a box around p (in every dimension p's code, its ancestors and the
// codes of the first k suppressed cells (every one when k is 0) on p's
// lines; with widen also on the lines through p's suppressed margins) and
// fixes every other suppressed cell at its true value: its feasible set
// lies inside the intruder's, so an interval it reaches the levels with is
// reached by the intruder's too (max over a subset ≤ max over the set).
// Unbounded above counts as reaching x+U. A false answer only says this
// restriction does not prove it.
func gonumCertify(t testing.TB, s *structure, sup []bool, p int, opt Options, k int, widen int) bool {
	t.Helper()
	codes := make([]map[int]bool, s.NDim)
	for d := range codes {
		codes[d] = map[int]bool{}
		for c := s.Keys[p][d]; c >= 0; c = s.Parent[d][c] {
			codes[d][c] = true
		}
	}
	inBox := func(j int) bool {
		if k < 0 {
			return true // every suppressed cell
		}
		for d, c := range s.Keys[j] {
			if !codes[d][c] {
				return false
			}
		}
		return true
	}
	// The lines through p, and with widen also those through the
	// suppressed margins of p (a deviation may run through a total).
	lines := append([]int32(nil), s.CellRels[p]...)
	if widen > 0 {
		for i := range s.T.Cells {
			if sup[i] && i != p && s.Covers(i, p) {
				lines = append(lines, s.CellRels[i]...)
			}
		}
	}
	for _, r := range lines {
		taken := 0
		for _, j := range s.RelCells(int(r)) {
			if sup[j] && j != p && (k == 0 || taken < k) {
				taken++
				for d, c := range s.Keys[j] {
					codes[d][c] = true
				}
			}
		}
	}
	if widen > 1 {
		var more [][]int
		for i := range s.T.Cells {
			if sup[i] && inBox(i) {
				for _, r := range s.CellRels[i] {
					for _, j := range s.RelCells(int(r)) {
						if sup[j] {
							more = append(more, s.Keys[j])
						}
					}
				}
			}
		}
		for _, key := range more {
			for d, c := range key {
				codes[d][c] = true
			}
		}
	}
	local := map[int]int{p: 0}
	vars := []int{p}
	for i := range s.T.Cells {
		if i != p && sup[i] && inBox(i) {
			local[i] = len(vars)
			vars = append(vars, i)
		}
	}
	// The intruder's table is x + a − d over the free cells (a, d ≥ 0,
	// d ≤ x with a slack), x at the true values elsewhere: every relation
	// through a free cell keeps its sum (Σ c·(a − d) = 0) and the true
	// table is the feasible point a = d = 0. Variables: a_l = l,
	// d_l = n+l, slack_l = 2n+l.
	n := len(vars)
	seen := map[int32]bool{}
	var rows [][]float64
	var rhs []float64
	var ind tabletest.Independent
	for _, i := range vars {
		for _, r := range s.CellRels[i] {
			if seen[r] {
				continue
			}
			seen[r] = true
			row := make([]float64, n)
			for _, j := range s.RelCells(int(r)) {
				if l, ok := local[j]; ok {
					row[l] += s.Coef(int(r), j)
				}
			}
			if ind.Keep(row, n) {
				full := make([]float64, 3*n)
				for l, c := range row {
					full[l], full[n+l] = c, -c
				}
				rows, rhs = append(rows, full), append(rhs, 0)
			}
		}
	}
	// Scaled to values near 1 (gonum's tolerances are absolute).
	scale := 1.0
	for _, j := range vars {
		scale = max(scale, s.Val[j])
	}
	for l, j := range vars {
		full := make([]float64, 3*n)
		full[n+l], full[2*n+l] = 1, 1
		rows, rhs = append(rows, full), append(rhs, s.Val[j]/scale)
	}
	A := mat.NewDense(len(rows), 3*n, nil)
	for r, row := range rows {
		A.SetRow(r, row)
	}
	up, low := s.levels(opt, p, s.Val[p])
	up, low = up/scale, low/scale
	tol := 1e-9
	for _, maximise := range []bool{true, false} {
		c := make([]float64, 3*n)
		c[0], c[n] = 1, -1 // the change of x_p: a_p − d_p
		if maximise {
			c[0], c[n] = -1, 1
		}
		f, _, err := lp.Simplex(c, A, rhs, 1e-10, nil)
		switch {
		case maximise && errors.Is(err, lp.ErrUnbounded):
			continue
		case err != nil:
			t.Logf("gonum on %s: %v", s.T.KeyString(s.T.Cells[p].Key), err)
			return false
		case maximise && -f < up-tol, !maximise && f > -low+tol:
			return false
		}
	}
	return true
}

// protectLarge protects tb with the lp method and checks, verdict first,
// that the audit calls every primary protected (none exact,
// under-protected or undetermined) and that gonum certifies each one on
// a restriction of the joint system (neighbourhoods of 40, then 150,
// suppressed cells).
func protectLarge(t *testing.T, tb *audit.Table, opt Options, certify bool) {
	t.Helper()
	t0 := time.Now()
	pr, err := Protect(context.Background(), tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The audit Protect computed of its pattern, when it did (equal to a
	// separate Audit: TestProtectKeepsCheaperPattern checks that on such
	// a table), is the one checked: a second audit would prove no more.
	checkLarge(t, tb, opt, certify, time.Since(t0), pr.Audit)
}

// checkLarge is protectLarge's checks of tb, protected with opt in ds;
// it returns the audit it checked: given, or Audit's when given is nil.
func checkLarge(t *testing.T, tb *audit.Table, opt Options, certify bool, ds time.Duration, given *audit.Intervals) audit.Intervals {
	t.Helper()
	ctx := context.Background()
	var res audit.Intervals
	if given != nil {
		res = *given
	} else {
		var err error
		if res, err = Audit(ctx, tb, opt); err != nil {
			t.Fatal(err)
		}
	}
	s, err := newStructure(tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	sup := make([]bool, len(tb.Cells))
	nprim, nsec := 0, 0
	for i, c := range tb.Cells {
		sup[i] = s.IsSuppressed(i)
		if c.Status == audit.StatusSecondary {
			nsec++
		}
	}
	for _, iv := range res.Cells {
		if iv.Status != audit.StatusPrimary {
			continue
		}
		nprim++
		if !iv.Protected || iv.Undetermined || iv.Exact {
			t.Errorf("audit: primary %v not protected (interval [%v, %v], value %v, levels %v/%v, undetermined %v)", iv.Key, iv.Lo, iv.Hi, iv.Value, iv.Upper, iv.Lower, iv.Undetermined)
		}
	}
	if nprim == 0 {
		t.Fatal("no primary in the audit")
	}
	// Certified by the box of 2, then 4, then every suppressed code on
	// p's lines, then widened once.
	tiers := []struct {
		k     int
		widen int
	}{{2, 0}, {4, 0}, {0, 0}, {2, 2}}
	var n [4]int
	var took [4]time.Duration
	for i, c := range tb.Cells {
		if c.Status != audit.StatusPrimary || !certify {
			continue
		}
		ok := false
		for ti, tr := range tiers {
			t1 := time.Now()
			ok = gonumCertify(t, s, sup, i, opt, tr.k, tr.widen)
			took[ti] += time.Since(t1)
			if ok {
				n[ti]++
				break
			}
		}
		if !ok {
			t.Errorf("gonum: %s not certified protected", tb.KeyString(c.Key))
		}
	}
	if certify {
		t.Logf("gonum certified by tier %v, time %v", n, took)
	}
	for _, w := range tb.Warnings {
		t.Errorf("table warning: %s", w)
	}
	t.Logf("%d cells, %d primary, %d secondary; suppression %v (audit not timed here)", len(tb.Cells), nprim, nsec, ds.Round(time.Millisecond))
	return res
}

// TestLPMethodLargeTable runs the lp method on tables above its old
// 1000-cell limit (which sent them to the hypercube method): 20 x 15 x 6
// (2,352 cells) at 5% primaries, every primary protected by the audit and
// certified by gonum, and 24 x 16 x 5 (2,550 cells) at 20%, every primary
// protected by the audit (gonum's dense simplex on the neighbourhoods
// such a densely suppressed table needs takes minutes).
func TestLPMethodLargeTable(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	for _, tc := range []struct {
		sizes   []int
		share   float64
		certify bool
	}{{[]int{20, 15, 6}, 0.05, true}, {[]int{24, 16, 5}, 0.2, false}} {
		tb := scaleTable(11, tc.sizes, tc.share)
		if m := MethodFor(tb, Options{}); m != "lp" {
			t.Errorf("%v: method %s, want lp", tc.sizes, m)
		}
		// Under the race detector the joint search, which runs beside
		// the lp method, gets a tenth of its budgets (raceJoint): the
		// subject here is the lp method's pattern, verified the same way.
		protectLarge(t, tb, Options{Joint: raceJoint()}, tc.certify)
	}
}
