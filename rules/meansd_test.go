package rules

import (
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func TestMeanSDRule(t *testing.T) {
	r, err := New("meansd", ProfileParams("meansd", ""))
	if err != nil {
		t.Fatal(err)
	}
	cr := r.(CellRule)
	tab := &audit.Table{Measure: &audit.Domain{Min: decimal.FromInt(1), Max: decimal.FromInt(5), Step: decimal.FromInt(1)}}
	mag := &audit.Table{Measure: &audit.Domain{Min: decimal.FromInt(0), Max: decimal.FromInt(1000), Step: decimal.FromInt(1), Magnitude: true}}
	stat := func(s string) audit.Stat { return audit.Stat{Text: s, Value: decimal.Must(s)} }
	cell := func(n int64, mean, sd string) *audit.Cell {
		return &audit.Cell{HasN: true, N: n, Stats: audit.StatsOf(map[string]audit.Stat{"mean": stat(mean), "sd": stat(sd)})}
	}
	cases := []struct {
		t      *audit.Table
		c      *audit.Cell
		status audit.Outcome
		msg    string
	}{
		{tab, cell(7, "2.857", "1.574"), audit.Fail, "fit only 2 samples (fewer than 10)"},
		{tab, cell(117, "3.44", "1.29"), audit.Pass, "the maximum is 5 in every solution (the top of the scale: not a finding by itself)"},
		{tab, cell(15, "4.00", "0.00"), audit.Fail, "all 15 respondents answered 4"},
		{tab, cell(4, "3.00", "0.82"), audit.Fail, "the sample is unique"},
		{mag, cell(3, "363.67", "425.51"), audit.Fail, "fit 3 samples: the largest amount is 855 in every solution"},
		{tab, cell(7, "2.587", "1.512"), audit.Review, "inconsistent"},
		{tab, cell(200, "3.0", "1.2"), audit.Pass, "fit at least 10 samples"},
		{tab, cell(9, "3.0", "1.2"), audit.Fail, "fewer than 10"},
		{&audit.Table{}, cell(7, "2.857", "1.574"), audit.NotApplicable, "no measure domain"},
		{tab, &audit.Cell{HasN: true, N: 7, Stats: audit.StatsOf(map[string]audit.Stat{"mean": stat("2.857")})}, audit.NotApplicable, "not published"},
		{tab, &audit.Cell{HasN: true, N: 7, Stats: audit.StatsOf(map[string]audit.Stat{"mean": stat("2.857"), "sd": {Text: "c", Marker: true}})}, audit.NotApplicable, "missing"},
	}
	for _, c := range cases {
		f := cr.Check(c.t, c.c)
		if f.Outcome != c.status || !strings.Contains(f.Message(), c.msg) {
			t.Errorf("%+v: %s %q, want %s containing %q", c.c.Stats, f.Outcome, f.Message(), c.status, c.msg)
		}
		if _, ok := f.Values()["samples"]; ok {
			t.Errorf("samples must not be in Values")
		}
	}
	if _, err := New("meansd", ProfileParams("meansd", "")); err != nil {
		t.Fatal(err)
	}
}
