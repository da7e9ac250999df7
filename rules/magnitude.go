package rules

import (
	"math/big"
	"math/bits"
	"strconv"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// The magnitude rules (dominance, p_percent, pq, interval) read a cell's
// total X, its largest contributions x1 >= x2 >= ... and, for the interval
// rule, the number of contributors n. They share the input checks below so
// that every rule says the same thing about the same gap in the input:
//
//   - a table without totals (a frequency table): not applicable;
//   - a total the table should have but does not: review;
//   - a total already suppressed in the input (a marker): not applicable;
//   - negative contributions: review, unless the rule has absolute: true,
//     in which case it assesses |x| (ABS practice);
//   - an empty cell (n = 0): not applicable (the zeros rule decides);
//   - fewer largest contributions than the rule needs and not all of
//     them: not applicable.
//
// Every inequality is tested exactly with decimal.MulCmp.

// Sensitiver is implemented by the magnitude rules: Sensitive is the
// rule's exact test without building a finding. applicable is false when
// the rule cannot assess the cell (its Check then says why). It is what
// `sdcaudit rules compare` calibrates and what the benchmark measures.
type Sensitiver interface {
	Sensitive(t *audit.Table, c *audit.Cell) (sensitive, applicable bool)
}

// inputState says whether a magnitude rule can read a cell.
type inputState uint8

const (
	inOK           inputState = iota
	inNoTotals                // the table has no totals: not applicable
	inMissingTotal            // a total is expected but missing: review
	inSuppressed              // the total carries a suppression marker: not applicable
	inNegative                // negative contributions, rule not absolute: review
	inNoAbs                   // absolute values asked for but not available: review
	inEmpty                   // n = 0: not applicable
	inNoTop                   // too few largest contributions given: not applicable
	inNoN                     // the number of contributors is unknown: not applicable
)

// magInput is what a magnitude rule reads of a cell: X and the largest
// contributions, by absolute value when abs is set.
type magInput struct {
	X   decimal.Dec
	top []decimal.Dec
	abs bool // X and top are absolute values
}

func (m *magInput) x(i int) decimal.Dec {
	if i < len(m.top) {
		return m.top[i]
	}
	return decimal.Dec{}
}

// sumTop returns x1 + ... + xn.
func (m *magInput) sumTop(n int) decimal.Dec {
	var s decimal.Dec
	for i := 0; i < n && i < len(m.top); i++ {
		s = s.Add(m.top[i])
	}
	return s
}

// readMagnitude checks a cell for a magnitude rule that needs the `need`
// largest contributions and fills m when the rule can read it.
func readMagnitude(t *audit.Table, c *audit.Cell, need int, absolute bool, m *magInput) inputState {
	if !c.HasTotal {
		if st, ok := c.Stats.Get("total"); ok {
			if st.Marker {
				return inSuppressed
			}
			return inMissingTotal
		}
		if t != nil && t.Mode == audit.Microdata && t.Value != "" {
			return inMissingTotal
		}
		return inNoTotals
	}
	if c.HasN && c.N == 0 {
		return inEmpty
	}
	top := c.Top
	if c.Negative > 0 || c.Total.Sign() < 0 {
		if !absolute {
			return inNegative
		}
		if !c.HasAbs {
			return inNoAbs
		}
	}
	if absolute && c.HasAbs {
		top = c.AbsTop
		m.X, m.abs = c.AbsTotal, true
	} else {
		m.X = c.Total
	}
	m.top = top
	if len(top) < need && !c.AllTop && !(c.HasN && int64(len(top)) >= c.N) {
		return inNoTop
	}
	return inOK
}

// reread reads a cell again for the figures of a finding being written:
// the rule read it (inOK) when it made the finding, and the cell has not
// changed since, so the table (consulted only for a missing total) is not
// needed.
func reread(c *audit.Cell, need int, absolute bool) magInput {
	var m magInput
	readMagnitude(nil, c, need, absolute, &m)
	return m
}

// contributors returns n for the interval rule: the count, or the number
// of contributions when all of them are known.
func contributors(c *audit.Cell) (int64, bool) {
	switch {
	case c.HasN:
		return c.N, true
	case c.AllTop:
		return int64(len(c.Top)), true
	}
	return 0, false
}

// inputFinding explains why a magnitude rule could not assess a cell.
func inputFinding(rule string, st inputState, c *audit.Cell, need int) audit.Finding {
	switch st {
	case inNoTotals:
		return finding(rule, audit.NotApplicable, "the table has no cell totals (a frequency table)", nil)
	case inMissingTotal:
		return finding(rule, audit.Review, "the cell total is missing, so the rule cannot be checked", nil)
	case inSuppressed:
		return finding(rule, audit.NotApplicable, "the cell total is already suppressed in the input", nil)
	case inNegative:
		return said(rule, audit.Review, sayNegativeInput, []audit.Figure{audit.IntFig("negative", c.Negative), audit.DecFig("X", c.Total)})
	case inNoAbs:
		return finding(rule, audit.Review, "negative contributions, and the input does not give absolute values to assess", []audit.Figure{audit.IntFig("negative", c.Negative), audit.DecFig("X", c.Total)})
	case inEmpty:
		return finding(rule, audit.NotApplicable, "empty cell (no contributors)", nil)
	case inNoTop:
		return finding(rule, audit.NotApplicable, "needs the "+strconv.Itoa(need)+" largest contributions, which the input does not give", nil)
	case inNoN:
		return finding(rule, audit.NotApplicable, "needs the number of contributors, which the input does not give", nil)
	}
	return finding(rule, audit.Review, "the cell cannot be assessed", nil)
}

func sayNegativeInput(figs []audit.Figure) string {
	return report.Plural(max(figs[0].Int, 1), "negative contribution", "negative contributions") + ": the rule assumes non-negative values (set absolute: true to assess absolute values)"
}

// frac is an exact positive rational parameter num/den, with den > 0.
type frac struct{ num, den int64 }

// percentFrac turns a percentage parameter into the fraction d/100,
// validating lo < d <= hi (lo <= d when !loOpen).
func percentFrac(rule, param string, d decimal.Dec, lo, hi int64, loOpen bool) (frac, error) {
	p, err := toPct(rule, param, d, lo, hi, loOpen)
	if err != nil {
		return frac{}, err
	}
	return mulFrac(rule, param, frac{p.num, 1}, frac{1, p.den}, frac{1, 100})
}

// mulFrac multiplies fractions, failing when the result does not fit int64.
func mulFrac(rule, param string, fs ...frac) (frac, error) {
	num, den := big.NewInt(1), big.NewInt(1)
	for _, f := range fs {
		num.Mul(num, big.NewInt(f.num))
		den.Mul(den, big.NewInt(f.den))
	}
	g := new(big.Int).GCD(nil, nil, num, den)
	if g.Sign() > 0 {
		num.Quo(num, g)
		den.Quo(den, g)
	}
	if !num.IsInt64() || !den.IsInt64() {
		return frac{}, &ParamError{rule, param, "too many decimal places"}
	}
	return frac{num.Int64(), den.Int64()}, nil
}

// times returns f × d, exactly when it has at most 6 more decimals than
// d, else rounded half-up to 6 decimals; for the figures of a finding.
func (f frac) times(d decimal.Dec) decimal.Dec {
	if m, ok := d.Mantissa(); ok && decimal.Pow10(6)%f.den == 0 && d.Scale() <= 12 {
		hi, lo := bits.Mul64(decimal.UAbs(m), uint64(f.num))
		if hi == 0 {
			hi, lo = bits.Mul64(lo, uint64(decimal.Pow10(6)/f.den))
			if hi == 0 && lo < 1<<63 {
				v := int64(lo)
				if m < 0 {
					v = -v
				}
				return decimal.Scaled(v, d.Scale()+6)
			}
		}
	}
	return shortDec(new(big.Rat).Mul(d.Rat(), big.NewRat(f.num, f.den)))
}

// ratio returns k × a / b (b != 0; 0 when b = 0), rounded half-up to 6
// decimals, for shares of X in a finding.
func ratio(k int64, a, b decimal.Dec) decimal.Dec {
	if b.IsZero() {
		return decimal.Dec{}
	}
	s := max(a.Scale(), b.Scale())
	if x, ok := mantAt(a, s); ok && x >= 0 {
		if y, ok := mantAt(b, s); ok && y > 0 {
			hi, lo := bits.Mul64(uint64(x), uint64(k)*uint64(decimal.Pow10(6)))
			if hi < uint64(y) {
				q, r := bits.Div64(hi, lo, uint64(y))
				if r >= uint64(y)-r {
					q++
				}
				if q < 1<<63 {
					return decimal.Scaled(int64(q), 6)
				}
			}
		}
	}
	r := new(big.Rat).Quo(a.Rat(), b.Rat())
	return shortDec(r.Mul(r, big.NewRat(k, 1)))
}

// absoluteValues marks the figures of a rule assessing absolute values.
func absoluteValues(m *magInput, v []audit.Figure) []audit.Figure {
	if m.abs {
		v = append(v, audit.BoolFig("absolute", true))
	}
	return v
}

// restRule is what the p% and p-q rules share: the intruder is the second
// largest contributor, and the cell is sensitive when the others'
// contributions X - x1 - x2 are below ratio × x1.
type restRule struct {
	ratio    frac
	absolute bool
}

func (r restRule) Needs() Needs { return Needs{Top: 2, Absolute: r.absolute} }

// Sensitive implements Sensitiver.
func (r restRule) Sensitive(t *audit.Table, c *audit.Cell) (bool, bool) {
	var m magInput
	if readMagnitude(t, c, 2, r.absolute, &m) != inOK {
		return false, false
	}
	return m.restBelow(r.ratio), true
}

// read reads the cell for Check and returns the outcome; ok is false
// (with the finding to return) when the rule cannot be applied.
func (r restRule) read(rule string, t *audit.Table, c *audit.Cell) (audit.Outcome, audit.Finding, bool) {
	var m magInput
	if st := readMagnitude(t, c, 2, r.absolute, &m); st != inOK {
		return 0, inputFinding(rule, st, c, 2), false
	}
	if m.restBelow(r.ratio) {
		return audit.Fail, audit.Finding{}, true
	}
	return audit.Pass, audit.Finding{}, true
}

// restFacts are the figures behind a p% or p-q finding: what the rule
// reads of the cell and its verdict, read again when the finding is
// written (readAgain).
type restFacts struct {
	m      magInput
	unsafe bool
}

// readAgain reads a cell the rule found readable, for its finding's
// figures and message.
func (r restRule) readAgain(c *audit.Cell) restFacts {
	g := restFacts{m: reread(c, 2, r.absolute)}
	g.unsafe = g.m.restBelow(r.ratio)
	return g
}

// figures returns X, x1, x2, X - x1 - x2 (and absolute), with room for
// the rule's own, and X - x1 - x2 and ratio × x1.
func (g *restFacts) figures(r restRule) (figs []audit.Figure, rest, bound decimal.Dec) {
	return g.appendFigures(make([]audit.Figure, 0, 4), r)
}

// appendFigures is figures appending to figs.
func (g *restFacts) appendFigures(figs []audit.Figure, r restRule) ([]audit.Figure, decimal.Dec, decimal.Dec) {
	x1, x2 := g.m.x(0), g.m.x(1)
	rest, bound := g.restBound(r)
	figs = append(figs, audit.DecFig("X", g.m.X), audit.DecFig("x1", x1), audit.DecFig("x2", x2), audit.DecFig("X-x1-x2", rest))
	return absoluteValues(&g.m, figs), rest, bound
}

// restBound returns X - x1 - x2 and ratio × x1.
func (g *restFacts) restBound(r restRule) (rest, bound decimal.Dec) {
	x1, x2 := g.m.x(0), g.m.x(1)
	return g.m.X.Sub(x1).Sub(x2), r.ratio.times(x1)
}
