package suppress

import (
	"context"
	"testing"
)

// TestLPMethodLocalRedundancy: on tables above redundancyLimit the local
// redundancy pass (dropLocal) must lower the lp method's cost and keep
// every primary protected: the audit calls each one protected and gonum
// certifies it (protectLarge), with the pass on; the same table protected
// with the pass off costs more.
func TestLPMethodLocalRedundancy(t *testing.T) {
	for _, tc := range []struct {
		seed  uint64
		sizes []int
		share float64
	}{{11, []int{20, 15, 6}, 0.05}} {
		if n := len(scaleTable(tc.seed, tc.sizes, tc.share).Cells); n <= redundancyLimit {
			t.Fatalf("%v: %d cells, not above redundancyLimit %d", tc.sizes, n, redundancyLimit)
		}
		localRedundancy = false
		off := scaleTable(tc.seed, tc.sizes, tc.share)
		err := Protect(context.Background(), off, Options{})
		localRedundancy = true
		if err != nil {
			t.Fatal(err)
		}
		costOff, nOff, _ := patternCost(off)

		on := scaleTable(tc.seed, tc.sizes, tc.share)
		protectLarge(t, on, true)
		costOn, nOn, _ := patternCost(on)
		t.Logf("%v at %v: cost %v (%d cells) without the pass, %v (%d cells) with it", tc.sizes, tc.share, costOff, nOff, costOn, nOn)
		if !(costOn < costOff) {
			t.Errorf("%v at %v: cost %v with the pass, %v without: want lower", tc.sizes, tc.share, costOn, costOff)
		}
	}
}
