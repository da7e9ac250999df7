package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/readers"
)

// Evaluate decides the primary cells and protects nothing; Protect then
// runs secondary suppression and the interval audit with what Evaluate
// kept (a protected override stays published). Run calls them in that
// order, and a linked table is evaluated alone and protected with its
// group, with the same settings.
func TestEvaluateThenProtect(t *testing.T) {
	s := settings(t, overrideBase+"overrides: [{cell: {r: B, s: x}, action: protected, reason: published before, by: checker}]\n")
	src, err := readers.NewCSV("in.csv", strings.NewReader(overrideData()), readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := LoadTable(context.Background(), src, s)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := BuildRules(s)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Evaluate(context.Background(), tab, rs, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := withStatus(tab, audit.StatusPrimary); len(got) != 1 || got[0] != "A/x" {
		t.Fatalf("primary after Evaluate: %v", got)
	}
	if got := withStatus(tab, audit.StatusSecondary); len(got) != 0 || tab.Audit != nil {
		t.Fatalf("Evaluate protected the table: secondary %v, audit %v", got, tab.Audit != nil)
	}
	if err := Protect(context.Background(), tab, s, ev, 1); err != nil {
		t.Fatal(err)
	}
	sec := withStatus(tab, audit.StatusSecondary)
	if len(sec) == 0 || tab.Audit == nil {
		t.Fatalf("Protect: secondary %v, audit %v", sec, tab.Audit != nil)
	}
	for _, k := range sec {
		if k == "B/x" {
			t.Fatalf("the protected override B/x was suppressed: %v", sec)
		}
	}
	if len(tab.Overrides) != 1 || tab.Overrides[0].Status != audit.StatusOK {
		t.Fatalf("the override's final status is not recorded: %+v", tab.Overrides)
	}
}
