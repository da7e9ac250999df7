package suppress

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFirstKMatchesStableSort: firstK gives the k first of a stable sort
// by score (ties in input order), which prune relied on before.
func TestFirstKMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 2000; trial++ {
		n := rng.IntN(60)
		k := rng.IntN(70)
		score := make([]float64, n)
		for i := range score {
			switch rng.IntN(4) {
			case 0:
				score[i] = math.Inf(1)
			case 1:
				score[i] = float64(rng.IntN(4)) // ties
			default:
				score[i] = rng.Float64() * 100
			}
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return lessFirst(score[a] < score[b], score[b] < score[a]) })
		want = want[:min(k, n)]
		got := firstK(n, k, func(a, b int) bool {
			if score[a] != score[b] {
				return score[a] < score[b]
			}
			return a < b
		})
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: n=%d k=%d: firstK %v, stable sort %v (scores %v)", trial, n, k, got, want, score)
		}
	}
}
