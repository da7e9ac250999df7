package pipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/rules"
)

// TestProfileRuleParams records, for every embedded profile (and a few
// configs layered over one), every rule's parameters as the rule resolves
// them. The golden file was written with the defaults still in the
// factories (before issue 11 moved them into the profiles): moving them
// must not change what any rule sees.
func TestProfileRuleParams(t *testing.T) {
	type entry struct {
		Name     string `json:"name"`
		Settings any    `json:"rules"`
	}
	var got []entry
	for _, p := range configs.Profiles() {
		s, err := configs.Resolve(&configs.Config{Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, entry{"profile " + p, RuleTrails(s)})
	}
	for _, y := range []string{
		"rules: {pq: {enabled: true, p: 12}, interval: {enabled: true}, dominance: {absolute: true}}",
		"profile: abs\nrules: {meansd: {cap: 50, sd_kind: population}, moments: {max_order: 4, step: 0.5}}",
		"profile: tau-argus\nrules: {threshold: {min: 5}, negative: {mode: absolute}, zeros: {enabled: false}}",
	} {
		got = append(got, entry{y, RuleTrails(settings(t, y))})
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	golden := filepath.Join("testdata", "rule_params.golden.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("resolved rule parameters changed:\n%s\nwant:\n%s", b, want)
	}
}

// TestProfilesSetEveryParam: every embedded profile mentions every
// registered rule and sets every parameter it declares (the rules have no
// defaults of their own), so that every rule builds from the profile
// alone, enabled or not.
func TestProfilesSetEveryParam(t *testing.T) {
	for _, p := range configs.Profiles() {
		s, err := configs.Resolve(&configs.Config{Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		mentioned := map[string]configs.RuleSetting{}
		for _, r := range s.Rules {
			mentioned[r.Name] = r
		}
		for _, name := range rules.Names() {
			r, ok := mentioned[name]
			if !ok {
				t.Errorf("profile %s does not mention rule %s", p, name)
				continue
			}
			if _, err := rules.New(name, r.Decode); err != nil {
				t.Errorf("profile %s: %v", p, err)
			}
		}
	}
}
