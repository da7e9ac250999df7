package rules

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// Rules on already-rounded tables (input.rounded: B, issue 24 item 6).
//
// A count or total published as v rounded to base B stands for any value
// in [v − B/2, v + B/2], never below 0 for a non-negative value (a count:
// the integers of that interval). The largest contributions, means, SDs
// and other statistics of an aggregate table are read as given. A rule
// judges every value the rounded figures stand for: when it gives the
// same outcome for all of them, that is its outcome; when it does not,
// the cell cannot be assessed on the rounded figures and is review, with
// the values for which the rule decides differently.
//
// "Every value" is made finite rule by rule (roundedPlan): the threshold
// and zeros rules decide on intervals of n whose ends are known (0,
// 1..min−1, min..), so n is tried at the ends of the range and of each
// piece inside it; the magnitude rules (dominance, p%, p-q, interval,
// all_zero) and the negative rule are monotone in the total X (a larger
// total is never more sensitive, the top contributions fixed) and in n
// between their ends (0, 1, 2, the number of top contributions given), so
// X is tried at the two ends of its interval and n at the ends of the
// pieces; the other rules (meansd, moments, minmax, missing, and any rule
// not listed) are tried at every integer n of the range, and where they
// read the total and do not agree that they do not apply, they cannot be
// evaluated on an interval of totals: review. Every comparison is exact
// (integers and audit/decimal).

// roundedPlan says how a rule is evaluated on the values rounded figures
// stand for.
type roundedPlan uint8

const (
	// planPieces: the outcome is constant (threshold, zeros) or monotone
	// in n and in X between the breakpoints of n (breaks): trying the
	// ends of the ranges and the breakpoints (and the integers just
	// below them) decides every value.
	planPieces roundedPlan = iota
	// planEnumerate: every integer n of the range is tried; the total
	// may not be read (xFree) or the rule is review unless it does not
	// apply anywhere.
	planEnumerate
)

// maxRoundedCounts bounds the integers n tried by planEnumerate: a base
// wider than this cannot be enumerated, and the cell is review.
const maxRoundedCounts = 1001

// ForRounded returns r judging cells whose published count and total are
// rounded to base (> 0), as above. Rules that read neither see the cell
// as it is.
func ForRounded(r CellRule, base decimal.Dec) CellRule {
	half := base.Mul(decimal.Scaled(5, 1))
	rr := &roundedRule{inner: r, base: base, half: half}
	if b, ok := base.Int64(); ok && base.Scale() == 0 {
		// an integer base: a count v stands for v ± ⌊B/2⌋ (B odd: the
		// ends v ± B/2 are not integers)
		rr.intHalf, rr.hasIntHalf = b/2, true
	}
	return rr
}

type roundedRule struct {
	inner      CellRule
	base, half decimal.Dec
	// intHalf is ⌊B/2⌋ when B is an integer (hasIntHalf).
	intHalf    int64
	hasIntHalf bool
}

func (r *roundedRule) Name() string { return r.inner.Name() }

// plan returns the rule's plan, the breakpoints of n of planPieces (each
// b where the rule's outcome may change between b−1 and b) and whether
// planEnumerate's rule reads no total.
func (r *roundedRule) plan(c *audit.Cell) (p roundedPlan, breaks []int64, xFree bool) {
	top := int64(len(c.Top))
	switch in := r.inner.(type) {
	case threshold:
		return planPieces, []int64{1, in.min}, true
	case zeros:
		return planPieces, []int64{1}, true
	case dominance, pPercent, pq, interval, allZero:
		return planPieces, []int64{1, 2, top + 1}, false
	case negative:
		return planPieces, nil, false
	case meanSD, minMax, missing:
		return planEnumerate, nil, true
	}
	return planEnumerate, nil, false
}

// roundedRange is what a cell's rounded figures stand for.
type roundedRange struct {
	base             decimal.Dec
	hasN, hasX       bool
	n, nlo, nhi      int64
	x, xlo, xhi      decimal.Dec
	inconsistent     bool // the top contributions add up to more than the total can be
	sumTop           decimal.Dec
	nWidth, xWidth   bool // the ranges hold more than one value
	enumerateTooWide bool
}

// rangeOf returns the values the cell's rounded count and total stand
// for.
func (r *roundedRule) rangeOf(c *audit.Cell) roundedRange {
	g := roundedRange{base: r.base, hasN: c.HasN, hasX: c.HasTotal, n: c.N, x: c.Total}
	if c.HasN && r.hasIntHalf {
		g.nlo, g.nhi = max(0, c.N-r.intHalf), c.N+r.intHalf
		g.nWidth = g.nlo != g.nhi || g.nlo != c.N
	} else if c.HasN {
		h := r.half.Rat()
		v := new(big.Rat).SetInt64(c.N)
		lo := new(big.Rat).Sub(v, h)
		if lo.Sign() < 0 {
			lo.SetInt64(0)
		}
		hi := new(big.Rat).Add(v, h)
		g.nlo, g.nhi = ceilRat(lo), floorRat(hi)
		g.nWidth = g.nlo != g.nhi || g.nlo != c.N
	}
	if c.HasTotal {
		g.xlo, g.xhi = c.Total.Sub(r.half), c.Total.Add(r.half)
		if c.Total.Sign() >= 0 && g.xlo.Sign() < 0 {
			g.xlo = decimal.Dec{}
		}
		// The top contributions are read as given: the total is at
		// least their sum (non-negative contributions), and is their sum
		// when they are all the contributions.
		if c.Negative == 0 && len(c.Top) > 0 {
			for _, t := range c.Top {
				g.sumTop = g.sumTop.Add(t)
			}
			if g.sumTop.Cmp(g.xhi) > 0 {
				g.inconsistent = true
			}
			if g.sumTop.Cmp(g.xlo) > 0 {
				g.xlo = g.sumTop
			}
		}
		g.xWidth = g.xlo.Cmp(g.xhi) != 0 || g.xlo.Cmp(c.Total) != 0
	}
	return g
}

func ceilRat(r *big.Rat) int64 {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

func floorRat(r *big.Rat) int64 {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q.Int64()
}

// counts returns the n to try.
func (g *roundedRange) counts(p roundedPlan, breaks []int64) []int64 {
	if !g.hasN {
		return []int64{0}
	}
	if p == planEnumerate {
		if g.nhi-g.nlo >= maxRoundedCounts {
			g.enumerateTooWide = true
			return nil
		}
		out := make([]int64, 0, g.nhi-g.nlo+1)
		for n := g.nlo; n <= g.nhi; n++ {
			out = append(out, n)
		}
		return out
	}
	out := []int64{g.nlo}
	add := func(n int64) {
		if n >= g.nlo && n <= g.nhi {
			for _, o := range out {
				if o == n {
					return
				}
			}
			out = append(out, n)
		}
	}
	for _, b := range breaks {
		add(b - 1)
		add(b)
	}
	add(g.nhi)
	return out
}

// totals returns the totals to try: the two ends of the interval.
func (g *roundedRange) totals() []decimal.Dec {
	if !g.hasX {
		return []decimal.Dec{{}}
	}
	if g.xlo.Cmp(g.xhi) == 0 {
		return []decimal.Dec{g.xlo}
	}
	return []decimal.Dec{g.xlo, g.xhi}
}

// Check judges the cell at every value its rounded figures stand for.
func (r *roundedRule) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	if !c.HasN && !c.HasTotal {
		return r.inner.Check(t, c)
	}
	p, breaks, xFree := r.plan(c)
	g := r.rangeOf(c)
	if !g.nWidth && (!g.xWidth || xFree) {
		return r.inner.Check(t, c)
	}
	if g.inconsistent && !xFree {
		return said(r.Name(), audit.Review, sayRoundedInconsistent, g.figures(nil))
	}
	ns := g.counts(p, breaks)
	if g.enumerateTooWide {
		return said(r.Name(), audit.Review, sayRoundedTooWide, g.figures(nil))
	}
	xs := g.totals()
	if xFree {
		xs = []decimal.Dec{c.Total}
		g.hasX = false // the rule reads no total: its findings say nothing of it
	}
	// One scratch cell for every value tried: a finding on it is kept
	// only as its outcome (its facts may read the cell, which the next
	// value changes).
	scratch := new(audit.Cell)
	var first audit.Outcome
	var firstN, firstCandN int64
	var firstX, firstCandX decimal.Dec
	for i, n := range ns {
		for j, x := range xs {
			r.variant(scratch, c, n, x)
			o := r.inner.Check(t, scratch).Outcome
			if i == 0 && j == 0 {
				first, firstN, firstX, firstCandN, firstCandX = o, scratch.N, scratch.Total, n, x
				continue
			}
			if o != first {
				figs := []audit.Figure{audit.TextFig("outcome_a", first.String()), audit.TextFig("outcome_b", o.String())}
				if g.hasN {
					figs = append(figs, audit.IntFig("n_a", firstN), audit.IntFig("n_b", scratch.N))
				}
				if g.hasX {
					figs = append(figs, audit.DecFig("X_a", firstX), audit.DecFig("X_b", scratch.Total))
				}
				figs = g.figures(figs)
				if th, ok := r.inner.(threshold); ok {
					figs = append(figs, audit.IntFig("min", th.min))
				}
				return said(r.Name(), audit.Review, r.sayDiffer, figs)
			}
		}
	}
	if p == planEnumerate && !xFree && g.xWidth && first != audit.NotApplicable {
		return said(r.Name(), audit.Review, sayRoundedNotOnInterval, g.figures(nil))
	}
	// The same outcome for every value: the finding on the published
	// figures when it is that outcome (its figures and message read the
	// published cell), else on the first value tried (a cell of its own).
	f := r.inner.Check(t, c)
	if f.Outcome != first {
		cc := new(audit.Cell)
		r.variant(cc, c, firstCandN, firstCandX)
		f = r.inner.Check(t, cc)
	}
	if !r.says(f.Outcome) {
		return f
	}
	return audit.Finding{Rule: f.Rule, Outcome: f.Outcome, Cell: f.Cell, Facts: &roundedFacts{inner: f.Facts, g: g}}
}

// says reports whether a finding with outcome o says what the rounded
// figures stand for: a sensitivity rule's pass or fail, which holds for
// every value; not a rule that does not apply, nor the input checks
// (missing, negative, minmax), whose verdicts do not weigh the values.
func (r *roundedRule) says(o audit.Outcome) bool {
	switch r.inner.(type) {
	case missing, negative, minMax:
		return false
	}
	return o == audit.Pass || o == audit.Fail
}

// variant sets cc to the cell c with count n and total x, as the rules
// read it.
func (r *roundedRule) variant(cc, c *audit.Cell, n int64, x decimal.Dec) {
	*cc = *c
	cc.Findings = nil
	if c.HasN {
		cc.N = n
		cc.AllTop = int64(len(c.Top)) >= n // as the aggregate builder sets it
	}
	if c.HasTotal {
		cc.Total = x
		if cc.AllTop && c.Negative == 0 && len(c.Top) > 0 {
			// every contribution is known: the total is their sum
			var s decimal.Dec
			for _, t := range c.Top {
				s = s.Add(t)
			}
			cc.Total = s
		}
	}
}

// figures returns the figures of the ranges, after more.
func (g *roundedRange) figures(more []audit.Figure) []audit.Figure {
	figs := append(more, audit.DecFig("rounding_base", g.base))
	if g.hasN {
		figs = append(figs, audit.IntFig("n_published", g.n), audit.IntFig("n_low", g.nlo), audit.IntFig("n_high", g.nhi))
	}
	if g.hasX {
		figs = append(figs, audit.DecFig("X_published", g.x), audit.DecFig("X_low", g.xlo), audit.DecFig("X_high", g.xhi))
	}
	if g.inconsistent {
		figs = append(figs, audit.DecFig("top_sum", g.sumTop))
	}
	return figs
}

// roundedFacts are a rule's facts on a rounded cell whose outcome is the
// same for every value the rounded figures stand for: the rule's figures
// and message, and the ranges.
type roundedFacts struct {
	inner audit.Facts
	g     roundedRange
}

// Figures implements audit.Facts.
func (f *roundedFacts) Figures(c *audit.Cell) []audit.Figure {
	var figs []audit.Figure
	if f.inner != nil {
		figs = append(figs, f.inner.Figures(c)...)
	}
	return f.g.figures(figs)
}

// Message implements audit.Facts.
func (f *roundedFacts) Message(c *audit.Cell) string {
	var b strings.Builder
	if f.inner != nil {
		b.WriteString(f.inner.Message(c))
		b.WriteString("; ")
	}
	b.WriteString("the same for every value the rounded figures stand for (")
	b.WriteString(rangesText(f.g.figures(nil)))
	b.WriteString(")")
	return b.String()
}

// rangesText says what the rounded figures stand for: "published 10
// rounded to base 5 stands for 8 to 12".
func rangesText(figs []audit.Figure) string {
	base := report.DecText(fig(figs, "rounding_base").Dec)
	var parts []string
	if g, ok := lookupFig(figs, "n_published"); ok {
		parts = append(parts, "n published "+itoa(g)+" rounded to base "+base+" stands for "+itoa(fig(figs, "n_low"))+" to "+itoa(fig(figs, "n_high")))
	}
	if g, ok := lookupFig(figs, "X_published"); ok {
		parts = append(parts, "X published "+report.DecText(g.Dec)+" rounded to base "+base+" stands for "+report.DecText(fig(figs, "X_low").Dec)+" to "+report.DecText(fig(figs, "X_high").Dec))
	}
	return strings.Join(parts, "; ")
}

func lookupFig(figs []audit.Figure, name string) (audit.Figure, bool) {
	for _, g := range figs {
		if g.Name == name {
			return g, true
		}
	}
	return audit.Figure{}, false
}

// sayDiffer renders the review of a rule that decides differently for
// two of the values the rounded figures stand for.
func (r *roundedRule) sayDiffer(figs []audit.Figure) string {
	if mn, ok := lookupFig(figs, "min"); ok {
		return "published " + itoa(fig(figs, "n_published")) + " rounded to base " + report.DecText(fig(figs, "rounding_base").Dec) +
			" stands for " + itoa(fig(figs, "n_low")) + " to " + itoa(fig(figs, "n_high")) + " contributors; the threshold " + itoa(mn) +
			" is met by some of these and not by others: the cell cannot be assessed on the rounded figures"
	}
	_, hasN := lookupFig(figs, "n_a")
	_, hasX := lookupFig(figs, "X_a")
	at := func(s string) string {
		var p []string
		if hasN {
			p = append(p, "n = "+itoa(fig(figs, "n_"+s)))
		}
		if hasX {
			p = append(p, "X = "+report.DecText(fig(figs, "X_"+s).Dec))
		}
		return outcomeVerb(fig(figs, "outcome_"+s).Text) + " for " + strings.Join(p, ", ")
	}
	return rangesText(figs) + ": the rule " + at("a") + " and " + at("b") + ": the cell cannot be assessed on the rounded figures"
}

func outcomeVerb(o string) string {
	switch o {
	case "fail":
		return "fails"
	case "pass":
		return "passes"
	case "review":
		return "needs review"
	case "not_applicable":
		return "does not apply"
	}
	return strconv.Quote(o)
}

func sayRoundedInconsistent(figs []audit.Figure) string {
	return "the largest contributions add up to " + report.DecText(fig(figs, "top_sum").Dec) + ", more than the total can be (" + rangesText(figs) + "): the cell cannot be assessed"
}

func sayRoundedTooWide(figs []audit.Figure) string {
	return rangesText(figs) + ": too many counts to try each; the rule needs the exact count, so the cell cannot be assessed on the rounded figures"
}

func sayRoundedNotOnInterval(figs []audit.Figure) string {
	return rangesText(figs) + ": the rule needs the exact total, so the cell cannot be assessed on the rounded figures"
}
