package rules_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
)

var aggregateTable = &audit.Table{Mode: audit.Aggregate}

// countCell is an aggregate cell with a published count.
func countCell(n int64) *audit.Cell {
	return &audit.Cell{HasN: true, N: n, Stats: audit.StatsOf(map[string]audit.Stat{"count": {Value: decimal.FromInt(n)}})}
}

// TestRoundedThreshold (issue 24 item 6): a count published as v rounded
// to base B stands for the integers of [v − B/2, v + B/2] (never below
// 0); the threshold rule is primary when every one of them is below the
// threshold, ok when none is, and review when they straddle it. Worked
// out by hand. Without ForRounded, 10 and 0 pass and 3 fails.
func TestRoundedThreshold(t *testing.T) {
	for _, tc := range []struct {
		min     int64
		base    string
		n       int64
		want    audit.Outcome
		message string
	}{
		{10, "5", 5, audit.Fail, "only 5 contributors; at least 10 needed; the same for every value the rounded figures stand for (n published 5 rounded to base 5 stands for 3 to 7)"},
		{10, "5", 10, audit.Review, "published 10 rounded to base 5 stands for 8 to 12 contributors; the threshold 10 is met by some of these and not by others: the cell cannot be assessed on the rounded figures"},
		{10, "5", 15, audit.Pass, "15 contributors (at least 10 needed); the same for every value the rounded figures stand for (n published 15 rounded to base 5 stands for 13 to 17)"},
		{10, "5", 0, audit.Review, "published 0 rounded to base 5 stands for 0 to 2 contributors; the threshold 10 is met by some of these and not by others: the cell cannot be assessed on the rounded figures"},
		{3, "3", 3, audit.Review, "stands for 2 to 4 contributors"},
		{3, "3", 6, audit.Pass, "stands for 5 to 7)"},
		{3, "4", 4, audit.Review, "stands for 2 to 6 contributors"},
		{1, "5", 0, audit.Pass, "stands for 0 to 2)"},     // min 1: no count fails
		{10, "5", 13, audit.Pass, "stands for 11 to 15)"}, // not on the grid of the base: as published
		{10, "0.5", 10, audit.Pass, "10 contributors (at least 10 needed)"},
	} {
		th, err := rules.NewThreshold(tc.min)
		if err != nil {
			t.Fatal(err)
		}
		r := rules.ForRounded(th.(rules.CellRule), decimal.Must(tc.base))
		f := r.Check(aggregateTable, countCell(tc.n))
		if f.Outcome != tc.want || !strings.Contains(f.Message(), tc.message) {
			t.Errorf("min %d base %s n %d: %v %q, want %v %q", tc.min, tc.base, tc.n, f.Outcome, f.Message(), tc.want, tc.message)
		}
		if f.Outcome == audit.Review {
			if g, ok := f.Figure("n_low"); !ok || g.Int > tc.n {
				t.Errorf("min %d base %s n %d: figures %v", tc.min, tc.base, tc.n, f.FigureList())
			}
		}
	}
}

// TestRoundedDominanceMessage: a total published as 100 rounded to base
// 10 stands for 95 to 105; with x1 = 93 the (1, 90) rule fails below
// 103.3 and passes above: review, saying for which values.
func TestRoundedDominanceMessage(t *testing.T) {
	d, err := rules.NewDominance(false, rules.NK{N: 1, K: decimal.Must("90")})
	if err != nil {
		t.Fatal(err)
	}
	c := &audit.Cell{HasN: true, N: 20, HasTotal: true, Total: decimal.Must("100"), Top: []decimal.Dec{decimal.Must("93")}}
	f := rules.ForRounded(d.(rules.CellRule), decimal.Must("10")).Check(aggregateTable, c)
	want := "n published 20 rounded to base 10 stands for 15 to 25; X published 100 rounded to base 10 stands for 95 to 105: the rule fails for n = 15, X = 95 and passes for n = 15, X = 105: the cell cannot be assessed on the rounded figures"
	if f.Outcome != audit.Review || f.Message() != want {
		t.Errorf("%v %q, want review %q", f.Outcome, f.Message(), want)
	}
	// x1 = 99: dominated for every total up to 105 (99 > 94.5).
	c.Top[0] = decimal.Must("99")
	if f := rules.ForRounded(d.(rules.CellRule), decimal.Must("10")).Check(aggregateTable, c); f.Outcome != audit.Fail {
		t.Errorf("x1 99: %v %q, want fail", f.Outcome, f.Message())
	}
	// The top contributions add up to more than the total can be.
	c.Top[0] = decimal.Must("106")
	if f := rules.ForRounded(d.(rules.CellRule), decimal.Must("10")).Check(aggregateTable, c); f.Outcome != audit.Review || !strings.Contains(f.Message(), "more than the total can be") {
		t.Errorf("x1 106: %v %q, want review", f.Outcome, f.Message())
	}
}

// totalReader is a rule ForRounded knows nothing of that reads the total.
type totalReader struct{ applies bool }

func (totalReader) Name() string { return "total_reader" }
func (r totalReader) Check(_ *audit.Table, c *audit.Cell) audit.Finding {
	if !r.applies {
		return audit.Said("total_reader", audit.NotApplicable, "never applies", nil)
	}
	return audit.Said("total_reader", audit.Pass, "reads "+c.Total.String(), nil)
}

// TestRoundedUnknownRule: a rule that is not known to be monotone cannot
// be evaluated on an interval of totals: review, never pass; a rule that
// does not apply to any value does not apply.
func TestRoundedUnknownRule(t *testing.T) {
	c := &audit.Cell{HasN: true, N: 20, HasTotal: true, Total: decimal.Must("100")}
	f := rules.ForRounded(totalReader{true}, decimal.Must("5")).Check(aggregateTable, c)
	if f.Outcome != audit.Review || !strings.Contains(f.Message(), "needs the exact total") {
		t.Errorf("applies: %v %q, want review", f.Outcome, f.Message())
	}
	if f := rules.ForRounded(totalReader{false}, decimal.Must("5")).Check(aggregateTable, c); f.Outcome != audit.NotApplicable {
		t.Errorf("does not apply: %v %q", f.Outcome, f.Message())
	}
}

// TestRoundedAgainstEnumeration checks ForRounded against brute force:
// every rule evaluated as it is at every integer n of the count's range
// and at every total of the range on a grid of quarters (the range's ends
// included), on random aggregate cells rounded to bases 3, 4, 5, 10 and
// 2.5.
// The expected outcome is the common outcome of them all, or review when
// they differ; ForRounded tries only a few values per cell.
func TestRoundedAgainstEnumeration(t *testing.T) {
	build := func(name, y string) rules.CellRule { return mustRule(t, name, y).(rules.CellRule) }
	rs := []rules.CellRule{
		build("threshold", "min: 3"), build("threshold", "min: 10"),
		build("zeros", "disclosive: true"),
		build("dominance", "sets: [{n: 1, k: 60}, {n: 2, k: 85}]"),
		build("p_percent", "p: 10"), build("pq", "p: 10, q: 50"),
		build("interval", "s: 20"), build("all_zero", ""),
		build("negative", "mode: review"),
	}
	rng := rand.New(rand.NewPCG(24, 6))
	cells := 120
	if testing.Short() {
		cells = 40
	}
	quarter := decimal.Must("0.25")
	for _, bs := range []struct {
		base  string
		floor int64 // ⌊B/2⌋: a count v stands for v ± floor
		step  int64 // published counts are multiples of step
	}{{"3", 1, 3}, {"4", 2, 4}, {"5", 2, 5}, {"10", 5, 10}, {"2.5", 1, 1}} {
		b := decimal.Must(bs.base)
		half := b.Mul(decimal.Must("0.5"))
		for range cells {
			c := &audit.Cell{HasN: true, N: bs.step * rng.Int64N(5), HasTotal: true, Total: b.Mul(decimal.FromInt(rng.Int64N(30)))}
			for k := rng.IntN(4); k > 0; k-- {
				c.Top = append(c.Top, decimal.FromInt(rng.Int64N(40)))
			}
			c.Top = sortDesc(c.Top, false)
			var sum decimal.Dec
			for _, x := range c.Top {
				sum = sum.Add(x)
			}
			c.AllTop = int64(len(c.Top)) >= c.N
			// The values the figures stand for, written out here.
			nlo, nhi := max(0, c.N-bs.floor), c.N+bs.floor // base 5: v ± 2.5 holds v−2..v+2
			xlo, xhi := c.Total.Sub(half), c.Total.Add(half)
			if xlo.Sign() < 0 {
				xlo = decimal.Dec{}
			}
			if sum.Cmp(xlo) > 0 {
				xlo = sum
			}
			for _, r := range rs {
				var want audit.Outcome
				var xs []decimal.Dec
				if r.Name() == "threshold" || r.Name() == "zeros" {
					xs = []decimal.Dec{c.Total} // they read only the count
				} else {
					for x := xlo; x.Cmp(xhi) <= 0; x = x.Add(quarter) {
						xs = append(xs, x)
					}
					if len(xs) == 0 {
						want = audit.Review // no total is consistent with the contributions
					}
				}
				for n := nlo; n <= nhi && want != audit.Review; n++ {
					for _, x := range xs {
						v := *c
						v.N, v.Total, v.AllTop = n, x, int64(len(c.Top)) >= n
						if v.AllTop && len(c.Top) > 0 {
							v.Total = sum
						}
						o := r.Check(aggregateTable, &v).Outcome
						switch {
						case want == 0:
							want = o
						case want != o:
							want = audit.Review
						}
					}
				}
				got := rules.ForRounded(r, b).Check(aggregateTable, c)
				if got.Outcome != want {
					t.Fatalf("%s base %s n %d X %s top %v: %v %q, want %v", r.Name(), bs.base, c.N, c.Total, c.Top, got.Outcome, got.Message(), want)
				}
			}
		}
	}
}

// roundedTable is an aggregate frequency table of counts over dims, a
// cell per key ("A/m": "10"), margins labelled Total.
func roundedTable(dims []string, counts map[string]int64) *audit.Table {
	tab := &audit.Table{Mode: audit.Aggregate, Dims: dims, TotalLabel: "Total", Columns: []string{"count"}}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := countCell(counts[k])
		c.Key = strings.Split(k, "/")
		tab.Cells = append(tab.Cells, c)
	}
	return tab
}

// TestRoundedConsistency: on a table rounded to base 5 a margin of 2
// cells adds up within (2+1)·5/2 = 7.5 of their sum (3 roundings);
// beyond, and on exact values, it does not. An empty cell with a total
// is a contradiction only when the rounded 0 cannot stand for a
// contributor.
func TestRoundedConsistency(t *testing.T) {
	for _, tc := range []struct {
		total int64
		base  string
		want  audit.Outcome
		text  string
	}{
		{20, "", audit.Review, "difference 5)"},
		{20, "5", audit.Pass, "add up within the rounding to base 5"},
		{25, "5", audit.Review, "difference 10, more than the 7.5 the rounding to base 5 allows"},
		{15, "5", audit.Pass, ""},
	} {
		tab := roundedTable([]string{"g"}, map[string]int64{"a": 5, "b": 10, "Total": tc.total})
		var r rules.TableRule = mustRule(t, "consistency", "").(rules.TableRule)
		if tc.base != "" {
			r = rules.ForRoundedTable(r, decimal.Must(tc.base))
		}
		r.CheckTable(tab)
		for _, c := range tab.Cells {
			f := c.Findings[0]
			if f.Outcome != tc.want || !strings.Contains(f.Message(), tc.text) {
				t.Errorf("total %d base %q %v: %v %q, want %v %q", tc.total, tc.base, c.Key, f.Outcome, f.Message(), tc.want, tc.text)
			}
		}
	}
	for _, tc := range []struct {
		base, total string
		want        audit.Outcome
	}{
		{"", "3", audit.Review}, {"5", "3", audit.Pass}, {"1", "3", audit.Review}, {"1", "0.5", audit.Pass},
	} {
		c := &audit.Cell{Key: []string{"a"}, HasN: true, HasTotal: true, Total: decimal.Must(tc.total)}
		tab := &audit.Table{Mode: audit.Aggregate, Dims: []string{"g"}, TotalLabel: "Total", Cells: []*audit.Cell{c}}
		var r rules.TableRule = mustRule(t, "consistency", "").(rules.TableRule)
		if tc.base != "" {
			r = rules.ForRoundedTable(r, decimal.Must(tc.base))
		}
		r.CheckTable(tab)
		if f := c.Findings[0]; f.Outcome != tc.want {
			t.Errorf("n 0, X %s, base %q: %v %q, want %v", tc.total, tc.base, f.Outcome, f.Message(), tc.want)
		}
	}
}

// TestRoundedClass: all of group A are m, and all f are in B, when A/f
// is 0; rounded to base 5, the published 0 stands for 0 to 2, so A/m and
// B/f are review, not primary (base 1: a 0 is 0, primary as on exact
// counts).
func TestRoundedClass(t *testing.T) {
	for _, tc := range []struct {
		base string
		want audit.Outcome
		text string
	}{
		{"", audit.Fail, "group disclosure: all 10 of region=A have sex=m"},
		{"5", audit.Review, "group disclosure if the other cells published 0 are empty: all 10 of region=A have sex=m; rounded to base 5, a published 0 stands for 0 to 2: the cell cannot be assessed on the rounded figures"},
		{"1", audit.Fail, "group disclosure: all 10 of region=A have sex=m"},
	} {
		tab := roundedTable([]string{"region", "sex"}, map[string]int64{
			"A/m": 10, "A/f": 0, "A/Total": 10, "B/m": 5, "B/f": 10, "B/Total": 15, "Total/m": 15, "Total/f": 10, "Total/Total": 25})
		var r rules.TableRule = mustRule(t, "class", "").(rules.TableRule)
		if tc.base != "" {
			r = rules.ForRoundedTable(r, decimal.Must(tc.base))
		}
		r.CheckTable(tab)
		for _, c := range tab.Cells {
			f := c.Findings[0]
			want, text := audit.Pass, ""
			switch strings.Join(c.Key, "/") {
			case "A/m":
				want, text = tc.want, tc.text
			case "B/f":
				want = tc.want
			}
			if f.Outcome != want || !strings.Contains(f.Message(), text) {
				t.Errorf("base %q %v: %v %q, want %v %q", tc.base, c.Key, f.Outcome, f.Message(), want, text)
			}
		}
	}
}

// BenchmarkRounded: the threshold and dominance rules on an aggregate
// cell, as they are (plain) and on a table rounded to base 5.
func BenchmarkRounded(b *testing.B) {
	th := mustRule(b, "threshold", "min: 10").(rules.CellRule)
	dom := mustRule(b, "dominance", "sets: [{n: 1, k: 60}, {n: 2, k: 85}]").(rules.CellRule)
	c := &audit.Cell{HasN: true, N: 20, HasTotal: true, Total: decimal.FromInt(1000),
		Top: []decimal.Dec{decimal.FromInt(300), decimal.FromInt(200)}}
	for _, r := range []rules.CellRule{th, dom} {
		b.Run(r.Name()+"/plain", func(b *testing.B) {
			for b.Loop() {
				_ = r.Check(aggregateTable, c)
			}
		})
		rr := rules.ForRounded(r, decimal.FromInt(5))
		b.Run(r.Name()+"/rounded", func(b *testing.B) {
			for b.Loop() {
				_ = rr.Check(aggregateTable, c)
			}
		})
	}
}
