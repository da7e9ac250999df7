package suppress

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSortPrimariesOrder: sortPrimaries gives the order sort.SliceStable
// gave the primaries before it (largest value first, ties in cell order),
// on values with many ties, negatives and zeros.
func TestSortPrimariesOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	for trial := 0; trial < 200; trial++ {
		n := r.IntN(300)
		val := make([]float64, n+r.IntN(50))
		for i := range val {
			val[i] = float64(r.IntN(20)-5) * 0.5
		}
		var prim []int
		for i := range val {
			if r.IntN(3) > 0 {
				prim = append(prim, i)
			}
		}
		want := slices.Clone(prim)
		sort.SliceStable(want, func(a, b int) bool { return val[want[a]] > val[want[b]] })
		got := slices.Clone(prim)
		sortPrimaries(got, val)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: got %v, want %v", trial, got, want)
		}
	}
}
