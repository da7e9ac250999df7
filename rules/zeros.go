package rules

import (
	"github.com/sdcaudit/sdcaudit/audit"
)

func init() {
	Register(Spec{Name: "zeros", Doc: "empty cells (n = 0): safe by default; with disclosive: true a zero is unsafe because it can disclose that no member of a group has a characteristic (ACRO)", Params: []Param{
		{Name: "disclosive", Doc: "true: an empty cell is unsafe; false: it passes"},
	}, New: newZeros})
}

type zeros struct {
	disclosive bool
	facts      audit.Facts // made once by newZeros
}

func newZeros(decode Decoder) (Rule, error) {
	var p struct {
		Disclosive bool `yaml:"disclosive"`
	}
	if err := decodeParams("zeros", decode, &p); err != nil {
		return nil, err
	}
	r := zeros{disclosive: p.Disclosive}
	r.facts = &zerosFacts{explainFacts{r.explain}, r.disclosive}
	return r, nil
}

func (zeros) Name() string { return "zeros" }

// Check decides the cell; with a count its finding refers to the rule's
// facts (explain's figures and message, computed when written).
func (r zeros) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	if !c.HasN {
		return r.explain(t, c)
	}
	o := audit.Pass
	if c.N <= 0 && r.disclosive {
		o = audit.Fail
	}
	return audit.Finding{Rule: "zeros", Outcome: o, Facts: r.facts, Cell: c}
}

// explain is the full finding on the cell, figures and message included.
func (r zeros) explain(_ *audit.Table, c *audit.Cell) audit.Finding {
	if !c.HasN {
		v := []audit.Figure{audit.BoolFig("disclosive", r.disclosive)}
		if st, ok := c.Stats.Get("count"); ok && !st.Marker {
			return finding("zeros", audit.NotApplicable, "the count is missing (see the missing rule)", v)
		}
		return finding("zeros", audit.NotApplicable, "the table gives no number of contributors", v)
	}
	v := []audit.Figure{audit.BoolFig("disclosive", r.disclosive), audit.IntFig("n", c.N)}
	if c.N > 0 {
		return finding("zeros", audit.Pass, "not empty", v)
	}
	if r.disclosive {
		return finding("zeros", audit.Fail, "empty cell: a published zero discloses that no member of this group has the characteristic", v)
	}
	return finding("zeros", audit.Pass, "empty cell; zeros are not treated as disclosive", v)
}

// zerosFacts are explainFacts with the append forms of the figures and
// message, so that writing a zeros finding allocates nothing.
type zerosFacts struct {
	explainFacts
	disclosive bool
}

// AppendFigures implements report.FiguresAppender.
func (g *zerosFacts) AppendFigures(figs []audit.Figure, c *audit.Cell) []audit.Figure {
	if !c.HasN {
		return append(figs, g.Figures(c)...)
	}
	return append(figs, audit.BoolFig("disclosive", g.disclosive), audit.IntFig("n", c.N))
}

// AppendMessage implements report.MessageAppender.
func (g *zerosFacts) AppendMessage(b []byte, c *audit.Cell) []byte {
	switch {
	case !c.HasN:
		return append(b, g.Message(c)...)
	case c.N > 0:
		return append(b, "not empty"...)
	case g.disclosive:
		return append(b, "empty cell: a published zero discloses that no member of this group has the characteristic"...)
	}
	return append(b, "empty cell; zeros are not treated as disclosive"...)
}
