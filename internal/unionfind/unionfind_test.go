package unionfind

import (
	"math/rand/v2"
	"testing"
)

// TestSetsAgainstLabels: random unions agree with a brute-force labelling
// (relabel every member of the merged set), and each root is the smallest
// member of its set.
func TestSetsAgainstLabels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		n := 1 + r.IntN(30)
		s := New(n)
		label := make([]int, n)
		for i := range label {
			label[i] = i
		}
		for k := 0; k < r.IntN(2*n); k++ {
			a, b := r.IntN(n), r.IntN(n)
			s.Union(a, b)
			la, lb := label[a], label[b]
			for i := range label {
				if label[i] == lb {
					label[i] = la
				}
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if (s.Find(i) == s.Find(j)) != (label[i] == label[j]) {
					t.Fatalf("round %d: %d and %d", round, i, j)
				}
			}
			root := s.Find(i)
			for j := 0; j < root; j++ {
				if label[j] == label[i] {
					t.Fatalf("round %d: root %d of %d, but %d is in the set", round, root, i, j)
				}
			}
		}
	}
}
