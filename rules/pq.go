package rules

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func init() {
	Register(Spec{Name: "pq", Doc: "p-q rule: unsafe when X - x1 - x2 < (p/q) * x1, where q% is the precision of what others already know and p% the protection needed; 0 < p < q <= 100 (params: p, q, absolute)", New: newPQ})
}

// pq is the prior-posterior (p-q) rule: sensitive when
// p * x1 - q * (X - x1 - x2) > 0.
type pq struct {
	restRule // ratio p/q
	p, q     decimal.Dec
}

func newPQ(decode Decoder) (Rule, error) {
	p := struct {
		P        decimal.Dec `yaml:"p"`
		Q        decimal.Dec `yaml:"q"`
		Absolute bool        `yaml:"absolute"`
	}{P: decimal.FromInt(10), Q: decimal.FromInt(50)}
	if err := decode(&p); err != nil {
		return nil, err
	}
	return NewPQ(p.P, p.Q, p.Absolute)
}

// NewPQ builds the p-q rule, validating 0 < p < q <= 100.
func NewPQ(p, q decimal.Dec, absolute bool) (Rule, error) {
	pf, err := toPct("pq", "p", p, 0, 100, true)
	if err != nil {
		return nil, err
	}
	qf, err := toPct("pq", "q", q, 0, 100, true)
	if err != nil {
		return nil, err
	}
	if p.Cmp(q) >= 0 {
		return nil, &ParamError{"pq", "p", fmt.Sprintf("must be less than q (0 < p < q <= 100), got p = %s, q = %s", p, q)}
	}
	r, err := mulFrac("pq", "p", frac{pf.num, pf.den}, frac{qf.den, qf.num})
	if err != nil {
		return nil, err
	}
	return pq{restRule{r, absolute}, p, q}, nil
}

func (pq) Name() string { return "pq" }

func (r pq) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	g, f, ok := r.figures("pq", t, c)
	if !ok {
		return f
	}
	vals := append(g.vals, audit.DecFig("p", r.p), audit.DecFig("q", r.q), audit.DecFig("p/q*x1", g.bound))
	if g.unsafe {
		return said("pq", audit.Fail, sayPQFail, vals)
	}
	return said("pq", audit.Pass, sayPQPass, vals)
}

func sayPQFail(f *audit.Finding) string {
	return "the others' contributions X - x1 - x2 = " + fig(f, "X-x1-x2").Dec.String() + " are less than p/q * x1 = " + fig(f, "p/q*x1").Dec.String() + ": the second largest contributor learns x1 within " + fig(f, "p").Dec.String() + "%"
}

func sayPQPass(f *audit.Finding) string {
	return "X - x1 - x2 = " + fig(f, "X-x1-x2").Dec.String() + " is at least p/q * x1 = " + fig(f, "p/q*x1").Dec.String()
}
