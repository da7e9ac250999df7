package sqlgen

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden SQL files in testdata")

var goldenSpecs = map[string]Spec{
	"frequency": {Table: "census.persons", Dims: []string{"region", "sex"}, Top: 2, Powers: 4, Scale: 0},
	"holding":   {Table: "register.enterprises", Dims: []string{"region", "sector", "size class"}, Value: "turnover", Holding: "enterprise_group", Top: 3, Powers: 4, Scale: 2},
	"records":   {Table: "survey", Dims: []string{"region", "sector", "year"}, Value: "income", Top: 2, Powers: 3, Scale: 3},
	// nace: a YAML hierarchy of three levels; region: a hierarchy file
	// (its leaves); size without one
	"hierarchy": {Table: "register.enterprises", Dims: []string{"region", "nace", "size"}, Value: "turnover", Holding: "enterprise_group", Top: 2, Powers: 4, Scale: 2,
		Hierarchies: map[string]map[string]string{
			"nace":   {"C10": "C", "C11": "C", "C": "BCD", "D35": "BCD", "BCD": "Total", "F41": "F"},
			"region": {"N1": "North", "N2": "North", "S1": "South"},
			"other":  {"x": "y"},
		},
		Leaves: map[string]map[string]bool{"region": {"N1": true, "N2": true, "S1": true}}},
	"hierarchy-frequency": {Table: "census.persons", Dims: []string{"age"}, Top: 2, Powers: 4,
		Hierarchies: map[string]map[string]string{"age": {"0-4": "0-14", "5-9": "0-14", "10-14": "0-14", "0-14": "all ages"}}, TotalLabel: "all ages"},
}

func TestGolden(t *testing.T) {
	for name, spec := range goldenSpecs {
		for _, d := range Dialects() {
			t.Run(name+"/"+d, func(t *testing.T) {
				got, err := Query(Dialect(d), spec)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := Query(Dialect(d), spec)
				if again != got {
					t.Fatal("the query is not stable across calls")
				}
				path := filepath.Join("testdata", name+"."+d+".sql")
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./sqlgen -update)", err)
				}
				if got != string(want) {
					t.Errorf("query differs from %s (go test ./sqlgen -update regenerates it):\n%s", path, got)
				}
			})
		}
	}
}

func TestSpecErrors(t *testing.T) {
	ok := Spec{Table: "t", Dims: []string{"a", "b"}, Value: "v", Holding: "h", Top: 2, Powers: 4, Scale: 2}
	cases := []struct {
		name    string
		dialect Dialect
		edit    func(*Spec)
		want    string
	}{
		{"dialect", "oracle", func(*Spec) {}, "unknown dialect"},
		{"no table", Postgres, func(s *Spec) { s.Table = "" }, "no table"},
		{"empty table part", Postgres, func(s *Spec) { s.Table = "a..b" }, "empty name"},
		{"no dims", Postgres, func(s *Spec) { s.Dims = nil }, "at least one dimension"},
		{"too many dims", Postgres, func(s *Spec) { s.Dims = strings.Split("a,b,c,d,e,f,g,h,i,j,k", ",") }, "at most 10"},
		{"quote in name", DuckDB, func(s *Spec) { s.Dims = []string{`a"b`} }, "not allowed"},
		{"backquote in name", Spark, func(s *Spec) { s.Value = "a`b" }, "not allowed"},
		{"reserved prefix", Trino, func(s *Spec) { s.Holding = "SDC_h" }, "reserved"},
		{"dim named like output", BigQuery, func(s *Spec) { s.Dims = []string{"total"} }, "cell-summary column"},
		{"dim named sum_pow", BigQuery, func(s *Spec) { s.Dims = []string{"sum_pow_2"} }, "cell-summary column"},
		{"value is a dim", Postgres, func(s *Spec) { s.Value = "a" }, "both the dimension and the value"},
		{"holding is value", Postgres, func(s *Spec) { s.Holding = "V" }, "both the value and the holding"},
		{"duplicate dim", Postgres, func(s *Spec) { s.Dims = []string{"a", "a"} }, "both the dimension and the dimension"},
		{"top", Postgres, func(s *Spec) { s.Top = 0 }, "top-k"},
		{"powers", Postgres, func(s *Spec) { s.Powers = 0 }, "powers"},
		{"scale", Postgres, func(s *Spec) { s.Scale = 19 }, "value decimals"},
		{"spark scale", Spark, func(s *Spec) { s.Scale = 7 }, "0..6 for spark"},
		{"quote in code", Postgres, func(s *Spec) { s.Hierarchies = map[string]map[string]string{"b": {"x'1": "x"}} }, "not allowed"},
		{"backslash in leaf", BigQuery, func(s *Spec) { s.Leaves = map[string]map[string]bool{"b": {`x\`: true}} }, "not allowed"},
		{"hierarchy cycle", Postgres, func(s *Spec) { s.Hierarchies = map[string]map[string]string{"b": {"x1": "x", "x": "x1"}} }, "cycle"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ok
			s.Dims = append([]string(nil), ok.Dims...)
			c.edit(&s)
			_, err := Query(c.dialect, s)
			if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an ErrSpec containing %q", err, c.want)
			}
		})
	}
	if _, err := Query(Postgres, ok); err != nil {
		t.Fatal(err)
	}
}
