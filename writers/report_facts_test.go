package writers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/writers"
)

// TestReportFactsFindingsParallel: a report of thousands of cells whose
// findings come from the rules' facts (figures and message computed when
// written, on the renderers' goroutines, through the append forms) is the
// report of the same findings given as plain figures and text, which
// takes no append form and no facts.
func TestReportFactsFindingsParallel(t *testing.T) {
	params := func(m map[string]any) rules.Decoder {
		return func(v any) error {
			b, _ := json.Marshal(m)
			return json.Unmarshal(b, v)
		}
	}
	var rs []rules.CellRule
	for _, p := range []struct {
		name string
		m    map[string]any
	}{
		{"threshold", map[string]any{"min": 10}},
		{"zeros", map[string]any{"disclosive": true}},
		{"dominance", map[string]any{"sets": []map[string]any{{"n": 2, "k": 90}}, "absolute": false}},
		{"p_percent", map[string]any{"p": 10, "absolute": false}},
		{"negative", map[string]any{"mode": "review"}},
		{"all_zero", map[string]any{}},
	} {
		r, err := rules.New(p.name, params(p.m))
		if err != nil {
			t.Fatal(p.name, err)
		}
		rs = append(rs, r.(rules.CellRule))
	}
	rng := rand.New(rand.NewPCG(15, 9))
	facts := &audit.Table{Name: "f", Source: "f.csv", Mode: audit.Aggregate, Dims: []string{"a"}, TotalLabel: "Total", Columns: []string{"count", "total"}}
	plain := *facts
	plain.Cells = nil
	withFacts := 0
	for i := range 5000 {
		c := &audit.Cell{Key: []string{fmt.Sprint("A", i)}, Row: i + 2, Status: audit.StatusOK, HasN: rng.IntN(9) > 0, N: int64(rng.IntN(30)),
			HasTotal: rng.IntN(9) > 0, Negative: int64(rng.IntN(10) / 9), Stats: audit.StatsOf(map[string]audit.Stat{})}
		for range rng.IntN(4) {
			c.Top = append(c.Top, decimal.FromInt(int64(rng.IntN(2_000_000))))
		}
		slices.SortFunc(c.Top, func(a, b decimal.Dec) int { return b.Cmp(a) })
		for _, x := range c.Top {
			c.Total = c.Total.Add(x)
		}
		c.Total = c.Total.Add(decimal.FromInt(int64(rng.IntN(3) * rng.IntN(1_000_000))))
		p := *c
		p.Findings = nil
		for _, r := range rs {
			f := r.Check(facts, c)
			if f.Cell != nil { // facts computed from the cell when written
				withFacts++
			}
			c.Findings = append(c.Findings, f)
			p.Findings = append(p.Findings, audit.Said(f.Rule, f.Outcome, f.Message(), f.FigureList()))
		}
		facts.Cells = append(facts.Cells, c)
		plain.Cells = append(plain.Cells, &p)
	}
	if withFacts < 10000 {
		t.Fatalf("only %d findings with facts", withFacts)
	}
	var got, want bytes.Buffer
	if err := (writers.Report{}).Write(&got, facts); err != nil {
		t.Fatal(err)
	}
	if err := (writers.Report{}).Write(&want, &plain); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("report.json of facts findings differs from that of the same findings in plain figures and text")
	}
}
