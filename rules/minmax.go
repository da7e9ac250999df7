package rules

import (
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
)

func init() {
	Register(Spec{Name: "minmax", Doc: "a published minimum or maximum is one contributor's exact value: a cell with contributors that publishes min or max is unsafe; disable the rule for data where single values are not confidential", New: newMinMax})
}

// minMax flags cells that publish their minimum or maximum. Each of them
// is the exact value of one contributor (the smallest or the largest), so
// no ratio rule protects it. Cells without contributors publish neither.
type minMax struct{}

func newMinMax(decode Decoder) (Rule, error) {
	var p struct{}
	if err := decodeParams("minmax", decode, &p); err != nil {
		return nil, err
	}
	return minMax{}, nil
}

func (minMax) Name() string { return "minmax" }

func (minMax) Check(_ *audit.Table, c *audit.Cell) audit.Finding {
	const name = "minmax"
	var shown []string
	published := false
	for _, s := range []string{"min", "max"} {
		st, ok := c.Stats.Get(s)
		if !ok {
			continue
		}
		published = true
		if !st.Missing {
			shown = append(shown, s)
		}
	}
	if !published {
		return finding(name, audit.NotApplicable, "the table publishes neither min nor max", nil)
	}
	var v []audit.Figure
	if c.HasN {
		v = append(v, audit.IntFig("n", c.N))
	}
	if len(shown) == 0 || (c.HasN && c.N == 0) {
		return finding(name, audit.Pass, "no minimum or maximum is published for this cell", v)
	}
	v = append(v, audit.TextsFig("published", shown))
	return said(name, audit.Fail, sayMinMax, v)
}

func sayMinMax(figs []audit.Figure) string {
	var shown []string
	for _, g := range fig(figs, "published").Items {
		shown = append(shown, g.Text)
	}
	return "publishes the " + strings.Join(shown, " and ") + ": each is one contributor's exact value (disable the minmax rule if single values are not confidential)"
}
