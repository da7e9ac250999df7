package rules_test

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
)

// The SDC handbook's example: X = 110000 with x1 = 52000 and x2 = 50000 is
// safe under the p% rule with p = 10 but dominated under (2, 90.9).
func Example() {
	c := &audit.Cell{HasN: true, N: 3, HasTotal: true, Total: decimal.FromInt(110000),
		Top: []decimal.Dec{decimal.FromInt(52000), decimal.FromInt(50000), decimal.FromInt(8000)}, AllTop: true}
	t := &audit.Table{Mode: audit.Microdata, Value: "turnover"}
	p, _ := rules.NewPPercent(decimal.FromInt(10), false)
	d, _ := rules.NewDominance(false, rules.NK{N: 2, K: decimal.Must("90.9")})
	for _, r := range []rules.Rule{p, d} {
		f := r.(rules.CellRule).Check(t, c)
		fmt.Printf("%s %s: %s\n", f.Rule, f.Outcome, f.Message())
	}
	// Output:
	// p_percent pass: the largest contribution cannot be estimated within 10%: X - x1 - x2 = 8,000 >= 5,200 = p/100 * x1
	// dominance fail: the 2 largest contributions make 92.7% of the total, more than 90.9% (2,90.9)
}

// The Statisticon rule's worked example: X = 100, x2 = 40, n = 3 gives the
// second largest contributor the interval [40, 60] for x1, width 20.
func ExampleNewInterval() {
	c := &audit.Cell{HasN: true, N: 3, HasTotal: true, Total: decimal.FromInt(100),
		Top: []decimal.Dec{decimal.FromInt(45), decimal.FromInt(40)}}
	t := &audit.Table{Mode: audit.Microdata, Value: "v"}
	for _, s := range []int64{25, 15} {
		r, _ := rules.NewInterval(decimal.FromInt(s), false)
		f := r.(rules.CellRule).Check(t, c)
		fmt.Printf("s=%d %s: %s\n", s, f.Outcome, f.Message())
	}
	// Output:
	// s=25 fail: the second largest contributor knows x1 lies in [40, 60], width 20 < 25 = s/100 * X
	// s=15 pass: the second largest contributor only knows x1 lies in [40, 60], width 20 >= 15 = s/100 * X
}
