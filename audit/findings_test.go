package audit

import (
	"fmt"
	"strconv"
	"testing"
)

// sliceFacts are facts of a type == cannot compare (a slice inside).
type sliceFacts struct{ figs []Figure }

func (f sliceFacts) Figures(*Cell) []Figure { return f.figs }
func (f sliceFacts) Message(*Cell) string   { return "slice facts" }

// TestRuleFindings: a cell's findings read back from its columns are
// exactly the findings put there, in order, then its later Findings: a
// column's shared findings (its rule, facts and cell), findings with
// other facts, another rule, another or no cell, no outcome, or facts
// that cannot be compared, and more kinds than a column holds; Decide and Summarize read the same; a shared
// finding costs no allocation; and moving a table rule's findings into
// the columns keeps them and their order.
func TestRuleFindings(t *testing.T) {
	shared := &Statement{Text: "shared"}
	other := &Statement{Text: "other"}
	const n, k = 5, 4
	cells := make([]*Cell, n)
	want := make([][]Finding, n)
	rf := NewRuleFindings(n, k+1)
	tf := Said("table", Fail, "t", nil) // a table rule's finding, the same on every cell
	for i := range cells {
		c := &Cell{Findings: []Finding{Said("stale", Fail, "dropped by Attach", nil)}}
		cells[i] = c
		rf.Attach(c, i)
		fs := []Finding{
			{Rule: "a", Outcome: Pass, Facts: shared, Cell: c},
			{Rule: "b", Outcome: Outcome(1 + i%4), Facts: shared, Cell: c},
			{Rule: "c", Outcome: Pass, Facts: shared},
			{Rule: "d", Outcome: Review, Facts: sliceFacts{}, Cell: c},
		}
		switch i {
		case 1:
			fs[0].Facts = other // other facts
		case 2:
			fs[1].Rule = "b2" // another rule
		case 3:
			fs[2].Cell = c    // a cell where the column has none
			fs[0].Cell = nil  // none where it has one
			fs[1].Outcome = 0 // no outcome
		case 4:
			fs[0].Cell = cells[0] // another cell
		}
		for j, f := range fs {
			rf.Put(c, i, j, f)
		}
		want[i] = fs
		if i%2 == 0 {
			c.Findings = []Finding{tf}
			if !rf.MoveFindings(c, i, k, 1) {
				t.Fatalf("cell %d: the table rule's finding not moved", i)
			}
			want[i] = append(want[i], tf)
		}
		later := Said("secondary", Fail, "later", nil)
		c.Findings = append(c.Findings, later)
		want[i] = append(want[i], later)
	}
	for i, c := range cells {
		got := c.AllFindings()
		var each []Finding
		for j, f := range c.EachFinding() {
			if j != len(each) {
				t.Fatalf("cell %d: position %d, want %d", i, j, len(each))
			}
			each = append(each, f)
		}
		if len(got) != len(want[i]) || len(each) != len(want[i]) || c.NumFindings() != len(want[i]) {
			t.Fatalf("cell %d: %d findings (%d by EachFinding, %d counted), want %d", i, len(got), len(each), c.NumFindings(), len(want[i]))
		}
		for j, w := range want[i] {
			for _, g := range []Finding{got[j], each[j]} {
				if g.Rule != w.Rule || g.Outcome != w.Outcome || g.Cell != w.Cell || fmt.Sprintf("%p", g.Facts) != fmt.Sprintf("%p", w.Facts) || g.Message() != w.Message() {
					t.Errorf("cell %d finding %d: %+v, want %+v", i, j, g, w)
				}
			}
		}
		// Decide reads the columns: every cell has a review (d) and a fail
		Decide(c)
		if c.Status != StatusPrimary {
			t.Errorf("cell %d: %s, want primary", i, c.Status)
		}
	}
	s := (&Table{Cells: cells}).Summarize()
	if s.ByRule["d"] != n || s.ByRule["secondary"] != n || s.ByRule["table"] != 3 || s.ByRule["b"]+s.ByRule["b2"] != 2 {
		t.Errorf("by rule %v", s.ByRule)
	}
	c := cells[0]
	if a := testing.AllocsPerRun(100, func() { rf.Put(c, 0, 0, Finding{Rule: "a", Outcome: Fail, Facts: shared, Cell: c}) }); a != 0 {
		t.Errorf("a shared finding costs %v allocations, want 0", a)
	}
	// a table rule's finding a column cannot hold stays in Findings
	c.Findings = []Finding{{Rule: "table", Outcome: Fail, Facts: sliceFacts{}}}
	if rf.MoveFindings(c, 0, k, 1) {
		t.Error("a finding with facts that cannot be compared moved into a column")
	}
	// a column holds 63 kinds of finding; the others are kept whole
	for v := range 70 {
		f := Finding{Rule: "c", Outcome: NotApplicable, Facts: &Statement{Text: strconv.Itoa(v)}}
		rf.Put(c, 0, 2, f)
		if g := c.AllFindings()[2]; g.Rule != "c" || g.Outcome != NotApplicable || g.Message() != strconv.Itoa(v) {
			t.Fatalf("kind %d: read back %+v", v, g)
		}
	}
	if got := len(rf.kinds[2]); got != maxKinds {
		t.Errorf("column of %d kinds, want %d", got, maxKinds)
	}
	c.ClearFindings()
	if c.NumFindings() != 0 || len(c.AllFindings()) != 0 {
		t.Error("ClearFindings left findings")
	}
}

// TestStats: statistics keep the order they were set in, replace in
// place, delete keeping the others' order, and StatsOf orders by name.
func TestStats(t *testing.T) {
	var s Stats
	s.Set("total", Stat{Text: "1"})
	s.Set("count", Stat{Text: "2"})
	s.Set("mean", Stat{Text: "3"})
	s.Set("total", Stat{Text: "4"})
	order := func(s Stats) string {
		var b []byte
		for name, st := range s.All() {
			b = fmt.Appendf(b, "%s=%s ", name, st.Text)
		}
		return string(b)
	}
	if got := order(s); got != "total=4 count=2 mean=3 " {
		t.Errorf("got %q", got)
	}
	s.Delete("count")
	if got := order(s); got != "total=4 mean=3 " || s.Len() != 2 || s.Has("count") || s.Of("count") != (Stat{}) {
		t.Errorf("after delete %q", got)
	}
	if st, ok := s.Get("mean"); !ok || st.Text != "3" {
		t.Errorf("mean %v %v", st, ok)
	}
	if got := fmt.Sprint(s); got != "[{Name:total Stat:{Text:4 Value:0 Missing:false Marker:false}} {Name:mean Stat:{Text:3 Value:0 Missing:false Marker:false}}]" {
		t.Errorf("printed %s", got)
	}
	if got := order(StatsOf(map[string]Stat{"sd": {Text: "a"}, "count": {Text: "b"}, "mean": {Text: "c"}})); got != "count=b mean=c sd=a " {
		t.Errorf("StatsOf %q", got)
	}
}
