package meansd

import (
	"context"
	"fmt"
	"math/big"
	"strings"
)

// judge sets the verdict and its reason from the figures in res and the
// facts f. It is the one place where the verdict is decided: the CLI and
// the pipeline rule both read Result.Verdict. A finding names what an
// intruder learns about a person or a group that the scale and n did not
// already tell; established disclosure comes first, then established risk,
// then what could not be decided in time, and only then "safe".
func judge(p *problem, req Request, res Result, f facts) Result {
	what := fmt.Sprintf("mean %s and SD %s of %d values on %s..%s", req.Mean, req.SD, req.N, p.show(0, req.Magnitude), p.show(p.K, req.Magnitude))
	set := func(v Verdict, format string, a ...any) Result {
		res.Verdict, res.Determined = v, v != NotDetermined
		res.Reason = what + " " + fmt.Sprintf(format, a...)
		return res
	}
	count := plural(res.Solutions, "sample")
	if !f.exact {
		count = "at least " + count
	}
	if res.Solutions == 0 {
		if f.exact {
			return set(Inconsistent, "fit no sample: the published values are inconsistent with the domain")
		}
		return set(NotDetermined, "were not decided %s: no sample found yet", inTime(req, f))
	}
	unique := f.exact && res.Solutions == 1

	// disclosive: what the intruder learns about a person or a group
	if g := res.Group; g != nil {
		msg := p.groupText(*g, req.Magnitude)
		if unique {
			msg += " (the sample is unique)"
		}
		return set(Disclosive, "fit %s: %s", count, msg)
	}
	if unique {
		return set(Disclosive, "fit only 1 sample: the sample is unique, every value is disclosed")
	}
	if req.Magnitude {
		if r := res.MaxRange; r != nil && r.Lo == r.Hi && p.indexOf(r.Hi) < p.K {
			return set(Disclosive, "fit %s: the largest amount is %s in every solution", count, p.amount(r.Hi))
		}
		if r := res.MinRange; r != nil && r.Lo == r.Hi && p.indexOf(r.Lo) > 0 {
			return set(Disclosive, "fit %s: the smallest amount is %s in every solution", count, p.amount(r.Lo))
		}
	}

	// risky
	if f.exact && res.Solutions < uint64(f.minSol) {
		return set(Risky, "fit only %s (fewer than %d)", count, f.minSol)
	}
	if req.Magnitude && f.interval != nil && f.interval.Sign() > 0 && res.MaxRange != nil && narrow(p, *res.MaxRange, f.interval) {
		return set(Risky, "fit %s: the largest amount lies in %s..%s in every solution, a range narrower than %s%% of %s",
			count, p.amount(res.MaxRange.Lo), p.amount(res.MaxRange.Hi), f.interval.FloatString(decimals(req.Interval)), p.amount(res.MaxRange.Hi))
	}

	// what could not be decided in time
	var open []string
	if !f.exact && res.Solutions < 2 {
		open = append(open, "whether the sample is unique")
	}
	if !f.exact && res.Solutions < uint64(f.minSol) {
		open = append(open, fmt.Sprintf("whether at least %d samples fit", f.minSol))
	}
	if !f.groupKnown {
		open = append(open, fmt.Sprintf("whether every solution gives one value to at least %d of the %d", req.N-req.GroupSlack, req.N))
	}
	if req.Magnitude && (res.MaxRange == nil || res.MinRange == nil) {
		open = append(open, "the ranges of the largest and smallest amount")
	}
	if len(open) > 0 {
		return set(NotDetermined, "fit %s; not determined %s: %s", count, inTime(req, f), strings.Join(open, "; "))
	}
	return set(Safe, "fit %s%s", count, p.figures(res, req.Magnitude))
}

func inTime(req Request, f facts) string {
	switch {
	case f.stop != nil && f.stop.stopped && req.TimeLimit > 0:
		return fmt.Sprintf("before the time limit of %v (a hard stop: on another machine the search may get further)", req.TimeLimit)
	case f.stop != nil && f.stop.stopped:
		return "before the run was stopped"
	case f.stop != nil && f.stop.out:
		return fmt.Sprintf("within the work budget of %d search nodes", req.Budget)
	case !f.timedOut && req.Cap > 0:
		return fmt.Sprintf("with counting capped at %d", req.Cap)
	}
	return "in time"
}

func plural(n uint64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// narrow reports whether the range of the maximum is narrower than pct
// percent of its upper end (the moments bracket's convention). A maximum
// that is the domain's own bound in every solution is not a finding.
func narrow(p *problem, r Range, pct *big.Rat) bool {
	if r.Lo == r.Hi && p.indexOf(r.Hi) == p.K {
		return false
	}
	lo, _ := new(big.Rat).SetString(r.Lo)
	hi, _ := new(big.Rat).SetString(r.Hi)
	width := new(big.Rat).Sub(hi, lo)
	width.Mul(width, big.NewRat(100, 1))
	limit := new(big.Rat).Abs(hi)
	limit.Mul(limit, pct)
	return width.Cmp(limit) < 0
}

// groupText says what a group disclosure tells.
func (p *problem) groupText(g Forced, magnitude bool) string {
	v := p.amountIf(g.Value, magnitude)
	switch {
	case g.MinCount == p.n && magnitude:
		return fmt.Sprintf("all %d values are %s", p.n, v)
	case g.MinCount == p.n:
		return fmt.Sprintf("all %d respondents answered %s", p.n, v)
	case magnitude:
		return fmt.Sprintf("at least %d of the %d values are %s in every solution", g.MinCount, p.n, v)
	}
	return fmt.Sprintf("at least %d of the %d respondents answered %s in every solution", g.MinCount, p.n, v)
}

// figures lists, for a safe verdict, what is known but not a finding by
// itself: the ranges of the maximum and minimum (a maximum at the top of
// the scale in every solution only says someone chose it) and the values
// present in every solution.
func (p *problem) figures(res Result, magnitude bool) string {
	var parts []string
	if r := res.MaxRange; r != nil {
		if r.Lo == r.Hi {
			parts = append(parts, fmt.Sprintf("the maximum is %s in every solution (the top of the scale: not a finding by itself)", p.amountIf(r.Hi, magnitude)))
		} else {
			parts = append(parts, fmt.Sprintf("the maximum lies in %s..%s", p.amountIf(r.Lo, magnitude), p.amountIf(r.Hi, magnitude)))
		}
	}
	if r := res.MinRange; r != nil && r.Lo == r.Hi {
		parts = append(parts, fmt.Sprintf("the minimum is %s in every solution (the bottom of the scale)", p.amountIf(r.Lo, magnitude)))
	}
	if len(res.Forced) > 0 {
		var fs []string
		for _, fc := range res.Forced {
			fs = append(fs, fmt.Sprintf("%s at least %d×", p.amountIf(fc.Value, magnitude), fc.MinCount))
		}
		parts = append(parts, "in every solution: "+strings.Join(fs, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// show is grid value k as shown in reasons.
func (p *problem) show(k int, magnitude bool) string { return p.amountIf(p.value(k), magnitude) }

func (p *problem) amountIf(v string, magnitude bool) string {
	if magnitude {
		return p.amount(v)
	}
	return v
}

// amount groups the integer digits of a decimal string in thousands
// ("41250" -> "41,250").
func (p *problem) amount(v string) string {
	sign := ""
	if strings.HasPrefix(v, "-") {
		sign, v = "-", v[1:]
	}
	ip, frac, hasFrac := strings.Cut(v, ".")
	var b strings.Builder
	for i, c := range ip {
		if i > 0 && (len(ip)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// extremes sets the exact ranges of the sample maximum and minimum over all
// solutions by binary searches of existence queries, starting from one
// known solution.
func extremes(ctx context.Context, p *problem, deadline *work, known []int, res *Result) error {
	lo, hi := -1, -1
	for k, x := range known {
		if x > 0 {
			if lo < 0 {
				lo = k
			}
			hi = k
		}
	}
	var qerr error
	ask := func(set func(s *searcher)) bool {
		if qerr != nil {
			return false
		}
		s := newSearcher(ctx, p, deadline)
		set(s)
		ok, err := s.exists()
		qerr = err
		return ok
	}
	// smallest maximum: least t with a solution in 0..t
	mxLo := searchFirst(hi, func(t int) bool { return ask(func(s *searcher) { s.vmax = t }) })
	// largest maximum: hi + the least i with no solution reaching hi+i+1
	mxHi := hi + searchFirst(p.K-hi, func(i int) bool { return !ask(func(s *searcher) { s.maxAtLeast = hi + i + 1 }) })
	// smallest minimum: least t with a solution using a value ≤ t
	mnLo := searchFirst(lo, func(t int) bool { return ask(func(s *searcher) { s.minAtMost = t }) })
	// largest minimum: lo + the least i with no solution in lo+i+1..K
	mnHi := lo + searchFirst(p.K-lo, func(i int) bool {
		return !ask(func(s *searcher) {
			for k := 0; k <= lo+i; k++ {
				s.hi[k] = 0
			}
		})
	})
	if qerr != nil {
		return qerr
	}
	res.MaxRange = &Range{p.value(mxLo), p.value(mxHi)}
	res.MinRange = &Range{p.value(mnLo), p.value(mnHi)}
	return nil
}

// group sets Result.Group: the value every solution gives to at least
// n − slack values, with its least count (none when slack ≥ n). It returns
// an error when that could not be decided in time. known are solutions
// found (every one of them when res.Analysed).
func group(ctx context.Context, p *problem, deadline *work, known [][]int, slack int, res *Result) error {
	res.Group = nil
	need := p.n - slack
	if need < 1 {
		return nil
	}
	better := func(g Forced) {
		if res.Group == nil || g.MinCount > res.Group.MinCount {
			res.Group = &g
		}
	}
	if res.Analysed {
		for _, fc := range res.Forced {
			if fc.MinCount >= need {
				better(fc)
			}
		}
		return nil
	}
	if len(known) == 0 {
		return errTime
	}
	exists := func(k, atMost int) (bool, error) {
		s := newSearcher(ctx, p, deadline)
		s.hi[k] = atMost
		return s.exists()
	}
	for k := 0; k <= p.K; k++ {
		least := p.n
		for _, c := range known {
			least = min(least, c[k])
		}
		if least < need {
			continue // a solution found gives k to fewer
		}
		ok, err := exists(k, need-1)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		// the least count of k over all solutions, at least need
		var qerr error
		j := need + searchFirst(least-need, func(i int) bool {
			if qerr != nil {
				return true
			}
			ok, err := exists(k, need+i)
			qerr = err
			return ok
		})
		if qerr != nil {
			j = need // proven so far
		}
		better(Forced{p.value(k), j})
	}
	return nil
}
