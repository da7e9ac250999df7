package suppress

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/lp"
)

// TestJointBoundOnlyStallAndWarm runs the bound-only search (MaxCells
// below the table) on a small 3-D table: with the default stall rule it
// stops by the stall or the budget and says so; with the warm-started
// masters (the default) and the cold ones (ColdMaster), the bound is
// still at most the kept pattern's cost.
func TestJointBoundOnlyStallAndWarm(t *testing.T) {
	run := func(jo JointOptions) (float64, float64, string) {
		tb := scaleTable(3, []int{6, 5, 3}, 0.1)
		res, err := Protect(context.Background(), tb, Options{Joint: jo})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Run
		if r.LowerBound == nil || r.PatternCost == nil {
			t.Fatalf("no bound: %+v", r)
		}
		return *r.LowerBound, *r.PatternCost, r.Stopped
	}
	for _, jo := range []JointOptions{
		{MaxCells: 10, BoundWork: 300},
		{MaxCells: 10, BoundWork: 300, ColdMaster: true},
		// Budgets that run out on a master's own work (its optimum is
		// kept as the bound) and within a separation.
		{MaxCells: 10, BoundWork: 0.5, BoundStall: -1},
		{MaxCells: 10, BoundWork: 2, BoundStall: -1},
		{MaxCells: 10, BoundWork: 8, BoundStall: -1},
	} {
		lb, c, stopped := run(jo)
		t.Logf("%+v: bound %v cost %v %q", jo, lb, c, stopped)
		if lb > c+1e-6*c {
			t.Errorf("%+v: bound %v above a pattern's cost (%v)", jo, lb, c)
		}
		if jo.BoundStall == 0 && stopped != "" && !strings.Contains(stopped, "stopped when") && !strings.Contains(stopped, "budget") {
			t.Errorf("%+v: stopped %q", jo, stopped)
		}
	}
}

// TestJointWarmMasterSameLP: with one cut round (JointOptions.Rounds 1)
// the warm-started and the cold master solve the same LP (the cuts of
// y = 0), so the bounds agree; a warm start from a point whose raised
// y hid a residual (a zero-cost cell raised on a 1e-12 coefficient) gave
// 5,748 for 8,916 on BenchmarkJointLarge3D's first master.
func TestJointWarmMasterSameLP(t *testing.T) {
	for _, sh := range []float64{0.05, 0.15} {
		var got [2]float64
		for m, cold := range []bool{false, true} {
			tb := scaleTable(5, []int{12, 10, 3}, sh)
			res, err := Protect(context.Background(), tb, Options{Joint: JointOptions{MaxCells: 10, Rounds: 1, ColdMaster: cold}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Run.LowerBound == nil {
				t.Fatalf("share %v: no bound", sh)
			}
			got[m] = *res.Run.LowerBound
		}
		t.Logf("share %v: warm %v cold %v", sh, got[0], got[1])
		if math.Abs(got[0]-got[1]) > 1e-6*math.Max(1, got[1]) {
			t.Errorf("share %v: warm master's bound %v, cold %v", sh, got[0], got[1])
		}
	}
}

// TestJointWarmStartTinyCoefficient: a cut whose zero-cost cell has a
// 1e-12 coefficient (capacityCut's floor) must not be met by raising that
// cell to 10^12: the start stays checkable and the warm master's optimum
// is the cold one's (the bug gave BenchmarkJointLarge3D's first master
// 5,748 for 8,916).
func TestJointWarmStartTinyCoefficient(t *testing.T) {
	ctx := context.Background()
	js := &jointSolver{cost: []float64{0, 5, 7, 0}}
	cs := []pendingCut{
		{idx: []int{0, 1, 2}, coef: []float64{1e-12, 3, 1}, rhs: 3},
		{idx: []int{2, 3}, coef: []float64{2, 1e-12}, rhs: 1},
	}
	active := []int{0, 1, 2, 3}
	for _, bounded := range []bool{false, true} {
		na, nb := len(active), 0
		if bounded {
			nb = na
		}
		nv := na + nb + len(cs)
		var rows []lp.Row
		for k, p := range cs {
			row := lp.Row{RHS: 1}
			for m, i := range p.idx {
				row.Idx = append(row.Idx, i)
				row.Coef = append(row.Coef, p.coef[m]/p.rhs)
			}
			row.Idx = append(row.Idx, na+nb+k)
			row.Coef = append(row.Coef, -1)
			rows = append(rows, row)
		}
		for k := range nb {
			rows = append(rows, lp.Row{Idx: []int{k, na + k}, Coef: []float64{1, 1}, RHS: 1})
		}
		x0, basic, ok := js.warmStart(cs, active, bounded, nv)
		if !ok {
			t.Fatalf("bounded %v: no start", bounded)
		}
		for v, x := range x0 {
			if x > 10 {
				t.Errorf("bounded %v: x%d = %v in the start", bounded, v, x)
			}
		}
		warm, err := lp.NewBasis(ctx, nv, rows, x0, basic)
		if err != nil {
			t.Fatalf("bounded %v: NewBasis: %v", bounded, err)
		}
		costs := make([]float64, nv)
		copy(costs, js.cost)
		zw, err := warm.Minimize(ctx, costs)
		if err != nil {
			t.Fatal(err)
		}
		cold, err := lp.New(ctx, nv, rows)
		if err != nil {
			t.Fatal(err)
		}
		zc, err := cold.Minimize(ctx, costs)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(zw-zc) > 1e-9*math.Max(1, zc) {
			t.Errorf("bounded %v: warm %v, cold %v", bounded, zw, zc)
		}
	}
}
