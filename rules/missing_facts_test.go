package rules

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// TestMissingFactsEqualFull: the missing rule passes a cell whose
// statistics are all present without building its figures (its finding
// refers to the rule's facts and costs no allocation), and every finding,
// on random cells of aggregate and microdata tables, has the outcome,
// figures and message of the rule's full finding (the zero rule, which
// builds them on the spot).
func TestMissingFactsEqualFull(t *testing.T) {
	r, err := New("missing", nil)
	if err != nil {
		t.Fatal(err)
	}
	fast, full := r.(CellRule), missing{}
	rng := rand.New(rand.NewPCG(15, 2))
	names := []string{"count", "total", "mean", "sd", "skewness"}
	tables := []*audit.Table{nil, {Mode: audit.Aggregate}, {Mode: audit.Microdata, Value: "v"}, {Mode: audit.Microdata}}
	seen := map[audit.Outcome]int{}
	facts := 0
	for range 3000 {
		c := &audit.Cell{HasN: rng.IntN(5) > 0, N: int64(rng.IntN(5)), HasTotal: rng.IntN(3) > 0,
			Rows: int64(rng.IntN(3)), Stats: audit.StatsOf(map[string]audit.Stat{})}
		c.Missing = int64(rng.IntN(int(c.Rows) + 1))
		for _, n := range names {
			switch rng.IntN(6) {
			case 0:
				c.Stats.Set(n, audit.Stat{Text: "x", Missing: true, Marker: rng.IntN(2) == 0})
			case 1, 2:
				c.Stats.Set(n, audit.Stat{Text: "1", Value: decimal.FromInt(1)})
			}
		}
		for _, tab := range tables {
			got, want := fast.Check(tab, c), full.Check(tab, c)
			if got.Rule != want.Rule || got.Outcome != want.Outcome || !reflect.DeepEqual(got.FigureList(), want.FigureList()) || got.Message() != want.Message() {
				t.Fatalf("%+v in %+v: got %s %v %q, want %s %v %q", c, tab, got.Outcome, got.FigureList(), got.Message(), want.Outcome, want.FigureList(), want.Message())
			}
			seen[got.Outcome]++
			// every statistic present, and a microdata cell has values
			// and its total: the finding costs nothing
			present := true
			for _, st := range c.Stats.All() {
				present = present && !st.Missing
			}
			if tab != nil && tab.Mode == audit.Microdata && tab.Value != "" {
				_, tot := c.Stats.Get("total")
				present = present && !(c.Rows > 0 && c.Missing == c.Rows) && (tot || c.HasTotal)
			}
			if present {
				facts++
				if got.Outcome != audit.Pass {
					t.Fatalf("%+v in %+v: %s with every statistic present", c, tab, got.Outcome)
				}
				if n := testing.AllocsPerRun(5, func() { _ = fast.Check(tab, c) }); n != 0 {
					t.Fatalf("Check allocates %v times on %+v in %+v", n, c, tab)
				}
			}
		}
	}
	if seen[audit.Pass] == 0 || seen[audit.Review] == 0 || facts == 0 {
		t.Fatalf("outcomes %v, %d cells with every statistic present", seen, facts)
	}
}
