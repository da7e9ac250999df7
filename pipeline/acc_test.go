package pipeline

import (
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
