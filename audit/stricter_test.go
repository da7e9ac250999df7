package audit

import "testing"

// TestStricter: every pair of statuses against the order written out:
// primary over review over ok; secondary and unset count as ok, and the
// first argument wins a tie.
func TestStricter(t *testing.T) {
	all := []Status{"", StatusOK, StatusSecondary, StatusReview, StatusPrimary}
	rank := map[Status]int{StatusPrimary: 2, StatusReview: 1}
	for _, a := range all {
		for _, b := range all {
			want := a
			if rank[b] > rank[a] {
				want = b
			}
			if got := Stricter(a, b); got != want {
				t.Errorf("Stricter(%q, %q) = %q, want %q", a, b, got, want)
			}
		}
	}
}
