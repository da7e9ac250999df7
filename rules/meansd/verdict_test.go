package meansd

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// oracleVerdict decides DOMAIN.md's verdict from every solution (found by
// brute force), independently of the solver's counting and queries. grid
// holds the value of each grid index.
func oracleVerdict(all [][]int, grid []*big.Rat, n, minSol, slack int, magnitude bool, pct *big.Rat) (Verdict, *Forced) {
	K := len(grid) - 1
	if len(all) == 0 {
		return Inconsistent, nil
	}
	var group *Forced
	if need := n - slack; need >= 1 {
		for k := 0; k <= K; k++ {
			least := n
			for _, c := range all {
				least = min(least, c[k])
			}
			if least >= need && (group == nil || least > group.MinCount) {
				group = &Forced{grid[k].RatString(), least}
			}
		}
	}
	if group != nil || len(all) == 1 {
		return Disclosive, group
	}
	mxLo, mxHi, mnLo, mnHi := K, 0, K, 0
	for _, c := range all {
		lo, hi := -1, -1
		for k, x := range c {
			if x > 0 {
				if lo < 0 {
					lo = k
				}
				hi = k
			}
		}
		mxLo, mxHi, mnLo, mnHi = min(mxLo, hi), max(mxHi, hi), min(mnLo, lo), max(mnHi, lo)
	}
	if magnitude && (mxLo == mxHi && mxHi < K || mnLo == mnHi && mnLo > 0) {
		return Disclosive, nil
	}
	if len(all) < minSol {
		return Risky, nil
	}
	if magnitude && pct != nil && !(mxLo == mxHi && mxHi == K) {
		w := new(big.Rat).Sub(grid[mxHi], grid[mxLo])
		w.Mul(w, big.NewRat(100, 1))
		lim := new(big.Rat).Abs(grid[mxHi])
		if w.Cmp(lim.Mul(lim, pct)) < 0 {
			return Risky, nil
		}
	}
	return Safe, nil
}

func gridOf(req Request) []*big.Rat {
	mn, _ := new(big.Rat).SetString(req.Min)
	mx, _ := new(big.Rat).SetString(req.Max)
	var grid []*big.Rat
	for v := mn; v.Cmp(mx) <= 0; v = new(big.Rat).Add(v, big.NewRat(1, 1)) {
		grid = append(grid, v)
	}
	return grid
}

// TestVerdictAgainstBruteForce checks the verdict (exact, capped as the
// pipeline rule asks, count only) against oracleVerdict on every solution,
// on random small scales and magnitudes, with random slack, interval and
// minimum; and the exact extremes and group queries against the full list.
func TestVerdictAgainstBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		req := genRequest(t)
		req.Magnitude = rapid.Bool().Draw(t, "magnitude")
		req.GroupSlack = rapid.IntRange(0, 3).Draw(t, "slack")
		req.Interval = rapid.SampledFrom([]string{"", "0", "10", "25", "50", "100"}).Draw(t, "interval")
		req.MinSolutions = rapid.IntRange(1, 12).Draw(t, "minsol")
		all := bruteForce(req)
		var pct *big.Rat
		if req.Interval != "" {
			pct, _ = new(big.Rat).SetString(req.Interval)
		}
		want, wantGroup := oracleVerdict(all, gridOf(req), req.N, req.MinSolutions, req.GroupSlack, req.Magnitude, pct)
		for _, cp := range []uint64{0, uint64(req.MinSolutions), 1} {
			r := req
			r.Cap = cp
			res, err := Solve(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != want && !(cp == 1 && req.MinSolutions > 2 && res.Verdict == NotDetermined) {
				t.Fatalf("cap %d %+v: verdict %s (%s), brute force %s", cp, r, res.Verdict, res.Reason, want)
			}
			if res.Verdict != NotDetermined && !reflect.DeepEqual(res.Group, wantGroup) {
				t.Fatalf("cap %d %+v: group %+v, brute force %+v", cp, r, res.Group, wantGroup)
			}
		}
		r := req
		r.CountOnly = true
		res, err := Solve(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		fails := func(v Verdict) bool { return v == Disclosive || v == Risky }
		switch {
		case res.Verdict == want:
		case res.Verdict == NotDetermined && (req.GroupSlack > 0 || req.Magnitude):
		case fails(res.Verdict) && fails(want) && (req.GroupSlack > 0 || req.Magnitude):
		default:
			t.Fatalf("count only %+v: verdict %s (%s), brute force %s", r, res.Verdict, res.Reason, want)
		}
		// a cancelled context: whatever was found in time never gives a
		// verdict the full list contradicts
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, cp := range []uint64{0, uint64(req.MinSolutions)} {
			r := req
			r.Cap = cp
			res, err := Solve(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != want && res.Verdict != NotDetermined && !(fails(res.Verdict) && fails(want)) {
				t.Fatalf("cancelled, cap %d %+v: verdict %s (%s), brute force %s", cp, r, res.Verdict, res.Reason, want)
			}
		}
		// the exact extremes from one solution agree with the full list
		if len(all) > 0 {
			p, _ := compile(req)
			var got, exp Result
			analyseList(p, all, &exp)
			for _, known := range [][]int{all[0], all[len(all)-1]} {
				if err := extremes(context.Background(), p, &work{}, known, &got); err != nil {
					t.Fatal(err)
				}
				if *got.MaxRange != *exp.MaxRange || *got.MinRange != *exp.MinRange {
					t.Fatalf("%+v: extremes %+v %+v, want %+v %+v", req, got.MaxRange, got.MinRange, exp.MaxRange, exp.MinRange)
				}
			}
		}
	})
}

// bruteTriples lists every triple on 0..K (step 1) that fits req, by
// enumerating pairs and the sums the mean allows, with a float prefilter
// and the exact oracle.
func bruteTriples(req Request, K int) [][]int {
	pm, _ := new(big.Rat).SetString(req.Mean)
	m, _ := pm.Float64()
	ps, _ := new(big.Rat).SetString(req.SD)
	sd, _ := ps.Float64()
	var out [][]int
	for S := int(math.Floor(3*(m-1))) - 1; S <= int(math.Ceil(3*(m+1)))+1; S++ {
		for x := 0; x <= K && 3*x <= S; x++ {
			for y := x; y <= K && x+2*y <= S; y++ {
				z := S - x - y
				if z < y || z > K {
					continue
				}
				mean := float64(S) / 3
				v := ((float64(x)-mean)*(float64(x)-mean) + (float64(y)-mean)*(float64(y)-mean) + (float64(z)-mean)*(float64(z)-mean)) / 2
				if math.Abs(math.Sqrt(v)-sd) > 0.6 {
					continue
				}
				vals := []*big.Rat{big.NewRat(int64(x), 1), big.NewRat(int64(y), 1), big.NewRat(int64(z), 1)}
				if oracleMatch(req, vals) {
					c := make([]int, K+1)
					c[x]++
					c[y]++
					c[z]++
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// TestMagnitudeWide checks verdicts on magnitude and scale measures with
// wide grids (0..K, K up to 400, beyond the quick analysis), capped at 10 as
// the pipeline rule asks, so that the exact extremes come from existence
// queries; against brute force over all triples. Requests run concurrently.
func TestMagnitudeWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 3))
	type job struct {
		req  Request
		K    int
		want Verdict
	}
	var jobs []job
	seen := map[Verdict]int{}
	for range 60 {
		K := 65 + rng.IntN(336)
		v := []int{rng.IntN(K + 1), rng.IntN(K + 1), rng.IntN(K + 1)}
		if rng.IntN(2) == 0 {
			v[2] = K/2 + rng.IntN(K/2+1) // an outlier
		}
		sort.Ints(v)
		vals := []*big.Rat{big.NewRat(int64(v[0]), 1), big.NewRat(int64(v[1]), 1), big.NewRat(int64(v[2]), 1)}
		mean, variance, _ := stats(vals, false)
		req := Request{N: 3, Min: "0", Max: fmt.Sprint(K), Mean: roundRat(mean, 1+rng.IntN(2), HalfUp),
			SD: roundSqrt(variance, rng.IntN(3), HalfUp), Cap: 10, MinSolutions: 10, Interval: "25",
			Magnitude: rng.IntN(4) != 0}
		all := bruteTriples(req, K)
		want, _ := oracleVerdict(all, gridOf(req), 3, 10, 0, req.Magnitude, big.NewRat(25, 1))
		seen[want]++
		jobs = append(jobs, job{req, K, want})
	}
	t.Logf("verdicts: %v", seen)
	var wg sync.WaitGroup
	errs := make([]string, len(jobs))
	for i, j := range jobs {
		wg.Go(func() {
			res, err := Solve(context.Background(), j.req)
			if err != nil || res.Verdict != j.want {
				errs[i] = fmt.Sprintf("%+v: verdict %s (%s, %v), brute force %s", j.req, res.Verdict, res.Reason, err, j.want)
			}
		})
	}
	wg.Wait()
	if msg := strings.Join(errs, ""); msg != "" {
		for _, e := range errs {
			if e != "" {
				t.Error(e)
			}
		}
	}
}

// TestMagnitudePinnedMax is issue 18's magnitude case: on 0..1000 step 1,
// n = 3, three samples {116,120,855}, {117,119,855}, {118,118,855} all have
// the largest amount 855, inside the domain: disclosive, naming the value.
// On a scale the same figures are only "fewer than 10".
func TestMagnitudePinnedMax(t *testing.T) {
	req := Request{N: 3, Min: "0", Max: "1000", Mean: "363.67", SD: "425.51", Magnitude: true, Interval: "25", List: 10}
	if got := len(bruteTriples(req, 1000)); got != 3 {
		t.Fatalf("brute force: %d solutions, want 3", got)
	}
	for _, cp := range []uint64{0, 10} {
		req.Cap = cp
		res := solve(t, req)
		if res.Verdict != Disclosive || !strings.Contains(res.Reason, "the largest amount is 855 in every solution") {
			t.Errorf("cap %d: %s: %s", cp, res.Verdict, res.Reason)
		}
	}
	req.Magnitude, req.Cap = false, 0
	if res := solve(t, req); res.Verdict != Risky || !strings.Contains(res.Reason, "fewer than 10") {
		t.Errorf("scale: %s: %s", res.Verdict, res.Reason)
	}
}

// TestGroupDisclosure: 15 answers of 4 (mean 4.00, SD 0.00) tell that all
// 15 respondents answered 4.
func TestGroupDisclosure(t *testing.T) {
	for _, cp := range []uint64{0, 10} {
		res := solve(t, Request{N: 15, Min: "1", Max: "5", Mean: "4.00", SD: "0.00", Cap: cp})
		if res.Verdict != Disclosive || !strings.Contains(res.Reason, "all 15 respondents answered 4") ||
			res.Group == nil || *res.Group != (Forced{"4", 15}) {
			t.Errorf("cap %d: %s: %s (group %+v)", cp, res.Verdict, res.Reason, res.Group)
		}
	}
}

// TestListCut: a listing is bounded by MaxListValues (here by the grid of
// 100,000 values) and says so when fewer are listed than asked and found;
// below the bound every sample asked for is listed (issue 10: --list
// 30000 gave 20,000).
func TestListCut(t *testing.T) {
	res := solve(t, Request{N: 3, Min: "0", Max: "9999", Mean: "5000", SD: "2000", Cap: 2000, List: 1800})
	want := MaxListValues / 10000
	if res.Solutions != 2000 || len(res.Samples) != want || !res.ListCut {
		t.Errorf("%d solutions, %d listed (cut %v), want 2000, %d, cut", res.Solutions, len(res.Samples), res.ListCut, want)
	}
	res = solve(t, Request{N: 200, Min: "1", Max: "5", Mean: "3.0", SD: "1.2", Rounding: Closed, List: 30000, Cap: 40000})
	if len(res.Samples) != 30000 || res.ListCut {
		t.Errorf("%d listed (cut %v), want 30000", len(res.Samples), res.ListCut)
	}
	for i, s := range res.Samples {
		vals := make([]*big.Rat, len(s))
		for j, v := range s {
			vals[j], _ = new(big.Rat).SetString(v)
		}
		if i%997 == 0 && !oracleMatch(Request{N: 200, Mean: "3.0", SD: "1.2", Rounding: Closed}, vals) {
			t.Fatalf("listed %v does not fit", s)
		}
	}
}
