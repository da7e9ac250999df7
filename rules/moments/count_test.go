package moments

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// meansOf returns the raw moment means m_1..m_k of x exactly.
func meansOf(x []int64, k int) []*big.Rat {
	out := make([]*big.Rat, k)
	for p := 1; p <= k; p++ {
		s := new(big.Int)
		for _, v := range x {
			s.Add(s, new(big.Int).Exp(big.NewInt(v), big.NewInt(int64(p)), nil))
		}
		out[p-1] = new(big.Rat).SetFrac(s, big.NewInt(int64(len(x))))
	}
	return out
}

// TestCheckCountPassesRealData: the moments of every sample of
// non-negative integers pass CheckCount (the checks are necessary
// conditions: a real sample never goes to review for them), small samples
// with ties, zeros and a dominant value included.
func TestCheckCountPassesRealData(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 9))
	for i := 0; i < 20000; i++ {
		n := 1 + r.IntN(9)
		x := make([]int64, n)
		hi := []int64{1, 3, 20, 1000}[r.IntN(4)]
		for j := range x {
			x[j] = r.Int64N(hi + 1)
		}
		if r.IntN(4) == 0 {
			x[0] = hi * 50 // a dominant value
		}
		k := 1 + r.IntN(6)
		if inc := CheckCount(int64(n), meansOf(x, k)); inc != nil {
			t.Fatalf("sample %v, %d moments: %s", x, k, inc.Reason)
		}
		if inc := CheckRaw(meansOf(x, k)); inc != nil {
			t.Fatalf("sample %v, %d moments: CheckRaw: %s", x, k, inc.Reason)
		}
	}
}

// TestCheckCountRefuses: power sums that no n non-negative values have
// (the --help example of issue 23 item 9: S_2 > S_1², which CheckRaw's
// Hankel conditions let through) are inconsistent, with the reason; a
// brute force over every sample of n values in 0..S_1 confirms that none
// has them.
func TestCheckCountRefuses(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		sums []int64
		want string
	}{
		{12, []int64{10, 150, 2500}, "the Lehmer mean L_2 = S_2/S_1 = 15 exceeds S_1 = 10, the most one of them can be (S_2 > S_1·S_1)"},
		{3, []int64{3, 3, 4}, "exceeds the Samuelson bound"},
		{3, []int64{4, 6, 13}, "the Lehmer mean L_3 = 2.16667 exceeds the Samuelson bound mean + SD·√(n−1) = 2"},
		{2, []int64{0, 1}, "the Lehmer mean L_2 = S_2/S_1"},
		{4, []int64{2, 2, 2, 30}, "L_4 = S_4/S_3 = 15 exceeds S_1 = 2"},
	} {
		m := make([]*big.Rat, len(tc.sums))
		for i, s := range tc.sums {
			m[i] = big.NewRat(s, tc.n)
		}
		if CheckRaw(m) != nil && tc.n == 12 {
			t.Errorf("%v: CheckRaw already refuses it; the test is meant for what it lets through", tc.sums)
		}
		inc := CheckCount(tc.n, m)
		if inc == nil || !strings.Contains(inc.Reason, tc.want) {
			t.Errorf("n %d sums %v: %v, want %q", tc.n, tc.sums, inc, tc.want)
		}
		if tc.n <= 4 && tc.sums[0] <= 4 && bruteHas(int(tc.n), tc.sums) {
			t.Errorf("n %d sums %v: a sample has them", tc.n, tc.sums)
		}
	}
}

// bruteHas reports whether some n integers in 0..S_1 have the power sums.
func bruteHas(n int, sums []int64) bool {
	x := make([]int64, n)
	var rec func(i int, lo int64) bool
	rec = func(i int, lo int64) bool {
		if i == n {
			for p, s := range sums {
				var t int64
				for _, v := range x {
					e := int64(1)
					for range p + 1 {
						e *= v
					}
					t += e
				}
				if t != s {
					return false
				}
			}
			return true
		}
		for v := lo; v <= sums[0]; v++ {
			x[i] = v
			if rec(i+1, v) {
				return true
			}
		}
		return false
	}
	return rec(0, 0)
}
