package configs

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Config messages name file:line:column, the key path, what was expected
// and the key meant, and report every problem of a file at once.
func TestConfigProblemsAllAtOnce(t *testing.T) {
	y := "suppresion:\n  secondary: true\ndecimals: five\noutput: {annotated: yes please, htm: true}\nsuppression: {secondery: true}\n"
	_, err := Parse("c.yaml", []byte(y))
	var ce *Error
	if !errors.As(err, &ce) || !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("err %v (%T), want a *Error for an unknown key", err, err)
	}
	want := []string{
		`c.yaml:1:1: unknown key "suppresion" in the top level; did you mean suppression?`,
		`c.yaml:3:11: decimals: expected a whole number, got "five"`,
		`c.yaml:4:21: output.annotated: expected true or false, got "yes please"`,
		`c.yaml:4:33: unknown key "htm" in output; did you mean html?`,
		`c.yaml:5:15: unknown key "secondery" in suppression; did you mean secondary?`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d:\n got %s\nwant %s...", i+1, lines[i], w)
		}
	}
}

func TestConfigBadIndentationLine(t *testing.T) {
	_, err := Parse("i.yaml", []byte("rules:\n  threshold:\n    min: 10\n   enabled: true\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "i.yaml:4:4: bad indentation") {
		t.Errorf("err %v, want bad indentation at i.yaml:4:4", err)
	}
}

func TestConfigUnknownProfileSuggests(t *testing.T) {
	c, err := Parse("p.yaml", []byte("decimals: 1\nprofile: akro\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(c)
	if err == nil || !strings.HasPrefix(err.Error(), `p.yaml:2:10: unknown profile "akro"`) || !strings.Contains(err.Error(), "did you mean acro?") {
		t.Errorf("err %v", err)
	}
}

func TestSuggest(t *testing.T) {
	for _, c := range []struct{ w, want string }{
		{"sektor", "sector"}, {"treshold", "threshold"}, {"SECTOR", "sector"}, {"p_precent", "p_percent"}, {"zzz", ""}, {"region", ""},
	} {
		if got := Suggest(c.w, []string{"sector", "threshold", "p_percent", "year"}); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.w, got, c.want)
		}
	}
}

func TestLoadOverridesErrors(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/o.csv"
	write := func(s string) {
		if err := writeFile(path, s); err != nil {
			t.Fatal(err)
		}
	}
	write("region,action,reason,by\nNorth,safe,published,J. Smith\nSouth,protected,key figure,K. Lee\n")
	ovs, err := LoadOverrides(path)
	if err != nil || len(ovs) != 2 || ovs[0].Cell["region"] != "North" || ovs[1].Action != OverrideProtected || ovs[1].Source != path+" row 3" {
		t.Fatalf("overrides %+v, %v", ovs, err)
	}
	write("region,action,reason\nNorth,safe,x\n")
	if _, err := LoadOverrides(path); err == nil || !strings.Contains(err.Error(), "no by column") {
		t.Errorf("missing column: %v", err)
	}
	write("region,action,reason,by\nNorth,saef,x,y\nSouth,safe,,y\n")
	_, err = LoadOverrides(path)
	if err == nil || !strings.Contains(err.Error(), "row 2: override action \"saef\"") || !strings.Contains(err.Error(), "did you mean safe?") || !strings.Contains(err.Error(), "row 3: override needs a reason") {
		t.Errorf("bad rows: %v", err)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

func TestReleaseProblemsAllAtOnce(t *testing.T) {
	path := t.TempDir() + "/release.yaml"
	if err := writeFile(path, "decimals: two\ntables:\n  - file: a.csv\n    nmae: x\n"); err != nil {
		t.Fatal(err)
	}
	_, err := LoadRelease(path)
	if err == nil || !strings.Contains(err.Error(), path+`:1:11: decimals: expected a whole number, got "two"`) ||
		!strings.Contains(err.Error(), path+`:4:5: unknown key "nmae" in tables[0]; did you mean name?`) {
		t.Errorf("err %v", err)
	}
}
