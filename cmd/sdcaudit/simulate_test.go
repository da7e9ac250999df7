package main

import (
	"slices"
	"testing"
)

// TestSimSizesBounded: --sizes is refused before the sizes are listed, so
// a huge range cannot allocate memory in proportion to its width.
func TestSimSizesBounded(t *testing.T) {
	for _, s := range []string{"1-10001", "100001", "100001-5000000", "1-5000000", "1-100000:1"} {
		if _, err := simSizes(s); err == nil {
			t.Errorf("simSizes(%q): no error", s)
		}
	}
	allocs := testing.AllocsPerRun(1, func() { simSizes("100001-5000000") })
	if allocs > 10 {
		t.Errorf("simSizes of a range beyond the limit made %v allocations", allocs)
	}
	got, err := simSizes("3-7:2, 10000")
	if err != nil || !slices.Equal(got, []int{3, 5, 7, 10000}) {
		t.Errorf("simSizes: %v, %v", got, err)
	}
	if got, err := simSizes("1-10000"); err != nil || len(got) != 10000 {
		t.Errorf("simSizes(1-10000): %d sizes, %v", len(got), err)
	}
}
