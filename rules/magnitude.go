package rules

import (
	"fmt"
	"math/big"

	"github.com/sdcaudit/sdcaudit/audit"
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
// Every inequality is tested exactly with audit.MulCmp.

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

// magInput is what a magnitude rule reads of a cell.
type magInput struct {
	X   audit.Dec
	top []audit.Dec
	abs bool // X and top are absolute values
}

func (m *magInput) x(i int) audit.Dec {
	if i < len(m.top) {
		return m.top[i]
	}
	return audit.Dec{}
}

// sumTop returns x1 + ... + xn.
func (m *magInput) sumTop(n int) audit.Dec {
	var s audit.Dec
	for i := 0; i < n && i < len(m.top); i++ {
		s = s.Add(m.top[i])
	}
	return s
}

// readMagnitude checks a cell for a magnitude rule that needs the `need`
// largest contributions.
func readMagnitude(t *audit.Table, c *audit.Cell, need int, absolute bool) (magInput, inputState) {
	if !c.HasTotal {
		if st, ok := c.Stats["total"]; ok {
			if st.Marker {
				return magInput{}, inSuppressed
			}
			return magInput{}, inMissingTotal
		}
		if t != nil && t.Mode == audit.Microdata && t.Value != "" {
			return magInput{}, inMissingTotal
		}
		return magInput{}, inNoTotals
	}
	if c.HasN && c.N == 0 {
		return magInput{}, inEmpty
	}
	m := magInput{X: c.Total, top: c.Top}
	negative := c.Negative > 0 || c.Total.Sign() < 0
	if absolute {
		switch {
		case c.HasAbs:
			m = magInput{X: c.AbsTotal, top: c.AbsTop, abs: true}
		case negative:
			return magInput{}, inNoAbs
		}
	} else if negative {
		return magInput{}, inNegative
	}
	if len(m.top) < need && !c.AllTop && !(c.HasN && int64(len(m.top)) >= c.N) {
		return magInput{}, inNoTop
	}
	return m, inOK
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
		return finding(rule, audit.Review, fmt.Sprintf("%d negative contribution(s): the rule assumes non-negative values (set absolute: true to assess absolute values)", max(c.Negative, 1)), map[string]any{"negative": c.Negative, "X": c.Total})
	case inNoAbs:
		return finding(rule, audit.Review, "negative contributions, and the input does not give absolute values to assess", map[string]any{"negative": c.Negative, "X": c.Total})
	case inEmpty:
		return finding(rule, audit.NotApplicable, "empty cell (no contributors)", nil)
	case inNoTop:
		return finding(rule, audit.NotApplicable, fmt.Sprintf("needs the %d largest contributions, which the input does not give", need), nil)
	case inNoN:
		return finding(rule, audit.NotApplicable, "needs the number of contributors, which the input does not give", nil)
	}
	return finding(rule, audit.Review, "the cell cannot be assessed", nil)
}

// frac is an exact positive rational parameter num/den, with den > 0.
type frac struct{ num, den int64 }

// percentFrac turns a percentage parameter into the fraction d/100,
// validating lo < d <= hi (lo <= d when !loOpen).
func percentFrac(rule, param string, d audit.Dec, lo, hi int64, loOpen bool) (frac, error) {
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

// times returns f × d, exactly when it has at most 6 decimals, else
// rounded half-up to 6, for the figures of a finding.
func (f frac) times(d audit.Dec) audit.Dec {
	return shortDec(new(big.Rat).Mul(d.Rat(), big.NewRat(f.num, f.den)))
}

// shortDec returns r exactly when it is a decimal with at most 6 places,
// else rounded half-up to 6 places.
func shortDec(r *big.Rat) audit.Dec {
	if d := audit.DecFromRat(r); d.Scale() <= 6 && d.Rat().Cmp(r) == 0 {
		return d
	}
	d, _ := audit.ParseDec(audit.RoundRat(r, 6))
	return d
}

// ratio returns a/b (b != 0) for a finding, e.g. a share of X.
func ratio(a, b audit.Dec) audit.Dec {
	if b.IsZero() {
		return audit.Dec{}
	}
	return shortDec(new(big.Rat).Quo(a.Rat(), b.Rat()))
}

// absoluteValues marks to the figures of a rule assessing absolute values.
func absoluteValues(m *magInput, v map[string]any) {
	if m.abs {
		v["absolute"] = true
	}
}
