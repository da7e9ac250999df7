package moments

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// ratSums returns exact S_0..S_k of integer values.
func ratSums(x []int64, k int) []*big.Rat {
	s := make([]*big.Rat, k+1)
	for p := range s {
		s[p] = new(big.Rat)
		for _, v := range x {
			t := new(big.Int).Exp(big.NewInt(v), big.NewInt(int64(p)), nil)
			s[p].Add(s[p], new(big.Rat).SetInt(t))
		}
	}
	return s
}

func ratPow(r *big.Rat, p int) *big.Rat {
	out := big.NewRat(1, 1)
	for range p {
		out.Mul(out, r)
	}
	return out
}

func TestHandChecked(t *testing.T) {
	x := []float64{1, 2, 3, 10}
	s, err := FromValues(x, 10)
	if err != nil {
		t.Fatal(err)
	}
	if l1, _ := s.Lehmer(1); relDiff(l1, 4) > 1e-15 {
		t.Errorf("L_1 = %v, want the mean 4", l1)
	}
	if l := LehmerOf(x, 1); relDiff(l, 4) > 1e-15 {
		t.Errorf("LehmerOf(x, 1) = %v, want 4", l)
	}
	// harmonic mean 4 / (1 + 1/2 + 1/3 + 1/10) = 120/treated exactly
	h := 4 / (1 + 1.0/2 + 1.0/3 + 1.0/10)
	if l := LehmerOf(x, 0); relDiff(l, h) > 1e-15 {
		t.Errorf("L_0 = %v, want the harmonic mean %v", l, h)
	}
	if l := LehmerOf([]float64{0, 2}, 0); l != 0 {
		t.Errorf("L_0 with a zero = %v, want 0", l)
	}
	prev := 0.0
	for p := -3.0; p <= 60; p += 0.5 {
		l := LehmerOf(x, p)
		if l < prev*(1-1e-15) || l > 10 {
			t.Errorf("L_%v = %v: not non-decreasing (prev %v) or above the max 10", p, l, prev)
		}
		prev = l
	}
}

// TestExactRational checks every estimate for x = (1, 2, 3, 10),
// p = 1..10, against math/big.Rat arithmetic.
func TestExactRational(t *testing.T) {
	xi := []int64{1, 2, 3, 10}
	xf := []float64{1, 2, 3, 10}
	const K = 10
	s, err := FromValues(xf, K)
	if err != nil {
		t.Fatal(err)
	}
	S := ratSums(xi, K)
	for p := 1; p <= K; p++ {
		L := new(big.Rat).Quo(S[p], S[p-1])
		want, _ := L.Float64()
		got, err := s.Lehmer(p)
		if err != nil || relDiff(got, want) > 1e-15 {
			t.Errorf("L_%d = %v (%v), exact %v", p, got, err, L.FloatString(20))
		}
		for q := 1; q <= K; q++ {
			if q == p {
				continue
			}
			num := new(big.Rat).Sub(S[q], ratPow(L, q))
			den := new(big.Rat).Sub(S[q-1], ratPow(L, q-1))
			e := new(big.Rat).Quo(num, den)
			if e.Cmp(L) > 0 {
				e = L
			}
			want, _ := e.Float64()
			got, err := s.TwoPair(p, q)
			if err != nil {
				// only allowed when the exact difference is below float64 precision
				ratio, _ := new(big.Rat).Quo(num, S[q]).Float64()
				if math.Abs(ratio) > 1e-12 {
					t.Errorf("TwoPair(%d,%d): %v, exact %v", p, q, err, e.FloatString(12))
				}
				continue
			}
			// the float difference cancels digits: allow for the lost ones
			ratio, _ := new(big.Rat).Quo(num, S[q]).Float64()
			tol := 1e-13 / math.Abs(ratio)
			if relDiff(got, want) > tol {
				t.Errorf("TwoPair(%d,%d) = %v, exact %v (tol %g)", p, q, got, want, tol)
			}
		}
		// one-pair with L rounded up to an integer
		Lstar := new(big.Rat).SetInt(new(big.Int).Quo(new(big.Int).Add(S[p].Num(), new(big.Int).Sub(S[p-1].Num(), big.NewInt(1))), S[p-1].Num()))
		num := new(big.Rat).Sub(S[p], ratPow(Lstar, p))
		den := new(big.Rat).Sub(S[p-1], ratPow(Lstar, p-1))
		e := new(big.Rat).Quo(num, den)
		if e.Cmp(Lstar) > 0 {
			e = Lstar
		}
		want, _ = e.Float64()
		got, ls, err := s.OnePair(p, 1)
		wantL, _ := Lstar.Float64()
		ratio, _ := new(big.Rat).Quo(num, S[p]).Float64()
		if err != nil || relDiff(got, want) > 1e-13/math.Abs(ratio) || ls != wantL {
			t.Errorf("OnePair(%d) = %v, L* = %v (%v); exact %v, L* %v", p, got, ls, err, want, wantL)
		}
	}
}

func TestTwoPairSamePowerRejected(t *testing.T) {
	s, _ := FromValues([]float64{1, 2, 3, 10}, 6)
	for p := 1; p <= 6; p++ {
		if _, err := s.TwoPair(p, p); !errors.Is(err, ErrSamePower) {
			t.Errorf("TwoPair(%d,%d) error = %v, want ErrSamePower", p, p, err)
		}
	}
	if _, err := s.TwoPair(7, 3); !errors.Is(err, ErrOrder) {
		t.Errorf("TwoPair beyond the order: %v", err)
	}
}

func TestLargeValues(t *testing.T) {
	x := []float64{1e12, 9.99e11, 5e11, 3, 1e12 - 1e6, 7.5e11}
	const K = 100
	s, err := FromValues(x, K)
	if err != nil {
		t.Fatal(err)
	}
	var all AllEstimates
	s.EstimateAll(1, &all)
	for p := 1; p <= K; p++ {
		l, _ := s.Lehmer(p)
		if !finiteF(l) || l > 1e12 || l <= 0 {
			t.Fatalf("L_%d = %v", p, l)
		}
		if lo := LehmerOf(x, float64(p)); !finiteF(lo) || relDiff(lo, l) > 1e-13 {
			t.Fatalf("LehmerOf(%d) = %v, Sums %v", p, lo, l)
		}
		for _, v := range all.TwoPair[(p-1)*K : p*K] {
			if math.IsInf(v, 0) {
				t.Fatalf("two-pair at p=%d is infinite", p)
			}
		}
	}
	if v, err := s.TwoPair(100, 50); err != nil || !finiteF(v) {
		t.Errorf("TwoPair(100,50) = %v, %v", v, err)
	}
	// the same from published sums, far beyond float64 range (S_100 ~ 1e1200)
	sums := make([]*big.Float, K)
	for p := 1; p <= K; p++ {
		sums[p-1] = new(big.Float).SetPrec(512)
		for _, v := range x {
			t := new(big.Float).SetPrec(512).SetFloat64(v)
			pw := new(big.Float).SetPrec(512).SetInt64(1)
			for range p {
				pw.Mul(pw, t)
			}
			sums[p-1].Add(sums[p-1], pw)
		}
	}
	sp, err := FromPowerSums(int64(len(x)), sums)
	if err != nil {
		t.Fatal(err)
	}
	for p := 1; p <= K; p++ {
		a, _ := s.Lehmer(p)
		b, _ := sp.Lehmer(p)
		if !finiteF(b) || relDiff(a, b) > 1e-13 {
			t.Fatalf("L_%d from published sums %v, from values %v", p, b, a)
		}
	}
	if b := sp.Bracket(K); !finiteF(b.Hi) || !finiteF(b.Lo) || b.Lo > 1e12*(1+1e-12) || b.Hi < 1e12*(1-1e-12) {
		t.Errorf("bracket %+v does not contain the max 1e12", b)
	}
}

func finiteF(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func positiveSample(t *rapid.T) []float64 {
	n := rapid.IntRange(1, 30).Draw(t, "n")
	exp := rapid.IntRange(-3, 12).Draw(t, "magnitude")
	x := make([]float64, n)
	for i := range x {
		x[i] = rapid.Float64Range(1e-3, 1).Draw(t, "u") * math.Pow(10, float64(exp))
	}
	return x
}

func TestPropLehmerBelowMax(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := positiveSample(t)
		K := rapid.IntRange(1, 100).Draw(t, "K")
		mx := slices.Max(x)
		s, err := FromValues(x, K)
		if err != nil {
			t.Fatal(err)
		}
		prevErr := math.Inf(1)
		for p := 1; p <= K; p++ {
			l, _ := s.Lehmer(p)
			if !(l <= mx*(1+1e-14)) {
				t.Fatalf("L_%d = %v above the max %v", p, l, mx)
			}
			rel := (mx - l) / mx
			if rel > prevErr+1e-14 {
				t.Fatalf("relative error rose from %v to %v at p = %d", prevErr, rel, p)
			}
			prevErr = rel
		}
		// real p, including p <= 0
		for _, p := range []float64{-5, 0, 0.5, 1.5, 7.25} {
			if l := LehmerOf(x, p); !(l <= mx*(1+1e-14)) || l < slices.Min(x)*(1-1e-14) {
				t.Fatalf("LehmerOf(%v) = %v outside [min, max]", p, l)
			}
		}
	})
}

func TestPropRawCentralRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		K := rapid.IntRange(1, 8).Draw(t, "K")
		n := rapid.IntRange(1, 12).Draw(t, "n")
		x := make([]int64, n)
		for i := range x {
			x[i] = rapid.Int64Range(-1000, 100000).Draw(t, "x")
		}
		S := ratSums(x, K)
		m := make([]*big.Rat, K+1)
		for p := range m {
			m[p] = new(big.Rat).Quo(S[p], big.NewRat(int64(n), 1))
		}
		c := RawToCentral(m)
		// c must be the central moments computed directly
		mean := m[1]
		for p := 0; p <= K; p++ {
			direct := new(big.Rat)
			for _, v := range x {
				d := new(big.Rat).Sub(big.NewRat(v, 1), mean)
				direct.Add(direct, ratPow(d, p))
			}
			direct.Quo(direct, big.NewRat(int64(n), 1))
			if direct.Cmp(c[p]) != 0 {
				t.Fatalf("c_%d = %v, direct %v", p, c[p], direct)
			}
		}
		back := CentralToRaw(mean, c)
		for p := range m {
			if back[p].Cmp(m[p]) != 0 {
				t.Fatalf("round trip M_%d = %v, want %v", p, back[p], m[p])
			}
		}
		// float64 version: round trip within rounding
		mf := make([]float64, K+1)
		for p := range mf {
			mf[p], _ = m[p].Float64()
		}
		bf := CentralToRawFloat(mf[1], RawToCentralFloat(mf))
		for p := range mf {
			// cancellation grows with (|mean| + spread)^p / M_p; keep it loose
			if relDiff(bf[p], mf[p]) > 1e-6 && math.Abs(bf[p]-mf[p]) > 1e-6 {
				t.Fatalf("float round trip M_%d = %v, want %v", p, bf[p], mf[p])
			}
		}
	})
}

// TestSummaryDefinitions publishes a sample's mean, SD, skewness and
// kurtosis under every definition and checks that the raw moments come
// back.
func TestSummaryDefinitions(t *testing.T) {
	x := []float64{3, 7, 7, 19, 24, 30, 31, 55, 120}
	n := float64(len(x))
	var m [5]float64
	for _, v := range x {
		for p := 1; p <= 4; p++ {
			m[p] += math.Pow(v, float64(p)) / n
		}
	}
	mean := m[1]
	var c2, c3, c4 float64
	for _, v := range x {
		d := v - mean
		c2 += d * d / n
		c3 += d * d * d / n
		c4 += d * d * d * d / n
	}
	s := math.Sqrt(c2 * n / (n - 1))
	g1 := c3 / math.Pow(c2, 1.5)
	g2 := c4 / (c2 * c2)
	cases := []struct {
		def        Definition
		sd, sk, ku float64
	}{
		{Definition{}, s, g1, g2},
		{Definition{SD: PopulationSD, Excess: true}, math.Sqrt(c2), g1, g2 - 3},
		{Definition{Skewness: Adjusted, Kurtosis: Adjusted, Excess: true}, s, g1 * math.Sqrt(n*(n-1)) / (n - 2), ((n+1)*(g2-3) + 6) * (n - 1) / ((n - 2) * (n - 3))},
		{Definition{Skewness: Adjusted, Kurtosis: Adjusted}, s, g1 * math.Sqrt(n*(n-1)) / (n - 2), ((n+1)*(g2-3)+6)*(n-1)/((n-2)*(n-3)) + 3},
		{Definition{Skewness: SampleSDBased, Kurtosis: SampleSDBased}, s, c3 / (s * s * s), c4 / (s * s * s * s)},
		{Definition{Skewness: SampleSDBased, Kurtosis: SampleSDBased, Excess: true}, s, c3 / (s * s * s), c4/(s*s*s*s) - 3},
	}
	rat := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	for _, tc := range cases {
		sum := Summary{N: int64(n), Mean: rat(mean), SD: rat(tc.sd), Skewness: rat(tc.sk), Kurtosis: rat(tc.ku)}
		got, err := sum.RawMoments(tc.def)
		if err != nil {
			t.Fatalf("%v: %v", tc.def, err)
		}
		if len(got) != 4 {
			t.Fatalf("%v: %d moments", tc.def, len(got))
		}
		for p := 1; p <= 4; p++ {
			f, _ := got[p-1].Float64()
			if relDiff(f, m[p]) > 1e-10 {
				t.Errorf("%v: M_%d = %v, want %v", tc.def, p, f, m[p])
			}
		}
	}
	if _, err := (Summary{N: 5, Mean: big.NewRat(1, 1)}).RawMoments(Definition{SD: "weird"}); !errors.Is(err, ErrInput) {
		t.Errorf("unknown SD kind: %v", err)
	}
}

func TestRecoverIntsAndSmallestPower(t *testing.T) {
	x := []int64{1, 2, 3, 10}
	all, largest, err := SmallestRecoveryPower(x)
	if err != nil {
		t.Fatal(err)
	}
	sums, _ := IntSums(x, all)
	got, err := RecoverInts(sums, all)
	if err != nil || !equalDesc(got, x) {
		t.Fatalf("RecoverInts at p = %d: %v, %v", all, got, err)
	}
	if largest > all || largest < 1 {
		t.Errorf("largest power %d, all %d", largest, all)
	}
}

func equalDesc(got []*big.Int, x []int64) bool {
	want := slices.Clone(x)
	slices.Sort(want)
	slices.Reverse(want)
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !got[i].IsInt64() || got[i].Int64() != want[i] {
			return false
		}
	}
	return true
}

// TestPropSmallestPower checks the analytic smallest power against the
// iteration itself: it recovers the sample at p and not at p - 1, and it
// recovers the largest value first at the reported power.
func TestPropSmallestPower(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 15).Draw(t, "n")
		hi := rapid.Int64Range(0, 60).Draw(t, "hi")
		x := make([]int64, n)
		for i := range x {
			x[i] = rapid.Int64Range(0, hi).Draw(t, "x")
		}
		all, largest, err := SmallestRecoveryPower(x)
		if err != nil {
			t.Fatal(err)
		}
		sums, _ := IntSums(x, all)
		got, err := RecoverInts(sums, all)
		if err != nil || !equalDesc(got, x) {
			t.Fatalf("p = %d does not recover %v: %v %v", all, x, got, err)
		}
		if all > 1 {
			got, _ := RecoverInts(sums, all-1)
			if equalDesc(got, x) {
				t.Fatalf("p-1 = %d already recovers %v", all-1, x)
			}
		}
		mx := slices.Max(x)
		first := func(p int) bool {
			s, _ := IntSums(x, p)
			r, _ := RecoverInts(s, p)
			return len(r) > 0 && r[0].Int64() == mx
		}
		if !first(largest) || (largest > 1 && first(largest-1)) {
			t.Fatalf("largest recovered first at %d? %v / %v", largest, first(largest), largest > 1 && first(largest-1))
		}
	})
}

func TestRecoverFloat(t *testing.T) {
	x := []float64{3, 5, 9, 10}
	s, _ := FromValues(x, 12)
	got, err := s.Recover(12, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{10, 9, 5, 3}
	if !slices.Equal(got, want) {
		t.Errorf("Recover = %v, want %v", got, want)
	}
}

func TestAssessKnown(t *testing.T) {
	// one dominant value: L_2 = 10055/115 = 87.43 is 12.6% off and the
	// two-pair estimate 5.513 is 10.3% above 5; L_3 = 1000225/10055 = 99.48
	// is within 10%.
	x := []float64{100, 5, 4, 3, 2, 1}
	s, _ := FromValues(x, 6)
	a := Assess(s, &Truth{Largest: 100, Second: 5, HasSecond: true}, Options{Step: 1})
	if a.SafeOrder != 2 {
		t.Errorf("safe order %d, want 2", a.SafeOrder)
	}
	if !a.Orders[0].Safe || !a.Orders[1].Safe || a.Orders[2].Safe {
		t.Errorf("orders: %+v", a.Orders[:3])
	}
	if e := a.Orders[1].Largest.RelError; relDiff(e, 100*(100-10055.0/115)/100) > 1e-12 {
		t.Errorf("rel error at order 2: %v", e)
	}
	// a flat sample: nothing comes close before high orders
	y := []float64{10, 9.5, 9, 8.5, 8, 7.5, 7, 6.5, 6, 5.5}
	s, _ = FromValues(y, 2)
	a = Assess(s, &Truth{Largest: 10, Second: 9.5, HasSecond: true}, Options{})
	if a.Orders[0].Largest.RelError < 10 {
		t.Fatalf("mean error %v", a.Orders[0].Largest.RelError)
	}
	// the second largest's estimate from order 2 may be near 9.5: check consistency only
	for _, o := range a.Orders {
		want := !o.Largest.close(10) && !o.TwoPair.close(10) && !o.OnePair.close(10)
		if o.Safe != want {
			t.Errorf("order %d safe=%v inconsistent", o.P, o.Safe)
		}
	}
}

func TestBracket(t *testing.T) {
	x := []float64{10, 20, 30, 40, 1000}
	s, _ := FromValues(x, 8)
	for k := 1; k <= 8; k++ {
		b := s.Bracket(k)
		if b.Lo > 1000*(1+1e-12) || b.Hi < 1000*(1-1e-12) {
			t.Fatalf("order %d bracket [%v, %v] misses the max", k, b.Lo, b.Hi)
		}
	}
	// Samuelson: mean 220, population SD sqrt(c2), bound mean + sd sqrt(n-1)
	b := s.Bracket(2)
	mean := 220.0
	var c2 float64
	for _, v := range x {
		c2 += (v - mean) * (v - mean) / 5
	}
	if relDiff(b.Samuelson, mean+math.Sqrt(c2*4)) > 1e-12 {
		t.Errorf("Samuelson %v, want %v", b.Samuelson, mean+math.Sqrt(c2*4))
	}
	a := Assess(s, nil, Options{})
	if a.SafeOrder >= 8 {
		t.Errorf("a dominant value should be bracketed within 10%% by order 8: %+v", a.Orders[7].Bracket)
	}
}

func TestSimulateDeterministic(t *testing.T) {
	cfg := SimConfig{Sizes: []int{5, 20}, Means: []float64{10, 50}, Reps: 5, Seed: 7}
	a, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate(cfg)
	for i := range a {
		if !slices.Equal(a[i].All, b[i].All) {
			t.Fatalf("not deterministic: %v vs %v", a[i].All, b[i].All)
		}
		for r := range a[i].All {
			if a[i].Largest[r] > a[i].All[r] {
				t.Fatalf("largest needs more than all: %+v", a[i])
			}
		}
	}
	if _, err := Simulate(SimConfig{Sizes: []int{3}, Means: []float64{-1}, Reps: 1}); err == nil {
		t.Error("negative mean accepted")
	}
}

func TestPoissonMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mean := range []float64{0.5, 10, 75, 400} {
		sum := 0.0
		const N = 20000
		for range N {
			sum += float64(Poisson(rng, mean))
		}
		if got := sum / N; math.Abs(got-mean) > 5*math.Sqrt(mean/N) {
			t.Errorf("Poisson(%v) sample mean %v", mean, got)
		}
	}
}

// BenchmarkEstimateAll computes every estimate for p = 1..20 (Lehmer
// means, the full two-pair grid p' < p, one-pair) on cells of 20 values,
// including the power sums. b.N counts cells; ns/op × 1e6 is the time for
// a million cells.
func BenchmarkEstimateAll(b *testing.B) {
	const n, K, pool = 20, 20, 1 << 14
	rng := rand.New(rand.NewPCG(42, 43))
	data := make([]float64, pool*n)
	for i := range data {
		data[i] = math.Exp(rng.NormFloat64()*1.2 + 10) // log-normal, like revenues
	}
	pow := make([]float64, K)
	var e AllEstimates
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x := data[(i%pool)*n : (i%pool+1)*n]
		m := 0.0
		for _, v := range x {
			m = max(m, v)
		}
		clear(pow)
		accumulate(pow, x, 1/m)
		s := Sums{N: n, Scale: m, Pow: pow}
		s.EstimateAll(1, &e)
	}
}

// BenchmarkMillionCells is the acceptance figure: 1,000,000 cells of 20
// values, every estimate for p = 1..20, in one run.
func BenchmarkMillionCells(b *testing.B) {
	const cells, n, K = 1_000_000, 20, 20
	rng := rand.New(rand.NewPCG(42, 43))
	data := make([]float64, 1<<16*n)
	for i := range data {
		data[i] = math.Exp(rng.NormFloat64()*1.2 + 10)
	}
	pow := make([]float64, K)
	var e AllEstimates
	b.ResetTimer()
	for range b.N {
		for c := range cells {
			off := (c & (1<<16 - 1)) * n
			x := data[off : off+n]
			m := 0.0
			for _, v := range x {
				m = max(m, v)
			}
			clear(pow)
			accumulate(pow, x, 1/m)
			s := Sums{N: n, Scale: m, Pow: pow}
			s.EstimateAll(1, &e)
		}
	}
}

// TestEstimateAllAgrees checks the bulk path against the single estimators.
func TestEstimateAllAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := positiveSample(t)
		K := rapid.IntRange(1, 25).Draw(t, "K")
		step := rapid.SampledFrom([]float64{0, 0.01, 1}).Draw(t, "step")
		s, _ := FromValues(x, K)
		var e AllEstimates
		s.EstimateAll(step, &e)
		for p := 1; p <= K; p++ {
			l, _ := s.Lehmer(p)
			if e.Lehmer[p-1] != l {
				t.Fatalf("L_%d %v vs %v", p, e.Lehmer[p-1], l)
			}
			for q := 1; q <= K; q++ {
				v, err := s.TwoPair(p, q)
				got := e.TwoPair[(p-1)*K+q-1]
				if q >= p {
					if !math.IsNaN(got) {
						t.Fatalf("grid (%d,%d) = %v, want NaN", p, q, got)
					}
					continue
				}
				// both paths cancel digits; allow for the cancellation
				l := s.Pow[p-1] / s.scaled(p-1)
				pq, pq1 := s.scaled(q), s.scaled(q-1)
				lq1 := math.Pow(l, float64(q-1))
				tol := 1e-13 * max(pq/math.Abs(pq-lq1*l), pq1/math.Abs(pq1-lq1))
				if err == nil && math.IsNaN(got) || err != nil && !math.IsNaN(got) {
					// on the precision boundary the two paths may disagree
					if tol < 1e-3 {
						t.Fatalf("grid (%d,%d) = %v, TwoPair %v %v", p, q, got, v, err)
					}
					continue
				}
				if err == nil && relDiff(got, v) > tol {
					t.Fatalf("grid (%d,%d) = %v, TwoPair %v %v", p, q, got, v, err)
				}
			}
			if step > 0 {
				v, ls, err := s.OnePair(p, step)
				got := e.OnePair[p-1]
				r := ls / s.Scale
				pp, pp1 := s.scaled(p), s.scaled(p-1)
				t1 := math.Pow(r, float64(p-1))
				tol := 1e-13 * max(pp/math.Abs(pp-t1*r), pp1/math.Abs(pp1-t1))
				if (err != nil) != math.IsNaN(got) && tol < 1e-3 || (err == nil && !math.IsNaN(got) && relDiff(got, v) > tol) {
					t.Fatalf("one-pair %d = %v, OnePair %v %v", p, got, v, err)
				}
			}
		}
	})
}

// BenchmarkEstimateSingle is the baseline for BenchmarkEstimateAll: the
// same estimates per cell through FromValues, Lehmer, TwoPair and OnePair
// (allocating, math.Pow per estimate).
func BenchmarkEstimateSingle(b *testing.B) {
	const n, K, pool = 20, 20, 1 << 14
	rng := rand.New(rand.NewPCG(42, 43))
	data := make([]float64, pool*n)
	for i := range data {
		data[i] = math.Exp(rng.NormFloat64()*1.2 + 10)
	}
	b.ReportAllocs()
	b.ResetTimer()
	sink := 0.0
	for i := 0; i < b.N; i++ {
		s, _ := FromValues(data[(i%pool)*n:(i%pool+1)*n], K)
		for p := 1; p <= K; p++ {
			l, _ := s.Lehmer(p)
			sink += l
			for q := 1; q < p; q++ {
				v, _ := s.TwoPair(p, q)
				sink += v
			}
			v, _, _ := s.OnePair(p, 1)
			sink += v
		}
	}
	_ = sink
}

// BenchmarkMillionCellsParallel is BenchmarkMillionCells with the cells
// split over GOMAXPROCS goroutines, as the pipeline evaluates them.
func BenchmarkMillionCellsParallel(b *testing.B) {
	const cells, n, K = 1_000_000, 20, 20
	rng := rand.New(rand.NewPCG(42, 43))
	data := make([]float64, 1<<16*n)
	for i := range data {
		data[i] = math.Exp(rng.NormFloat64()*1.2 + 10)
	}
	workers := runtime.GOMAXPROCS(0)
	b.ResetTimer()
	for range b.N {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pow := make([]float64, K)
				var e AllEstimates
				for c := w; c < cells; c += workers {
					off := (c & (1<<16 - 1)) * n
					x := data[off : off+n]
					m := 0.0
					for _, v := range x {
						m = max(m, v)
					}
					clear(pow)
					accumulate(pow, x, 1/m)
					s := Sums{N: n, Scale: m, Pow: pow}
					s.EstimateAll(1, &e)
				}
			}()
		}
		wg.Wait()
	}
}
