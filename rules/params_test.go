package rules

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sdcaudit/sdcaudit/configs"
)

var (
	defaultOnce     sync.Once
	defaultSettings *configs.Settings
	defaultErr      error
)

// ProfileParams returns a decoder that gives rule name the default
// profile's settings, then the YAML mapping y (block or flow style; empty
// for none), decoded strictly. Tests build rules with it, since the rules
// have no defaults of their own.
func ProfileParams(name, y string) Decoder {
	return func(v any) error {
		defaultOnce.Do(func() { defaultSettings, defaultErr = configs.Resolve(&configs.Config{}) })
		if defaultErr != nil {
			return defaultErr
		}
		for _, r := range defaultSettings.Rules {
			if r.Name == name {
				if err := r.Decode(v); err != nil {
					return err
				}
			}
		}
		d := yaml.NewDecoder(strings.NewReader(y))
		d.KnownFields(true)
		if err := d.Decode(v); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
}

// paramStruct returns the type of the parameter struct rule name decodes.
func paramStruct(t *testing.T, name string) reflect.Type {
	t.Helper()
	s, _ := Lookup(name)
	var typ reflect.Type
	s.New(func(v any) error {
		if rt := reflect.TypeOf(v); rt.Kind() == reflect.Pointer && rt.Elem().Kind() == reflect.Struct {
			typ = rt.Elem()
		}
		return nil
	})
	if typ == nil {
		t.Fatalf("rule %s decodes no parameter struct", name)
	}
	return typ
}

// TestParamsDeclared: every registered rule declares its parameters once,
// in Spec.Params, and they are exactly the yaml keys of the struct its
// factory decodes, so the declaration and the code cannot drift; the
// free-text "(params: ...)" is gone from the docs (issue 11). They are
// declared in the struct's order, the order `sdcaudit rules` prints.
func TestParamsDeclared(t *testing.T) {
	for _, name := range Names() {
		s, _ := Lookup(name)
		typ := paramStruct(t, name)
		var tags []string
		for f := range typ.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if tag == "" || tag == "-" {
				t.Errorf("%s: field %s has no yaml key", name, f.Name)
				continue
			}
			tags = append(tags, tag)
		}
		var declared []string
		for _, p := range s.Params {
			declared = append(declared, p.Name)
			if strings.TrimSpace(p.Doc) == "" {
				t.Errorf("%s: parameter %s has no doc", name, p.Name)
			}
		}
		if !slices.Equal(tags, declared) {
			t.Errorf("%s: declared parameters %v, the parameter struct has %v", name, declared, tags)
		}
		if strings.Contains(s.Doc, "(params:") {
			t.Errorf("%s: Doc still lists parameters in free text: %q", name, s.Doc)
		}
	}
}

// TestMissingParam: a rule has no defaults; a declared parameter left
// unset is a *ParamError naming the rule and the parameter.
func TestMissingParam(t *testing.T) {
	for _, name := range Names() {
		s, _ := Lookup(name)
		if len(s.Params) == 0 {
			if _, err := New(name, func(any) error { return nil }); err != nil {
				t.Errorf("%s has no parameters but: %v", name, err)
			}
			continue
		}
		for _, p := range s.Params {
			// every parameter of the default profile but p
			decode := func(v any) error {
				if err := ProfileParams(name, "")(v); err != nil {
					return err
				}
				if m, ok := v.(*map[string]any); ok {
					delete(*m, p.Name)
				}
				return nil
			}
			_, err := New(name, decode)
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Rule != name || pe.Param != p.Name {
				t.Errorf("%s without %s: %v, want a ParamError naming both", name, p.Name, err)
				continue
			}
			if !strings.Contains(err.Error(), "set it in the profile or config") {
				t.Errorf("%s without %s: %q does not say where to set it", name, p.Name, err)
			}
		}
		if _, err := New(name, ProfileParams(name, "")); err != nil {
			t.Errorf("%s with the default profile: %v", name, err)
		}
	}
}
