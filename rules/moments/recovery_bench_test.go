package moments

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// distinctGrid draws n distinct values in steps (amounts with two
// decimals, lognormal-like spread), as `moments --values` sees them.
func distinctGrid(n int) []int64 {
	rng := rand.New(rand.NewPCG(15, 5000))
	seen := map[int64]bool{}
	var out []int64
	for len(out) < n {
		v := int64(100 + rng.ExpFloat64()*rng.ExpFloat64()*500000)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// BenchmarkRecoveryPower is issue 15's moments row: the smallest recovery
// power of 5,000 distinct values (target under 1 s).
func BenchmarkRecoveryPower(b *testing.B) {
	k := distinctGrid(5000)
	for b.Loop() {
		if _, _, err := SmallestRecoveryPower(k); err != nil {
			b.Fatal(err)
		}
	}
}

// recoveryOracle is the smallest p at which RecoverInts recovers every
// value (all) and the largest value (largest), by running it for p = 1, 2,
// ... in exact arithmetic.
func recoveryOracle(t *testing.T, k []int64) (all, largest int) {
	want := slices.Clone(k)
	slices.Sort(want)
	slices.Reverse(want)
	for p := 1; all == 0 || largest == 0; p++ {
		sums, err := IntSums(k, p)
		if err != nil {
			t.Fatal(err)
		}
		est, err := RecoverInts(sums, p)
		if largest == 0 && len(est) > 0 && est[0].Int64() == want[0] {
			largest = p
		}
		if all == 0 && err == nil && len(est) == len(want) {
			same := true
			for i, e := range est {
				same = same && e.IsInt64() && e.Int64() == want[i]
			}
			if same {
				all = p
			}
		}
		if p > 400 {
			t.Fatalf("%v: no recovery up to p = 400", k)
		}
	}
	return all, largest
}

// TestRecoveryPowerAgainstIteration checks SmallestRecoveryPower against
// the iteration itself run at every power, on random small samples with
// ties and close values, concurrently.
func TestRecoveryPowerAgainstIteration(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for i := range 300 {
		n := 1 + rng.IntN(12)
		hi := int64(2 + rng.IntN([]int{5, 30, 200}[i%3]))
		k := make([]int64, n)
		for j := range k {
			k[j] = rng.Int64N(hi)
		}
		t.Run("", func(t *testing.T) {
			t.Parallel()
			all, largest, err := SmallestRecoveryPower(k)
			if err != nil {
				t.Fatal(err)
			}
			wa, wl := recoveryOracle(t, k)
			if all != wa || largest != wl {
				t.Fatalf("%v: all %d largest %d, the iteration %d %d", k, all, largest, wa, wl)
			}
		})
	}
}

// BenchmarkRecoveryPowerBaseline is the baseline in the same run: what
// `moments --values --step 0` computes on the same 5,000 values (the sums
// up to order 20 and the assessment, without the recovery).
func BenchmarkRecoveryPowerBaseline(b *testing.B) {
	k := distinctGrid(5000)
	x := make([]float64, len(k))
	for i, v := range k {
		x[i] = float64(v) / 100
	}
	truth := &Truth{Largest: x[len(x)-1], Second: x[len(x)-2], HasSecond: true}
	for b.Loop() {
		s, err := FromValues(x, 20)
		if err != nil {
			b.Fatal(err)
		}
		if a := Assess(s, truth, Options{}); len(a.Orders) != 20 {
			b.Fatal(len(a.Orders))
		}
	}
}
