package rules_test

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
)

// TestMagnitudeCheckNoAlloc: the four magnitude rules build their full
// findings (outcome, and figures and message rendered later from the
// cell) without allocating, on cells that pass and cells that fail, so
// that the findings stay within a small factor of the verdict-only
// benchmark.
func TestMagnitudeCheckNoAlloc(t *testing.T) {
	dominated := &audit.Cell{HasN: true, N: 3, HasTotal: true, Total: decimal.FromInt(100),
		Top: []decimal.Dec{decimal.FromInt(95), decimal.FromInt(3)}}
	cells := append(benchCells(64), dominated)
	for _, s := range magnitudeRules(t) {
		r := s.(rules.CellRule)
		seen := map[audit.Outcome]bool{}
		for _, c := range cells {
			f := r.Check(magTable, c)
			if f.Facts == nil {
				t.Fatalf("%s: finding without Facts on a readable cell", r.Name())
			}
			seen[f.Outcome] = true
			if got := testing.AllocsPerRun(20, func() { _ = r.Check(magTable, c) }); got != 0 {
				t.Fatalf("%s: Check allocates %v times per finding, want 0", r.Name(), got)
			}
		}
		if !seen[audit.Pass] || !seen[audit.Fail] {
			t.Fatalf("%s: outcomes %v, want both pass and fail", r.Name(), seen)
		}
	}
}
