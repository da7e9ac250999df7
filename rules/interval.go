package rules

import (
	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func init() {
	Register(Spec{Name: "interval", Doc: "Statisticon interval rule: the second largest contributor knows x1 in [max(x2, X-(n-1)x2), X-x2]; unsafe when that interval is narrower than s% of X; n = 1 is always unsafe", Params: []Param{
		{Name: "s", Doc: "the narrowest safe interval for the largest contribution, in percent of the total X; 0 < s <= 100"},
		{Name: "absolute", Doc: "true: judge contributions by their absolute values, so that negative contributions are assessed; false: a cell with a negative contribution is review"},
	}, New: newInterval})
}

// interval is the Statisticon rule. The intruder is x2, who knows X, n and
// that every other contribution is at most x2.
type interval struct {
	s        frac // s/100
	d        decimal.Dec
	absolute bool
	facts    *intervalFacts // made once by NewInterval
}

func newInterval(decode Decoder) (Rule, error) {
	var p struct {
		S        decimal.Dec `yaml:"s"`
		Absolute bool        `yaml:"absolute"`
	}
	if err := decodeParams("interval", decode, &p); err != nil {
		return nil, err
	}
	return NewInterval(p.S, p.Absolute)
}

// NewInterval builds the interval rule, validating 0 < s <= 100.
func NewInterval(s decimal.Dec, absolute bool) (Rule, error) {
	f, err := percentFrac("interval", "s", s, 0, 100, true)
	if err != nil {
		return nil, err
	}
	r := interval{s: f, d: s, absolute: absolute}
	r.facts = &intervalFacts{r}
	return r, nil
}

func (interval) Name() string   { return "interval" }
func (r interval) Needs() Needs { return Needs{Top: 2, Absolute: r.absolute} }

// bounds returns the intruder's interval [lo, hi] for x1 (n >= 2).
func intervalBounds(m *magInput, n int64) (lo, hi decimal.Dec) {
	x2 := m.x(1)
	hi = m.X.Sub(x2)
	lo = m.X.Sub(x2.Mul(decimal.FromInt(n - 1)))
	if lo.Cmp(x2) < 0 {
		lo = x2
	}
	return lo, hi
}

func (r interval) read(t *audit.Table, c *audit.Cell, m *magInput) (int64, inputState) {
	if st := readMagnitude(t, c, 2, r.absolute, m); st != inOK {
		return 0, st
	}
	n, ok := contributors(c)
	if !ok {
		return 0, inNoN
	}
	return n, inOK
}

func (r interval) test(m *magInput, n int64) bool {
	if n == 1 {
		return true
	}
	return m.widthBelow(n, r.s)
}

// Sensitive implements Sensitiver.
func (r interval) Sensitive(t *audit.Table, c *audit.Cell) (bool, bool) {
	var m magInput
	n, st := r.read(t, c, &m)
	if st != inOK {
		return false, false
	}
	return r.test(&m, n), true
}

func (r interval) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	var m magInput
	n, st := r.read(t, c, &m)
	if st != inOK {
		return inputFinding("interval", st, c, 2)
	}
	if n == 1 {
		vals := absoluteValues(&m, []audit.Figure{audit.DecFig("X", m.X), audit.IntFig("n", n), audit.DecFig("s", r.d)})
		return finding("interval", audit.Fail, "a single contributor: the total is its value", vals)
	}
	o := audit.Pass
	if r.test(&m, n) {
		o = audit.Fail
	}
	return audit.Finding{Rule: "interval", Outcome: o, Facts: r.facts, Cell: c}
}

// intervalFacts give the figures behind an interval finding (n >= 2),
// computed from the cell when the finding is written.
type intervalFacts struct{ r interval }

// readAgain reads a cell the rule found readable (n >= 2), for its
// finding's figures and message.
func (g *intervalFacts) readAgain(c *audit.Cell) (m magInput, n int64) {
	m = reread(c, 2, g.r.absolute)
	n, _ = contributors(c)
	return m, n
}

// Figures implements audit.Facts.
func (g *intervalFacts) Figures(c *audit.Cell) []audit.Figure {
	m, n := g.readAgain(c)
	lo, hi := intervalBounds(&m, n)
	vals := []audit.Figure{audit.DecFig("X", m.X), audit.DecFig("x2", m.x(1)), audit.IntFig("n", n), audit.DecFig("s", g.r.d),
		audit.DecFig("x1_lower", lo), audit.DecFig("x1_upper", hi), audit.DecFig("width", hi.Sub(lo)), audit.DecFig("s/100*X", g.r.s.times(m.X))}
	return absoluteValues(&m, vals)
}

// Message implements audit.Facts.
func (g *intervalFacts) Message(c *audit.Cell) string {
	m, n := g.readAgain(c)
	lo, hi := intervalBounds(&m, n)
	text := "x1 lies in [" + lo.String() + ", " + hi.String() + "], width " + hi.Sub(lo).String()
	bound := g.r.s.times(m.X).String() + " = s/100 * X"
	if g.r.test(&m, n) {
		return "the second largest contributor knows " + text + " < " + bound
	}
	return "the second largest contributor only knows " + text + " >= " + bound
}
