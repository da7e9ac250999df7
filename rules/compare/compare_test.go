package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

var table = &audit.Table{Mode: audit.Microdata, Value: "x", TotalLabel: "Total"}

func TestSimulateDeterministic(t *testing.T) {
	a, err := Simulate("exponential", 4, 50, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate("exponential", 4, 50, 7)
	c, _ := Simulate("exponential", 4, 50, 8)
	same, diff := true, false
	for i := range a {
		if a[i].Total.Cmp(b[i].Total) != 0 {
			same = false
		}
		if a[i].Total.Cmp(c[i].Total) != 0 {
			diff = true
		}
		sum := decimal.Dec{}
		for j, v := range a[i].Top {
			sum = sum.Add(v)
			if j > 0 && v.Cmp(a[i].Top[j-1]) > 0 {
				t.Fatalf("cell %d not descending", i)
			}
		}
		if sum.Cmp(a[i].Total) != 0 {
			t.Fatalf("cell %d: total %s, sum %s", i, a[i].Total, sum)
		}
	}
	if !same || !diff {
		t.Fatalf("same seed same cells %v, other seed differs %v", same, diff)
	}
	n, _ := Simulate("normal", 5, 200, 1)
	for _, x := range n {
		if x.Top[len(x.Top)-1].Sign() < 0 {
			t.Fatal("negative normal draw kept")
		}
	}
	for _, bad := range []struct {
		d    string
		n, c int
	}{{"gamma", 4, 10}, {"normal", 0, 10}, {"normal", 3, 0}} {
		if _, err := Simulate(bad.d, bad.n, bad.c, 1); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// The thesis's setup: n = 4 exponential contributions, 1000 cells, 20%
// sensitive. Its figures (k = 89, p = 18, s = 27; kappa P-S 0.24, D-S 0.27,
// P-D 0.81) come from one random draw, so the test checks the calibration
// itself and the qualitative findings, not the printed numbers.
func TestThesisSetup(t *testing.T) {
	cells, err := Simulate("exponential", 4, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(table, cells, Options{Target: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cells != 1000 || res.TargetCells != 200 {
		t.Fatalf("cells %d target %d", res.Cells, res.TargetCells)
	}
	byRule := map[string]RuleResult{}
	for _, r := range res.Rules {
		byRule[r.Rule] = r
		if !r.Reached || math.Abs(float64(r.Sensitive-200)) > 2 {
			t.Errorf("%s: %d sensitive at %s, want about 200", r.Rule, r.Sensitive, r.Value)
		}
		if len(r.Curve) < 99 {
			t.Errorf("%s: curve has %d points", r.Rule, len(r.Curve))
		}
	}
	// the calibrated values are in the thesis's neighbourhood
	within := func(rule string, lo, hi float64) {
		if v := byRule[rule].Value.Float64(); v < lo || v > hi {
			t.Errorf("%s calibrated to %g, expected in [%g, %g]", rule, v, lo, hi)
		}
	}
	within("dominance", 85, 93)
	within("p_percent", 12, 24)
	within("interval", 20, 34)
	// p-q with q = 100 is the p% rule with p = 100 p/q: identical verdicts.
	if byRule["pq"].Value.Mul(decimal.FromInt(100)).Cmp(byRule["p_percent"].Value) != 0 {
		t.Errorf("pq ratio %s vs p%% %s", byRule["pq"].Value, byRule["p_percent"].Value)
	}
	kappa := map[string]float64{}
	for _, p := range res.Pairs {
		if p.Both+p.OnlyA+p.OnlyB+p.Neither != 1000 {
			t.Errorf("%s/%s table does not add up", p.A, p.B)
		}
		if p.Kappa == nil {
			t.Fatalf("%s/%s kappa undefined", p.A, p.B)
		}
		kappa[p.A+"/"+p.B] = *p.Kappa
	}
	if k := kappa["p_percent/pq"]; k != 1 {
		t.Errorf("kappa p%%/pq = %g, want 1", k)
	}
	// D and P agree substantially, both agree little with S.
	if kappa["dominance/p_percent"] < 0.6 || kappa["dominance/interval"] > 0.5 || kappa["p_percent/interval"] > 0.5 {
		t.Errorf("kappas %v", kappa)
	}
	// Typical cases: P flags one big contributor (large x1 - x2), S two big
	// ones (small gap).
	for _, p := range res.Pairs {
		if p.A == "p_percent" && p.B == "interval" {
			if p.TypicalA == nil || p.TypicalB == nil || p.TypicalA.Gap <= p.TypicalB.Gap || p.TypicalA.Share[0] <= p.TypicalB.Share[0] {
				t.Errorf("typical cases P-only %+v, S-only %+v", p.TypicalA, p.TypicalB)
			}
			if p.TypicalA.SD == nil || len(p.TypicalA.Share) != 4 {
				t.Errorf("profile lacks sd or shares: %+v", p.TypicalA)
			}
		}
	}
	// Reproducible: same seed, same JSON.
	res2, _ := Run(table, cells, Options{Target: 0.2})
	j1, _ := json.Marshal(res)
	j2, _ := json.Marshal(res2)
	if !bytes.Equal(j1, j2) {
		t.Error("two runs differ")
	}
	var text, svg bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"dominance", "kappa", "typical"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
	if err := res.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg.String(), "<svg") || strings.Count(svg.String(), "<polyline") != 4 || strings.Contains(svg.String(), "href") {
		t.Errorf("svg:\n%s", svg.String())
	}
}

// Calibration hits a target exactly where the curve allows it, and the
// curves are monotone.
func TestCalibrationMonotone(t *testing.T) {
	cells, _ := Simulate("normal", 6, 400, 3)
	for _, target := range []float64{0.05, 0.5, 0.9} {
		res, err := Run(table, cells, Options{Target: target, DominanceN: 1, Rules: []string{"dominance", "interval"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Rules {
			for i := 1; i < len(r.Curve); i++ {
				d := r.Curve[i].Sensitive - r.Curve[i-1].Sensitive
				if (r.Rule == "dominance" && d > 0) || (r.Rule != "dominance" && d < 0) {
					t.Fatalf("%s curve not monotone at m=%d", r.Rule, r.Curve[i].M)
				}
			}
			if r.Reached && math.Abs(float64(r.Sensitive-res.TargetCells)) > 5 {
				t.Errorf("%s target %d: %d at %s", r.Rule, res.TargetCells, r.Sensitive, r.Value)
			}
		}
	}
}

func TestOptionErrors(t *testing.T) {
	cells, _ := Simulate("exponential", 3, 10, 1)
	for _, o := range []Options{{Target: 0}, {Target: 1}, {Target: 0.2, Rules: []string{"threshold", "pq"}}, {Target: 0.2, Rules: []string{"pq"}}, {Target: 0.2, DominanceN: -1}} {
		if _, err := Run(table, cells, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := Run(table, []*audit.Cell{{HasN: true}}, Options{Target: 0.2}); err != ErrNoCells {
		t.Errorf("empty cells: %v", err)
	}
}

// TestRunRounded (issue 24 item 6): on an aggregate table whose counts and
// totals are rounded to base 10 (Options.Rounded), every rule flags a
// cell exactly when, at its calibrated parameter, the plain rule finds
// some value the rounded figures stand for sensitive: checked here by
// brute force over every count n in [max(0, N − 5), N + 5] and every
// total X on a grid of quarters in [max(0, X − 5, x1 + x2), X + 5]. The
// rounding changes the flags of some cells (the comparison is not the
// one read as exact), and the text and JSON say the figures are rounded.
func TestRunRounded(t *testing.T) {
	const base = 10
	rng := rand.New(rand.NewPCG(3, 24))
	agg := &audit.Table{Mode: audit.Aggregate, Value: "x", TotalLabel: "Total"}
	var cells []*audit.Cell
	for range 300 {
		n := 5 + rng.IntN(10)
		xs := make([]int64, n)
		var sum int64
		for j := range xs {
			xs[j] = 1 + int64(rng.ExpFloat64()*20)
			sum += xs[j]
		}
		slices.Sort(xs)
		slices.Reverse(xs)
		cells = append(cells, &audit.Cell{HasN: true, N: (int64(n) + base/2) / base * base, HasTotal: true,
			Total: decimal.FromInt((sum + base/2) / base * base), Top: []decimal.Dec{decimal.FromInt(xs[0]), decimal.FromInt(xs[1])}})
	}
	res, err := Run(agg, cells, Options{Target: 0.2, Rounded: decimal.FromInt(base)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounded == nil || res.Rounded.String() != "10" {
		t.Fatalf("result's rounding %v, want 10", res.Rounded)
	}
	exact, err := Run(agg, cells, Options{Target: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	fams := families(2)
	// the cells every rule can assess on their published figures (Run
	// skips the others)
	var use []*audit.Cell
	for _, c := range cells {
		ok := true
		for _, f := range fams {
			r, _ := f.build(f.step.Mul(decimal.FromInt(f.steps / 2)))
			if _, app := r.Sensitive(agg, c); !app {
				ok = false
			}
		}
		if ok {
			use = append(use, c)
		}
	}
	if len(use) != res.Cells || len(use) < 200 {
		t.Fatalf("%d cells assessable, Run used %d; want the same, at least 200", len(use), res.Cells)
	}
	differ, moved := 0, 0 // rules calibrated elsewhere than read as exact; flags that differ from the published figures'
	for k, rr := range res.Rules {
		plain, err := fams[rr.Rule].build(rr.Value)
		if err != nil {
			t.Fatal(err)
		}
		if exact.Rules[k].Value.Cmp(rr.Value) != 0 {
			differ++
		}
		for i, c := range use {
			want := false
			top := c.Top[0].Add(c.Top[1])
			for n := max(0, c.N-base/2); n <= c.N+base/2 && !want; n++ {
				for q := int64(0); q <= 4*base; q++ {
					x := c.Total.Sub(decimal.FromInt(base / 2)).Add(decimal.Scaled(25*q, 2))
					if x.Sign() < 0 || x.Cmp(top) < 0 {
						continue
					}
					v := *c
					v.N, v.Total = n, x
					if s, app := plain.Sensitive(agg, &v); s && app {
						want = true
						break
					}
				}
			}
			if s, _ := plain.Sensitive(agg, c); s != rr.flags[i] {
				moved++
			}
			if rr.flags[i] != want {
				t.Errorf("%s at %s: cell %d (n %d, X %s, x1 %s, x2 %s) flagged %v, brute force %v", rr.Rule, rr.Value, i, c.N, c.Total, c.Top[0], c.Top[1], rr.flags[i], want)
			}
		}
	}
	if differ == 0 || moved == 0 {
		t.Errorf("%d rules calibrated elsewhere than read as exact, %d flags differ from the published figures': the rounding made no difference", differ, moved)
	}
	t.Logf("%d cells; %d rules calibrated elsewhere than read as exact; %d flags differ from the plain rule's on the published figures", len(use), differ, moved)
	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "values rounded to base 10 (input.rounded)") {
		t.Errorf("text does not say the figures are rounded:\n%s", text.String())
	}
	var svg bytes.Buffer
	if err := res.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), "cells assessed; values rounded to base 10)") {
		t.Errorf("the plot's title does not say the figures are rounded")
	}
	js, _ := json.Marshal(res)
	if !strings.Contains(string(js), `"rounded":"10"`) && !strings.Contains(string(js), `"rounded":10`) {
		t.Errorf("JSON does not carry the rounding: %.300s", js)
	}
	if _, err := Run(agg, cells, Options{Target: 0.2, Rounded: decimal.FromInt(-5)}); err == nil {
		t.Error("a negative rounding base accepted")
	}
}
