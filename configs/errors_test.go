package configs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestErrorsReachTheirCause: every configuration error is a *Error whose
// Unwrap reaches the root cause (issue 11 item 4), and whose text is
// unchanged.
func TestErrorsReachTheirCause(t *testing.T) {
	// a YAML type error in a config file
	_, err := Parse("bad.yaml", []byte("profile: default\ndecimals: [1, 2]\n"))
	var ce *Error
	if !errors.As(err, &ce) || ce.File != "bad.yaml" || ce.Line != 2 {
		t.Fatalf("type error: %v (%T) is not a *configs.Error at bad.yaml:2", err, err)
	}
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		t.Errorf("type error %v does not reach the *yaml.TypeError", err)
	}
	// issue 14: the text says where, which key and what was expected
	if !strings.HasPrefix(err.Error(), "bad.yaml:2:11: decimals: expected a whole number, got a list") {
		t.Errorf("text %q", err)
	}
	// an unknown key (yaml's own error; rule parameters: below)
	_, err = Parse("k.yaml", []byte("decimals: 2\nminimum: 3\n"))
	if !errors.As(err, &te) || !errors.As(err, &ce) || ce.Line != 2 {
		t.Errorf("unknown key: %v does not reach the *yaml.TypeError at line 2", err)
	}
	c, err := Parse("r.yaml", []byte("rules:\n  threshold:\n    mni: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Rules {
		if r.Name != "threshold" {
			continue
		}
		var v struct {
			Min int `yaml:"min"`
		}
		err = r.Decode(&v)
		if !errors.Is(err, ErrUnknownKey) || !errors.As(err, &ce) || ce.File != "r.yaml" || ce.Line != 3 {
			t.Errorf("rule parameter: %v does not wrap ErrUnknownKey at r.yaml:3", err)
		}
		err = r.Decode(&struct {
			Min []int `yaml:"min"`
			Mni int   `yaml:"mni"`
		}{})
		if !errors.As(err, &te) || !errors.As(err, &ce) {
			t.Errorf("rule parameter type: %v does not reach the *yaml.TypeError", err)
		}
	}
	// a missing file
	_, err = Load(filepath.Join(t.TempDir(), "none.yaml"))
	var pe *fs.PathError
	if !errors.As(err, &ce) || !errors.As(err, &pe) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v does not reach the *fs.PathError", err)
	}
	// an unknown profile and values out of range
	if _, err = Profile("nope"); !errors.Is(err, ErrUnknownProfile) || !errors.As(err, &ce) {
		t.Errorf("unknown profile: %v", err)
	}
	c, _ = Parse("d.yaml", []byte("decimals: 13\n"))
	if _, err = Resolve(c); !errors.Is(err, ErrInvalid) || !errors.As(err, &ce) || err.Error() != "decimals must be 0..12, got 13" {
		t.Errorf("decimals: %v", err)
	}
	if _, err = Parse("m.yaml", []byte("marker: \"12\"\n")); !errors.Is(err, ErrInvalid) || !errors.As(err, &ce) || ce.Line != 1 {
		t.Errorf("marker: %v", err)
	}
}
