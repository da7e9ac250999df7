package corpus

import (
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// Table is one table of testdata/corpus/manifest.yaml: where it is and
// how a person reads it. Only the fields tests use are typed; the
// structure a person sees (dimensions, margins, nesting) is kept as
// written in Structure.
type Table struct {
	ID     string   `yaml:"id"`
	File   string   `yaml:"file"`
	Sheet  string   `yaml:"sheet"`
	Value  string   `yaml:"value"`
	Flags  []string `yaml:"flags"`
	Refuse string   `yaml:"refuse"`
	Range  string   `yaml:"range"` // a refused table: the input.range (--range) within which it is read
	Titles []int    `yaml:"title_rows"`
	Header []int    `yaml:"header_rows"`
	Labels []struct {
		Column      string `yaml:"column"`
		Header      string `yaml:"header"`
		CarriedDown bool   `yaml:"carried_down"`
		// Dates says the column holds dates as Excel serial numbers,
		// read as periods: "month" (2021-09) or "day" (2021-09-01).
		Dates string `yaml:"dates"`
	} `yaml:"label_columns"`
	Body struct {
		Rows    []int    `yaml:"rows"`
		Columns []string `yaml:"columns"`
	} `yaml:"body"`
	Markers   map[string]string `yaml:"markers"`
	Structure map[string]any    `yaml:",inline"`
}

// Manifest reads testdata/corpus/manifest.yaml.
func Manifest(path string) ([]Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m struct {
		Tables []Table `yaml:"tables"`
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m.Tables, nil
}
