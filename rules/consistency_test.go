package rules_test

import (
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
)

func TestConsistency(t *testing.T) {
	aggCell := func(key, n, total string) *audit.Cell {
		c := &audit.Cell{Key: []string{key}, Stats: audit.StatsOf(map[string]audit.Stat{})}
		if n != "" {
			v, _ := decimal.Must(n).Int64()
			c.HasN, c.N = true, v
		}
		if total != "" {
			c.HasTotal, c.Total = true, decimal.Must(total)
		}
		return c
	}
	run := func(mode audit.Mode, cells ...*audit.Cell) map[string]audit.Finding {
		tab := &audit.Table{Mode: mode, Dims: []string{"g"}, TotalLabel: "Total", Cells: cells}
		mustRule(t, "consistency", "").(rules.TableRule).CheckTable(tab)
		out := map[string]audit.Finding{}
		for _, c := range cells {
			if len(c.Findings) != 1 || c.Findings[0].Rule != "consistency" || c.Findings[0].Message() == "" {
				t.Fatalf("%v: findings %+v", c.Key, c.Findings)
			}
			out[c.Key[0]] = c.Findings[0]
		}
		return out
	}
	tests := []struct {
		name  string
		mode  audit.Mode
		cells []*audit.Cell
		want  map[string]audit.Outcome
		text  string
	}{
		{"adds up", audit.Aggregate, []*audit.Cell{aggCell("a", "2", "1.5"), aggCell("b", "3", "2.25"), aggCell("Total", "5", "3.75")},
			map[string]audit.Outcome{"a": audit.Pass, "b": audit.Pass, "Total": audit.Pass}, ""},
		{"total off by 0.01", audit.Aggregate, []*audit.Cell{aggCell("a", "2", "1.5"), aggCell("b", "3", "2.25"), aggCell("Total", "5", "3.76")},
			map[string]audit.Outcome{"a": audit.Review, "b": audit.Review, "Total": audit.Review}, "difference 0.01"},
		{"count off", audit.Aggregate, []*audit.Cell{aggCell("a", "2", "1"), aggCell("b", "3", "2"), aggCell("Total", "4", "3")},
			map[string]audit.Outcome{"a": audit.Review, "b": audit.Review, "Total": audit.Review}, "difference -1"},
		{"a part's total missing: unchecked totals, counts still checked", audit.Aggregate, []*audit.Cell{aggCell("a", "2", ""), aggCell("b", "3", "2"), aggCell("Total", "5", "999")},
			map[string]audit.Outcome{"a": audit.Pass, "b": audit.Pass, "Total": audit.Pass}, ""},
		{"n = 0 with a total", audit.Aggregate, []*audit.Cell{aggCell("a", "0", "5")},
			map[string]audit.Outcome{"a": audit.Review}, "n = 0"},
		{"nothing to check", audit.Aggregate, []*audit.Cell{aggCell("a", "", "5")},
			map[string]audit.Outcome{"a": audit.NotApplicable}, ""},
		{"microdata", audit.Microdata, []*audit.Cell{aggCell("a", "2", "1"), aggCell("Total", "3", "1")},
			map[string]audit.Outcome{"a": audit.NotApplicable, "Total": audit.NotApplicable}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := run(tc.mode, tc.cells...)
			for k, w := range tc.want {
				if got[k].Outcome != w {
					t.Errorf("%s: %s (%s), want %s", k, got[k].Outcome, got[k].Message(), w)
				}
				if w == audit.Review && !strings.Contains(got[k].Message(), tc.text) {
					t.Errorf("%s: %q does not say %q", k, got[k].Message(), tc.text)
				}
			}
		})
	}
}
