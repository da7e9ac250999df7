package rules

import (
	"fmt"
	"math/big"

	"github.com/sdcaudit/sdcaudit/audit"
)

func init() {
	Register(Spec{Name: "p_percent", Doc: "p% rule: unsafe when X - x1 - x2 < p/100 * x1 (the second largest contributor estimates the largest within p%)", New: newPPercent})
}

type pPercent struct {
	p pct
	d audit.Dec
}

func newPPercent(decode Decoder) (Rule, error) {
	p := struct {
		P audit.Dec `yaml:"p"`
	}{P: audit.DecInt(10)}
	if err := decode(&p); err != nil {
		return nil, err
	}
	v, err := toPct("p_percent", "p", p.P, 0, 100, true)
	if err != nil {
		return nil, err
	}
	return pPercent{v, p.P}, nil
}

func (pPercent) Name() string { return "p_percent" }
func (pPercent) Needs() Needs { return Needs{Top: 2} }

func (r pPercent) Check(_ *audit.Table, c *audit.Cell) audit.Finding {
	if f, ok := magnitudeInput("p_percent", c, 2); !ok {
		return f
	}
	x1, x2 := c.TopN(0), c.TopN(1)
	rest := c.Total.Sub(x1).Sub(x2)
	vals := map[string]any{"X": c.Total, "x1": x1, "x2": x2, "X-x1-x2": rest, "p": r.d, "p/100*x1": new(big.Rat).Quo(x1.Mul(r.d).Rat(), big.NewRat(100, 1)).FloatString(6)}
	// unsafe when rest < p/100 * x1  <=>  100*pden*rest < pnum*x1
	if audit.MulCmp(rest, 100*r.p.den, x1, r.p.num) < 0 {
		return finding("p_percent", audit.Fail, fmt.Sprintf("the second largest contributor can estimate the largest within %s%%", r.d), vals)
	}
	return finding("p_percent", audit.Pass, fmt.Sprintf("the largest contribution cannot be estimated within %s%%", r.d), vals)
}
