package rules

import (
	"strconv"

	"github.com/sdcaudit/sdcaudit/audit"
)

func init() {
	Register(Spec{Name: "all_zero", Doc: "a magnitude cell with contributors whose non-negative contributions are all zero (n >= 1, X = 0): publishing it discloses every contributor's value (0) though every ratio rule passes; unsafe", New: newAllZero})
}

// allZero flags cells whose contributions are all zero. With non-negative
// contributions, X = 0 and n >= 1 mean that every contributor's value is 0,
// which anyone reading the table learns. The ratio rules cannot see it:
// every one of their comparisons is 0 against 0.
//
// Non-negativity is known from the contributions in microdata mode. In an
// aggregate table it is assumed, as the magnitude rules assume it, unless
// the input shows a negative value (a top contribution or a min column);
// then X = 0 no longer means all zero and the negative rule speaks.
type allZero struct{}

func newAllZero(decode Decoder) (Rule, error) {
	var p struct{}
	if err := decodeParams("all_zero", decode, &p); err != nil {
		return nil, err
	}
	return allZero{}, nil
}

func (allZero) Name() string { return "all_zero" }

// Check decides the cell; a cell with a count and a total gets a finding
// that refers to facts (explain's figures and message, computed when
// written), one for aggregate tables and one for the others.
func (r allZero) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	if !c.HasTotal || !c.HasN {
		return r.explain(t, c)
	}
	o := audit.Fail
	if c.N == 0 {
		o = audit.NotApplicable
	} else if !c.Total.IsZero() || negativeKnown(c) {
		o = audit.Pass
	}
	g := allZeroOther
	if t != nil && t.Mode == audit.Aggregate {
		g = allZeroAggregate
	}
	return audit.Finding{Rule: "all_zero", Outcome: o, Facts: g, Cell: c}
}

// allZeroFacts give an all_zero finding's figures and message from its
// cell, in a table of the mode it was checked in.
type allZeroFacts struct{ t *audit.Table }

var (
	allZeroAggregate = &allZeroFacts{&audit.Table{Mode: audit.Aggregate}}
	allZeroOther     = &allZeroFacts{nil}
)

// Figures implements audit.Facts.
func (g *allZeroFacts) Figures(c *audit.Cell) []audit.Figure {
	return allZero{}.explain(g.t, c).FigureList()
}

// Message implements audit.Facts.
func (g *allZeroFacts) Message(c *audit.Cell) string { return allZero{}.explain(g.t, c).Message() }

// explain is the full finding on the cell, figures and message included.
// Of the table it reads only whether it is an aggregate table.
func (allZero) explain(t *audit.Table, c *audit.Cell) audit.Finding {
	const name = "all_zero"
	if !c.HasTotal {
		return finding(name, audit.NotApplicable, "no total to check (a frequency table, or the total is missing or suppressed)", nil)
	}
	if !c.HasN {
		return finding(name, audit.NotApplicable, "the number of contributors is not known", nil)
	}
	v := make([]audit.Figure, 2, 3)
	v[0], v[1] = audit.IntFig("n", c.N), audit.DecFig("X", c.Total)
	switch {
	case c.N == 0:
		return finding(name, audit.NotApplicable, "empty cell (the zeros rule decides)", v)
	case !c.Total.IsZero():
		return finding(name, audit.Pass, "the total is not zero", v)
	case negativeKnown(c):
		return finding(name, audit.Pass, "the total is zero but the contributions include negative values, so they are not all zero (see the negative rule)", v)
	}
	if t != nil && t.Mode == audit.Aggregate {
		return said(name, audit.Fail, sayAllZeroAssumed, append(v, audit.BoolFig("assumed_non_negative", true)))
	}
	return said(name, audit.Fail, sayAllZero, v)
}

func sayAllZero(figs []audit.Figure) string {
	return "all " + itoa(figs[0]) + " contributions are zero: publishing the cell discloses every contributor's value"
}

func sayAllZeroAssumed(figs []audit.Figure) string {
	return "the total of " + itoa(figs[0]) + " contributors is zero: with non-negative contributions (assumed, as by the magnitude rules) every contributor's value is 0 and publishing the cell discloses it"
}

// negativeKnown reports whether the cell is known to have a negative
// contribution: counted ones, a negative top value or a negative published
// minimum.
func negativeKnown(c *audit.Cell) bool {
	if c.Negative > 0 || (c.HasRange && c.Min.Sign() < 0) {
		return true
	}
	for _, x := range c.Top {
		if x.Sign() < 0 {
			return true
		}
	}
	if st, ok := c.Stats.Get("min"); ok && !st.Missing && st.Value.Sign() < 0 {
		return true
	}
	return false
}

// AppendFigures implements report.FiguresAppender: Figures without
// allocating.
func (g *allZeroFacts) AppendFigures(figs []audit.Figure, c *audit.Cell) []audit.Figure {
	if !c.HasTotal || !c.HasN {
		return append(figs, g.Figures(c)...)
	}
	figs = append(figs, audit.IntFig("n", c.N), audit.DecFig("X", c.Total))
	if g.allZero(c) && g.t != nil && g.t.Mode == audit.Aggregate {
		figs = append(figs, audit.BoolFig("assumed_non_negative", true))
	}
	return figs
}

// allZero reports whether explain fails the cell (it has a count and a
// total).
func (g *allZeroFacts) allZero(c *audit.Cell) bool {
	return c.N != 0 && c.Total.IsZero() && !negativeKnown(c)
}

// AppendMessage implements report.MessageAppender.
func (g *allZeroFacts) AppendMessage(b []byte, c *audit.Cell) []byte {
	switch {
	case !c.HasTotal || !c.HasN:
		return append(b, g.Message(c)...)
	case c.N == 0:
		return append(b, "empty cell (the zeros rule decides)"...)
	case !c.Total.IsZero():
		return append(b, "the total is not zero"...)
	case negativeKnown(c):
		return append(b, "the total is zero but the contributions include negative values, so they are not all zero (see the negative rule)"...)
	case g.t != nil && g.t.Mode == audit.Aggregate:
		b = append(b, "the total of "...)
		b = strconv.AppendInt(b, c.N, 10)
		return append(b, " contributors is zero: with non-negative contributions (assumed, as by the magnitude rules) every contributor's value is 0 and publishing the cell discloses it"...)
	}
	b = append(b, "all "...)
	b = strconv.AppendInt(b, c.N, 10)
	return append(b, " contributions are zero: publishing the cell discloses every contributor's value"...)
}
