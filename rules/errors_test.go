package rules_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/rules"
)

// TestParamErrorNamesRuleAndUnwraps: a bad rule parameter is a
// *rules.ParamError whose text names the rule once and which unwraps to
// rules.ErrParam (issue 11 item 4).
func TestParamErrorNamesRuleAndUnwraps(t *testing.T) {
	for _, tc := range []struct{ rule, params string }{
		{"threshold", "min: 0"},
		{"p_percent", "p: 101"},
		{"dominance", "sets: [{n: 0, k: 50}]"},
		{"pq", "p: 60, q: 50"},
		{"negative", "mode: guess"},
	} {
		_, err := rules.New(tc.rule, params(tc.rule, tc.params))
		var pe *rules.ParamError
		if !errors.As(err, &pe) || pe.Rule != tc.rule {
			t.Errorf("%s %q: %v is not a ParamError of the rule", tc.rule, tc.params, err)
			continue
		}
		if !errors.Is(err, rules.ErrParam) {
			t.Errorf("%s: %v does not unwrap to ErrParam", tc.rule, err)
		}
		if !strings.HasPrefix(pe.Error(), "rule "+tc.rule+": parameter ") {
			t.Errorf("ParamError text %q does not name the rule", pe)
		}
		if strings.Count(err.Error(), "rule "+tc.rule) != 1 {
			t.Errorf("error %q names the rule more or less than once", err)
		}
	}
	if _, err := rules.New("no_such_rule", nil); !errors.Is(err, rules.ErrUnknownRule) {
		t.Errorf("unknown rule: %v", err)
	}
}
