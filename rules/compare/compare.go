// Package compare puts the magnitude sensitivity rules side by side, as in
// section 3 of the Statisticon rule thesis (../shared/seeds): each rule's
// parameter is calibrated so that the rule flags the same share of cells,
// then the rules are compared pairwise with 2x2 agreement tables, Cohen's
// kappa and a typical-case profile of the cells on which they disagree.
//
// The cells come from a real table or from a simulation (exponential or
// normal contributions, n per cell, a fixed seed). Calibration bisects on
// a decimal grid of the parameter with each rule's exact test
// (rules.Sensitiver), so a result is reproducible to the last cell.
package compare

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
)

// Options control a comparison.
type Options struct {
	// Target is the share of cells each rule should flag, in (0, 1).
	Target float64
	// DominanceN is the n of the (n,k) dominance rule (default 2); k is
	// calibrated.
	DominanceN int
	// Rules are the rules to compare, from dominance, p_percent, pq and
	// interval (default all four).
	Rules []string
	// Rounded, when positive, is the base the table's published counts
	// and totals are rounded to (input.rounded, aggregate tables): each
	// rule judges a cell as `check` does (rules.ForRounded), at every
	// value the rounded figures stand for, and flags it when some of
	// those values is sensitive (its outcome is fail or review: the cell
	// is not published as it stands), so that the calibrated parameters
	// flag what check would withhold.
	Rounded decimal.Dec
}

// Family names a magnitude rule with one calibrated parameter.
type family struct {
	rule  string
	param string // parameter name in reports
	step  decimal.Dec
	steps int64 // the grid is step, 2 step, ..., steps × step
	// up is true when a larger parameter flags more cells.
	up    bool
	build func(v decimal.Dec) (rules.Sensitiver, error)
	// curve maps m = 1..100 of the sensitivity plot to a parameter value.
	curve func(m int64) (decimal.Dec, bool)
}

// Families lists the rules a comparison can calibrate.
var Families = []string{"dominance", "p_percent", "pq", "interval"}

func families(domN int) map[string]family {
	cent := decimal.Scaled(1, 2)
	pct := func(m int64) (decimal.Dec, bool) { return decimal.FromInt(m), true }
	return map[string]family{
		"dominance": {rule: "dominance", param: fmt.Sprintf("k (n = %d)", domN), step: cent, steps: 10000, up: false,
			build: func(v decimal.Dec) (rules.Sensitiver, error) {
				r, err := rules.NewDominance(false, rules.NK{N: domN, K: v})
				return sens(r, err)
			}, curve: pct},
		"p_percent": {rule: "p_percent", param: "p", step: cent, steps: 10000, up: true,
			build: func(v decimal.Dec) (rules.Sensitiver, error) { return sens(rules.NewPPercent(v, false)) }, curve: pct},
		// p-q with q = 100: the ratio p/q is the parameter.
		"pq": {rule: "pq", param: "p/q", step: decimal.Scaled(1, 4), steps: 9999, up: true,
			build: func(v decimal.Dec) (rules.Sensitiver, error) {
				return sens(rules.NewPQ(v.Mul(decimal.FromInt(100)), decimal.FromInt(100), false))
			}, curve: func(m int64) (decimal.Dec, bool) { return decimal.Scaled(m, 2), m < 100 }},
		"interval": {rule: "interval", param: "s", step: cent, steps: 10000, up: true,
			build: func(v decimal.Dec) (rules.Sensitiver, error) { return sens(rules.NewInterval(v, false)) }, curve: pct},
	}
}

// rounded returns f judging cells whose counts and totals are rounded
// to base (roundedSens).
func (f family) rounded(base decimal.Dec) family {
	build := f.build
	f.build = func(v decimal.Dec) (rules.Sensitiver, error) {
		r, err := build(v)
		if err != nil {
			return nil, err
		}
		cr, ok := r.(rules.CellRule)
		if !ok {
			return nil, fmt.Errorf("rule %s cannot judge rounded figures", f.rule)
		}
		return roundedSens{inner: r, rounded: rules.ForRounded(cr, base)}, nil
	}
	return f
}

// roundedSens is a rule judging rounded figures (rules.ForRounded): a
// cell it can assess on its published figures is sensitive when the
// rule fails at some value the rounded count and total stand for
// (outcome fail: at every one; review: at some), not when it passes at
// every one. Flagging grows with the parameter as the plain rule's does
// (a value sensitive at a parameter stays sensitive at a stricter one),
// so calibration by bisection still holds.
type roundedSens struct {
	inner   rules.Sensitiver
	rounded rules.CellRule
}

func (r roundedSens) Sensitive(t *audit.Table, c *audit.Cell) (bool, bool) {
	s, app := r.inner.Sensitive(t, c)
	if !app {
		return false, false
	}
	switch r.rounded.Check(t, c).Outcome {
	case audit.Pass:
		return false, true
	case audit.Fail, audit.Review:
		return true, true
	}
	return s, app
}

func sens(r rules.Rule, err error) (rules.Sensitiver, error) {
	if err != nil {
		return nil, err
	}
	return r.(rules.Sensitiver), nil
}

// Point is one point of a sensitivity curve: the number of cells a rule
// flags at parameter M (k, p or s in percent; p/q = M/100).
type Point struct {
	M         int64 `json:"m"`
	Sensitive int   `json:"sensitive"`
}

// RuleResult is one rule's calibration.
type RuleResult struct {
	Rule  string      `json:"rule"`
	Param string      `json:"param"`
	Value decimal.Dec `json:"value"`
	// Sensitive is the number of cells flagged at Value, Share its share.
	Sensitive int     `json:"sensitive"`
	Share     float64 `json:"share"`
	// Reached is false when no parameter in the rule's range flags the
	// target share; Value is then the end of the range nearest to it.
	Reached bool    `json:"reached"`
	Curve   []Point `json:"curve"`

	flags []bool
}

// Profile describes a group of cells: the typical case of the thesis
// (shares of X, means with medians).
type Profile struct {
	Cells int     `json:"cells"`
	MeanN float64 `json:"mean_n"`
	// Share[i] is the mean of x(i+1)/X, Median[i] its median; absent
	// when some cell of the group does not give x(i+1).
	Share  []float64 `json:"share_mean"`
	Median []float64 `json:"share_median"`
	// Gap is the mean of (x1 - x2)/X and Rest the mean of (X - x1 - x2)/X.
	Gap  float64 `json:"gap_mean"`
	Rest float64 `json:"rest_mean"`
	// SD is the mean over cells of the standard deviation of the shares
	// x/X (sample SD), when every contribution of every cell is known.
	SD *float64 `json:"sd_mean,omitempty"`
}

// Pair compares two rules at their calibrated parameters.
type Pair struct {
	A string `json:"a"`
	B string `json:"b"`
	// Both, OnlyA, OnlyB and Neither are the 2x2 agreement table.
	Both    int `json:"both"`
	OnlyA   int `json:"only_a"`
	OnlyB   int `json:"only_b"`
	Neither int `json:"neither"`
	// Agreement is the observed share of agreement; Kappa is Cohen's kappa,
	// nil when undefined (both rules flag all or no cells).
	Agreement float64  `json:"agreement"`
	Kappa     *float64 `json:"kappa"`
	// TypicalA profiles the cells flagged by A only, TypicalB by B only.
	TypicalA *Profile `json:"typical_a_only,omitempty"`
	TypicalB *Profile `json:"typical_b_only,omitempty"`
}

// Result is a full comparison.
type Result struct {
	Source      string       `json:"source"`
	Cells       int          `json:"cells"`
	Skipped     int          `json:"skipped"`
	Target      float64      `json:"target"`
	TargetCells int          `json:"target_cells"`
	Rules       []RuleResult `json:"rules"`
	Pairs       []Pair       `json:"pairs"`
	// Rounded is Options.Rounded when positive: the rules judged the
	// rounded figures (Options.Rounded).
	Rounded *decimal.Dec `json:"rounded,omitempty"`
}

// ErrNoCells reports that no cell can be assessed by every compared rule.
var ErrNoCells = errors.New("no cell has what every compared rule needs (a total, the two largest contributions, n, no negative values)")

// Run calibrates and compares the rules on the cells. Cells that some
// rule cannot assess (empty, negative contributions, missing figures) are
// skipped and counted.
func Run(t *audit.Table, cells []*audit.Cell, opt Options) (*Result, error) {
	if !(opt.Target > 0 && opt.Target < 1) {
		return nil, fmt.Errorf("target must be a share in (0, 1), got %g", opt.Target)
	}
	if opt.DominanceN == 0 {
		opt.DominanceN = 2
	}
	if opt.DominanceN < 1 || opt.DominanceN > 1000 {
		return nil, fmt.Errorf("dominance n must be 1..1000, got %d", opt.DominanceN)
	}
	names := opt.Rules
	if len(names) == 0 {
		names = Families
	}
	fams := families(opt.DominanceN)
	if opt.Rounded.Sign() < 0 {
		return nil, fmt.Errorf("rounding base must be positive, got %s", opt.Rounded)
	}
	if opt.Rounded.Sign() > 0 {
		for n, f := range fams {
			fams[n] = f.rounded(opt.Rounded)
		}
	}
	var fs []family
	seen := map[string]bool{}
	for _, n := range names {
		f, ok := fams[n]
		if !ok {
			return nil, fmt.Errorf("unknown rule %q to compare (known: dominance, p_percent, pq, interval)", n)
		}
		if !seen[n] {
			fs = append(fs, f)
			seen[n] = true
		}
	}
	if len(fs) < 2 {
		return nil, fmt.Errorf("compare needs at least two rules, got %v", names)
	}
	// Keep the cells every rule can assess.
	var probes []rules.Sensitiver
	for _, f := range fs {
		r, err := f.build(f.step.Mul(decimal.FromInt(f.steps / 2)))
		if err != nil {
			return nil, err
		}
		probes = append(probes, r)
	}
	var use []*audit.Cell
	for _, c := range cells {
		ok := true
		for _, p := range probes {
			if _, app := p.Sensitive(t, c); !app {
				ok = false
				break
			}
		}
		if ok {
			use = append(use, c)
		}
	}
	if len(use) == 0 {
		return nil, ErrNoCells
	}
	res := &Result{Cells: len(use), Skipped: len(cells) - len(use), Target: opt.Target}
	if opt.Rounded.Sign() > 0 {
		b := opt.Rounded
		res.Rounded = &b
	}
	res.TargetCells = int(math.Round(opt.Target * float64(len(use))))
	for _, f := range fs {
		rr, err := calibrate(t, use, f, res.TargetCells)
		if err != nil {
			return nil, err
		}
		res.Rules = append(res.Rules, *rr)
	}
	for i := range res.Rules {
		for j := i + 1; j < len(res.Rules); j++ {
			res.Pairs = append(res.Pairs, pair(use, &res.Rules[i], &res.Rules[j]))
		}
	}
	return res, nil
}

// count returns how many cells the rule flags at v, and the flags.
func count(t *audit.Table, cells []*audit.Cell, f family, v decimal.Dec, keep bool) (int, []bool, error) {
	r, err := f.build(v)
	if err != nil {
		return 0, nil, err
	}
	var flags []bool
	if keep {
		flags = make([]bool, len(cells))
	}
	n := 0
	for i, c := range cells {
		if s, _ := r.Sensitive(t, c); s {
			n++
			if keep {
				flags[i] = true
			}
		}
	}
	return n, flags, nil
}

// calibrate finds the grid value whose count is nearest the target by
// bisection (the count is monotone in the parameter); on a tie it takes
// the value that flags at least the target.
func calibrate(t *audit.Table, cells []*audit.Cell, f family, target int) (*RuleResult, error) {
	at := func(i int64) decimal.Dec { return f.step.Mul(decimal.FromInt(i)) }
	cnt := func(i int64) (int, error) {
		n, _, err := count(t, cells, f, at(i), false)
		return n, err
	}
	// g(i) = count at grid index i, oriented so that it rises with i.
	idx := func(i int64) int64 {
		if f.up {
			return i
		}
		return f.steps + 1 - i
	}
	g := func(i int64) (int, error) { return cnt(idx(i)) }
	// smallest i in [1, steps] with g(i) >= target
	lo, hi := int64(1), f.steps
	gHi, err := g(hi)
	if err != nil {
		return nil, err
	}
	best := hi
	if gHi >= target {
		for lo < hi {
			mid := lo + (hi-lo)/2
			v, err := g(mid)
			if err != nil {
				return nil, err
			}
			if v >= target {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		best = lo
		if best > 1 {
			above, err := g(best)
			if err != nil {
				return nil, err
			}
			below, err := g(best - 1)
			if err != nil {
				return nil, err
			}
			if target-below < above-target {
				best--
			}
		}
	}
	v := at(idx(best))
	n, flags, err := count(t, cells, f, v, true)
	if err != nil {
		return nil, err
	}
	rr := &RuleResult{Rule: f.rule, Param: f.param, Value: v, Sensitive: n, Share: float64(n) / float64(len(cells)), Reached: gHi >= target, flags: flags}
	if lowest, _ := g(1); lowest > target {
		rr.Reached = false
	}
	for m := int64(1); m <= 100; m++ {
		pv, ok := f.curve(m)
		if !ok {
			continue
		}
		c, _, err := count(t, cells, f, pv, false)
		if err != nil {
			return nil, err
		}
		rr.Curve = append(rr.Curve, Point{m, c})
	}
	return rr, nil
}

func pair(cells []*audit.Cell, a, b *RuleResult) Pair {
	p := Pair{A: a.Rule, B: b.Rule}
	var onlyA, onlyB []*audit.Cell
	for i, c := range cells {
		switch fa, fb := a.flags[i], b.flags[i]; {
		case fa && fb:
			p.Both++
		case fa:
			p.OnlyA++
			onlyA = append(onlyA, c)
		case fb:
			p.OnlyB++
			onlyB = append(onlyB, c)
		default:
			p.Neither++
		}
	}
	n := float64(len(cells))
	po := float64(p.Both+p.Neither) / n
	pa, pb := float64(p.Both+p.OnlyA)/n, float64(p.Both+p.OnlyB)/n
	pe := pa*pb + (1-pa)*(1-pb)
	p.Agreement = po
	if pe < 1 {
		k := (po - pe) / (1 - pe)
		p.Kappa = &k
	}
	p.TypicalA = profile(onlyA)
	p.TypicalB = profile(onlyB)
	return p
}

// profileShares is how many leading shares a profile reports (x1..x4, as
// in the thesis's typical cases).
const profileShares = 4

func profile(cells []*audit.Cell) *Profile {
	if len(cells) == 0 {
		return nil
	}
	p := &Profile{Cells: len(cells)}
	k := profileShares
	allKnown := true
	for _, c := range cells {
		known := len(c.Top)
		if c.AllTop || int64(known) >= c.N {
			known = profileShares
		} else {
			allKnown = false
		}
		k = min(k, known)
	}
	shares := make([][]float64, k)
	var sdSum float64
	for _, c := range cells {
		X := c.Total.Float64()
		p.MeanN += float64(c.N)
		x := func(i int) float64 {
			if i < len(c.Top) {
				return c.Top[i].Float64() / X
			}
			return 0
		}
		for i := 0; i < k; i++ {
			shares[i] = append(shares[i], x(i))
		}
		p.Gap += x(0) - x(1)
		p.Rest += 1 - x(0) - x(1)
		if allKnown && c.N >= 2 {
			var s, q float64
			for _, v := range c.Top {
				f := v.Float64() / X
				s += f
				q += f * f
			}
			nn := float64(c.N)
			sdSum += math.Sqrt(math.Max(0, (q-s*s/nn)/(nn-1)))
		}
	}
	cnt := float64(len(cells))
	p.MeanN /= cnt
	p.Gap /= cnt
	p.Rest /= cnt
	for i := 0; i < k; i++ {
		var s float64
		for _, v := range shares[i] {
			s += v
		}
		p.Share = append(p.Share, s/cnt)
		p.Median = append(p.Median, median(shares[i]))
	}
	if allKnown {
		sd := sdSum / cnt
		p.SD = &sd
	}
	return p
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Simulate draws cells of n contributions each from the distribution
// ("exponential": rate 1; "normal": mean 100, SD 50, truncated at 0 by
// redrawing negative values, as the rules assume x >= 0). Values are kept
// to 6 decimals, exactly. The same seed gives the same cells.
func Simulate(dist string, n, cells int, seed uint64) ([]*audit.Cell, error) {
	if n < 1 || n > 100000 {
		return nil, fmt.Errorf("contributors must be 1..100000, got %d", n)
	}
	if cells < 1 || cells > 10000000 {
		return nil, fmt.Errorf("cells must be 1..10000000, got %d", cells)
	}
	r := rand.New(rand.NewPCG(seed, 0x5dca0d17))
	var draw func() float64
	switch dist {
	case "exponential", "exp":
		draw = r.ExpFloat64
	case "normal":
		draw = func() float64 {
			for {
				if v := 100 + 50*r.NormFloat64(); v >= 0 {
					return v
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown distribution %q (exponential or normal)", dist)
	}
	out := make([]*audit.Cell, cells)
	for i := range out {
		c := &audit.Cell{HasN: true, N: int64(n), HasTotal: true, AllTop: true, Top: make([]decimal.Dec, n)}
		var total int64
		ms := make([]int64, n)
		for j := range ms {
			ms[j] = int64(math.Round(draw() * 1e6))
			total += ms[j]
		}
		slices.Sort(ms)
		for j := range ms {
			c.Top[j] = decimal.Scaled(ms[n-1-j], 6)
		}
		c.Total = decimal.Scaled(total, 6)
		out[i] = c
	}
	return out, nil
}
