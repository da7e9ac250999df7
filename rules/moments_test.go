package rules

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
	"github.com/sdcaudit/sdcaudit/rules/moments"
)

func newMomentsRule(t *testing.T, params string) CellRule {
	t.Helper()
	r, err := New("moments", ProfileParams("moments", params))
	if err != nil {
		t.Fatal(err)
	}
	return r.(CellRule)
}

func microCell(t *testing.T, x []float64, order int) *audit.Cell {
	t.Helper()
	s, err := moments.FromValues(x, order)
	if err != nil {
		t.Fatal(err)
	}
	c := &audit.Cell{HasN: true, N: int64(len(x)), Pow: s.Pow, PowScale: s.Scale}
	top := append([]float64(nil), x...)
	for i := range top { // descending
		for j := i + 1; j < len(top); j++ {
			if top[j] > top[i] {
				top[i], top[j] = top[j], top[i]
			}
		}
	}
	for _, v := range top[:min(2, len(top))] {
		c.Top = append(c.Top, decimal.Must(strconv.FormatFloat(v, 'f', -1, 64)))
	}
	return c
}

func stat(v string) audit.Stat { return audit.Stat{Text: v, Value: decimal.Must(v)} }

func TestMomentsRuleMicrodata(t *testing.T) {
	r := newMomentsRule(t, "")
	x := []float64{100, 5, 4, 3, 2, 1}
	cases := []struct {
		order int
		want  audit.Outcome
	}{
		{0, audit.NotApplicable},
		{1, audit.NotApplicable},
		{2, audit.Pass}, // L_2 87.4 is 12.6% off; two-pair 5.51 is 10.3% off
		{3, audit.Fail}, // L_3 = 99.48
		{8, audit.Fail},
	}
	for _, tc := range cases {
		tab := &audit.Table{MomentOrder: tc.order}
		f := r.Check(tab, microCell(t, x, 8))
		if f.Outcome != tc.want {
			t.Errorf("order %d: %s (%s), want %s", tc.order, f.Outcome, f.Message(), tc.want)
		}
		if f.Outcome == audit.Fail || f.Outcome == audit.Pass {
			if f.Values()["safe_order"] != int64(2) {
				t.Errorf("order %d: safe_order %v, want 2", tc.order, f.Values()["safe_order"])
			}
			if b := report.FindingJSON(f); !json.Valid(b) {
				t.Errorf("finding does not encode: %s", b)
			}
		}
	}
	// fewer power sums kept than published: review unless already unsafe
	tab := &audit.Table{MomentOrder: 4}
	if f := r.Check(tab, microCell(t, []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 2)); f.Outcome != audit.Review {
		t.Errorf("too few power sums: %s %s", f.Outcome, f.Message())
	}
	// negative contributions
	c := microCell(t, x, 4)
	c.Negative = 1
	if f := r.Check(&audit.Table{MomentOrder: 4}, c); f.Outcome != audit.Review {
		t.Errorf("negative: %s", f.Outcome)
	}
	// a stricter threshold makes order 3 of this sample unsafe too, a looser one safe
	if f := newMomentsRule(t, "max_rel_error: 0.6").Check(&audit.Table{MomentOrder: 3}, microCell(t, x, 8)); f.Outcome != audit.Fail {
		t.Errorf("max_rel_error 0.6: %s %s", f.Outcome, f.Message())
	}
	if f := newMomentsRule(t, "max_rel_error: 0.5").Check(&audit.Table{MomentOrder: 3}, microCell(t, x, 8)); f.Outcome != audit.Pass {
		t.Errorf("max_rel_error 0.5: %s %s", f.Outcome, f.Message())
	}
}

func TestMomentsRuleAggregate(t *testing.T) {
	r := newMomentsRule(t, "")
	// x = (10, 20, 30, 40, 1000): m1..m4 exactly
	x := []float64{10, 20, 30, 40, 1000}
	stats := map[string]audit.Stat{}
	for p := 1; p <= 4; p++ {
		s := 0.0
		for _, v := range x {
			s += math.Pow(v, float64(p))
		}
		stats["m"+strconv.Itoa(p)] = stat(strconv.FormatFloat(s/5, 'f', -1, 64))
	}
	c := &audit.Cell{HasN: true, N: 5, Stats: audit.StatsOf(stats)}
	f := r.Check(&audit.Table{MomentOrder: 4}, c)
	// L_4 = S_4/S_3 = 1000003540000/1000100000 ... bracket within 10%
	if f.Outcome != audit.Fail {
		t.Fatalf("dominant cell: %s %s %v", f.Outcome, f.Message(), f.Values())
	}
	br := f.Values()["bracket"].([]any)
	if br[0].(float64) > 1000 || br[1].(float64) < 1000 {
		t.Errorf("bracket %v misses the max", br)
	}
	// a flat cell published as mean, SD, skewness, kurtosis (sample SD, g1, g2)
	y := []float64{50, 52, 55, 60, 61, 64, 70, 71, 75, 80}
	n := float64(len(y))
	var mean, c2, c3, c4 float64
	for _, v := range y {
		mean += v / n
	}
	for _, v := range y {
		d := v - mean
		c2, c3, c4 = c2+d*d/n, c3+d*d*d/n, c4+d*d*d*d/n
	}
	f64 := func(v float64) audit.Stat { return stat(strconv.FormatFloat(v, 'f', 6, 64)) }
	c = &audit.Cell{HasN: true, N: 10, Stats: audit.StatsOf(map[string]audit.Stat{
		"count": stat("10"), "mean": f64(mean), "sd": f64(math.Sqrt(c2 * n / (n - 1))),
		"skewness": f64(c3 / math.Pow(c2, 1.5)), "kurtosis": f64(c4 / (c2 * c2)),
	})}
	f = r.Check(&audit.Table{}, c)
	if f.Outcome != audit.Pass || f.Values()["order"] != int64(4) {
		t.Fatalf("flat cell: %s %s %v", f.Outcome, f.Message(), f.Values())
	}
	// the Lehmer estimates match those from the true values
	s, _ := moments.FromValues(y, 4)
	ls := f.Values()["lehmer"].([]any)
	for p := 1; p <= 4; p++ {
		want, _ := s.Lehmer(p)
		if math.Abs(ls[p-1].(float64)-want)/want > 1e-6 {
			t.Errorf("L_%d from published stats %v, from values %v", p, ls[p-1], want)
		}
	}
	// a suppressed moment: only the mean remains
	c = &audit.Cell{HasN: true, N: 5, Stats: audit.StatsOf(map[string]audit.Stat{"m1": stat("220"), "m2": {Missing: true}})}
	if f := r.Check(&audit.Table{MomentOrder: 2}, c); f.Outcome != audit.NotApplicable {
		t.Errorf("suppressed m2: %s %s", f.Outcome, f.Message())
	}
}

func TestMomentsRuleParams(t *testing.T) {
	for _, bad := range []string{"max_rel_error: 0", "max_rel_error: 120", "interval: -1", "max_order: 1", "skewness: weird", "kurtosis: x2", "sd: both", "unknown: 1"} {
		_, err := New("moments", ProfileParams("moments", bad))
		if err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	r := newMomentsRule(t, "max_order: 12\nskewness: G1\nkurtosis: G2\nexcess_kurtosis: true\nsd: population\nstep: 0.5")
	if n := r.(Needer).Needs(); n.Powers != 12 || n.Top != 2 {
		t.Errorf("needs %+v", n)
	}
}

// Issue 10 item 4: published moments no non-negative data can have send
// the cell to review (status review with the reason), never ok.
func TestMomentsRuleInconsistentReview(t *testing.T) {
	r := newMomentsRule(t, "")
	cases := []struct {
		name  string
		stats map[string]audit.Stat
		n     int64
		want  string
	}{
		// S_1..S_4 of data with a negative value: L_3 < L_2
		{"falling Lehmer", map[string]audit.Stat{"m1": stat("42.4"), "m2": stat("3163.6"), "m3": stat("207148"), "m4": stat("14801462.8")}, 5, "the Lehmer means fall"},
		{"kurtosis below skewness squared plus one", map[string]audit.Stat{"mean": stat("62.8"), "sd": stat("10.3"), "skewness": stat("1.5"), "kurtosis": stat("2")}, 10, "below the skewness squared plus one"},
		{"negative variance", map[string]audit.Stat{"m1": stat("5"), "m2": stat("20")}, 4, "variance is negative"},
		// issue 23 item 9: S_2 = 150 > S_1² = 100, which no 12 non-negative values have
		{"S_2 above S_1 squared", map[string]audit.Stat{"m1": stat("0.8333333333"), "m2": stat("12.5"), "m3": stat("208.3333333")}, 12, "cannot come from 12 non-negative values"},
		{"mean and SD of no 12 non-negative values", map[string]audit.Stat{"mean": stat("0.8333"), "sd": stat("3.5")}, 12, "exceeds S_1 = 9.9996"},
	}
	for _, tc := range cases {
		c := &audit.Cell{HasN: true, N: tc.n, Stats: audit.StatsOf(tc.stats)}
		f := r.Check(&audit.Table{}, c)
		if f.Outcome != audit.Review || !strings.Contains(f.Message(), tc.want) {
			t.Errorf("%s: %s %q, want review with %q", tc.name, f.Outcome, f.Message(), tc.want)
		}
		c.Findings = append(c.Findings, f)
		audit.Decide(c)
		if c.Status != audit.StatusReview {
			t.Errorf("%s: cell status %s, want review", tc.name, c.Status)
		}
	}
}

// Issue 10 item 5: a relative error exactly at the threshold is not below
// it. For {1.2, 0.3}, L_2 = 1.02 is exactly 15% below 1.2; float64 gives
// 14.999999999999995%.
func TestMomentsRuleTieExact(t *testing.T) {
	r := newMomentsRule(t, "max_rel_error: 15")
	x := []float64{1.2, 0.3}
	for _, allTop := range []bool{true, false} {
		c := microCell(t, x, 8)
		c.AllTop = allTop
		c.HasTotal, c.Total = true, decimal.Must("1.5")
		c.HasSumSq, c.SumSq = true, decimal.Must("1.53")
		f := r.Check(&audit.Table{MomentOrder: 2}, c)
		if f.Outcome != audit.Pass || f.Values()["verdict"] != "safe" {
			t.Errorf("all top %v: %s %s, want pass (15%% is not below 15%%)", allTop, f.Outcome, f.Message())
		}
	}
	// without exact figures the tie cannot be decided: review, not ok
	c := microCell(t, x, 8)
	f := r.Check(&audit.Table{MomentOrder: 2}, c)
	if f.Outcome != audit.Review || !strings.Contains(f.Message(), "float precision") {
		t.Errorf("no exact sums: %s %s, want review", f.Outcome, f.Message())
	}
	// just inside the threshold is a failure
	if f := newMomentsRule(t, "max_rel_error: 15.0001").Check(&audit.Table{MomentOrder: 2}, microCell(t, x, 8)); f.Outcome != audit.Fail {
		t.Errorf("15.0001%%: %s %s, want fail", f.Outcome, f.Message())
	}
}
