package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnknownKeyNamesLine(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		text       string
	}{
		{"top level", "profile: default\nrulez: {}\n", 2, "rulez"},
		{"nested", "columns:\n  dims: [a]\n  totl: x\n", 3, "totl"},
		{"measure", "measure: {min: 1, max: 5, stp: 1}\n", 1, "stp"},
		{"publish item", "publish: [count, averages]\n", 1, "averages"},
		{"bad number", "measure: {min: one, max: 5}\n", 1, "one"},
		{"enabled not bool", "rules:\n  threshold: {enabled: yes please}\n", 2, "enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tt.yaml))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if ce.File != "c.yaml" || ce.Line != tt.line || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %q (line %d), want line %d mentioning %q", err, ce.Line, tt.line, tt.text)
			}
		})
	}
}

func TestResolveMergesRulesKeyByKey(t *testing.T) {
	user, err := Parse("u.yaml", []byte("rules:\n  dominance: {sets: [{n: 1, k: 50}]}\n  threshold: {enabled: false}\ndecimals: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(user)
	if err != nil {
		t.Fatal(err)
	}
	if s.Decimals != 1 || s.TotalLabel != "Total" || s.Marker != "x" {
		t.Fatalf("scalars: %+v", s)
	}
	byName := map[string]RuleSetting{}
	for _, r := range s.Rules {
		byName[r.Name] = r
	}
	if byName["threshold"].Enabled {
		t.Fatal("threshold should be disabled by the user layer")
	}
	// threshold keeps the profile's min although the user only set enabled
	var th struct {
		Min int `yaml:"min"`
	}
	if err := byName["threshold"].Decode(&th); err != nil || th.Min != 10 {
		t.Fatalf("threshold min = %d, %v", th.Min, err)
	}
	var dom struct {
		Sets     []struct{ N, K int } `yaml:"sets"`
		Absolute bool                 `yaml:"absolute"` // the profile sets every parameter
	}
	if err := byName["dominance"].Decode(&dom); err != nil || len(dom.Sets) != 1 || dom.Sets[0].N != 1 || dom.Sets[0].K != 50 {
		t.Fatalf("dominance = %+v, %v", dom, err)
	}
	// unknown rule parameters are errors with the user's file and line
	bad, _ := Parse("b.yaml", []byte("rules:\n  threshold:\n    mni: 3\n"))
	s, _ = Resolve(bad)
	for _, r := range s.Rules {
		if r.Name == "threshold" {
			err := r.Decode(&th)
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "b.yaml" || ce.Line != 3 {
				t.Fatalf("err = %v", err)
			}
		}
	}
}

func TestUnknownProfile(t *testing.T) {
	c, err := Parse("u.yaml", []byte("profile: nope\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(c); err == nil || !strings.Contains(err.Error(), "unknown profile") || !strings.Contains(err.Error(), "u.yaml") {
		t.Fatalf("err = %v", err)
	}
}

func TestRelease(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rel.yaml")
	os.WriteFile(p, []byte("decimals: 1\ntables:\n  - file: a.csv\n    microdata: {dims: [x], value: v}\n    rules: {threshold: {min: 3}}\n  - file: /abs/b.csv\n    name: bee\n"), 0o644)
	r, err := LoadRelease(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Path(r.Tables[0]); got != filepath.Join(dir, "a.csv") {
		t.Fatalf("path = %s", got)
	}
	if got := r.Path(r.Tables[1]); got != "/abs/b.csv" {
		t.Fatalf("abs path = %s", got)
	}
	s, err := Resolve(r.Base(), r.Tables[0].Layer())
	if err != nil {
		t.Fatal(err)
	}
	if s.Decimals != 1 || s.Microdata == nil || s.Microdata.Value != "v" {
		t.Fatalf("settings %+v", s)
	}
	os.WriteFile(p, []byte("tables:\n  - file: a.csv\n    colums: {}\n"), 0o644)
	if _, err := LoadRelease(p); err == nil || !strings.Contains(err.Error(), "colums") || !strings.Contains(err.Error(), ":3:") {
		t.Fatalf("err = %v", err)
	}
}

func TestEveryProfileParses(t *testing.T) {
	for _, name := range Profiles() {
		if _, err := Profile(name); err != nil {
			t.Errorf("profile %s: %v", name, err)
		}
	}
}

func TestSectionsMergeFieldByField(t *testing.T) {
	base, _ := Parse("b.yaml", []byte("output: {annotated: true}\nsuppression: {secondary: true, cost: count}\n"))
	top, _ := Parse("t.yaml", []byte("output: {findings: true}\nsuppression: {protection: 15}\n"))
	s, err := Resolve(base, top)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Output.Annotated || !s.Output.Findings {
		t.Fatalf("output %+v", s.Output)
	}
	if !s.Suppression.Secondary || !s.Suppression.Audit || s.Suppression.Cost != "count" || s.Suppression.Protection.String() != "15" {
		t.Fatalf("suppression %+v", s.Suppression)
	}
	off, _ := Parse("o.yaml", []byte("suppression: {secondary: false}\n"))
	s, _ = Resolve(base, off)
	if s.Suppression.Secondary || s.Suppression.Audit {
		t.Fatalf("secondary not switched off: %+v", s.Suppression)
	}
}

func TestSuppressionTimeLimit(t *testing.T) {
	c, _ := Parse("t.yaml", []byte("suppression: {time_limit: 90s}\n"))
	s, err := Resolve(c)
	if err != nil || s.Suppression.TimeLimit.Seconds() != 90 {
		t.Fatalf("time limit %v, %v", s.Suppression.TimeLimit, err)
	}
	bad, _ := Parse("t.yaml", []byte("suppression: {time_limit: soon}\n"))
	if _, err := Resolve(bad); err == nil || !strings.Contains(err.Error(), "time_limit") {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckMarker(t *testing.T) {
	for _, c := range []struct {
		marker string
		ok     bool
	}{
		{"x", true}, {"c", true}, {"..", true}, {"*", true}, {"-", true}, {":", true}, {"[c]", true},
		{"", false}, {"  ", false}, {"12", false}, {"-3", false}, {"0.5", false}, {"1,234", false},
		{"12 345.6", false}, {"1e3", false}, {"NaN", false}, {"NA", false}, {"null", false}, {".", false},
	} {
		if err := CheckMarker(c.marker); (err == nil) != c.ok {
			t.Errorf("CheckMarker(%q) = %v, want ok %v", c.marker, err, c.ok)
		}
	}
}

func TestValuesNameTheirLine(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"decimals: 2\nmarker: \"12\"\n", `f.yaml:2: marker "12" reads as a number`},
		{"suppression:\n  secondary: true\n  protection: -10\n", "f.yaml:3: suppression.protection must not be negative"},
		{"measure: {min: 1, max: 5, step: 0}\n", "f.yaml:1: measure.step must be positive"},
		{"measure:\n  min: 1\n  max: 5\n  step: -1\n", "f.yaml:4: measure.step must be positive"},
	} {
		_, err := Parse("f.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.yaml, err, c.want)
		}
	}
	// an omitted step is 1
	cfg, err := Parse("f.yaml", []byte("measure: {min: 1, max: 5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(cfg)
	if err != nil || s.Measure.Step.String() != "1" {
		t.Fatalf("step %v, err %v", s.Measure.Step, err)
	}
}

func TestMeasureKind(t *testing.T) {
	c, _ := Parse("m.yaml", []byte("measure: {min: 0, max: 1000, kind: magnitude}\n"))
	s, err := Resolve(c)
	if err != nil || s.Measure.Kind != "magnitude" {
		t.Fatalf("kind %+v, %v", s.Measure, err)
	}
	bad, _ := Parse("m.yaml", []byte("measure: {min: 0, max: 1000, kind: money}\n"))
	if _, err := Resolve(bad); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Fatalf("err = %v", err)
	}
}
