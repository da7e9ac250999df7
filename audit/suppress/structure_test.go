package suppress

import (
	"encoding/csv"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// microdata1 builds the 15-cell region x gender table (margins included) of
// sdctable_microdata1.csv, summing val per cell.
func microdata1(t testing.TB) *audit.Table {
	t.Helper()
	// The reference data is part of the repository (testdata/reference):
	// a missing file fails the test.
	f, err := os.Open("../../testdata/reference/sdctable_microdata1.csv")
	if err != nil {
		t.Fatalf("reference data: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type acc struct{ vals []int64 }
	cells := map[[2]string]*acc{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseInt(r[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{r[0], "Total"} {
			for _, b := range []string{r[1], "Total"} {
				k := [2]string{a, b}
				if cells[k] == nil {
					cells[k] = &acc{}
				}
				cells[k].vals = append(cells[k].vals, v)
			}
		}
	}
	tb := &audit.Table{Name: "microdata1", Dims: []string{"region", "gender"}, TotalLabel: "Total", Mode: audit.Microdata, Value: "val"}
	for k, a := range cells {
		sort.Slice(a.vals, func(i, j int) bool { return a.vals[i] > a.vals[j] })
		c := &audit.Cell{Key: []string{k[0], k[1]}, HasN: true, N: int64(len(a.vals)), HasTotal: true, Status: audit.StatusOK}
		var sum int64
		for _, v := range a.vals {
			sum += v
			c.Top = append(c.Top, decimal.FromInt(v))
		}
		c.Total = decimal.FromInt(sum)
		tb.Cells = append(tb.Cells, c)
	}
	tb.SortCells()
	return tb
}

// cellAt finds a cell by its key values.
func cellAt(t testing.TB, tb *audit.Table, key ...string) *audit.Cell {
	t.Helper()
	for _, c := range tb.Cells {
		if len(c.Key) != len(key) {
			continue
		}
		same := true
		for d := range key {
			if c.Key[d] != key[d] {
				same = false
				break
			}
		}
		if same {
			return c
		}
	}
	t.Fatalf("no cell %v", key)
	return nil
}

func markPrimary(c *audit.Cell) {
	c.Findings = append(c.Findings, audit.Said("threshold", audit.Fail, "test primary", nil))
	audit.Decide(c)
}

// gridTable builds a magnitude table with the given dimension sizes, codes
// "d<dim>_<i>", every margin, interior values from val and contributor
// counts from n (both indexed by the interior cell's position).
func gridTable(sizes []int, val func(idx []int) int64, n func(idx []int) int64) *audit.Table {
	nd := len(sizes)
	dims := make([]string, nd)
	for d := range dims {
		dims[d] = "dim" + strconv.Itoa(d)
	}
	tb := &audit.Table{Name: "grid", Dims: dims, TotalLabel: "Total"}
	type agg struct {
		sum, n int64
	}
	cells := map[string]*agg{}
	var keys [][]string
	idx := make([]int, nd)
	var rec func(d int)
	rec = func(d int) {
		if d == nd {
			v, cnt := val(idx), n(idx)
			// Every combination of margins over this interior cell.
			for mask := 0; mask < 1<<nd; mask++ {
				key := make([]string, nd)
				for e := 0; e < nd; e++ {
					if mask&(1<<e) != 0 {
						key[e] = "Total"
					} else {
						key[e] = "d" + strconv.Itoa(e) + "_" + strconv.Itoa(idx[e])
					}
				}
				ks := joinKey(key)
				a := cells[ks]
				if a == nil {
					a = &agg{}
					cells[ks] = a
					keys = append(keys, key)
				}
				a.sum += v
				a.n += cnt
			}
			return
		}
		for i := 0; i < sizes[d]; i++ {
			idx[d] = i
			rec(d + 1)
		}
	}
	rec(0)
	for _, k := range keys {
		a := cells[joinKey(k)]
		tb.Cells = append(tb.Cells, &audit.Cell{Key: k, HasTotal: true, Total: decimal.FromInt(a.sum), HasN: true, N: a.n, Status: audit.StatusOK})
	}
	tb.SortCells()
	return tb
}

func joinKey(k []string) string {
	s := ""
	for _, v := range k {
		s += v + "\x00"
	}
	return s
}

func TestStructureRelations(t *testing.T) {
	tb := microdata1(t)
	s, err := newStructure(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 5 rows (A-D, Total) along gender + 3 columns along region.
	if len(s.rels) != 8 {
		t.Fatalf("%d relations, want 8", len(s.rels))
	}
	for r, rel := range s.rels {
		sum := decimal.FromInt(0)
		for _, j := range rel.parts {
			sum = sum.Add(tb.Cells[j].Total)
		}
		if sum.Cmp(tb.Cells[rel.total].Total) != 0 {
			t.Errorf("%s: parts %s, total %s", s.describe(r), sum, tb.Cells[rel.total].Total)
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
	s, err := newStructure(tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Along district, per gender value: N = d1+d2, S = d3, Total = N+S;
	// along gender: one row per district code (6).
	if len(s.rels) != 3*3+6 {
		t.Fatalf("%d relations, want 15", len(s.rels))
	}
	for r, rel := range s.rels {
		sum := decimal.FromInt(0)
		for _, j := range rel.parts {
			sum = sum.Add(tb.Cells[j].Total)
		}
		if sum.Cmp(tb.Cells[rel.total].Total) != 0 {
			t.Errorf("%s: parts %s, total %s", s.describe(r), sum, tb.Cells[rel.total].Total)
		}
	}
}
