package intervals

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/report"
)

// Suppressing only A/female leaves it alone in row A and column female:
// the published margins give it back by subtraction (198 - 178 = 20).
func TestAuditSingleSuppressionIsExact(t *testing.T) {
	tb := tabletest.Microdata1(t)
	tabletest.MarkPrimary(tabletest.CellAt(t, tb, "A", "female"))
	res, err := Audit(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tabletest.ResultFor(t, res, "A", "female")
	if !r.Exact || r.Lo != 20 || r.Hi != 20 || r.Protected {
		t.Fatalf("A/female = %+v, want exact 20", r)
	}
	if res.ExactlyDisclosed != 1 || res.UnderProtected != 0 || len(res.Cells) != 1 {
		t.Fatalf("counts: %+v", res)
	}
}

// A 4x4 table (margins published) where every row and every column has
// exactly two suppressed cells, the usual rule of thumb for "safe", yet
// four cells are recomputable exactly.
//
// The suppressed cells form two rectangles: {r0,r1} x {c0,c1} and
// {r2,r3} x {c2,c3}. Around a rectangle the only invisible change is
// +t, -t, +t, -t on its corners. In the first rectangle the primary cell
// r0/c0 = 5 sits next to two empty cells, r0/c1 = 0 and r1/c1 = 0, that
// lie on opposite sides of the cycle (one would go to -t, the other to
// -(-t)), so no t ≠ 0 keeps both non-negative: column c1 publishes the sum
// of its two suppressed cells as 0, which pins both to 0, and then row r0
// gives r0/c0 = 5 by subtraction, and row r1 gives r1/c0. Linear algebra
// alone finds nothing here (every cell lies on a cycle); non-negativity,
// which every intruder knows, does. The second rectangle has no empty cell
// and stays protected.
func TestAuditFourByFourTwoPerLine(t *testing.T) {
	vals := [4][4]int64{
		{5, 0, 9, 8},
		{6, 0, 7, 9},
		{8, 7, 30, 25},
		{9, 8, 28, 31},
	}
	tb := tabletest.GridTable([]int{4, 4}, func(i []int) int64 { return vals[i[0]][i[1]] }, func(i []int) int64 { return 5 })
	sup := map[[2]int]bool{{0, 0}: true, {0, 1}: true, {1, 0}: true, {1, 1}: true,
		{2, 2}: true, {2, 3}: true, {3, 2}: true, {3, 3}: true}
	for k := range sup {
		c := tabletest.CellAt(t, tb, tabletest.Code(0, k[0]), tabletest.Code(1, k[1]))
		if k == [2]int{0, 0} || k == [2]int{2, 2} {
			tabletest.MarkPrimary(c)
		} else {
			c.Status = audit.StatusSecondary
		}
	}
	res, err := Audit(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Cells {
		i, j := r.Key[0], r.Key[1]
		first := (i == tabletest.Code(0, 0) || i == tabletest.Code(0, 1)) && (j == tabletest.Code(1, 0) || j == tabletest.Code(1, 1))
		if r.Exact != first {
			t.Errorf("%v: exact = %v, want %v (interval [%v, %v])", r.Key, r.Exact, first, r.Lo, r.Hi)
		}
		if r.Lo > r.Value || r.Hi < r.Value {
			t.Errorf("%v: interval [%v, %v] misses the true %v", r.Key, r.Lo, r.Hi, r.Value)
		}
	}
	p := tabletest.ResultFor(t, res, tabletest.Code(0, 0), tabletest.Code(1, 0))
	if !p.Exact || p.Lo != 5 {
		t.Errorf("primary r0/c0: %+v, want exactly 5", p)
	}
	if q := tabletest.ResultFor(t, res, tabletest.Code(0, 2), tabletest.Code(1, 2)); q.Exact || !q.Protected {
		t.Errorf("primary r2/c2: %+v, want protected", q)
	}
	if res.ExactlyDisclosed != 4 {
		t.Errorf("exactly disclosed = %d, want 4", res.ExactlyDisclosed)
	}
}

// A received table: values replaced by markers are unknown to the audit.
func TestAuditReceivedMarkers(t *testing.T) {
	tb := tabletest.Microdata1(t)
	for _, k := range [][]string{{"A", "female"}, {"A", "male"}, {"B", "female"}, {"B", "male"}} {
		c := tabletest.CellAt(t, tb, k...)
		c.HasTotal = false
		c.Total = decimal.Dec{}
		c.Stats = audit.StatsOf(map[string]audit.Stat{"total": {Text: "x", Missing: true, Marker: true}})
	}
	res, err := Audit(context.Background(), tb, Options{Role: "total"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 4 {
		t.Fatalf("%d cells audited, want 4", len(res.Cells))
	}
	// A/female + A/male = 198, B/female + B/male = 344,
	// A/female + B/female = 482 - 106 - 152 = 224.
	r := tabletest.ResultFor(t, res, "A", "female")
	if r.Lo != 0 || r.Hi != 198 || r.Exact || r.HasValue {
		t.Errorf("A/female: %+v, want [0, 198]", r)
	}
	r = tabletest.ResultFor(t, res, "B", "female")
	if r.Lo != 26 || r.Hi != 224 {
		t.Errorf("B/female: %+v, want [26, 224]", r)
	}
	if res.NeedsPerson() {
		t.Errorf("counts: %+v", res)
	}
}

func TestAuditUnbounded(t *testing.T) {
	// One dimension, cell A and the total suppressed: A is unbounded above.
	tb := &audit.Table{Name: "u", Dims: []string{"r"}, TotalLabel: "Total"}
	for k, v := range map[string]int64{"A": 3, "B": 4, "Total": 7} {
		tb.Cells = append(tb.Cells, &audit.Cell{Key: []string{k}, HasTotal: true, Total: decimal.FromInt(v)})
	}
	for _, c := range tb.Cells {
		if c.Key[0] == "Total" {
			c.Status = audit.StatusSecondary
		}
		if c.Key[0] == "A" {
			tabletest.MarkPrimary(c)
		}
	}
	res, err := Audit(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tabletest.ResultFor(t, res, "A")
	if r.Lo != 0 || !math.IsInf(r.Hi, 1) || !r.Protected {
		t.Errorf("A: %+v, want [0, inf)", r)
	}
	out := report.IntervalsJSON(res)
	if !strings.Contains(string(out), `"hi":null`) {
		t.Errorf("JSON: %s", out)
	}
}

func TestAuditInconsistent(t *testing.T) {
	tb := tabletest.Microdata1(t)
	tabletest.MarkPrimary(tabletest.CellAt(t, tb, "A", "female"))
	tabletest.MarkPrimary(tabletest.CellAt(t, tb, "A", "male"))
	tabletest.CellAt(t, tb, "A", "Total").Total = decimal.FromInt(-5)
	tabletest.CellAt(t, tb, "A", "Total").Status = audit.StatusOK
	tabletest.CellAt(t, tb, "A", "Total").Findings = nil
	res, err := Audit(context.Background(), tb, Options{})
	if err == nil && len(res.Warnings) == 0 {
		t.Fatal("want an error or a warning for a negative row total")
	}
	t.Log(err, res.Warnings)
}
