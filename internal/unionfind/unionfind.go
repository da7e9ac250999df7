// Package unionfind is a disjoint-set forest over 0..n-1, for grouping
// things that are linked pairwise (tables that share cells, cells linked
// by a relation).
package unionfind

// Sets is a disjoint-set forest: Sets[i] is i's parent, a root its own.
type Sets []int

// New returns n singleton sets.
func New(n int) Sets {
	s := make(Sets, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Find returns the root of i's set (halving the path on the way).
func (s Sets) Find(i int) int {
	for s[i] != i {
		s[i] = s[s[i]]
		i = s[i]
	}
	return i
}

// Union merges the sets of a and b; the smaller root becomes the root, so
// that the roots do not depend on the order of the unions.
func (s Sets) Union(a, b int) {
	if ra, rb := s.Find(a), s.Find(b); ra != rb {
		s[max(ra, rb)] = min(ra, rb)
	}
}
