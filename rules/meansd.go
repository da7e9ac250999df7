package rules

import (
	"context"
	"fmt"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules/meansd"
)

func init() {
	Register(Spec{Name: "meansd", Doc: "mean/SD reconstruction: unsafe when the published n, mean and SD fit a unique sample, fewer than min_solutions samples, or only samples giving one value to all respondents but group_slack; on a magnitude measure also when the largest or smallest amount is pinned inside the domain or the largest lies in a range narrower than interval% of its upper end", Params: []Param{
		{Name: "min_solutions", Doc: "the fewest samples the published figures must fit for the cell to be safe; an integer >= 1"},
		{Name: "rounding", Doc: "how the published mean and SD were rounded: half-up, half-even, closed or exact"},
		{Name: "sd_kind", Doc: "the published SD: sample (n - 1) or population (n)"},
		{Name: "cap", Doc: "stop counting samples at this many, >= min_solutions; null: at min_solutions"},
		{Name: "budget", Doc: "the work per cell: search nodes (and table passes counted as nodes) that a cell's reconstruction may visit; a cell not decided within it is review, the same on any machine; an integer >= 1, default 10000000"},
		{Name: "time_limit", Doc: "optional hard stop per cell, a positive duration such as 30s (none by default): a cell it stops is review, and its reason says the time limit stopped it (such a verdict depends on the machine)"},
		{Name: "interval", Doc: "magnitude measures: unsafe when the largest amount lies in a range narrower than this percent of its upper end; 0..100"},
		{Name: "group_slack", Doc: "a group disclosure is every solution giving one value to all respondents but at most this many; an integer >= 0"},
	}, New: newMeanSD})
}

type meanSD struct {
	minSolutions int
	rounding     meansd.Rounding
	population   bool
	cap          uint64
	timeLimit    time.Duration
	budget       int64
	interval     decimal.Dec
	groupSlack   int
}

func newMeanSD(decode Decoder) (Rule, error) {
	var p struct {
		MinSolutions int         `yaml:"min_solutions"`
		Rounding     string      `yaml:"rounding"`
		SDKind       string      `yaml:"sd_kind"`
		Cap          *int        `yaml:"cap"`
		Budget       *int64      `yaml:"budget"`
		TimeLimit    *string     `yaml:"time_limit"`
		Interval     decimal.Dec `yaml:"interval"`
		GroupSlack   int         `yaml:"group_slack"`
	}
	if err := decodeParams("meansd", decode, &p); err != nil {
		return nil, err
	}
	r := meanSD{minSolutions: p.MinSolutions, interval: p.Interval, groupSlack: p.GroupSlack}
	if p.MinSolutions < 1 {
		return nil, &ParamError{"meansd", "min_solutions", fmt.Sprintf("must be at least 1, got %d", p.MinSolutions)}
	}
	var err error
	if r.rounding, err = meansd.ParseRounding(p.Rounding); err != nil {
		return nil, &ParamError{"meansd", "rounding", err.Error()}
	}
	switch p.SDKind {
	case "sample":
	case "population":
		r.population = true
	default:
		return nil, &ParamError{"meansd", "sd_kind", fmt.Sprintf("must be sample or population, got %q", p.SDKind)}
	}
	r.cap = uint64(p.MinSolutions)
	if p.Cap != nil {
		if *p.Cap < p.MinSolutions {
			return nil, &ParamError{"meansd", "cap", fmt.Sprintf("must be at least min_solutions (%d), got %d", p.MinSolutions, *p.Cap)}
		}
		r.cap = uint64(*p.Cap)
	}
	if p.TimeLimit != nil {
		if r.timeLimit, err = time.ParseDuration(*p.TimeLimit); err != nil || r.timeLimit <= 0 {
			return nil, &ParamError{"meansd", "time_limit", fmt.Sprintf("must be a positive duration such as 30s, got %q", *p.TimeLimit)}
		}
	}
	r.budget = meansd.DefaultBudget
	if p.Budget != nil {
		if *p.Budget < 1 {
			return nil, &ParamError{"meansd", "budget", fmt.Sprintf("must be at least 1, got %d", *p.Budget)}
		}
		r.budget = *p.Budget
	}
	if p.Interval.Sign() < 0 || p.Interval.Cmp(decimal.FromInt(100)) > 0 {
		return nil, &ParamError{"meansd", "interval", fmt.Sprintf("must be a percentage 0..100, got %s", p.Interval)}
	}
	if p.GroupSlack < 0 {
		return nil, &ParamError{"meansd", "group_slack", fmt.Sprintf("must not be negative, got %d", p.GroupSlack)}
	}
	return r, nil
}

func (meanSD) Name() string { return "meansd" }

func (r meanSD) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	na := func(msg string) audit.Finding { return finding("meansd", audit.NotApplicable, msg, nil) }
	if t == nil || t.Measure == nil {
		return na("no measure domain (min, max, step) is configured")
	}
	mean, okM := c.Stats.Get("mean")
	sd, okS := c.Stats.Get("sd")
	if !okM || !okS || mean.Text == "" || sd.Text == "" {
		return na("the mean or the SD is not published")
	}
	if mean.Missing || sd.Missing || mean.Marker || sd.Marker {
		return na("the mean or the SD is missing or suppressed (see the missing rule)")
	}
	n := c.N
	if !c.HasN {
		cnt, ok := c.Stats.Get("count")
		if !ok || cnt.Missing || cnt.Marker {
			return na("the number of values is not known")
		}
		v, ok := cnt.Value.Int64()
		if !ok {
			return finding("meansd", audit.Review, fmt.Sprintf("the count %q is not a whole number", cnt.Text), nil)
		}
		n = v
	}
	if n == 0 {
		return finding("meansd", audit.Pass, "empty cell", nil)
	}
	if n < 2 && !r.population {
		return finding("meansd", audit.Fail, "a single value: the mean is the value", []audit.Figure{audit.IntFig("n", n)})
	}
	req := meansd.Request{N: int(n), Min: t.Measure.Min.String(), Max: t.Measure.Max.String(), Step: t.Measure.Step.String(),
		Mean: mean.Text, SD: sd.Text, Rounding: r.rounding, Population: r.population, Cap: r.cap,
		TimeLimit: r.timeLimit, Budget: r.budget, MinSolutions: r.minSolutions, Interval: r.interval.String(), GroupSlack: r.groupSlack,
		Magnitude: t.Measure.Magnitude}
	if t.Measure.Step.IsZero() {
		req.Step = "1"
	}
	if med, ok := c.Stats.Get("median"); ok && med.Text != "" && !med.Missing && !med.Marker {
		req.Median = med.Text
	}
	res, err := meansd.Solve(context.Background(), req)
	if err != nil {
		return finding("meansd", audit.Review, "cannot reconstruct: "+err.Error(), nil)
	}
	// the figures behind the verdict, including those that are not findings
	// by themselves (checker-only: findings files are not published)
	vals := []audit.Figure{audit.UintFig("solutions", res.Solutions), audit.BoolFig("capped", res.Capped), audit.TextFig("verdict", string(res.Verdict))}
	if res.MaxRange != nil {
		vals = append(vals, audit.TextsFig("max_range", []string{res.MaxRange.Lo, res.MaxRange.Hi}),
			audit.TextsFig("min_range", []string{res.MinRange.Lo, res.MinRange.Hi}))
	}
	if len(res.Forced) > 0 {
		forced := make([]audit.Figure, len(res.Forced))
		for i, fc := range res.Forced {
			forced[i] = audit.GroupFig("", audit.TextFig("value", fc.Value), audit.IntFig("min_count", int64(fc.MinCount)))
		}
		vals = append(vals, audit.ListFig("forced", forced...))
	}
	if res.Group != nil {
		vals = append(vals, audit.GroupFig("group", audit.TextFig("value", res.Group.Value), audit.IntFig("min_count", int64(res.Group.MinCount))))
	}
	switch res.Verdict {
	case meansd.Disclosive, meansd.Risky:
		return finding("meansd", audit.Fail, res.Reason, vals)
	case meansd.Safe:
		return finding("meansd", audit.Pass, res.Reason, vals)
	}
	return finding("meansd", audit.Review, res.Reason, vals)
}
