package pipeline

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
)

// TestErrorsReachTheirCause: input, configuration and rule errors reach
// their root cause through errors.Is and errors.As, with their positions
// (issue 11 item 4).
func TestErrorsReachTheirCause(t *testing.T) {
	// a bad number in a CSV, in microdata and in an aggregate table
	for _, tc := range []struct{ csv, config, text string }{
		{"g,v\na,1\nb,twelve\n", "microdata: {dims: [g], value: v}", `in.csv, row 3, column "v": not a number: `},
		{"g,v\na,1\nb,1.0000000000000000000000000000001\n", "microdata: {dims: [g], value: v}", ""},
		{"g,n\na,1\nb,x7\n", "columns: {dims: [g], count: n}", `in.csv, row 3, column "n": not a number: `},
	} {
		_, err := auditText(t, tc.csv, tc.config)
		var re *readers.Error
		if !errors.As(err, &re) || !errors.Is(err, decimal.ErrNotNumber) || !errors.Is(err, readers.ErrNotNumber) {
			t.Errorf("%q: %v is not a *readers.Error wrapping decimal.ErrNotNumber", tc.csv, err)
			continue
		}
		if tc.text != "" && !strings.HasPrefix(err.Error(), tc.text) {
			t.Errorf("text %q, want %q", err, tc.text)
		}
	}
	// a bad rule parameter and a parameter of the wrong YAML type
	_, err := BuildRules(settings(t, "rules: {p_percent: {enabled: true, p: 101}}"))
	var ce *configs.Error
	var pe *rules.ParamError
	if !errors.As(err, &ce) || !errors.As(err, &pe) || pe.Rule != "p_percent" || !errors.Is(err, rules.ErrParam) {
		t.Errorf("bad parameter: %v (%T) does not reach the *rules.ParamError", err, err)
	}
	_, err = BuildRules(settings(t, "rules: {threshold: {enabled: true, min: [1]}}"))
	var te *yaml.TypeError
	if !errors.As(err, &ce) || !errors.As(err, &te) {
		t.Errorf("parameter type: %v (%T) does not reach the *yaml.TypeError", err, err)
	}
	// a set-up error of a builder is a configuration error with its cause
	_, err = auditText(t, "g,v\na,1\n", "microdata: {dims: [g], value: v}\npublish: [median]")
	if !errors.As(err, &ce) || !errors.Is(err, configs.ErrInvalid) {
		t.Errorf("median without a measure: %v", err)
	}
}
