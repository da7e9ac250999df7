package rules

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// TestFactsFindingsEqualExplain: the threshold, zeros, negative and
// all_zero rules decide a cell without building its figures, and their
// findings give the figures and message when written (Facts). On random
// cells of aggregate and microdata tables, every finding has the outcome,
// figures and message of the full finding (explain, the rule's check as it
// was), and a cell with a count and a total costs no allocation.
func TestFactsFindingsEqualExplain(t *testing.T) {
	th, _ := NewThreshold(3)
	type explainer interface {
		CellRule
		explain(*audit.Table, *audit.Cell) audit.Finding
	}
	rs := []explainer{th.(threshold), zeros{}, zeros{disclosive: true}, negative{}, negative{absolute: true}, allZero{}}
	for i, r := range rs {
		switch x := r.(type) {
		case zeros:
			x.facts = &explainFacts{x.explain}
			rs[i] = x
		case negative:
			x.facts = &explainFacts{x.explain}
			rs[i] = x
		}
	}
	rng := rand.New(rand.NewPCG(15, 1))
	small := func() decimal.Dec { return decimal.FromInt(int64(rng.IntN(7) - 2)) }
	tables := []*audit.Table{nil, {Mode: audit.Aggregate}, {Mode: audit.Microdata, Value: "v"}}
	seen := map[string]map[audit.Outcome]bool{}
	for range 3000 {
		c := &audit.Cell{HasN: rng.IntN(5) > 0, N: int64(rng.IntN(5)), HasTotal: rng.IntN(5) > 0, Missing: int64(rng.IntN(2)),
			Negative: int64(rng.IntN(3) / 2), HasAbs: rng.IntN(2) == 0, AbsTotal: small(), Stats: audit.StatsOf(map[string]audit.Stat{})}
		if rng.IntN(2) == 0 {
			c.Total = small()
		}
		for range rng.IntN(3) {
			c.Top = append(c.Top, small())
		}
		if rng.IntN(3) == 0 {
			c.HasRange, c.Min, c.Max = true, small(), small()
		}
		if rng.IntN(4) == 0 {
			c.Stats.Set("count", audit.Stat{Text: "1", Marker: rng.IntN(2) == 0, Missing: true})
		}
		for _, tab := range tables {
			for _, r := range rs {
				got, want := r.Check(tab, c), r.explain(tab, c)
				if got.Rule != want.Rule || got.Outcome != want.Outcome || !reflect.DeepEqual(got.FigureList(), want.FigureList()) || got.Message() != want.Message() {
					t.Fatalf("%s on %+v: got %s %v %q, want %s %v %q", r.Name(), c, got.Outcome, got.FigureList(), got.Message(), want.Outcome, want.FigureList(), want.Message())
				}
				if seen[r.Name()] == nil {
					seen[r.Name()] = map[audit.Outcome]bool{}
				}
				seen[r.Name()][got.Outcome] = true
				if c.HasN && c.HasTotal {
					if n := testing.AllocsPerRun(5, func() { _ = r.Check(tab, c) }); n != 0 {
						t.Fatalf("%s: Check allocates %v times on %+v", r.Name(), n, c)
					}
				}
			}
		}
	}
	for name, want := range map[string][]audit.Outcome{"threshold": {audit.Pass, audit.Fail}, "zeros": {audit.Pass, audit.Fail},
		"negative": {audit.Pass, audit.Review, audit.NotApplicable}, "all_zero": {audit.Pass, audit.Fail, audit.NotApplicable}} {
		for _, o := range want {
			if !seen[name][o] {
				t.Errorf("%s: no %s among the random cells", name, o)
			}
		}
	}
}
