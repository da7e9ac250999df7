package moments

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// exactVerdict is an independent implementation of the known-truth
// verdict in math/big.Rat: L_p, the two-pair estimate (p, p/2) and the
// one-pair estimate (L_p rounded up to step) against the true largest and
// second largest, unsafe when |true - estimate| < thr/100 · true.
func exactVerdict(S []*big.Rat, largest, second, step, thr *big.Rat, k int) (safeOrder, firstUnsafe int) {
	n := S[0]
	lehmer := func(p int) *big.Rat { return new(big.Rat).Quo(S[p], S[p-1]) }
	resid := func(q int, l *big.Rat) *big.Rat {
		num := new(big.Rat).Sub(S[q], ratPow(l, q))
		den := new(big.Rat).Sub(S[q-1], ratPow(l, q-1))
		if num.Sign() <= 0 || den.Sign() <= 0 {
			return nil
		}
		v := new(big.Rat).Quo(num, den)
		if v.Cmp(l) > 0 {
			v = l
		}
		return v
	}
	close := func(truth, est *big.Rat) bool {
		if est == nil || truth == nil || truth.Sign() <= 0 {
			return false
		}
		d := new(big.Rat).Sub(truth, est)
		d.Abs(d)
		return d.Cmp(new(big.Rat).Mul(truth, thr)) < 0
	}
	safeOrder = -1
	for p := 1; p <= k; p++ {
		l := lehmer(p)
		unsafe := close(largest, l)
		if p >= 2 && n.Cmp(big.NewRat(2, 1)) >= 0 {
			unsafe = unsafe || close(second, resid(p/2, l))
		}
		if n.Cmp(big.NewRat(2, 1)) >= 0 {
			q := new(big.Rat).Quo(l, step)
			c := new(big.Int).Quo(q.Num(), q.Denom())
			if !q.IsInt() {
				c.Add(c, big.NewInt(1))
			}
			ls := new(big.Rat).Mul(new(big.Rat).SetInt(c), step)
			unsafe = unsafe || close(second, resid(p, ls))
		}
		if unsafe && safeOrder < 0 {
			safeOrder, firstUnsafe = p-1, p
		}
	}
	if safeOrder < 0 {
		safeOrder = k
	}
	return safeOrder, firstUnsafe
}

// TestOracleLehmerExact compares the Lehmer estimates and verdicts with
// exact rationals on random samples (fixed seeds), among them samples with
// the largest estimate exactly at the threshold, and checks that
// inconsistent moments (a falling Lehmer sequence, kurtosis below skewness
// squared plus one) are review, never safe. Samples run concurrently.
func TestOracleLehmerExact(t *testing.T) {
	const K = 8
	seeds := make(chan uint64)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				if err := oracleSample(seed, K); err != nil {
					t.Errorf("seed %d: %v", seed, err)
				}
			}
		}()
	}
	for seed := uint64(1); seed <= 400; seed++ {
		seeds <- seed
	}
	close(seeds)
	wg.Wait()
}

func oracleSample(seed uint64, K int) error {
	rng := rand.New(rand.NewPCG(seed, 10))
	dp := rng.IntN(3)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dp)), nil)
	var ks []int64
	thrText := "10"
	switch seed % 4 {
	case 0: // {a, 0.8a}: L_1 exactly 10% below the maximum
		a := 5 * (1 + rng.Int64N(400))
		ks = []int64{a, a * 4 / 5}
	case 1: // one dominant value
		n := 2 + rng.IntN(10)
		for range n {
			ks = append(ks, rng.Int64N(50))
		}
		ks = append(ks, 1000+rng.Int64N(1000))
	default:
		n := 2 + rng.IntN(30)
		for range n {
			ks = append(ks, rng.Int64N(1000))
		}
		ks = append(ks, 1+rng.Int64N(1000))
		thrText = []string{"10", "5", "12.5", "0.6"}[rng.IntN(4)]
	}
	xr := make([]*big.Rat, len(ks))
	xf := make([]float64, len(ks))
	var largest, second *big.Rat
	for i, k := range ks {
		xr[i] = new(big.Rat).SetFrac(big.NewInt(k), den)
		xf[i], _ = xr[i].Float64()
		switch {
		case largest == nil || xr[i].Cmp(largest) > 0:
			second, largest = largest, xr[i]
		case second == nil || xr[i].Cmp(second) > 0:
			second = xr[i]
		}
	}
	S := make([]*big.Rat, K+1)
	for p := range S {
		S[p] = new(big.Rat)
		for _, v := range xr {
			S[p].Add(S[p], ratPow(v, p))
		}
	}
	s, err := FromValues(xf, K)
	if err != nil {
		return err
	}
	// the Lehmer means
	for p := 1; p <= K; p++ {
		want, _ := new(big.Rat).Quo(S[p], S[p-1]).Float64()
		got, err := s.Lehmer(p)
		if err != nil || relDiff(got, want) > 1e-13 {
			return fmt.Errorf("L_%d = %v (%v), exact %v", p, got, err, want)
		}
	}
	// the moments of a real sample pass the consistency checks
	m := make([]*big.Rat, K)
	for p := range m {
		m[p] = new(big.Rat).Quo(S[p+1], S[0])
	}
	if inc := CheckRaw(m); inc != nil {
		return fmt.Errorf("moments of non-negative data called inconsistent: %s", inc.Reason)
	}
	// the verdict against the exact implementation
	step := new(big.Rat).SetFrac(big.NewInt(1), den)
	stepF, _ := step.Float64()
	thr, _ := new(big.Rat).SetString(thrText)
	thrF, _ := thr.Float64()
	thr.Quo(thr, big.NewRat(100, 1))
	truth := &Truth{}
	truth.Largest, _ = largest.Float64()
	truth.Second, _ = second.Float64()
	truth.HasSecond = true
	a := Assess(s, truth, Options{MaxRelError: thrF, Step: stepF, Exact: &Exact{Values: xr, Largest: largest, Second: second, Step: step}})
	d := Decide(&a, K, nil)
	wantSafe, wantFirst := exactVerdict(S, largest, second, step, thr, K)
	if a.SafeOrder != wantSafe || (d.Verdict == VerdictSafe) != (wantFirst == 0) || d.Order != wantFirst {
		return fmt.Errorf("sample %v thr %s%%: safe order %d, verdict %s at order %d; exact: safe order %d, first unsafe %d", ks, thrText, a.SafeOrder, d.Verdict, d.Order, wantSafe, wantFirst)
	}
	// a falling Lehmer sequence: S_3 lowered so that L_3 < L_2
	bad := make([]*big.Rat, K)
	copy(bad, m)
	l2 := new(big.Rat).Quo(m[1], m[0])
	bad[2] = new(big.Rat).Mul(m[1], l2)
	bad[2].Mul(bad[2], big.NewRat(999, 1000))
	if err := mustReview(s.N, bad, CheckRaw(bad), "Lehmer means fall"); err != nil {
		return err
	}
	// kurtosis below skewness squared plus one (population SD, g1, g2)
	mean := m[0]
	c2 := new(big.Rat).Sub(m[1], new(big.Rat).Mul(mean, mean))
	if c2.Sign() > 0 {
		g1 := big.NewRat(rng.Int64N(4001)-2000, 1000)
		g2 := new(big.Rat).Mul(g1, g1)
		g2.Add(g2, big.NewRat(1, 1))
		g2.Sub(g2, big.NewRat(1+rng.Int64N(100), 1000))
		sum := Summary{N: s.N, Mean: mean, Variance: c2, Skewness: g1, Kurtosis: g2}
		def := Definition{SD: PopulationSD}
		inc, err := sum.Check(def)
		if err != nil {
			return err
		}
		rm, err := sum.RawMoments(def)
		if err != nil {
			return err
		}
		if err := mustReview(s.N, rm, inc, ""); err != nil {
			return fmt.Errorf("g1 %s g2 %s: %v", g1.FloatString(3), g2.FloatString(3), err)
		}
	}
	return nil
}

// mustReview checks that inconsistent moments give review, also when the
// attack itself runs on them.
func mustReview(n int64, m []*big.Rat, inc *Inconsistency, reason string) error {
	if inc == nil {
		return fmt.Errorf("inconsistent moments %v accepted", m)
	}
	if !strings.Contains(inc.Reason, reason) {
		return fmt.Errorf("reason %q, want %q", inc.Reason, reason)
	}
	var a *Assessment
	if s, err := FromMoments(n, RatsToFloats(m)); err == nil {
		as := Assess(s, nil, Options{})
		a = &as
	}
	if d := Decide(a, len(m), inc); d.Verdict != VerdictReview || d.Reason != inc.Reason {
		return fmt.Errorf("inconsistent moments: verdict %s (%s)", d.Verdict, d.Reason)
	}
	return nil
}

// Issue 10 item 5: RoundUp never lowers a large value by a step, and the
// one-pair estimate uses the maximum itself (10000000, 5000000, 1000.125
// at p = 40 with step 0.001 once gave L*_40 = 9999999.99).
func TestRoundUpLargeValues(t *testing.T) {
	if got := RoundUp(1e7-9e-6, 0.001); got != 1e7 {
		t.Errorf("RoundUp(1e7 - 9e-6, 0.001) = %v, want 1e7", got)
	}
	for _, c := range []struct{ v, step, want float64 }{{0.3, 0.1, 0.3}, {1.1, 0.1, 1.1}, {5.000000000000001, 1, 5}, {5.01, 1, 6}, {1e12 + 0.5, 1, 1e12 + 1}} {
		if got := RoundUp(c.v, c.step); relDiff(got, c.want) > 1e-15 {
			t.Errorf("RoundUp(%v, %v) = %v, want %v", c.v, c.step, got, c.want)
		}
	}
	s, err := FromValues([]float64{10000000, 5000000, 1000.125}, 40)
	if err != nil {
		t.Fatal(err)
	}
	second, largest, err := s.OnePair(40, 0.001)
	if err != nil || largest != 1e7 || relDiff(second, 5e6) > 1e-6 {
		t.Errorf("OnePair(40, 0.001) = %v, L* = %v (%v), want 5e6 and 1e7", second, largest, err)
	}
	var e AllEstimates
	s.EstimateAll(0.001, &e)
	if relDiff(e.OnePair[39], 5e6) > 1e-6 {
		t.Errorf("EstimateAll one-pair at p = 40: %v, want 5e6", e.OnePair[39])
	}
}

// Issue 10 item 5: a huge published n does not make the recovery allocate
// (it panicked in makeslice).
func TestRecoverHugeN(t *testing.T) {
	sums := []*big.Int{big.NewInt(1_000_000_000_000_000), big.NewInt(5_000_000_000_000_000), big.NewInt(30_000_000_000_000_000)}
	if _, err := RecoverInts(sums, 2); err != ErrTooMany {
		t.Errorf("RecoverInts with n = 1e15: %v, want ErrTooMany", err)
	}
	s := Sums{N: 1_000_000_000_000_000, Scale: 10, Pow: []float64{0.5e15, 0.3e15}}
	if _, err := s.Recover(2, 1); err != ErrTooMany {
		t.Errorf("Recover with n = 1e15: %v, want ErrTooMany", err)
	}
}
