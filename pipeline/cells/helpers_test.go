package cells

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
)

// settings resolves a YAML configuration.
func settings(t testing.TB, y string) *configs.Settings {
	t.Helper()
	c, err := configs.Parse("test.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testRules is what the enabled rules of a configuration and its
// published statistics need per cell: what the pipeline builds cells with.
type testRules struct{ needs rules.Needs }

func ruleNeeds(s *configs.Settings) (*testRules, error) {
	var n rules.Needs
	for _, r := range s.Rules {
		if !r.Enabled {
			continue
		}
		rule, err := rules.New(r.Name, r.Decode)
		if err != nil {
			return nil, err
		}
		if nr, ok := rule.(rules.Needer); ok {
			n = n.Merge(nr.Needs())
		}
	}
	return &testRules{PublishedNeeds(&s.Publish, n)}, nil
}

// loadSource builds the cells of a source as the pipeline does before
// evaluating them (the rules' findings are a function of the cells).
func loadSource(ctx context.Context, src readers.Source, s *configs.Settings, workers int) (*audit.Table, error) {
	return loadTuned(ctx, src, s, workers, Tuning{})
}

// loadTuned is loadSource with fast paths turned off (Input.Tuning).
func loadTuned(ctx context.Context, src readers.Source, s *configs.Settings, workers int, tune Tuning) (*audit.Table, error) {
	rs, err := ruleNeeds(s)
	if err != nil {
		return nil, err
	}
	file, _ := src.Where()
	sc, err := CompileSchema(s, file)
	if err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return Load(ctx, Input{Src: src, Settings: s, Schema: sc, Needs: rs.needs, Workers: workers, Tuning: tune})
}

// firstDiff is the first line where two outputs differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d\n want %s\n  got %s", i+1, x, y)
		}
	}
	return ""
}
