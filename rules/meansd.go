package rules

import (
	"context"
	"fmt"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/rules/meansd"
)

func init() {
	Register(Spec{Name: "meansd", Doc: "mean/SD reconstruction: unsafe when the published n, mean and SD fit too few samples on the measure domain, or all of them share the maximum", New: newMeanSD})
}

type meanSD struct {
	minSolutions int
	rounding     meansd.Rounding
	population   bool
	cap          uint64
	timeLimit    time.Duration
	interval     float64
}

func newMeanSD(decode Decoder) (Rule, error) {
	p := struct {
		MinSolutions int     `yaml:"min_solutions"`
		Rounding     string  `yaml:"rounding"`
		SDKind       string  `yaml:"sd_kind"`
		Cap          *int    `yaml:"cap"`
		TimeLimit    string  `yaml:"time_limit"`
		Interval     float64 `yaml:"interval"`
	}{MinSolutions: 10, Rounding: string(meansd.HalfUp), SDKind: "sample", TimeLimit: "1s"}
	if err := decode(&p); err != nil {
		return nil, err
	}
	r := meanSD{minSolutions: p.MinSolutions, interval: p.Interval}
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
	if r.timeLimit, err = time.ParseDuration(p.TimeLimit); err != nil || r.timeLimit <= 0 {
		return nil, &ParamError{"meansd", "time_limit", fmt.Sprintf("must be a positive duration such as 1s, got %q", p.TimeLimit)}
	}
	if p.Interval < 0 || p.Interval > 100 {
		return nil, &ParamError{"meansd", "interval", fmt.Sprintf("must be a percentage 0..100, got %g", p.Interval)}
	}
	return r, nil
}

func (meanSD) Name() string { return "meansd" }

func (r meanSD) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	na := func(msg string) audit.Finding { return finding("meansd", audit.NotApplicable, msg, nil) }
	if t == nil || t.Measure == nil {
		return na("no measure domain (min, max, step) is configured")
	}
	mean, okM := c.Stats["mean"]
	sd, okS := c.Stats["sd"]
	if !okM || !okS || mean.Text == "" || sd.Text == "" {
		return na("the mean or the SD is not published")
	}
	if mean.Missing || sd.Missing || mean.Marker || sd.Marker {
		return na("the mean or the SD is missing or suppressed (see the missing rule)")
	}
	n := c.N
	if !c.HasN {
		cnt, ok := c.Stats["count"]
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
		return finding("meansd", audit.Fail, "a single value: the mean is the value", map[string]any{"n": n})
	}
	req := meansd.Request{N: int(n), Min: t.Measure.Min.String(), Max: t.Measure.Max.String(), Step: t.Measure.Step.String(),
		Mean: mean.Text, SD: sd.Text, Rounding: r.rounding, Population: r.population, Cap: r.cap,
		TimeLimit: r.timeLimit, MinSolutions: r.minSolutions, IntervalPct: r.interval}
	if t.Measure.Step.IsZero() {
		req.Step = "1"
	}
	if med, ok := c.Stats["median"]; ok && med.Text != "" && !med.Missing && !med.Marker {
		req.Median = med.Text
	}
	res, err := meansd.Solve(context.Background(), req)
	if err != nil {
		return finding("meansd", audit.Review, "cannot reconstruct: "+err.Error(), nil)
	}
	vals := map[string]any{"solutions": res.Solutions, "capped": res.Capped, "verdict": string(res.Verdict)}
	if res.MaxRange != nil {
		vals["max_range"] = []string{res.MaxRange.Lo, res.MaxRange.Hi}
	}
	switch res.Verdict {
	case meansd.Disclosive, meansd.Risky:
		return finding("meansd", audit.Fail, res.Reason, vals)
	case meansd.Safe:
		return finding("meansd", audit.Pass, res.Reason, vals)
	}
	return finding("meansd", audit.Review, res.Reason, vals)
}
