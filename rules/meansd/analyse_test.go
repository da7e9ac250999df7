package meansd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// sameAnalysis compares the ranges, forced and impossible values of two
// results.
func sameAnalysis(got, want Result) error {
	if !reflect.DeepEqual(got.MaxRange, want.MaxRange) || !reflect.DeepEqual(got.MinRange, want.MinRange) {
		return fmt.Errorf("ranges max %+v min %+v, want max %+v min %+v", got.MaxRange, got.MinRange, want.MaxRange, want.MinRange)
	}
	if !reflect.DeepEqual(got.Forced, want.Forced) {
		return fmt.Errorf("forced %+v, want %+v", got.Forced, want.Forced)
	}
	if !reflect.DeepEqual(got.Impossible, want.Impossible) {
		return fmt.Errorf("impossible %v, want %v", got.Impossible, want.Impossible)
	}
	return nil
}

// TestAnalyseDPAgainstBruteForce checks the one-pass analysis (ranges of
// the maximum and minimum, forced values with their least counts,
// impossible values) against every multiset enumerated by brute force.
func TestAnalyseDPAgainstBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		req := genRequest(t)
		req.Median = ""
		all := bruteForce(req)
		p, err := compile(req)
		if err != nil {
			t.Fatal(err)
		}
		var got Result
		err = analyseDP(context.Background(), p, DefaultMaxCells, &got, nil)
		if len(all) == 0 {
			if !errors.Is(err, errStop) {
				t.Fatalf("%+v: no solution, analysis %v %+v", req, err, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		var want Result
		analyseList(p, all, &want)
		if err := sameAnalysis(got, want); err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
	})
}

// randomSample draws a request from a random sample of n values on 0..K.
func randomSample(rng *rand.Rand, n, K int, r Rounding) Request {
	var S, Q float64
	a, b := rng.IntN(K+1), rng.IntN(K+1)
	for range n {
		x := a + rng.IntN(max(1, b-a+1))
		if rng.IntN(4) == 0 {
			x = rng.IntN(K + 1)
		}
		S += float64(x)
		Q += float64(x * x)
	}
	sd := math.Sqrt(max(0, (Q-S*S/float64(n))/float64(n-1)))
	dp := 1 + rng.IntN(2)
	return Request{N: n, Min: "1", Max: fmt.Sprint(K + 1), Mean: fmt.Sprintf("%.*f", dp, 1+S/float64(n)),
		SD: fmt.Sprintf("%.*f", dp, sd), Rounding: r}
}

// TestAnalyseDPAgainstQueries checks the one-pass analysis against the
// existence searches on samples beyond brute force (n up to 150, several
// words per size bitset), concurrently.
func TestAnalyseDPAgainstQueries(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	var reqs []Request
	for len(reqs) < 60 {
		n, K := 2+rng.IntN(150), 1+rng.IntN(8)
		reqs = append(reqs, randomSample(rng, n, K, []Rounding{HalfUp, HalfEven, Closed}[rng.IntN(3)]))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(reqs))
	for i, req := range reqs {
		wg.Go(func() {
			p, err := compile(req)
			if err != nil {
				errs[i] = err
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var got, want Result
			gerr := analyseDP(ctx, p, DefaultMaxCells, &got, nil)
			werr := analyseQueries(ctx, p, &work{}, nil, &want)
			switch {
			case errors.Is(werr, errTime):
				t.Logf("%+v: the searches did not finish", req)
				return // nothing to compare
			case werr != nil:
				errs[i] = fmt.Errorf("%+v: queries %v", req, werr)
			case want.MaxRange == nil:
				if !errors.Is(gerr, errStop) {
					errs[i] = fmt.Errorf("%+v: no solution, analysis %v", req, gerr)
				}
			case gerr != nil:
				errs[i] = fmt.Errorf("%+v: %v", req, gerr)
			default:
				if err := sameAnalysis(got, want); err != nil {
					errs[i] = fmt.Errorf("%+v: %v", req, err)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
