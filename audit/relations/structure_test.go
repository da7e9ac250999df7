package relations

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

func TestStructureRelations(t *testing.T) {
	tb := tabletest.Microdata1(t)
	s, err := New(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 5 rows (A-D, Total) along gender + 3 columns along region.
	if len(s.Rels) != 8 {
		t.Fatalf("%d relations, want 8", len(s.Rels))
	}
	for r, rel := range s.Rels {
		sum := decimal.FromInt(0)
		for _, j := range rel.Parts {
			sum = sum.Add(tb.Cells[j].Total)
		}
		if sum.Cmp(tb.Cells[rel.Total].Total) != 0 {
			t.Errorf("%s: parts %s, total %s", s.Describe(r), sum, tb.Cells[rel.Total].Total)
		}
	}
}

func TestStructureHierarchy(t *testing.T) {
	// district d1,d2 in region N, d3 in region S; gender f/m.
	vals := map[string]int64{"d1": 3, "d2": 4, "d3": 5}
	tb := &audit.Table{Name: "h", Dims: []string{"district", "gender"}, TotalLabel: "Total"}
	add := func(a, b string, v int64) {
		tb.Cells = append(tb.Cells, &audit.Cell{Key: []string{a, b}, HasTotal: true, Total: decimal.FromInt(v)})
	}
	for _, g := range []string{"f", "m", "Total"} {
		mult := int64(1)
		if g == "Total" {
			mult = 2
		}
		for d, v := range vals {
			add(d, g, v*mult)
		}
		add("N", g, 7*mult)
		add("S", g, 5*mult)
		add("Total", g, 12*mult)
	}
	opt := Options{Hierarchies: map[string]map[string]string{"district": {"d1": "N", "d2": "N", "d3": "S"}}}
	s, err := New(tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Along district, per gender value: N = d1+d2, S = d3, Total = N+S;
	// along gender: one row per district code (6).
	if len(s.Rels) != 3*3+6 {
		t.Fatalf("%d relations, want 15", len(s.Rels))
	}
	for r, rel := range s.Rels {
		sum := decimal.FromInt(0)
		for _, j := range rel.Parts {
			sum = sum.Add(tb.Cells[j].Total)
		}
		if sum.Cmp(tb.Cells[rel.Total].Total) != 0 {
			t.Errorf("%s: parts %s, total %s", s.Describe(r), sum, tb.Cells[rel.Total].Total)
		}
	}
}
