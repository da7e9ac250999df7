package rules_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
)

// params returns a decoder giving rule name the default profile's
// settings, then the YAML parameters y (a flow mapping body).
func params(name, y string) rules.Decoder {
	return rules.ProfileParams(name, "{"+y+"}")
}

func mustRule(t testing.TB, name, y string) rules.Rule {
	t.Helper()
	r, err := rules.New(name, params(name, y))
	if err != nil {
		t.Fatalf("%s %q: %v", name, y, err)
	}
	return r
}

// cell builds a microdata cell from its contributions (any order).
func cell(vals ...string) *audit.Cell {
	c := &audit.Cell{HasN: true, HasTotal: true, AllTop: true}
	var ds []decimal.Dec
	for _, v := range vals {
		d := decimal.Must(v)
		ds = append(ds, d)
		c.Total = c.Total.Add(d)
		c.AbsTotal = c.AbsTotal.Add(d.Abs())
		if d.Sign() < 0 {
			c.Negative++
		}
	}
	c.N = int64(len(ds))
	c.Top = sortDesc(ds, false)
	c.AbsTop = sortDesc(ds, true)
	c.HasAbs = true
	return c
}

func sortDesc(ds []decimal.Dec, abs bool) []decimal.Dec {
	out := make([]decimal.Dec, len(ds))
	for i, d := range ds {
		if abs {
			d = d.Abs()
		}
		out[i] = d
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Cmp(out[j-1]) > 0; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

var magTable = &audit.Table{Mode: audit.Microdata, Value: "v", TotalLabel: "Total"}

func check(t testing.TB, name, y string, tab *audit.Table, c *audit.Cell) audit.Finding {
	t.Helper()
	r := mustRule(t, name, y)
	cr, ok := r.(rules.CellRule)
	if !ok {
		t.Fatalf("%s is not a cell rule", name)
	}
	f := cr.Check(tab, c)
	if f.Rule != name || f.Message() == "" {
		t.Fatalf("%s: finding %+v lacks rule name or message", name, f)
	}
	if s, ok := r.(rules.Sensitiver); ok {
		sens, app := s.Sensitive(tab, c)
		if app != (f.Outcome == audit.Pass || f.Outcome == audit.Fail) || sens != (f.Outcome == audit.Fail) {
			t.Fatalf("%s: Sensitive = %v,%v but Check says %s", name, sens, app, f.Outcome)
		}
	}
	return f
}

func TestPrimaryRules(t *testing.T) {
	freq := &audit.Table{Mode: audit.Microdata, TotalLabel: "Total"}
	agg := &audit.Table{Mode: audit.Aggregate, TotalLabel: "Total", Columns: []string{"count", "total"}}
	aggCell := func(n int64, total string, top ...string) *audit.Cell {
		c := &audit.Cell{HasN: true, N: n, HasTotal: true, Total: decimal.Must(total), Stats: audit.StatsOf(map[string]audit.Stat{"count": {Value: decimal.FromInt(n)}, "total": {Value: decimal.Must(total)}})}
		for _, v := range top {
			c.Top = append(c.Top, decimal.Must(v))
		}
		c.AllTop = int64(len(c.Top)) >= n
		return c
	}
	tests := []struct {
		name   string
		rule   string
		params string
		table  *audit.Table
		cell   *audit.Cell
		want   audit.Outcome
		value  string // a key of Values that must be present
	}{
		// SDC handbook examples.
		{"handbook p% 10 safe", "p_percent", "p: 10", magTable, cell("52000", "50000", "8000"), audit.Pass, "p/100*x1"},
		{"handbook (2,90.9) unsafe", "dominance", "sets: [{n: 2, k: 90.9}]", magTable, cell("52000", "50000", "8000"), audit.Fail, "sets"},
		{"handbook (1,85) unsafe", "dominance", "sets: [{n: 1, k: 85}]", magTable, cell("300", "20", "10"), audit.Fail, "sets"},
		{"handbook (1,85) two sets", "dominance", "sets: [{n: 1, k: 95}, {n: 1, k: 85}]", magTable, cell("300", "20", "10"), audit.Fail, "X"},
		{"(1,95) safe", "dominance", "sets: [{n: 1, k: 95}]", magTable, cell("300", "20", "10"), audit.Pass, "X"},
		// Statisticon: X=100, x2=40, n=3 -> I = 20.
		{"interval s=25 sensitive", "interval", "s: 25", magTable, cell("45", "40", "15"), audit.Fail, "width"},
		{"interval s=15 safe", "interval", "s: 15", magTable, cell("45", "40", "15"), audit.Pass, "width"},
		{"interval s=20 boundary safe", "interval", "s: 20", magTable, cell("45", "40", "15"), audit.Pass, "x1_lower"},
		{"interval n=1 always unsafe", "interval", "s: 0.001", magTable, cell("7"), audit.Fail, "n"},
		{"interval n=2 exact", "interval", "s: 1", magTable, cell("6", "4"), audit.Fail, "width"},
		// p%: boundary is strict.
		{"p% boundary", "p_percent", "p: 10", magTable, cell("100", "50", "10"), audit.Pass, "X-x1-x2"},
		{"p% just inside", "p_percent", "p: 10.001", magTable, cell("100", "50", "10"), audit.Fail, "X-x1-x2"},
		{"p% one contributor", "p_percent", "p: 10", magTable, cell("5"), audit.Fail, "x1"},
		// pq: X - x1 - x2 < p/q x1.
		{"pq sensitive", "pq", "p: 10, q: 50", magTable, cell("100", "50", "19"), audit.Fail, "p/q*x1"},
		{"pq boundary safe", "pq", "p: 10, q: 50", magTable, cell("100", "50", "20"), audit.Pass, "p/q*x1"},
		// threshold.
		{"threshold fail", "threshold", "min: 3", magTable, cell("1", "2"), audit.Fail, "n"},
		{"threshold pass", "threshold", "min: 3", magTable, cell("1", "2", "3"), audit.Pass, "n"},
		{"threshold empty", "threshold", "min: 3", magTable, &audit.Cell{HasN: true}, audit.Pass, "n"},
		{"threshold unknown count", "threshold", "", agg, &audit.Cell{Stats: audit.StatsOf(map[string]audit.Stat{"count": {Missing: true}})}, audit.Review, ""},
		{"threshold count marker", "threshold", "", agg, &audit.Cell{Stats: audit.StatsOf(map[string]audit.Stat{"count": {Missing: true, Marker: true}})}, audit.NotApplicable, ""},
		// zeros.
		{"zeros default", "zeros", "", freq, &audit.Cell{HasN: true}, audit.Pass, "n"},
		{"zeros disclosive", "zeros", "disclosive: true", freq, &audit.Cell{HasN: true}, audit.Fail, "n"},
		{"zeros disclosive nonzero", "zeros", "disclosive: true", freq, &audit.Cell{HasN: true, N: 3}, audit.Pass, "n"},
		// frequency tables: magnitude rules do not apply.
		{"freq dominance", "dominance", "sets: [{n: 1, k: 50}]", freq, &audit.Cell{HasN: true, N: 4}, audit.NotApplicable, ""},
		{"freq p%", "p_percent", "", freq, &audit.Cell{HasN: true, N: 4}, audit.NotApplicable, ""},
		{"freq pq", "pq", "", freq, &audit.Cell{HasN: true, N: 4}, audit.NotApplicable, ""},
		{"freq interval", "interval", "", freq, &audit.Cell{HasN: true, N: 4}, audit.NotApplicable, ""},
		// a total expected but missing: review; a marker: not applicable.
		{"agg total missing", "p_percent", "", agg, &audit.Cell{HasN: true, N: 4, Stats: audit.StatsOf(map[string]audit.Stat{"total": {Missing: true}})}, audit.Review, ""},
		{"agg total marker", "p_percent", "", agg, &audit.Cell{HasN: true, N: 4, Stats: audit.StatsOf(map[string]audit.Stat{"total": {Missing: true, Marker: true}})}, audit.NotApplicable, ""},
		// aggregate tables: top columns decide.
		{"agg no top", "p_percent", "", agg, aggCell(5, "100"), audit.NotApplicable, ""},
		{"agg top1 only", "p_percent", "", agg, aggCell(5, "100", "60"), audit.NotApplicable, ""},
		{"agg top2", "p_percent", "", agg, aggCell(5, "100", "60", "35"), audit.Fail, "x2"},
		{"agg single contributor", "p_percent", "", agg, aggCell(1, "100", "100"), audit.Fail, "x1"},
		{"agg dominance n=3 needs 3", "dominance", "sets: [{n: 3, k: 90}]", agg, aggCell(5, "100", "60", "35"), audit.NotApplicable, ""},
		{"agg interval needs n", "interval", "", agg, &audit.Cell{HasTotal: true, Total: decimal.FromInt(100), Top: []decimal.Dec{decimal.FromInt(60), decimal.FromInt(35)}}, audit.NotApplicable, ""},
		// empty cells: the zeros rule decides.
		{"empty p%", "p_percent", "", magTable, &audit.Cell{HasN: true, HasTotal: true}, audit.NotApplicable, ""},
		// negative contributions.
		{"negative p% review", "p_percent", "", magTable, cell("100", "-50", "20"), audit.Review, "negative"},
		{"negative dominance review", "dominance", "sets: [{n: 1, k: 50}]", magTable, cell("100", "-50", "20"), audit.Review, "negative"},
		{"negative interval review", "interval", "", magTable, cell("100", "-50", "20"), audit.Review, "negative"},
		{"negative pq review", "pq", "", magTable, cell("100", "-50", "20"), audit.Review, "negative"},
		// absolute: |x| = 100, 50, 20, X = 170; (1,50): 100 > 85 unsafe.
		{"absolute dominance", "dominance", "sets: [{n: 1, k: 50}], absolute: true", magTable, cell("100", "-50", "20"), audit.Fail, "absolute"},
		{"absolute dominance safe", "dominance", "sets: [{n: 1, k: 60}], absolute: true", magTable, cell("100", "-50", "20"), audit.Pass, "absolute"},
		{"absolute p%", "p_percent", "p: 10, absolute: true", magTable, cell("100", "-50", "20"), audit.Pass, "absolute"},
		{"negative total aggregate", "p_percent", "absolute: true", agg, aggCell(3, "-10", "5", "2"), audit.Review, "negative"},
		{"negative rule review", "negative", "", magTable, cell("100", "-50", "20"), audit.Review, "negative"},
		{"negative rule absolute", "negative", "mode: absolute", magTable, cell("100", "-50", "20"), audit.Pass, "abs_X"},
		{"negative rule none", "negative", "", magTable, cell("100", "50"), audit.Pass, "negative"},
		{"negative rule freq", "negative", "", freq, &audit.Cell{HasN: true, N: 2}, audit.NotApplicable, ""},
		// missing statistics.
		{"missing mean aggregate", "missing", "", agg, &audit.Cell{HasN: true, N: 5, Stats: audit.StatsOf(map[string]audit.Stat{"count": {Value: decimal.FromInt(5)}, "mean": {Missing: true}})}, audit.Review, "missing"},
		{"missing count aggregate", "missing", "", agg, &audit.Cell{Stats: audit.StatsOf(map[string]audit.Stat{"count": {Missing: true}})}, audit.Review, "missing"},
		{"undefined mean of empty cell", "missing", "", agg, &audit.Cell{HasN: true, N: 0, Stats: audit.StatsOf(map[string]audit.Stat{"count": {}, "mean": {Missing: true}})}, audit.Pass, "undefined"},
		{"undefined sd of one value", "missing", "", agg, &audit.Cell{HasN: true, N: 1, Stats: audit.StatsOf(map[string]audit.Stat{"count": {}, "sd": {Missing: true}})}, audit.Pass, "undefined"},
		{"sd of two values missing", "missing", "", agg, &audit.Cell{HasN: true, N: 2, Stats: audit.StatsOf(map[string]audit.Stat{"count": {}, "sd": {Missing: true}})}, audit.Review, "missing"},
		{"suppressed in input", "missing", "", agg, &audit.Cell{HasN: true, N: 2, Stats: audit.StatsOf(map[string]audit.Stat{"total": {Missing: true, Marker: true}})}, audit.Pass, "suppressed_in_input"},
		{"microdata total not computed", "missing", "", magTable, &audit.Cell{HasN: true, N: 2}, audit.Review, "missing"},
		{"all present", "missing", "", magTable, cell("1", "2"), audit.Pass, ""},
		{"all values missing", "missing", "", magTable, &audit.Cell{HasN: true, HasTotal: true, Rows: 3, Missing: 3}, audit.Review, "all_missing"},
		{"some values missing", "missing", "", magTable, func() *audit.Cell { c := cell("1", "2"); c.Rows, c.Missing = 3, 1; return c }(), audit.Pass, "missing_values"},
		{"empty cell is not missing", "missing", "", magTable, &audit.Cell{HasN: true, HasTotal: true}, audit.Pass, ""},
		{"frequency table missing values", "missing", "", freq, &audit.Cell{HasN: true, Rows: 3, Missing: 3}, audit.Pass, ""},
		// all contributions zero.
		{"all zero", "all_zero", "", magTable, cell("0", "0", "0"), audit.Fail, "X"},
		{"one zero", "all_zero", "", magTable, cell("0"), audit.Fail, "n"},
		{"not all zero", "all_zero", "", magTable, cell("0", "0", "1"), audit.Pass, "X"},
		{"zero total with negatives", "all_zero", "", magTable, cell("5", "-5"), audit.Pass, "X"},
		{"zero total, negative top (aggregate)", "all_zero", "", agg, aggCell(3, "0", "4", "-1"), audit.Pass, "X"},
		{"zero total, negative min (aggregate)", "all_zero", "", agg, func() *audit.Cell {
			c := aggCell(3, "0")
			c.Stats.Set("min", audit.Stat{Value: decimal.Must("-2")})
			return c
		}(), audit.Pass, "X"},
		{"zero total (aggregate)", "all_zero", "", agg, aggCell(12, "0"), audit.Fail, "assumed_non_negative"},
		{"all zero empty cell", "all_zero", "", magTable, &audit.Cell{HasN: true, HasTotal: true}, audit.NotApplicable, "n"},
		{"all zero frequency", "all_zero", "", freq, &audit.Cell{HasN: true, N: 4}, audit.NotApplicable, ""},
		{"all zero count unknown", "all_zero", "", agg, &audit.Cell{HasTotal: true}, audit.NotApplicable, ""},
		// published min and max.
		{"min published", "minmax", "", magTable, func() *audit.Cell {
			c := cell("1", "2")
			c.Stats = audit.StatsOf(map[string]audit.Stat{"min": {Text: "1"}})
			return c
		}(), audit.Fail, "published"},
		{"max published", "minmax", "", agg, func() *audit.Cell { c := aggCell(30, "100"); c.Stats.Set("max", audit.Stat{Text: "9"}); return c }(), audit.Fail, "published"},
		{"min of empty cell", "minmax", "", magTable, &audit.Cell{HasN: true, Stats: audit.StatsOf(map[string]audit.Stat{"min": {Missing: true}, "max": {Missing: true}})}, audit.Pass, "n"},
		{"max suppressed in input", "minmax", "", agg, func() *audit.Cell {
			c := aggCell(30, "100")
			c.Stats.Set("max", audit.Stat{Missing: true, Marker: true})
			return c
		}(), audit.Pass, "n"},
		{"no min or max", "minmax", "", magTable, cell("1", "2"), audit.NotApplicable, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := check(t, tc.rule, tc.params, tc.table, tc.cell)
			if f.Outcome != tc.want {
				t.Fatalf("%s: %s (%s), want %s; values %v", tc.rule, f.Outcome, f.Message(), tc.want, f.Values())
			}
			if tc.value != "" {
				if _, ok := f.Values()[tc.value]; !ok {
					t.Fatalf("values %v lack %q", f.Values(), tc.value)
				}
			}
		})
	}
}

// The figures behind a p% finding are the ones the rule compares.
func TestPPercentFigures(t *testing.T) {
	f := check(t, "p_percent", "p: 10", magTable, cell("52000", "50000", "8000"))
	want := map[string]string{"X": "110000", "x1": "52000", "x2": "50000", "X-x1-x2": "8000", "p/100*x1": "5200", "p": "10"}
	for k, v := range want {
		if got := f.Values()[k].(decimal.Dec).String(); got != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
	}
	f = check(t, "interval", "s: 25", magTable, cell("45", "40", "15"))
	for k, v := range map[string]string{"x1_lower": "40", "x1_upper": "60", "width": "20", "s/100*X": "25"} {
		if got := f.Values()[k].(decimal.Dec).String(); got != v {
			t.Errorf("interval %s = %s, want %s", k, got, v)
		}
	}
}

func TestParamErrors(t *testing.T) {
	tests := []struct{ rule, params, want string }{
		{"threshold", "min: 0", "min"},
		{"threshold", "mni: 3", "mni"},
		{"dominance", "sets: []", "sets"},
		{"dominance", "sets: [{n: 0, k: 50}]", "sets[0].n"},
		{"dominance", "sets: [{n: 1, k: 0}]", "sets[0].k"},
		{"dominance", "sets: [{n: 1, k: 100.5}]", "sets[0].k"},
		{"dominance", "sets: [{n: 2, k: 90}, {n: 1, k: -1}]", "sets[1].k"},
		{"p_percent", "p: 0", "p"},
		{"p_percent", "p: 101", "p"},
		{"p_percent", "p: 0.0000000000000000001", ""},
		{"pq", "p: 50, q: 50", "less than q"},
		{"pq", "p: 60, q: 50", "less than q"},
		{"pq", "p: 0, q: 50", "p"},
		{"pq", "p: 10, q: 101", "q"},
		{"interval", "s: 0", "s"},
		{"interval", "s: 100.01", "s"},
		{"negative", "mode: guess", "mode"},
		{"zeros", "disclosive: maybe", ""},
		{"missing", "x: 1", ""},
		{"class", "rows: 1", ""},
		{"all_zero", "x: 1", ""},
		{"minmax", "x: 1", ""},
		{"consistency", "x: 1", ""},
	}
	for _, tc := range tests {
		_, err := rules.New(tc.rule, params(tc.rule, tc.params))
		if err == nil {
			t.Errorf("%s %q: no error", tc.rule, tc.params)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %q does not name %q", tc.rule, tc.params, err, tc.want)
		}
		var pe *rules.ParamError
		if tc.want != "" && strings.Contains(tc.params, ": ") && !strings.HasPrefix(tc.params, "mni") && !errors.As(err, &pe) {
			t.Errorf("%s %q: %v is not a ParamError", tc.rule, tc.params, err)
		}
	}
	// valid limits
	for _, tc := range []struct{ rule, params string }{
		{"dominance", "sets: [{n: 1, k: 100}]"}, {"p_percent", "p: 100"}, {"pq", "p: 99.9, q: 100"}, {"interval", "s: 100"}, {"threshold", "min: 1"},
	} {
		mustRule(t, tc.rule, tc.params)
	}
}

func TestRegistered(t *testing.T) {
	names := strings.Join(rules.Names(), ",")
	for _, n := range []string{"threshold", "zeros", "dominance", "p_percent", "pq", "interval", "class", "negative", "missing", "all_zero", "minmax", "consistency"} {
		if !strings.Contains(","+names+",", ","+n+",") {
			t.Errorf("%s not registered (have %s)", n, names)
		}
		if s, _ := rules.Lookup(n); s.Doc == "" {
			t.Errorf("%s has no doc", n)
		}
	}
}
