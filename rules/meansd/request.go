// Package meansd reconstructs the samples behind a published mean and
// standard deviation.
//
// Given the number of values n, the grid of values they can take (Min, Min+Step,
// ..., Max), the published mean and SD as strings (their decimal places are the
// rounding precision) and the rounding convention, the package finds every
// multiset of n grid values whose mean and SD round to the published strings.
// It counts them exactly (or up to a cap), lists a few, and reports the range of
// the sample maximum and minimum, the values present in every solution and the
// values present in none, together with the classical analytic bounds.
//
// All comparisons are exact: values are scaled to grid indices k = (x-Min)/Step
// in 0..K, the published strings and the rounding convention become exact
// rational intervals for the sum S = Σk and for D = n·Q − S² (Q = Σk²), which
// are converted once to integer ranges; the search itself runs in int64 and
// uint64 arithmetic with overflow detection. Floats are used only for the
// analytic bounds, which are reported for comparison.
//
// The package knows nothing of tables; rules/meansd.go adapts it to cells.
package meansd

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Rounding is the convention by which the published mean and SD were rounded.
type Rounding string

// The rounding conventions.
const (
	// HalfUp rounds ties away from zero (Excel, SAS, Stata).
	HalfUp Rounding = "half-up"
	// HalfEven rounds ties to the even last digit (R, NumPy).
	HalfEven Rounding = "half-even"
	// Closed accepts every value within half a unit of the last digit, both
	// ends included (what CLOSURE and unsum do); the widest convention.
	Closed Rounding = "closed"
	// Exact means the published value is exact.
	Exact Rounding = "exact"
)

// ParseRounding returns the convention named s ("" is HalfUp).
func ParseRounding(s string) (Rounding, error) {
	switch Rounding(s) {
	case "":
		return HalfUp, nil
	case HalfUp, HalfEven, Closed, Exact:
		return Rounding(s), nil
	}
	return "", fmt.Errorf("%w: %q (want half-up, half-even, closed or exact)", ErrRounding, s)
}

// Errors returned for invalid requests; they are wrapped with details.
var (
	ErrRounding = errors.New("unknown rounding convention")
	ErrRequest  = errors.New("invalid request")
)

// Request describes one published (n, mean, SD[, median]) on a grid.
type Request struct {
	// N is the number of values (at least 2 for a sample SD, 1 for a
	// population SD).
	N int
	// Min, Max and Step define the grid of possible values as exact decimal
	// strings; Step "" means 1.
	Min, Max, Step string
	// Mean and SD are the published strings.
	Mean, SD string
	// MeanDP and SDDP override the number of decimal places of Mean and SD
	// (for published values whose trailing zeros were dropped, e.g. "2.4"
	// published as 2.40). 0 means: the decimals of the string. An override
	// must not be smaller than the decimals of the string.
	MeanDP, SDDP int
	// Rounding is the convention (zero value: HalfUp).
	Rounding Rounding
	// Population says the SD has divisor n instead of n-1.
	Population bool
	// Median, when not empty, is the published sample median (the average
	// of the two middle values for even n), rounded like the mean with the
	// decimals of its string.
	Median string
	// Cap stops counting at Cap solutions ("at least Cap"); 0 counts
	// exactly. A cap of 1 counts to 2, which decides uniqueness.
	Cap uint64
	// List is the number of solutions to return in Result.Samples (at
	// most MaxListValues/max(N, grid size); Result.ListCut says when fewer
	// are listed than asked and found).
	List int
	// TimeLimit is the user's hard stop on the whole request; 0 means
	// none (the context still applies). When it fires, what was not
	// decided is not determined and the reason says the time limit
	// stopped it (the result then depends on the machine).
	TimeLimit time.Duration
	// Budget bounds the work of the whole request: the search nodes of
	// every search and existence query together (0: none). What it does
	// not decide is not determined, the same on any machine and at any
	// load: the bound that verdicts rest on. The counting and analysis
	// tables are bounded by MaxCells instead.
	Budget int64
	// MinSolutions is the verdict threshold: fewer solutions are risky
	// (0 means 10).
	MinSolutions int
	// Magnitude declares the measure a magnitude (an amount on a fine grid)
	// rather than a scale: a largest or smallest value that is the same in
	// every solution and lies strictly inside the domain is then disclosive,
	// and a narrow range of the maximum risky.
	Magnitude bool
	// Interval, on a magnitude measure, is a percentage (a decimal string;
	// "" or "0": off): a range of the maximum over all solutions narrower
	// than this percentage of its upper end is risky.
	Interval string
	// GroupSlack is the number of values that may differ in a group
	// disclosure: every solution giving one value to at least N−GroupSlack
	// values is disclosive (0: to all of them).
	GroupSlack int
	// CountOnly skips the ranges, forced and impossible values, samples and
	// verdict details that need more than the count.
	CountOnly bool
	// MaxCells bounds the memory of the counting tables in 8-byte cells
	// (0 means DefaultMaxCells); beyond it the solver falls back to search.
	MaxCells int
}

// DefaultBudget is the work budget (search nodes per request) that the
// meansd rule uses unless configured: about a second of search on a
// 2-core machine (it replaced a 1 s wall-clock limit), the same verdict on
// any machine.
const DefaultBudget = 10_000_000

// DefaultMaxCells is the default memory budget of the counting tables
// (16 Mi cells, 128 MiB).
const DefaultMaxCells = 16 << 20

// interval is a rational interval with open or closed ends.
type interval struct {
	lo, hi         *big.Rat
	loOpen, hiOpen bool
}

// decimals returns the number of digits after the decimal point of s.
func decimals(s string) int {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// parseDec parses a plain decimal string exactly.
func parseDec(name, s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w: %s is empty", ErrRequest, name)
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+') {
			return nil, fmt.Errorf("%w: %s %q is not a decimal number", ErrRequest, name, s)
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%w: %s %q is not a decimal number", ErrRequest, name, s)
	}
	return r, nil
}

func pow10(d int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil) }

// roundingInterval returns the set of true values that round to the
// published value v with d decimals under convention r.
func roundingInterval(v *big.Rat, d int, r Rounding) interval {
	if r == Exact {
		return interval{lo: new(big.Rat).Set(v), hi: new(big.Rat).Set(v)}
	}
	h := new(big.Rat).SetFrac(big.NewInt(5), pow10(d+1))
	iv := interval{lo: new(big.Rat).Sub(v, h), hi: new(big.Rat).Add(v, h)}
	switch r {
	case Closed:
	case HalfEven:
		// v·10^d is an integer; ties go to the even one.
		m := new(big.Rat).Mul(v, new(big.Rat).SetInt(pow10(d)))
		odd := m.IsInt() && m.Num().Bit(0) == 1
		iv.loOpen, iv.hiOpen = odd, odd
	default: // HalfUp: ties away from zero
		switch v.Sign() {
		case 1:
			iv.hiOpen = true
		case -1:
			iv.loOpen = true
		default:
			iv.loOpen, iv.hiOpen = true, true
		}
	}
	return iv
}

// intRange returns the integers z with z/f... i.e. the integer range of
// {z : lo·f ≤ z ≤ hi·f} respecting open ends; f > 0.
func intRange(iv interval, f *big.Rat) (lo, hi *big.Int) {
	a := new(big.Rat).Mul(iv.lo, f)
	b := new(big.Rat).Mul(iv.hi, f)
	lo = ceilRat(a)
	if iv.loOpen && a.IsInt() {
		lo.Add(lo, big.NewInt(1))
	}
	hi = floorRat(b)
	if iv.hiOpen && b.IsInt() {
		hi.Sub(hi, big.NewInt(1))
	}
	return lo, hi
}

func floorRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m
	return q // DivMod is Euclidean: floor for positive denominators
}

func ceilRat(r *big.Rat) *big.Int {
	q := floorRat(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// problem is a request converted to grid integers.
type problem struct {
	n    int
	K    int   // values are 0..K
	sLo  int64 // S range
	sHi  int64
	dLo  int64 // D = n·Q − S² range
	dHi  int64
	hasM bool
	mLo  int64 // range of the sum of the two middle order statistics (2·median for odd n)
	mHi  int64

	min, step *big.Rat
	valDP     int // decimals of grid values
	mean, sd  float64
}

// qRange returns the Q range for sum S (empty when lo > hi).
func (p *problem) qRange(S int64) (lo, hi int64) {
	n := int64(p.n)
	a := p.dLo + S*S
	b := p.dHi + S*S
	lo = (a + n - 1) / n
	if a < 0 {
		lo = a / n
	}
	hi = b / n
	if b < 0 {
		hi = -((-b + n - 1) / n)
	}
	return
}

// maxGrid is the largest n·K the solver accepts (keeps n²K² in int64).
const maxGrid = 1 << 30

func compile(req Request) (*problem, error) {
	if req.N < 1 {
		return nil, fmt.Errorf("%w: n must be at least 1, got %d", ErrRequest, req.N)
	}
	if req.N < 2 && !req.Population {
		return nil, fmt.Errorf("%w: a sample SD needs n >= 2", ErrRequest)
	}
	rnd, err := ParseRounding(string(req.Rounding))
	if err != nil {
		return nil, err
	}
	mn, err := parseDec("min", req.Min)
	if err != nil {
		return nil, err
	}
	mx, err := parseDec("max", req.Max)
	if err != nil {
		return nil, err
	}
	stepS := req.Step
	if strings.TrimSpace(stepS) == "" {
		stepS = "1"
	}
	st, err := parseDec("step", stepS)
	if err != nil {
		return nil, err
	}
	if st.Sign() <= 0 {
		return nil, fmt.Errorf("%w: step must be positive", ErrRequest)
	}
	if mx.Cmp(mn) < 0 {
		return nil, fmt.Errorf("%w: min %s is greater than max %s", ErrRequest, req.Min, req.Max)
	}
	kr := new(big.Rat).Quo(new(big.Rat).Sub(mx, mn), st)
	if !kr.IsInt() {
		return nil, fmt.Errorf("%w: max - min is not a multiple of step", ErrRequest)
	}
	if !kr.Num().IsInt64() || kr.Num().Int64()*int64(req.N) > maxGrid {
		return nil, fmt.Errorf("%w: n·(max-min)/step exceeds %d", ErrRequest, maxGrid)
	}
	p := &problem{n: req.N, K: int(kr.Num().Int64()), min: mn, step: st}
	p.valDP = max(decimals(req.Min), decimals(stepS))
	n := big.NewRat(int64(req.N), 1)

	meanV, err := parseDec("mean", req.Mean)
	if err != nil {
		return nil, err
	}
	sdV, err := parseDec("sd", req.SD)
	if err != nil {
		return nil, err
	}
	if sdV.Sign() < 0 {
		return nil, fmt.Errorf("%w: sd must not be negative", ErrRequest)
	}
	md, sd := decimals(req.Mean), decimals(req.SD)
	if req.MeanDP > 0 {
		if req.MeanDP < md {
			return nil, fmt.Errorf("%w: mean %q has more than %d decimals", ErrRequest, req.Mean, req.MeanDP)
		}
		md = req.MeanDP
	}
	if req.SDDP > 0 {
		if req.SDDP < sd {
			return nil, fmt.Errorf("%w: sd %q has more than %d decimals", ErrRequest, req.SD, req.SDDP)
		}
		sd = req.SDDP
	}
	p.mean, _ = meanV.Float64()
	p.sd, _ = sdV.Float64()

	// S: min + step·S/n ∈ I  ⇔  S ∈ (I − min)·n/step
	mi := roundingInterval(meanV, md, rnd)
	mi.lo.Sub(mi.lo, mn)
	mi.hi.Sub(mi.hi, mn)
	lo, hi := intRange(mi, new(big.Rat).Quo(n, st))
	nK := int64(req.N) * int64(p.K)
	p.sLo, p.sHi = clampRange(lo, hi, 0, nK)

	p.setD(roundingInterval(sdV, sd, rnd), req.Population)

	if strings.TrimSpace(req.Median) != "" {
		if err := p.setMedian(req.Median, rnd); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// setD sets the range of D = n·Q − S² = SD²·n(n−1)/step² (population:
// SD²·n²/step²) from the interval si of the SD.
func (p *problem) setD(si interval, population bool) {
	N := int64(p.n)
	f := new(big.Rat).SetFrac64(N*(N-1), 1)
	if population {
		f.SetFrac64(N*N, 1)
	}
	f.Quo(f, new(big.Rat).Mul(p.step, p.step))
	nK := N * int64(p.K)
	dMax := nK * nK // D ≤ n²K²/4 < this
	if si.hi.Sign() < 0 || (si.hi.Sign() == 0 && si.hiOpen) {
		p.dLo, p.dHi = 1, 0
		return
	}
	hi2 := interval{lo: new(big.Rat), hi: new(big.Rat).Mul(si.hi, si.hi), hiOpen: si.hiOpen}
	if si.lo.Sign() > 0 || (si.lo.Sign() == 0 && si.loOpen) {
		hi2.lo.Mul(si.lo, si.lo)
		hi2.loOpen = si.loOpen
	}
	dl, dh := intRange(hi2, f)
	p.dLo, p.dHi = clampRange(dl, dh, 0, dMax)
}

// setMedian sets the range of the sum of the two middle order statistics
// from the published median.
func (p *problem) setMedian(median string, rnd Rounding) error {
	medV, err := parseDec("median", median)
	if err != nil {
		return err
	}
	mdI := roundingInterval(medV, decimals(median), rnd)
	mdI.lo.Sub(mdI.lo, p.min)
	mdI.hi.Sub(mdI.hi, p.min)
	a, b := intRange(mdI, new(big.Rat).Quo(big.NewRat(2, 1), p.step))
	p.hasM = true
	p.mLo, p.mHi = clampRange(a, b, 0, 2*int64(p.K))
	return nil
}

// clampRange intersects the integer range [lo, hi] with [a, b]. An empty
// intersection (a range wholly below or above [a, b], or lo > hi) is
// returned as (1, 0), so that a published value off the scale matches
// nothing instead of being moved onto the scale's end.
func clampRange(lo, hi *big.Int, a, b int64) (int64, int64) {
	if lo.Cmp(hi) > 0 || lo.Cmp(big.NewInt(b)) > 0 || hi.Cmp(big.NewInt(a)) < 0 {
		return 1, 0
	}
	l, h := a, b
	if lo.Cmp(big.NewInt(a)) > 0 {
		l = lo.Int64()
	}
	if hi.Cmp(big.NewInt(b)) < 0 {
		h = hi.Int64()
	}
	return l, h
}

// value returns grid index k in original units as a decimal string.
func (p *problem) value(k int) string {
	v := new(big.Rat).Mul(p.step, big.NewRat(int64(k), 1))
	v.Add(v, p.min)
	return v.FloatString(p.valDP)
}

// matches reports whether a count vector has a matching S, D and median.
func (p *problem) matches(c []int) bool {
	var S, Q int64
	m := 0
	for k, x := range c {
		S += int64(x) * int64(k)
		Q += int64(x) * int64(k) * int64(k)
		m += x
	}
	if m != p.n || S < p.sLo || S > p.sHi {
		return false
	}
	D := int64(p.n)*Q - S*S
	if D < p.dLo || D > p.dHi {
		return false
	}
	return !p.hasM || p.medianOK(c)
}

// medianOK checks the median constraint of a count vector.
func (p *problem) medianOK(c []int) bool {
	i1, i2 := (p.n-1)/2, p.n/2 // 0-based middle positions
	a, b := -1, -1
	seen := 0
	for k, x := range c {
		if x == 0 {
			continue
		}
		if a < 0 && i1 < seen+x {
			a = k
		}
		if b < 0 && i2 < seen+x {
			b = k
			break
		}
		seen += x
	}
	t := int64(a + b)
	return t >= p.mLo && t <= p.mHi
}
