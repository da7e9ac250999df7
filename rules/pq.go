package rules

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "pq", Doc: "p-q rule: unsafe when X - x1 - x2 < (p/q) * x1, where q% is the precision of what others already know and p% the protection needed; 0 < p < q <= 100", Params: []Param{
		{Name: "p", Doc: "the protection needed, in percent of the largest contribution; 0 < p < q"},
		{Name: "q", Doc: "the precision, in percent, of what others already know of each contribution; p < q <= 100"},
		{Name: "absolute", Doc: "true: judge contributions by their absolute values, so that negative contributions are assessed; false: a cell with a negative contribution is review"},
	}, New: newPQ})
}

// pq is the prior-posterior (p-q) rule: sensitive when
// p * x1 - q * (X - x1 - x2) > 0.
type pq struct {
	restRule // ratio p/q
	p, q     decimal.Dec
	facts    *pqFacts // made once by NewPQ
}

func newPQ(decode Decoder) (Rule, error) {
	var p struct {
		P        decimal.Dec `yaml:"p"`
		Q        decimal.Dec `yaml:"q"`
		Absolute bool        `yaml:"absolute"`
	}
	if err := decodeParams("pq", decode, &p); err != nil {
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
	rule := pq{restRule: restRule{r, absolute}, p: p, q: q}
	rule.facts = &pqFacts{rule}
	return rule, nil
}

func (pq) Name() string { return "pq" }

func (r pq) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	o, f, ok := r.read("pq", t, c)
	if !ok {
		return f
	}
	return audit.Finding{Rule: "pq", Outcome: o, Facts: r.facts, Cell: c}
}

// pqFacts are the figures behind a p-q finding.
type pqFacts struct{ r pq }

// Figures implements audit.Facts.
func (g *pqFacts) Figures(c *audit.Cell) []audit.Figure {
	f := g.r.readAgain(c)
	figs, _, bound := f.figures(g.r.restRule)
	return append(figs, audit.DecFig("p", g.r.p), audit.DecFig("q", g.r.q), audit.DecFig("p/q*x1", bound))
}

// Message implements audit.Facts.
func (g *pqFacts) Message(c *audit.Cell) string {
	f := g.r.readAgain(c)
	_, rest, bound := f.figures(g.r.restRule)
	if f.unsafe {
		return "the others' contributions X - x1 - x2 = " + report.DecText(rest) + " are less than p/q * x1 = " + report.DecText(bound) + ": the second largest contributor learns x1 within " + g.r.p.String() + "%"
	}
	return "X - x1 - x2 = " + rest.String() + " is at least p/q * x1 = " + bound.String()
}
