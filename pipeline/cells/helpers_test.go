package cells

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/internal/pipelinetest"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/writers"
)

// settings resolves a YAML configuration; firstDiff is the first line
// where two outputs differ. The pipeline package's tests use the same.
var (
	settings  = pipelinetest.Settings
	firstDiff = pipelinetest.FirstDiff
)

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

// outputsOf builds the cells of src under the configuration cfg with the
// builders' tuning, evaluates nothing, and returns the report.json and
// safe.csv of the cells, or the error of building them.
func outputsOf(t *testing.T, src readers.Source, cfg string, workers int, tune Tuning) ([]byte, []byte, error) {
	t.Helper()
	tab, err := loadTuned(context.Background(), src, settings(t, cfg), workers, tune)
	if err != nil {
		return nil, nil, err
	}
	var rep, safe bytes.Buffer
	if err := (writers.Report{}).Write(&rep, tab); err != nil {
		t.Fatal(err)
	}
	if err := (writers.SafeCSV{}).Write(&safe, tab); err != nil {
		t.Fatal(err)
	}
	return rep.Bytes(), safe.Bytes(), nil
}
