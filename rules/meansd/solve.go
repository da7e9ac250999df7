package meansd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Verdict is the risk of publishing the mean and SD.
type Verdict string

// The verdicts (DOMAIN.md, "Mean/SD reconstruction risk"). A finding names
// what an intruder learns about a person or a group that the scale and n did
// not already tell.
const (
	// Disclosive: the sample is unique; or every solution gives one value to
	// all respondents but Request.GroupSlack (group disclosure); or, on a
	// magnitude measure, the largest or smallest value is the same in every
	// solution and lies strictly inside the domain.
	Disclosive Verdict = "disclosive"
	// Risky: fewer solutions than the minimum; or, on a magnitude measure, a
	// range of the maximum narrower than Request.Interval percent of its
	// upper end.
	Risky Verdict = "risky"
	// Safe: none of the above. The maximum (or minimum) being the scale's
	// own bound in every solution, or a value present a few times in every
	// solution, is reported as a figure, not a finding.
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
	// Solutions is the number of samples found: exact unless Capped, in
	// which case it is a lower bound.
	Solutions uint64
	// Capped says counting stopped before the end, at Request.Cap or when
	// the time limit ran out.
	Capped bool
	// Determined says the verdict was reached (it is not NotDetermined).
	Determined bool
	// Reason explains the verdict in one sentence, naming what an intruder
	// learns.
	Reason string
	// Samples lists up to Request.List solutions, each ascending.
	Samples [][]string
	// Vectors are the count vectors of Samples (index k is the count of
	// grid value Min + k·Step).
	Vectors [][]int
	// ListCut says fewer samples are listed than Request.List and than
	// were found (the listing is bounded by MaxListValues or by time).
	ListCut bool
	// MaxRange and MinRange are the exact ranges of the sample maximum and
	// minimum over all solutions (nil when there is none or they were not
	// computed).
	MaxRange, MinRange *Range
	// Forced are the values present in every solution.
	Forced []Forced
	// Impossible are the grid values present in no solution.
	Impossible []string
	// Group is the value every solution gives to at least n − GroupSlack
	// values, with its least count (group disclosure); nil when there is
	// none or it was not determined.
	Group *Forced
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

// MaxListValues bounds a listing: Request.List times max(n, grid size) is
// cut to it (Result.ListCut says so). It also bounds the solutions kept for
// the direct analysis (count vectors of grid size values each).
const MaxListValues = 1 << 24

// quickK is the widest scale (K+1 grid values) on which capped requests
// still compute exact ranges, forced and impossible values.
const quickK = 64

// facts are what the verdict needs beside the Result's figures.
type facts struct {
	exact      bool  // Result.Solutions is the exact count
	timedOut   bool  // the work budget, the time limit or the context ran out
	stop       *work // the request's work: what ran out
	groupKnown bool  // Result.Group is decided (nil: no group disclosure)
	interval   *big.Rat
	minSol     int
}

// verdictFacts checks the verdict parameters of req.
func verdictFacts(req Request) (facts, error) {
	f := facts{minSol: req.MinSolutions}
	if f.minSol <= 0 {
		f.minSol = 10
	}
	if req.GroupSlack < 0 {
		return f, fmt.Errorf("%w: group slack must not be negative, got %d", ErrRequest, req.GroupSlack)
	}
	if strings.TrimSpace(req.Interval) != "" {
		var err error
		if f.interval, err = parseDec("interval", req.Interval); err != nil {
			return f, err
		}
		if f.interval.Sign() < 0 || f.interval.Cmp(big.NewRat(100, 1)) > 0 {
			return f, fmt.Errorf("%w: interval must be a percentage 0..100, got %s", ErrRequest, req.Interval)
		}
	}
	return f, nil
}

// Solve answers a request. It returns an error only for invalid requests;
// running out of time gives a Result whose verdict rests on what was found
// in time, NotDetermined when that does not decide it.
func Solve(ctx context.Context, req Request) (Result, error) {
	p, err := compile(req)
	if err != nil {
		return Result{}, err
	}
	f, err := verdictFacts(req)
	if err != nil {
		return Result{}, err
	}
	if req.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.TimeLimit)
		defer cancel()
	}
	deadline := &work{limit: req.Budget}
	f.stop = deadline
	maxCells, listCap, keep := limits(req, p)
	res := Result{Bounds: bounds(p), Method: "none"}
	if p.sLo > p.sHi || p.dLo > p.dHi || p.hasM && p.mLo > p.mHi {
		res.Analysed, f.exact, f.groupKnown = true, true, true
		return judge(p, req, res, f), nil
	}

	// 1. count
	col := &collector{ctx: ctx, p: p, deadline: deadline, keep: keep}
	collect := col.collect
	timedOut := false
	switch {
	case req.Cap > 0:
		res.Method = "search"
		n, err := collect(max(req.Cap, 2)) // two decide uniqueness
		res.Solutions = n
		timedOut = err != nil
		res.Capped = !col.exhausted
	default:
		var n uint64
		err := errTooBig
		if !p.hasM && p.K >= 2 {
			res.Method = "dp"
			n, err = countDP(ctx, p, maxCells, deadline)
		}
		if err == nil {
			res.Solutions = n
			break
		}
		if errors.Is(err, errTime) {
			timedOut, res.Capped = true, true
			deadline.stopped = deadline.stopped || ctx.Err() != nil
			break
		}
		res.Method = "search"
		n, err = collect(0)
		res.Solutions = n
		timedOut = err != nil
		res.Capped = !col.exhausted
	}
	f.exact, f.timedOut = !res.Capped, timedOut
	if timedOut || res.Solutions == 0 {
		res.Analysed = f.exact
		f.groupKnown = group(ctx, p, deadline, col.all, req.GroupSlack, &res) == nil
		addSamples(p, &res, col.all, listCap, req.List)
		return judge(p, req, res, f), nil
	}
	if req.CountOnly {
		// the count alone: with no slack, group disclosure is a unique sample
		f.groupKnown = req.GroupSlack == 0 && res.Solutions >= 2
		return judge(p, req, res, f), nil
	}

	// 2. list and analyse
	if !col.exhausted && !res.Capped && res.Solutions <= uint64(keep) {
		collect(0) // on time out the analysis below runs on what was found
	}
	if col.exhausted && uint64(len(col.all)) == res.Solutions {
		analyseList(p, col.all, &res)
		res.Analysed = true
	} else {
		if len(col.all) < max(listCap, 1) {
			collect(uint64(max(listCap, 1)))
			col.exhausted = false
		}
		if req.Cap == 0 || p.K <= quickK {
			res.Analysed = analyse(ctx, p, deadline, maxCells, col.all, &res)
		}
		if !res.Analysed && req.Magnitude && len(col.all) > 0 {
			if extremes(ctx, p, deadline, col.all[0], &res) != nil {
				res.MaxRange, res.MinRange = nil, nil
			}
		}
	}
	f.groupKnown = group(ctx, p, deadline, col.all, req.GroupSlack, &res) == nil
	addSamples(p, &res, col.all, listCap, req.List)
	return judge(p, req, res, f), nil
}

// limits returns the memory budget of the counting tables, the number of
// samples that may be listed and the number of solutions kept for the
// analysis (count vectors of K+1 values: bounded like a listing).
func limits(req Request, p *problem) (maxCells, listCap, keep int) {
	maxCells = req.MaxCells
	if maxCells <= 0 {
		maxCells = DefaultMaxCells
	}
	listCap = req.List
	if listCap > 0 && listCap > MaxListValues/max(p.n, p.K+1) {
		listCap = max(1, MaxListValues/max(p.n, p.K+1))
	}
	keep = min(max(enumLimit, listCap), max(1, MaxListValues/(p.K+1)))
	return maxCells, listCap, keep
}

// collector finds solutions by search and keeps up to keep of them.
type collector struct {
	ctx       context.Context
	p         *problem
	deadline  *work
	keep      int
	all       [][]int // solutions found (every one when exhausted)
	exhausted bool
}

// collect searches for up to limit solutions (0: all) and returns how many
// it found.
func (c *collector) collect(limit uint64) (uint64, error) {
	s := newSearcher(c.ctx, c.p, c.deadline)
	var n uint64
	c.all = c.all[:0]
	c.exhausted = false
	s.visit = func(v []int) error {
		n++
		if n <= uint64(c.keep) {
			c.all = append(c.all, append([]int(nil), v...))
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
		c.exhausted = true
	}
	return n, err
}

// addSamples lists up to limit of the solutions found and says whether
// fewer are listed than were asked for and found.
func addSamples(p *problem, res *Result, all [][]int, limit, asked int) {
	for i := 0; i < len(all) && i < limit; i++ {
		res.Vectors = append(res.Vectors, all[i])
		res.Samples = append(res.Samples, p.sample(all[i]))
	}
	res.ListCut = len(res.Samples) < asked && uint64(len(res.Samples)) < res.Solutions
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

// analyse derives ranges, forced and impossible values within half of the
// time left (the rest is for what the verdict needs should it not finish):
// from the feasibility tables when they fit maxCells, else by existence
// queries. It reports whether the analysis is complete; if not, res holds
// none of it.
func analyse(ctx context.Context, p *problem, deadline *work, maxCells int, all [][]int, res *Result) bool {
	sub := deadline.half()
	defer deadline.join(sub)
	actx := ctx
	err := errTooBig
	if !p.hasM {
		err = analyseDP(actx, p, maxCells, res, sub)
		if errors.Is(err, errTime) && ctx.Err() != nil {
			sub.stopped = true
		}
	}
	if errors.Is(err, errTooBig) {
		err = analyseQueries(actx, p, sub, all, res)
	}
	if err != nil {
		res.MaxRange, res.MinRange, res.Forced, res.Impossible = nil, nil, nil, nil
		return false
	}
	return true
}

// seen says which values the known solutions use (possible) and which
// they leave out (present: seen with count 0, hence not forced).
func seen(K int, known [][]int) (possible, present []bool) {
	possible, present = make([]bool, K+1), make([]bool, K+1)
	for _, c := range known {
		for k, x := range c {
			if x > 0 {
				possible[k] = true
			} else {
				present[k] = true
			}
		}
	}
	return possible, present
}

// analyseQueries derives ranges, forced and impossible values with
// existence searches under count constraints.
func analyseQueries(ctx context.Context, p *problem, deadline *work, known [][]int, res *Result) error {
	K := p.K
	possible, present := seen(K, known)
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
