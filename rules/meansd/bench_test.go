package meansd

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func benchCount(b *testing.B, req Request, want uint64) {
	req.CountOnly = true
	for b.Loop() {
		res, err := Solve(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if res.Solutions != want || !res.Determined {
			b.Fatalf("%d solutions, want %d", res.Solutions, want)
		}
	}
}

// The targets of issue 4 (count only).
func BenchmarkCount200on5(b *testing.B) {
	benchCount(b, Request{N: 200, Min: "1", Max: "5", Mean: "3.0", SD: "1.2", Rounding: Closed}, 661948)
}
func BenchmarkCount100on7(b *testing.B) {
	benchCount(b, Request{N: 100, Min: "1", Max: "7", Mean: "4.0", SD: "1.5", Rounding: Closed}, 6139677)
}
func BenchmarkCount200on7(b *testing.B) {
	benchCount(b, Request{N: 200, Min: "1", Max: "7", Mean: "4.0", SD: "2.0", Rounding: Closed}, 646704518)
}
func BenchmarkCount60on10(b *testing.B) {
	benchCount(b, Request{N: 60, Min: "1", Max: "10", Mean: "3.1", SD: "2.1", Rounding: Closed}, 6854464)
}

func BenchmarkSpace12(b *testing.B) {
	for b.Loop() {
		rows, err := Space(context.Background(), SpaceRequest{Min: "1", Max: "12", N: []int{12}, DPs: []int{ExactDP, 2, 1}, Rounding: HalfEven})
		if err != nil {
			b.Fatal(err)
		}
		if rows[0].Samples != 1352078 || rows[0].Unique[0] != 1244 {
			b.Fatalf("%+v", rows[0])
		}
	}
}

// Baseline: brute-force enumeration of every multiset against the solver
// on the same case (n = 10 on 1..7, 8008 multisets), in the same run.
var baseReq = Request{N: 10, Min: "1", Max: "7", Mean: "4.0", SD: "1.5", Rounding: Closed}

func BenchmarkBaselineBrute(b *testing.B) {
	want := uint64(len(bruteForce(baseReq)))
	for b.Loop() {
		if uint64(len(bruteForce(baseReq))) != want {
			b.Fatal("unstable")
		}
	}
}
func BenchmarkBaselineSolver(b *testing.B) {
	want := uint64(len(bruteForce(baseReq)))
	benchCount(b, baseReq, want)
}

// randomCapped draws a capped request: n ≤ 10000 on a scale of ≤ 1000
// values, from a random true sample so that most are consistent.
func randomCapped(rng *rand.Rand) Request {
	n := 2 + rng.IntN(9999)
	K := 1 + rng.IntN(999)
	// a sample from a random two-point mixture
	var S, Q float64
	a, c := rng.IntN(K+1), rng.IntN(K+1)
	pa := rng.Float64()
	for range n {
		x := float64(c)
		if rng.Float64() < pa {
			x = float64(a)
		}
		x += float64(rng.IntN(max(1, K/10)))
		x = min(x, float64(K))
		S += x
		Q += x * x
	}
	mean := S / float64(n)
	sd := 0.0
	if v := (Q - S*S/float64(n)) / float64(n-1); v > 0 {
		sd = math.Sqrt(v)
	}
	dp := rng.IntN(3)
	return Request{N: n, Min: "0", Max: fmt.Sprint(K), Mean: fmt.Sprintf("%.*f", dp, mean), SD: fmt.Sprintf("%.*f", dp, sd),
		Cap: 10, Budget: DefaultBudget}
}

func BenchmarkCapped(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		if _, err := Solve(context.Background(), randomCapped(rng)); err != nil {
			b.Fatal(err)
		}
	}
}

var cappedRuns = flag.Int("capped", 0, "run this many random capped requests (fixed seed) and report the share determined")

// TestCappedShare runs -capped N random capped requests with a fixed seed
// and reports the share determined within the 1 s limit.
func TestCappedShare(t *testing.T) {
	if *cappedRuns == 0 {
		t.Skip("use -capped N")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	det, over := 0, 0
	var worst time.Duration
	verdicts := map[Verdict]int{}
	for range *cappedRuns {
		req := randomCapped(rng)
		t0 := time.Now()
		res, err := Solve(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(t0)
		worst = max(worst, d)
		if d > 1100*time.Millisecond {
			over++
		}
		verdicts[res.Verdict]++
		if res.Determined && res.Verdict != NotDetermined {
			det++
		}
	}
	t.Logf("%d/%d determined (%.2f%%), %d over 1.1 s, worst %v, verdicts %v", det, *cappedRuns, 100*float64(det)/float64(*cappedRuns), over, worst, verdicts)
}

// naiveCount is the reference CLOSURE-style count (issue 15's baseline): a
// recursion over the values from the largest down, on (value, remaining
// count, remaining sum, remaining sum of squares) with a map memo and the
// quick bounds on the sum of squares, summed over every target (S, Q).
func naiveCount(p *problem) uint64 {
	type key struct{ v, r, s, q int32 }
	memo := map[key]uint64{}
	var f func(v, r, s, q int64) uint64
	f = func(v, r, s, q int64) uint64 {
		if r == 0 || v == 0 {
			if s == 0 && q == 0 {
				return 1
			}
			return 0
		}
		// r values in 0..v with sum s: q between the balanced and the
		// extreme split
		if s < 0 || s > r*v || q < qmin(r, s) || q > qmax(r, s, v) {
			return 0
		}
		k := key{int32(v), int32(r), int32(s), int32(q)}
		if x, ok := memo[k]; ok {
			return x
		}
		var x uint64
		for c := int64(0); c <= r && c*v <= s; c++ {
			x += f(v-1, r-c, s-c*v, q-c*v*v)
		}
		memo[k] = x
		return x
	}
	var total uint64
	for S := p.sLo; S <= p.sHi; S++ {
		qlo, qhi := p.qRange(S)
		for Q := max(qlo, 0); Q <= qhi; Q++ {
			total += f(int64(p.K), int64(p.n), S, Q)
		}
	}
	return total
}

// The reconstruct row of issue 15: the full analysis as the CLI runs it
// (count, ranges, forced and impossible values, samples, verdict) beside
// the naive memoised count DP, in the same run.
var fullReq = Request{N: 200, Min: "1", Max: "7", Mean: "4.0", SD: "2.0", Rounding: Closed, List: 10, TimeLimit: time.Minute}

const fullCount = 646704518

func BenchmarkFull200on7(b *testing.B) {
	for b.Loop() {
		res, err := Solve(context.Background(), fullReq)
		if err != nil {
			b.Fatal(err)
		}
		if res.Solutions != fullCount || !res.Analysed || res.Verdict != Safe {
			b.Fatalf("%d solutions, analysed %v, %s", res.Solutions, res.Analysed, res.Verdict)
		}
	}
}

func BenchmarkFull200on7NaiveDP(b *testing.B) {
	p, err := compile(fullReq)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if got := naiveCount(p); got != fullCount {
			b.Fatalf("naive count %d, want %d", got, fullCount)
		}
	}
}
