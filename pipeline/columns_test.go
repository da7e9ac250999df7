package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// Rule problems are blamed on the config (file:line:column), with the rule
// meant, all at once.
func TestRuleErrorsAllAtOnce(t *testing.T) {
	c, err := configs.Parse("r.yaml", []byte("rules:\n  treshold: {enabled: true}\n  p_percent: {p: 500}\n  dominance: {sets: [{n: 0, k: 90}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildRules(s)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`r.yaml:2:3: unknown rule "treshold" in rules; did you mean threshold?`,
		`r.yaml:3:15: rule p_percent: parameter p: must satisfy 0 < p <= 100, got 500`,
		`r.yaml:4:15: rule dominance: parameter sets[0].n: must be at least 1`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d:\n got %s\nwant %s...", i+1, lines[i], w)
		}
	}
}

func TestMissingColumnSuggests(t *testing.T) {
	_, err := auditText(t, "year,sector,v\n2024,A,1\n", "microdata: {dims: [year, sektor], value: v}\n")
	if err == nil || !strings.Contains(err.Error(), `column "sektor": no such column`) || !strings.Contains(err.Error(), "did you mean sector?") {
		t.Errorf("err %v", err)
	}
}

// Every missing column is reported at once (exit 3 still: the input).
func TestMissingColumnsAllAtOnce(t *testing.T) {
	_, err := auditText(t, "year,sector,v\n2024,A,1\n", "microdata: {dims: [yaer, sektor], value: vv}\n")
	var re *readers.Error
	if !errors.As(err, &re) {
		t.Fatalf("err %v (%T), want a readers.Error", err, err)
	}
	for _, want := range []string{`column "yaer"`, "did you mean year?", `column "sektor"`, "did you mean sector?", `column "vv"`, "did you mean v?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
