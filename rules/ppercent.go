package rules

import (
	"github.com/sdcaudit/sdcaudit/audit"
)

func init() {
	Register(Spec{Name: "p_percent", Doc: "p% rule: unsafe when X - x1 - x2 < p/100 * x1, i.e. the second largest contributor can estimate the largest within p% (params: p in (0,100], absolute)", New: newPPercent})
}

// pPercent is the p% rule: the intruder is the second largest contributor,
// whose upper estimate of x1 is X - x2.
type pPercent struct {
	p        frac // p/100
	d        audit.Dec
	absolute bool
}

func newPPercent(decode Decoder) (Rule, error) {
	p := struct {
		P        audit.Dec `yaml:"p"`
		Absolute bool      `yaml:"absolute"`
	}{P: audit.DecInt(10)}
	if err := decode(&p); err != nil {
		return nil, err
	}
	return NewPPercent(p.P, p.Absolute)
}

// NewPPercent builds the p% rule, validating 0 < p <= 100.
func NewPPercent(p audit.Dec, absolute bool) (Rule, error) {
	f, err := percentFrac("p_percent", "p", p, 0, 100, true)
	if err != nil {
		return nil, err
	}
	return pPercent{f, p, absolute}, nil
}

func (pPercent) Name() string   { return "p_percent" }
func (r pPercent) Needs() Needs { return Needs{Top: 2, Absolute: r.absolute} }
func (r pPercent) test(m *magInput) bool {
	// unsafe when X - x1 - x2 < p/100 x1
	return m.restBelow(r.p)
}

// Sensitive implements Sensitiver.
func (r pPercent) Sensitive(t *audit.Table, c *audit.Cell) (bool, bool) {
	var m magInput
	st := readMagnitude(t, c, 2, r.absolute, &m)
	if st != inOK {
		return false, false
	}
	return r.test(&m), true
}

func (r pPercent) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	var m magInput
	st := readMagnitude(t, c, 2, r.absolute, &m)
	if st != inOK {
		return inputFinding("p_percent", st, c, 2)
	}
	x1, x2 := m.x(0), m.x(1)
	rest := m.X.Sub(x1).Sub(x2)
	bound := r.p.times(x1)
	vals := map[string]any{"X": m.X, "x1": x1, "x2": x2, "X-x1-x2": rest, "p": r.d, "p/100*x1": bound, "x1_upper": m.X.Sub(x2)}
	absoluteValues(&m, vals)
	if r.test(&m) {
		return finding("p_percent", audit.Fail, "the second largest contributor can estimate the largest within "+r.d.String()+"%: X - x1 - x2 = "+rest.String()+" < "+bound.String()+" = p/100 * x1", vals)
	}
	return finding("p_percent", audit.Pass, "the largest contribution cannot be estimated within "+r.d.String()+"%: X - x1 - x2 = "+rest.String()+" >= "+bound.String()+" = p/100 * x1", vals)
}
