package rules

import (
	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "p_percent", Doc: "p% rule: unsafe when X - x1 - x2 < p/100 * x1, i.e. the second largest contributor can estimate the largest within p%", Params: []Param{
		{Name: "p", Doc: "the protection needed, in percent of the largest contribution; 0 < p <= 100"},
		{Name: "absolute", Doc: "true: judge contributions by their absolute values, so that negative contributions are assessed; false: a cell with a negative contribution is review"},
	}, New: newPPercent})
}

// pPercent is the p% rule: the intruder is the second largest contributor,
// whose upper estimate of x1 is X - x2.
type pPercent struct {
	restRule // ratio p/100
	d        decimal.Dec
	facts    *pPercentFacts // made once by NewPPercent
}

func newPPercent(decode Decoder) (Rule, error) {
	var p struct {
		P        decimal.Dec `yaml:"p"`
		Absolute bool        `yaml:"absolute"`
	}
	if err := decodeParams("p_percent", decode, &p); err != nil {
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
	r := pPercent{restRule: restRule{f, absolute}, d: p}
	r.facts = &pPercentFacts{r}
	return r, nil
}

func (pPercent) Name() string { return "p_percent" }

func (r pPercent) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	o, f, ok := r.read("p_percent", t, c)
	if !ok {
		return f
	}
	return audit.Finding{Rule: "p_percent", Outcome: o, Facts: r.facts, Cell: c}
}

// pPercentFacts are the figures behind a p% finding.
type pPercentFacts struct{ r pPercent }

// Figures implements audit.Facts.
func (g *pPercentFacts) Figures(c *audit.Cell) []audit.Figure {
	f := g.r.readAgain(c)
	figs, rest, bound := f.figures(g.r.restRule)
	return append(figs, audit.DecFig("p", g.r.d), audit.DecFig("p/100*x1", bound), audit.DecFig("x1_upper", rest.Add(f.m.x(0))))
}

// Message implements audit.Facts.
func (g *pPercentFacts) Message(c *audit.Cell) string {
	f := g.r.readAgain(c)
	_, rest, bound := f.figures(g.r.restRule)
	if f.unsafe {
		return "the second largest contributor can estimate the largest within " + g.r.d.String() + "%: X - x1 - x2 = " + report.DecText(rest) + " < " + report.DecText(bound) + " = p/100 * x1"
	}
	return "the largest contribution cannot be estimated within " + g.r.d.String() + "%: X - x1 - x2 = " + report.DecText(rest) + " >= " + report.DecText(bound) + " = p/100 * x1"
}

// AppendFigures implements report.FiguresAppender: Figures without
// allocating.
func (g *pPercentFacts) AppendFigures(figs []audit.Figure, c *audit.Cell) []audit.Figure {
	f := g.r.readAgain(c)
	figs, rest, bound := f.appendFigures(figs, g.r.restRule)
	return append(figs, audit.DecFig("p", g.r.d), audit.DecFig("p/100*x1", bound), audit.DecFig("x1_upper", rest.Add(f.m.x(0))))
}

// AppendMessage implements report.MessageAppender: Message appended to b.
func (g *pPercentFacts) AppendMessage(b []byte, c *audit.Cell) []byte {
	f := g.r.readAgain(c)
	rest, bound := f.restBound(g.r.restRule)
	if f.unsafe {
		b = append(b, "the second largest contributor can estimate the largest within "...)
	} else {
		b = append(b, "the largest contribution cannot be estimated within "...)
	}
	b = g.r.d.Append(b)
	b = append(b, "%: X - x1 - x2 = "...)
	b = report.AppendDecText(b, rest)
	if f.unsafe {
		b = append(b, " < "...)
	} else {
		b = append(b, " >= "...)
	}
	b = report.AppendDecText(b, bound)
	return append(b, " = p/100 * x1"...)
}
