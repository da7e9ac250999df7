package rules

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "negative", Quality: true, Doc: "negative contributions: the magnitude rules assume x >= 0; mode review sends such cells to a person, mode absolute accepts them because the magnitude rules are configured with absolute: true", Params: []Param{
		{Name: "mode", Doc: "review: a cell with negative contributions is review; absolute: it passes (set absolute: true on the magnitude rules)"},
	}, New: newNegative})
}

// negative reports cells with negative contributions. It never decides a
// magnitude rule's verdict: each magnitude rule itself says review on
// negative contributions unless it has absolute: true. In mode absolute
// this rule records the negatives and passes (ABS practice, with the
// magnitude rules on absolute values); in mode review it asks a person.
type negative struct {
	absolute bool
	facts    audit.Facts // made once by newNegative
}

func newNegative(decode Decoder) (Rule, error) {
	var p struct {
		Mode string `yaml:"mode"`
	}
	if err := decodeParams("negative", decode, &p); err != nil {
		return nil, err
	}
	switch p.Mode {
	case "review", "absolute":
		r := negative{absolute: p.Mode == "absolute"}
		r.facts = &negativeFacts{explainFacts{r.explain}, r.absolute}
		return r, nil
	}
	return nil, &ParamError{"negative", "mode", fmt.Sprintf("must be review or absolute, got %q", p.Mode)}
}

func (negative) Name() string { return "negative" }

func (r negative) Needs() Needs { return Needs{Absolute: r.absolute} }

// Check decides the cell; a cell with contributions gets a finding that
// refers to the rule's facts (explain's figures and message, computed
// when written).
func (r negative) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	neg := c.Negative
	if neg == 0 && c.HasTotal && c.Total.Sign() < 0 {
		neg = 1
	}
	if !c.HasTotal && neg == 0 {
		return r.explain(t, c)
	}
	o := audit.Pass
	if neg > 0 && !r.absolute {
		o = audit.Review
	}
	return audit.Finding{Rule: "negative", Outcome: o, Facts: r.facts, Cell: c}
}

// explain is the full finding on the cell, figures and message included.
func (r negative) explain(_ *audit.Table, c *audit.Cell) audit.Finding {
	neg := c.Negative
	if neg == 0 && c.HasTotal && c.Total.Sign() < 0 {
		neg = 1 // a negative total needs at least one negative contribution
	}
	if !c.HasTotal && neg == 0 {
		return finding("negative", audit.NotApplicable, "no contributions to check", nil)
	}
	v := make([]audit.Figure, 1, 3)
	v[0] = audit.IntFig("negative", neg)
	if c.HasTotal {
		v = append(v, audit.DecFig("X", c.Total))
	}
	if c.HasAbs {
		v = append(v, audit.DecFig("abs_X", c.AbsTotal))
	}
	switch {
	case neg == 0:
		return finding("negative", audit.Pass, "no negative contributions", v)
	case r.absolute:
		return said("negative", audit.Pass, sayNegativeAbsolute, v)
	}
	return said("negative", audit.Review, sayNegativeReview, v)
}

func sayNegativeAbsolute(f *audit.Finding) string {
	return report.Plural(f.Figures[0].Int, "negative contribution", "negative contributions") + "; the magnitude rules assess absolute values"
}

func sayNegativeReview(f *audit.Finding) string {
	return report.Plural(f.Figures[0].Int, "negative contribution", "negative contributions") + ": the magnitude rules assume non-negative values, so a person must judge this cell (or configure absolute values)"
}

// negativeFacts are explainFacts with the append forms of the figures and
// message, so that writing a negative finding allocates nothing.
type negativeFacts struct {
	explainFacts
	absolute bool
}

// negatives is explain's count of negative contributions.
func negatives(c *audit.Cell) int64 {
	if c.Negative == 0 && c.HasTotal && c.Total.Sign() < 0 {
		return 1
	}
	return c.Negative
}

// AppendFigures implements report.FiguresAppender.
func (g *negativeFacts) AppendFigures(figs []audit.Figure, c *audit.Cell) []audit.Figure {
	neg := negatives(c)
	if !c.HasTotal && neg == 0 {
		return figs
	}
	figs = append(figs, audit.IntFig("negative", neg))
	if c.HasTotal {
		figs = append(figs, audit.DecFig("X", c.Total))
	}
	if c.HasAbs {
		figs = append(figs, audit.DecFig("abs_X", c.AbsTotal))
	}
	return figs
}

// AppendMessage implements report.MessageAppender.
func (g *negativeFacts) AppendMessage(b []byte, c *audit.Cell) []byte {
	neg := negatives(c)
	switch {
	case !c.HasTotal && neg == 0:
		return append(b, "no contributions to check"...)
	case neg == 0:
		return append(b, "no negative contributions"...)
	}
	b = appendPlural(b, neg, "negative contribution", "negative contributions")
	if g.absolute {
		return append(b, "; the magnitude rules assess absolute values"...)
	}
	return append(b, ": the magnitude rules assume non-negative values, so a person must judge this cell (or configure absolute values)"...)
}

// appendPlural appends report.Plural(n, one, many).
func appendPlural(b []byte, n int64, one, many string) []byte {
	if n == 1 || n == -1 {
		b = append(b, "1 "...)
		return append(b, one...)
	}
	b = report.AppendDecText(b, decimal.FromInt(n))
	b = append(b, ' ')
	return append(b, many...)
}
