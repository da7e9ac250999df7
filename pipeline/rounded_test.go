package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
)

// TestAuditRoundedInput (issue 24 item 6): `input.rounded: 5` makes the
// interval audit of a received table read every published value v as
// [v − 2.5, v + 2.5]. The marked cell A/y is exactly 15 − 10 = 5 when the
// values are exact; rounded, the intruder only knows it lies in [0, 10]
// (worked out by hand: A/y = A/Total − A/x ≤ 17.5 − 7.5 and = Total/y −
// B/y ≤ 12.5 − 2.5; 0 is reached with A/x = A/Total = 12.5, B/y = Total/y
// = 7.5, B/x = 2.5..5).
func TestAuditRoundedInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rounded.csv")
	data := "region,sector,count\nA,x,10\nA,y,c\nA,Total,15\nB,x,5\nB,y,5\nB,Total,10\nTotal,x,15\nTotal,y,10\nTotal,Total,25\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	const cols = "columns: {dims: [region, sector], count: count}\n"
	for _, tc := range []struct {
		cfg    string
		lo, hi float64
		exact  bool
	}{
		{cols, 5, 5, true},
		{cols + "input: {rounded: 5}\n", 0, 10, false},
	} {
		_, iv, err := AuditFile(context.Background(), path, settings(t, tc.cfg), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.cfg, err)
		}
		if len(iv.Cells) != 1 {
			t.Fatalf("%q: %d cells audited, want 1", tc.cfg, len(iv.Cells))
		}
		r := iv.Cells[0]
		if r.Lo != tc.lo || r.Hi != tc.hi || r.Exact != tc.exact || r.Undetermined || r.Approximate {
			t.Errorf("%q: %v [%v, %v] exact %v undetermined %v, want [%v, %v] exact %v", tc.cfg, r.Key, r.Lo, r.Hi, r.Exact, r.Undetermined, tc.lo, tc.hi, tc.exact)
		}
	}
	c, err := configs.Parse("test.yaml", []byte("input: {rounded: -5}\n"))
	if err == nil {
		_, err = configs.Resolve(c)
	}
	if err == nil {
		t.Error("input.rounded -5 accepted")
	}
}

// TestSuppressOptionsRoundedAggregateOnly: input.rounded reaches secondary
// suppression and the interval audit (SuppressOptions.Rounded) for
// aggregate tables only, as the rules read it: a table built from
// microdata publishes exact values, and taking them as intervals would
// let secondary suppression leave cells out and the audit call them
// protected.
func TestSuppressOptionsRoundedAggregateOnly(t *testing.T) {
	s := settings(t, "columns: {dims: [region, sector], count: count}\ninput: {rounded: 5}\n")
	for _, tc := range []struct {
		mode audit.Mode
		want float64
	}{{audit.Aggregate, 5}, {audit.Microdata, 0}} {
		tb := &audit.Table{Mode: tc.mode}
		if got := SuppressOptions(tb, s, 1).Rounded; got != tc.want {
			t.Errorf("%v table: Rounded %v, want %v", tc.mode, got, tc.want)
		}
	}
}
