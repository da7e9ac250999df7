package rules

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
)

func init() {
	Register(Spec{Name: "threshold", Doc: "minimum number of distinct contributors (unsafe when 0 < n < min)", New: newThreshold})
}

type threshold struct{ min int64 }

func newThreshold(decode Decoder) (Rule, error) {
	p := struct {
		Min int64 `yaml:"min"`
	}{Min: 10}
	if err := decode(&p); err != nil {
		return nil, err
	}
	if p.Min < 1 {
		return nil, &ParamError{"threshold", "min", fmt.Sprintf("must be at least 1, got %d", p.Min)}
	}
	return threshold{p.Min}, nil
}

func (threshold) Name() string { return "threshold" }

func (r threshold) Check(_ *audit.Table, c *audit.Cell) audit.Finding {
	v := map[string]any{"n": c.N, "min": r.min}
	switch {
	case !c.HasN:
		return finding("threshold", audit.Review, "the number of contributors is not known", map[string]any{"min": r.min})
	case c.N > 0 && c.N < r.min:
		return finding("threshold", audit.Fail, fmt.Sprintf("only %d contributor(s); at least %d needed", c.N, r.min), v)
	case c.N == 0:
		return finding("threshold", audit.Pass, "empty cell", v)
	}
	return finding("threshold", audit.Pass, fmt.Sprintf("%d contributors (at least %d needed)", c.N, r.min), v)
}
