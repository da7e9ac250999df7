package rules

import (
	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func init() {
	Register(Spec{Name: "p_percent", Doc: "p% rule: unsafe when X - x1 - x2 < p/100 * x1, i.e. the second largest contributor can estimate the largest within p% (params: p in (0,100], absolute)", New: newPPercent})
}

// pPercent is the p% rule: the intruder is the second largest contributor,
// whose upper estimate of x1 is X - x2.
type pPercent struct {
	restRule // ratio p/100
	d        decimal.Dec
}

func newPPercent(decode Decoder) (Rule, error) {
	p := struct {
		P        decimal.Dec `yaml:"p"`
		Absolute bool        `yaml:"absolute"`
	}{P: decimal.FromInt(10)}
	if err := decode(&p); err != nil {
		return nil, err
	}
	return NewPPercent(p.P, p.Absolute)
}

// NewPPercent builds the p% rule, validating 0 < p <= 100.
func NewPPercent(p decimal.Dec, absolute bool) (Rule, error) {
	f, err := percentFrac("p_percent", "p", p, 0, 100, true)
	if err != nil {
		return nil, err
	}
	return pPercent{restRule{f, absolute}, p}, nil
}

func (pPercent) Name() string { return "p_percent" }

func (r pPercent) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	g, f, ok := r.figures("p_percent", t, c)
	if !ok {
		return f
	}
	vals := append(g.vals, audit.DecFig("p", r.d), audit.DecFig("p/100*x1", g.bound), audit.DecFig("x1_upper", g.rest.Add(g.x1)))
	if g.unsafe {
		return said("p_percent", audit.Fail, sayPPercentFail, vals)
	}
	return said("p_percent", audit.Pass, sayPPercentPass, vals)
}

func sayPPercentFail(f *audit.Finding) string {
	return "the second largest contributor can estimate the largest within " + fig(f, "p").Dec.String() + "%: X - x1 - x2 = " + fig(f, "X-x1-x2").Dec.String() + " < " + fig(f, "p/100*x1").Dec.String() + " = p/100 * x1"
}

func sayPPercentPass(f *audit.Finding) string {
	return "the largest contribution cannot be estimated within " + fig(f, "p").Dec.String() + "%: X - x1 - x2 = " + fig(f, "X-x1-x2").Dec.String() + " >= " + fig(f, "p/100*x1").Dec.String() + " = p/100 * x1"
}
