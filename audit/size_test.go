package audit

import (
	"encoding/json"
	"testing"
	"unsafe"
)

// TestCellFindingSize guards the sizes that a table of a million cells
// multiplies (BenchmarkMillionCells): a finding is its rule, an outcome
// byte, its facts and its cell (its message and figures live in the
// facts), but a cell keeps its rules' findings as a byte each in its
// RuleFindings (TestRuleFindings); a cell's presence flags and its row
// there share one word; its statistics are a short list, not a map.
func TestCellFindingSize(t *testing.T) {
	if s := unsafe.Sizeof(Finding{}); s > 48 {
		t.Errorf("Finding is %d bytes, want at most 48", s)
	}
	if s := unsafe.Sizeof(Cell{}); s > 384 {
		t.Errorf("Cell is %d bytes, want at most 384 (a Go size class)", s)
	}
	if s := unsafe.Sizeof(NamedStat{}); s > 64 {
		t.Errorf("NamedStat is %d bytes, want at most 64 (two statistics in Go's size class 128)", s)
	}
}

// TestOutcomeNames: an outcome reads, prints and encodes as its name, as
// it did when it was a string, and an unknown name is an error.
func TestOutcomeNames(t *testing.T) {
	for o, want := range map[Outcome]string{Pass: "pass", Fail: "fail", Review: "review", NotApplicable: "not_applicable", 0: ""} {
		if o.String() != want {
			t.Errorf("%d: %q, want %q", o, o.String(), want)
		}
		b, err := json.Marshal(struct {
			S Outcome `json:"s"`
		}{o})
		if err != nil || string(b) != `{"s":"`+want+`"}` {
			t.Errorf("%q: %s %v", want, b, err)
		}
		var back struct {
			S Outcome `json:"s"`
		}
		if err := json.Unmarshal(b, &back); err != nil || back.S != o {
			t.Errorf("%q: read back %v %v", want, back.S, err)
		}
	}
	var o Outcome
	if err := o.UnmarshalText([]byte("passed")); err == nil {
		t.Error("unknown outcome read")
	}
}
