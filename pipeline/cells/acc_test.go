package cells

import (
	"math"
	"math/big"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// The compact accumulator is exact whatever the scales and magnitudes.
func TestSumIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s, o sum
		want := new(big.Rat)
		n := rapid.IntRange(0, 50).Draw(t, "n")
		for i := 0; i < n; i++ {
			var m int64
			if rapid.Bool().Draw(t, "huge") {
				m = rapid.Int64().Draw(t, "m")
			} else {
				m = rapid.Int64Range(-1e6, 1e6).Draw(t, "m")
			}
			d := decimal.Scaled(m, rapid.IntRange(0, 9).Draw(t, "scale"))
			if rapid.Bool().Draw(t, "other") {
				o.add(d)
			} else {
				s.add(d)
			}
			want.Add(want, d.Rat())
		}
		s.merge(&o)
		if got := s.value().Rat(); got.Cmp(want) != 0 {
			t.Fatalf("sum = %v, want %v", got.FloatString(12), want.FloatString(12))
		}
	})
}

// Sums past 64 and past 128 bits (squares of large values with up to
// 9 decimals, mantissas beyond int64) stay exact, whatever the order of
// adds and merges, and print as the exact rational does.
func TestWideSumIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s, o sum
		want := new(big.Rat)
		n := rapid.IntRange(0, 60).Draw(t, "n")
		for i := 0; i < n; i++ {
			m := rapid.Int64().Draw(t, "m")
			d := decimal.Scaled(m, rapid.IntRange(0, 9).Draw(t, "scale")) // squares within decimal.MaxScale
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				d = d.Mul(d) // a square: up to 126 bits
			case 1:
				d = d.Mul(d).Mul(decimal.FromInt(rapid.Int64().Draw(t, "f"))) // beyond 128 bits
			}
			if rapid.Bool().Draw(t, "other") {
				o.add(d)
			} else {
				s.add(d)
			}
			want.Add(want, d.Rat())
		}
		s.merge(&o)
		got := s.value()
		if got.Rat().Cmp(want) != 0 {
			t.Fatalf("sum = %v, want %v", got.Rat().RatString(), want.RatString())
		}
		if got.String() != decimal.FromRat(want).String() {
			t.Fatalf("sum prints %s, want %s", got, decimal.FromRat(want))
		}
	})
}

// At the edges of 128 bits: sums that overflow it upward and downward
// when adding or merging, rescaling that overflows it, and -2^127.
func TestSum128Edges(t *testing.T) {
	rep := func(v decimal.Dec, n int) []decimal.Dec {
		out := make([]decimal.Dec, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	maxv, minv := decimal.FromInt(math.MaxInt64), decimal.FromInt(math.MinInt64)
	tiny := decimal.Scaled(1, 17)
	// 128 × (2^63-1) ≈ 2^70, times 10^17 on rescaling ≈ 2^126.5
	up := append(rep(maxv, 128), tiny)
	down := append(rep(minv, 128), tiny.Neg())
	cases := [][]decimal.Dec{
		append(slices.Clone(up), up...),     // past 2^127 when the halves add or merge
		append(slices.Clone(down), down...), // past -2^127
		append(slices.Clone(up), down...),   // back to a small sum
		append(rep(maxv, 300), tiny),        // rescaling past 128 bits
		append(rep(minv, 300), tiny),
		append(rep(minv, 2), decimal.Scaled(1, 18)),
	}
	for i, vals := range cases {
		for _, split := range []int{0, 1, len(vals) / 2, len(vals) - 1, len(vals)} {
			var s, o sum
			want := new(big.Rat)
			for j, v := range vals {
				if j < split {
					s.add(v)
				} else {
					o.add(v)
				}
				want.Add(want, v.Rat())
			}
			s.merge(&o)
			if got := s.value(); got.Rat().Cmp(want) != 0 {
				t.Fatalf("case %d split %d: sum = %s, want %s", i, split, got.Rat().RatString(), want.RatString())
			}
		}
	}
}

func TestTopK(t *testing.T) {
	tk := topK{k: 3}
	for _, v := range []string{"5", "1", "9", "9", "2.5", "10", "-3"} {
		tk.add(decimal.Must(v))
	}
	if got := []string{tk.v[0].String(), tk.v[1].String(), tk.v[2].String()}; got[0] != "10" || got[1] != "9" || got[2] != "9" || len(tk.v) != 3 {
		t.Fatalf("top = %v", got)
	}
}

func TestTopKMatchesSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 5).Draw(t, "k")
		tk := topK{k: k}
		var all []decimal.Dec
		for i, n := 0, rapid.IntRange(0, 40).Draw(t, "n"); i < n; i++ {
			d := decimal.Scaled(rapid.Int64Range(-1e15, 1e15).Draw(t, "m"), rapid.IntRange(0, 4).Draw(t, "s"))
			tk.add(d)
			all = append(all, d)
		}
		slices.SortFunc(all, func(a, b decimal.Dec) int { return b.Cmp(a) })
		want := all[:min(k, len(all))]
		if len(tk.v) != len(want) {
			t.Fatalf("kept %d, want %d", len(tk.v), len(want))
		}
		for i := range want {
			if tk.v[i].Cmp(want[i]) != 0 {
				t.Fatalf("top[%d] = %v, want %v", i, tk.v[i], want[i])
			}
		}
	})
}
