package readers

import "testing"

type warnSource struct{ Source }

func (warnSource) Warnings() []string { return []string{"hidden sheet skipped"} }

type wrap struct{ Source }

func (w wrap) Unwrap() Source { return w.Source }

// TestAsLooksThroughWrappers: a source wrapped to count rows or guard
// markers still shows its warnings and how it was decoded.
func TestAsLooksThroughWrappers(t *testing.T) {
	var src Source = wrap{wrap{warnSource{}}}
	w, ok := As[Warner](src)
	if !ok || len(w.Warnings()) != 1 {
		t.Fatalf("As[Warner] through two wrappers = %v, %v", w, ok)
	}
	if _, ok := As[Describer](src); ok {
		t.Fatal("As[Describer] found an interface no source in the chain has")
	}
	if _, ok := As[Warner](wrap{}); ok {
		t.Fatal("As on a wrapper of nothing")
	}
}
