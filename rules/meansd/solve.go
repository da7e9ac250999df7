package meansd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Verdict is the risk of publishing the mean and SD.
type Verdict string

// The verdicts (DOMAIN.md, "Mean/SD reconstruction risk").
const (
	// Disclosive: the sample is unique, or every solution shares the maximum.
	Disclosive Verdict = "disclosive"
	// Risky: fewer solutions than the minimum, or a narrow maximum range.
	Risky Verdict = "risky"
	// Safe: enough solutions and a wide maximum range.
	Safe Verdict = "safe"
	// Inconsistent: no sample on the grid matches the published values.
	Inconsistent Verdict = "inconsistent"
	// NotDetermined: the time limit ran out before the verdict was known.
	NotDetermined Verdict = "not_determined"
)

// Range is a closed range of values [Lo, Hi] as decimal strings on the grid.
type Range struct{ Lo, Hi string }

// Forced is a value present in every solution at least MinCount times.
type Forced struct {
	Value    string
	MinCount int
}

// Bounds are the analytic bounds for the values (all of them for
// Samuelson, Chebyshev and Selberg; the maximum for MarchingMax), rounded
// inward onto the grid, as [lo, hi].
type Bounds struct {
	Samuelson, Chebyshev, Selberg, MarchingMax [2]float64
}

// Result is the answer to a Request.
type Result struct {
	// Solutions is the number of samples found: exact unless Capped or not
	// Determined, in which case it is a lower bound.
	Solutions uint64
	// Capped says counting stopped at Request.Cap.
	Capped bool
	// Determined says the count (or the cap) and the verdict were reached
	// within the time limit.
	Determined bool
	// Reason explains the verdict in one sentence.
	Reason string
	// Samples lists up to Request.List solutions, each ascending.
	Samples [][]string
	// Vectors are the count vectors of Samples (index k is the count of
	// grid value Min + k·Step).
	Vectors [][]int
	// MaxRange and MinRange are the ranges of the sample maximum and minimum
	// over all solutions (nil when there is none or they were not computed).
	MaxRange, MinRange *Range
	// Forced are the values present in every solution.
	Forced []Forced
	// Impossible are the grid values present in no solution.
	Impossible []string
	// Analysed says MaxRange, MinRange, Forced and Impossible are complete.
	Analysed bool
	// Bounds are the analytic bounds for comparison.
	Bounds Bounds
	// Verdict is the risk verdict.
	Verdict Verdict
	// Method names how the count was obtained: "dp", "search" or "none".
	Method string
}

// enumLimit is the largest number of solutions the solver lists in full to
// derive ranges and forced values directly.
const enumLimit = 20000

// quickK is the widest scale (K+1 grid values) on which capped requests
// still compute exact ranges, forced and impossible values.
const quickK = 64

// Solve answers a request. It returns an error only for invalid requests;
// running out of time gives a Result that is not Determined.
func Solve(ctx context.Context, req Request) (Result, error) {
	p, err := compile(req)
	if err != nil {
		return Result{}, err
	}
	var deadline time.Time
	if req.TimeLimit > 0 {
		deadline = time.Now().Add(req.TimeLimit)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	minSol := req.MinSolutions
	if minSol <= 0 {
		minSol = 10
	}
	maxCells := req.MaxCells
	if maxCells <= 0 {
		maxCells = DefaultMaxCells
	}
	res := Result{Bounds: bounds(p), Method: "none"}
	if p.sLo > p.sHi || p.dLo > p.dHi || p.hasM && p.mLo > p.mHi {
		res.Determined, res.Analysed = true, true
		return finish(p, req, res, minSol), nil
	}

	// 1. count
	var all [][]int // every solution, when known
	exhausted := false
	collect := func(limit uint64) (uint64, error) {
		s := newSearcher(ctx, p, deadline)
		var n uint64
		all = all[:0]
		s.visit = func(c []int) error {
			n++
			if n <= enumLimit {
				all = append(all, append([]int(nil), c...))
			}
			if limit > 0 && n >= limit {
				return errStop
			}
			return nil
		}
		err := s.run()
		if errors.Is(err, errStop) {
			return n, nil
		}
		if err == nil {
			exhausted = true
		}
		return n, err
	}
	switch {
	case req.Cap > 0:
		res.Method = "search"
		n, err := collect(req.Cap)
		res.Solutions = n
		if err != nil {
			res.Reason = fmt.Sprintf("not determined within %v: at least %d solutions", req.TimeLimit, n)
			return finish(p, req, res, minSol), nil
		}
		res.Determined = true
		res.Capped = !exhausted
	default:
		var n uint64
		err := errTooBig
		if !p.hasM && p.K >= 2 {
			res.Method = "dp"
			n, err = countDP(ctx, p, maxCells)
		}
		if err == nil {
			res.Solutions, res.Determined = n, true
			break
		}
		if errors.Is(err, errTime) {
			res.Reason = fmt.Sprintf("not determined within %v", req.TimeLimit)
			return finish(p, req, res, minSol), nil
		}
		res.Method = "search"
		n, err = collect(0)
		res.Solutions = n
		if err != nil {
			res.Reason = fmt.Sprintf("not determined within %v: at least %d solutions", req.TimeLimit, n)
			return finish(p, req, res, minSol), nil
		}
		res.Determined = true
	}
	if res.Solutions == 0 && !res.Capped {
		res.Analysed = true
		return finish(p, req, res, minSol), nil
	}

	// 2. list and analyse
	if !exhausted && !res.Capped && res.Solutions <= enumLimit {
		if _, err := collect(0); err != nil {
			res.Reason = "time ran out while listing the solutions"
		}
	}
	if exhausted && uint64(len(all)) == res.Solutions {
		analyseList(p, all, &res)
		res.Analysed = true
	} else {
		if len(all) < req.List {
			collect(uint64(req.List))
			exhausted = false
		}
		if !req.CountOnly && req.Cap > 0 && p.K > quickK {
			// capped requests on wide scales: the verdict needs only to know
			// whether the solutions share the maximum
			quickRanges(ctx, p, deadline, all, &res)
		} else if !req.CountOnly {
			actx, sub := ctx, deadline
			if !deadline.IsZero() {
				sub = time.Now().Add(time.Until(deadline) / 2)
			}
			actx, cancel := context.WithDeadline(actx, sub)
			if sub.IsZero() {
				actx, cancel = context.WithCancel(ctx)
			}
			res.Analysed = analyseQueries(actx, p, sub, all, &res) == nil
			cancel()
			if !res.Analysed {
				quickRanges(ctx, p, deadline, all, &res)
			}
		}
	}
	for i := 0; i < len(all) && i < req.List; i++ {
		res.Vectors = append(res.Vectors, all[i])
		res.Samples = append(res.Samples, p.sample(all[i]))
	}
	return finish(p, req, res, minSol), nil
}

// sample expands a count vector into ascending values.
func (p *problem) sample(c []int) []string {
	out := make([]string, 0, p.n)
	for k, x := range c {
		if x == 0 {
			continue
		}
		v := p.value(k)
		for range x {
			out = append(out, v)
		}
	}
	return out
}

// analyseList derives ranges, forced and impossible values from every
// solution.
func analyseList(p *problem, all [][]int, res *Result) {
	K := p.K
	minC := make([]int, K+1)
	maxC := make([]int, K+1)
	for i := range minC {
		minC[i] = math.MaxInt
	}
	mxLo, mxHi, mnLo, mnHi := K, 0, K, 0
	for _, c := range all {
		lo, hi := -1, -1
		for k, x := range c {
			minC[k] = min(minC[k], x)
			maxC[k] = max(maxC[k], x)
			if x > 0 {
				if lo < 0 {
					lo = k
				}
				hi = k
			}
		}
		mxLo, mxHi = min(mxLo, hi), max(mxHi, hi)
		mnLo, mnHi = min(mnLo, lo), max(mnHi, lo)
	}
	res.MaxRange = &Range{p.value(mxLo), p.value(mxHi)}
	res.MinRange = &Range{p.value(mnLo), p.value(mnHi)}
	res.Forced, res.Impossible = nil, nil
	for k := 0; k <= K; k++ {
		if minC[k] > 0 {
			res.Forced = append(res.Forced, Forced{p.value(k), minC[k]})
		}
		if maxC[k] == 0 {
			res.Impossible = append(res.Impossible, p.value(k))
		}
	}
}

// analyseQueries derives ranges, forced and impossible values with
// existence searches under count constraints.
func analyseQueries(ctx context.Context, p *problem, deadline time.Time, known [][]int, res *Result) error {
	K := p.K
	possible := make([]bool, K+1)
	present := make([]bool, K+1) // seen with count 0 somewhere? (not forced)
	for _, c := range known {
		for k, x := range c {
			if x > 0 {
				possible[k] = true
			} else {
				present[k] = true
			}
		}
	}
	query := func(set func(s *searcher)) (bool, error) {
		s := newSearcher(ctx, p, deadline)
		set(s)
		return s.exists()
	}
	// the largest and smallest possible values first: the verdict needs them
	isPossible := func(k int) (bool, error) {
		if possible[k] {
			return true, nil
		}
		ok, err := query(func(s *searcher) {
			s.pre = make([]int, K+1)
			s.pre[k] = 1
		})
		possible[k] = ok
		return ok, err
	}
	checked := make([]bool, K+1)
	hi := -1
	for k := K; k >= 0 && hi < 0; k-- {
		ok, err := isPossible(k)
		if err != nil {
			return err
		}
		checked[k] = true
		if ok {
			hi = k
		}
	}
	if hi < 0 {
		return nil
	}
	lo := -1
	for k := 0; k <= hi && lo < 0; k++ {
		ok, err := isPossible(k)
		if err != nil {
			return err
		}
		checked[k] = true
		if ok {
			lo = k
		}
	}
	// smallest maximum: least v such that a solution lies in 0..v
	var qerr error
	mxLo := lo + searchFirst(hi-lo, func(i int) bool {
		ok, err := query(func(s *searcher) { s.vmax = lo + i })
		qerr = errors.Join(qerr, err)
		return ok
	})
	// largest minimum: greatest v such that a solution lies in v..K
	mnHi := hi - searchFirst(hi-lo, func(i int) bool {
		v := hi - i
		ok, err := query(func(s *searcher) {
			for k := 0; k < v; k++ {
				s.hi[k] = 0
			}
		})
		qerr = errors.Join(qerr, err)
		return ok
	})
	if qerr != nil {
		return qerr
	}
	res.MaxRange = &Range{p.value(mxLo), p.value(hi)}
	res.MinRange = &Range{p.value(lo), p.value(mnHi)}
	res.Forced, res.Impossible = nil, nil
	for k := lo; k <= hi; k++ {
		if !checked[k] {
			if _, err := isPossible(k); err != nil {
				return err
			}
		}
	}
	for k := 0; k <= K; k++ {
		if !possible[k] {
			res.Impossible = append(res.Impossible, p.value(k))
			continue
		}
		if present[k] {
			continue
		}
		// least count of k over all solutions
		j := searchFirst(p.n, func(j int) bool {
			ok, err := query(func(s *searcher) { s.hi[k] = j })
			qerr = errors.Join(qerr, err)
			return ok
		})
		if qerr != nil {
			return qerr
		}
		if j > 0 {
			res.Forced = append(res.Forced, Forced{p.value(k), j})
		}
	}
	return nil
}

// quickRanges sets lower bounds for the ranges of the maximum and minimum
// from the solutions found, widened by one search for a solution with a
// smaller maximum when they all share it. Forced and impossible values are
// left out.
func quickRanges(ctx context.Context, p *problem, deadline time.Time, known [][]int, res *Result) {
	res.Forced, res.Impossible = nil, nil
	res.MaxRange, res.MinRange = nil, nil
	if len(known) == 0 {
		return
	}
	mxLo, mxHi, mnLo, mnHi := p.K, 0, p.K, 0
	extent := func(c []int) {
		lo, hi := -1, -1
		for k, x := range c {
			if x > 0 {
				if lo < 0 {
					lo = k
				}
				hi = k
			}
		}
		mxLo, mxHi = min(mxLo, hi), max(mxHi, hi)
		mnLo, mnHi = min(mnLo, lo), max(mnHi, lo)
	}
	for _, c := range known {
		extent(c)
	}
	if mxLo == mxHi && mxHi > 0 {
		s := newSearcher(ctx, p, deadline)
		s.vmax = mxHi - 1
		s.visit = func(c []int) error { extent(c); return errStop }
		if err := s.run(); err != nil && !errors.Is(err, errStop) {
			return // not determined
		}
	}
	res.MaxRange = &Range{p.value(mxLo), p.value(mxHi)}
	res.MinRange = &Range{p.value(mnLo), p.value(mnHi)}
}

// searchFirst returns the least i in 0..n with f(i) true, f monotone (n if
// none before n).
func searchFirst(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		m := (lo + hi) / 2
		if f(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// finish sets the verdict and its reason.
func finish(p *problem, req Request, res Result, minSol int) Result {
	what := fmt.Sprintf("mean %s and SD %s of %d values on %s..%s", req.Mean, req.SD, req.N, p.value(0), p.value(p.K))
	switch {
	case !res.Determined:
		res.Verdict = NotDetermined
		if res.Reason == "" {
			res.Reason = "not determined within the time limit"
		}
		res.Reason = what + ": " + res.Reason
		return res
	case res.Solutions == 0 && !res.Capped:
		res.Verdict = Inconsistent
		res.Reason = what + " fit no sample: the published values are inconsistent with the domain"
		return res
	case res.Solutions == 1 && !res.Capped:
		res.Verdict = Disclosive
		res.Reason = what + " fit only 1 sample: it is disclosed"
		return res
	}
	count := fmt.Sprintf("%d samples", res.Solutions)
	if res.Capped {
		count = fmt.Sprintf("at least %d samples", res.Solutions)
	}
	if res.MaxRange != nil && res.MaxRange.Lo == res.MaxRange.Hi && !res.Analysed && res.Solutions >= uint64(minSol) {
		// the ranges are lower bounds from the solutions found and the
		// search for a smaller maximum did not finish
		res.Verdict = NotDetermined
		res.Reason = fmt.Sprintf("%s fit %s; whether they all share the maximum %s was not determined in time", what, count, res.MaxRange.Hi)
		return res
	}
	if res.MaxRange != nil && res.MaxRange.Lo == res.MaxRange.Hi && res.Analysed {
		res.Verdict = Disclosive
		res.Reason = fmt.Sprintf("%s fit %s; the maximum is %s in all of them", what, count, res.MaxRange.Hi)
		return res
	}
	if res.Solutions < uint64(minSol) {
		res.Verdict = Risky
		res.Reason = fmt.Sprintf("%s fit only %s (fewer than %d)", what, count, minSol)
		return res
	}
	if req.IntervalPct > 0 {
		if res.MaxRange == nil {
			res.Verdict = NotDetermined
			res.Reason = fmt.Sprintf("%s fit %s; the range of the maximum was not determined in time", what, count)
			return res
		}
		lo, hi := p.indexOf(res.MaxRange.Lo), p.indexOf(res.MaxRange.Hi)
		if float64(hi-lo) < req.IntervalPct/100*float64(p.K) {
			res.Verdict = Risky
			res.Reason = fmt.Sprintf("%s fit %s, but the maximum lies in %s..%s (narrower than %g%% of the domain)", what, count, res.MaxRange.Lo, res.MaxRange.Hi, req.IntervalPct)
			return res
		}
	}
	if res.MaxRange == nil && !req.CountOnly {
		res.Verdict = NotDetermined
		res.Reason = fmt.Sprintf("%s fit %s; whether they all share the maximum was not determined in time", what, count)
		return res
	}
	res.Verdict = Safe
	res.Reason = fmt.Sprintf("%s fit %s", what, count)
	if res.MaxRange != nil {
		res.Reason += fmt.Sprintf("; the maximum lies in %s..%s", res.MaxRange.Lo, res.MaxRange.Hi)
	}
	return res
}
