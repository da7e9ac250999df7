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

// firstK returns the indices of the k first of 0..n-1 in the strict total
// order before, in that order. It is the selection prune made before it
// streamed the moves; refPrune (moves_test.go) keeps it as the reference.
func firstK(n, k int, before func(a, b int) bool) []int {
	k = min(k, n)
	h := make([]int, 0, k) // a max-heap: h[0] is the last of those kept
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && before(h[m], h[l]) {
				m = l
			}
			if r := l + 1; r < len(h) && before(h[m], h[r]) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for a := 0; a < n; a++ {
		if len(h) < k {
			h = append(h, a)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !before(h[p], h[i]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if k > 0 && before(a, h[0]) {
			h[0] = a
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b int) int { return lessFirst(before(a, b), before(b, a)) })
	return h
}
