package rules

import (
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
)

func init() {
	Register(Spec{Name: "dominance", Doc: "(n,k) dominance: unsafe when the n largest contributions exceed k% of the total", New: newDominance})
}

type nk struct {
	n int
	k pct
	d audit.Dec
}

type dominance struct{ sets []nk }

func newDominance(decode Decoder) (Rule, error) {
	p := struct {
		Sets []struct {
			N int       `yaml:"n"`
			K audit.Dec `yaml:"k"`
		} `yaml:"sets"`
	}{}
	if err := decode(&p); err != nil {
		return nil, err
	}
	if len(p.Sets) == 0 {
		return nil, &ParamError{"dominance", "sets", "at least one (n, k) set is needed"}
	}
	r := dominance{}
	for i, s := range p.Sets {
		if s.N < 1 {
			return nil, &ParamError{"dominance", fmt.Sprintf("sets[%d].n", i), fmt.Sprintf("must be at least 1, got %d", s.N)}
		}
		k, err := toPct("dominance", fmt.Sprintf("sets[%d].k", i), s.K, 0, 100, true)
		if err != nil {
			return nil, err
		}
		r.sets = append(r.sets, nk{s.N, k, s.K})
	}
	return r, nil
}

func (dominance) Name() string { return "dominance" }

func (r dominance) Needs() Needs {
	n := 0
	for _, s := range r.sets {
		n = max(n, s.n)
	}
	return Needs{Top: n}
}

func (r dominance) Check(_ *audit.Table, c *audit.Cell) audit.Finding {
	need := r.Needs().Top
	if f, ok := magnitudeInput("dominance", c, need); !ok {
		return f
	}
	vals := map[string]any{"X": c.Total}
	var failed, passed []string
	for _, s := range r.sets {
		top := sumTop(c, s.n)
		vals[fmt.Sprintf("top%d_sum", s.n)] = top
		// unsafe when top > k/100 X  <=>  100*kden*top > knum*X
		label := fmt.Sprintf("(%d,%s)", s.n, s.d)
		if audit.MulCmp(top, 100*s.k.den, c.Total, s.k.num) > 0 {
			failed = append(failed, fmt.Sprintf("the %d largest contribution(s) exceed %s%% of the total %s", s.n, s.d, label))
		} else {
			passed = append(passed, label)
		}
	}
	if len(failed) > 0 {
		return finding("dominance", audit.Fail, strings.Join(failed, "; "), vals)
	}
	return finding("dominance", audit.Pass, "no dominance under "+strings.Join(passed, ", "), vals)
}
