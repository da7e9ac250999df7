package rules

import (
	"fmt"
	"strconv"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "threshold", Doc: "minimum frequency: unsafe when 0 < n < min, n the distinct contributors (holdings; records with a missing value do not count)", Params: []Param{
		{Name: "min", Doc: "the least number of contributors a cell with contributors must have; an integer >= 1"},
	}, New: newThreshold})
}

type threshold struct {
	min   int64
	facts *thresholdFacts // made once by NewThreshold
}

func newThreshold(decode Decoder) (Rule, error) {
	var p struct {
		Min int64 `yaml:"min"`
	}
	if err := decodeParams("threshold", decode, &p); err != nil {
		return nil, err
	}
	return NewThreshold(p.Min)
}

// NewThreshold builds the threshold rule, validating min >= 1.
func NewThreshold(min int64) (Rule, error) {
	if min < 1 {
		return nil, &ParamError{"threshold", "min", fmt.Sprintf("must be at least 1, got %d", min)}
	}
	r := threshold{min: min}
	r.facts = &thresholdFacts{explainFacts{r.explain}, min}
	return r, nil
}

func (threshold) Name() string { return "threshold" }

// Check decides the cell; with a count its finding refers to the rule's
// facts, which give the figures and message of explain when written, so
// that a table of a million cells holds no figures per cell.
func (r threshold) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	if !c.HasN {
		return r.explain(t, c)
	}
	o := audit.Pass
	if c.N > 0 && c.N < r.min {
		o = audit.Fail
	}
	return audit.Finding{Rule: "threshold", Outcome: o, Facts: r.facts, Cell: c}
}

// explain is the full finding on the cell, figures and message included.
func (r threshold) explain(_ *audit.Table, c *audit.Cell) audit.Finding {
	if !c.HasN {
		min := []audit.Figure{audit.IntFig("min", r.min)}
		st, ok := c.Stats.Get("count")
		switch {
		case ok && st.Marker:
			return finding("threshold", audit.NotApplicable, "the count is already suppressed in the input", min)
		case ok:
			return finding("threshold", audit.Review, "the number of contributors is missing, so the threshold cannot be checked", min)
		}
		return finding("threshold", audit.NotApplicable, "the table gives no number of contributors", min)
	}
	v := make([]audit.Figure, 2, 3)
	v[0], v[1] = audit.IntFig("n", c.N), audit.IntFig("min", r.min)
	if c.Missing > 0 {
		v = append(v, audit.IntFig("missing_values", c.Missing))
	}
	switch {
	case c.N > 0 && c.N < r.min:
		return said("threshold", audit.Fail, sayThresholdFail, v)
	case c.N == 0:
		return finding("threshold", audit.Pass, "empty cell (the zeros rule decides)", v)
	}
	return said("threshold", audit.Pass, sayThresholdPass, v)
}

func sayThresholdFail(figs []audit.Figure) string {
	return "only " + report.Plural(figs[0].Int, "contributor", "contributors") + "; at least " + itoa(figs[1]) + " needed"
}

func sayThresholdPass(figs []audit.Figure) string {
	return itoa(figs[0]) + " contributors (at least " + itoa(figs[1]) + " needed)"
}

// thresholdFacts are explainFacts with the append forms of the figures
// and message, so that writing a threshold finding allocates nothing.
type thresholdFacts struct {
	explainFacts
	min int64
}

// AppendFigures implements report.FiguresAppender.
func (g *thresholdFacts) AppendFigures(figs []audit.Figure, c *audit.Cell) []audit.Figure {
	if !c.HasN {
		return append(figs, audit.IntFig("min", g.min))
	}
	figs = append(figs, audit.IntFig("n", c.N), audit.IntFig("min", g.min))
	if c.Missing > 0 {
		figs = append(figs, audit.IntFig("missing_values", c.Missing))
	}
	return figs
}

// AppendMessage implements report.MessageAppender.
func (g *thresholdFacts) AppendMessage(b []byte, c *audit.Cell) []byte {
	switch {
	case !c.HasN:
		return append(b, g.Message(c)...)
	case c.N > 0 && c.N < g.min:
		b = append(b, "only "...)
		if c.N == 1 {
			b = append(b, "1 contributor"...)
		} else {
			b = report.AppendDecText(b, decimal.FromInt(c.N))
			b = append(b, " contributors"...)
		}
		b = append(b, "; at least "...)
		b = strconv.AppendInt(b, g.min, 10)
		return append(b, " needed"...)
	case c.N == 0:
		return append(b, "empty cell (the zeros rule decides)"...)
	}
	b = strconv.AppendInt(b, c.N, 10)
	b = append(b, " contributors (at least "...)
	b = strconv.AppendInt(b, g.min, 10)
	return append(b, " needed)"...)
}
