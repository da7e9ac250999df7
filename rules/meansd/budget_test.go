package meansd

import (
	"context"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBudgetIsDeterministic (issue 23 item 4a): a request bounded by a work
// budget gives the same Result whatever the machine's load and GOMAXPROCS:
// run idle, with GOMAXPROCS 1, and with CPU-bound goroutines beside it. A
// budget too small to decide the request makes it not determined, and the
// reason names the budget (not a time). Before, the meansd rule's 1 s
// wall-clock limit cut the search wherever the clock said.
func TestBudgetIsDeterministic(t *testing.T) {
	reqs := []Request{
		{N: 200, Min: "1", Max: "7", Mean: "4.0", SD: "2.0", Rounding: Closed, Cap: 10, Budget: 2000},
		{N: 60, Min: "1", Max: "10", Mean: "3.1", SD: "2.1", Rounding: Closed, Cap: 10, Budget: 50_000},
		{N: 40, Min: "0", Max: "200", Mean: "60.2", SD: "21.811", Cap: 10, Budget: 3000, Magnitude: true, Interval: "25"},
		{N: 12, Min: "1", Max: "7", Mean: "4.0", SD: "1.5", Cap: 10, Budget: DefaultBudget},
	}
	hog := func(stop *atomic.Bool, wg *sync.WaitGroup) {
		for range 4 {
			wg.Go(func() {
				x := 1.0
				for !stop.Load() {
					for range 1000 {
						x = x*1.0000001 + 1e-9
					}
				}
				_ = x
			})
		}
	}
	budgetHit := false
	for _, req := range reqs {
		first, err := Solve(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !first.Determined {
			budgetHit = true
			if !strings.Contains(first.Reason, "work budget") {
				t.Errorf("%+v: not determined, reason %q does not name the work budget", req, first.Reason)
			}
		}
		for run := 0; run < 3; run++ {
			var stop atomic.Bool
			var wg sync.WaitGroup
			old := runtime.GOMAXPROCS(0)
			switch run {
			case 1:
				runtime.GOMAXPROCS(1)
			case 2:
				hog(&stop, &wg)
			}
			got, err := Solve(context.Background(), req)
			stop.Store(true)
			wg.Wait()
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, first) {
				t.Errorf("%+v: run %d differs:\n%+v\nfirst:\n%+v", req, run, got, first)
			}
		}
	}
	if !budgetHit {
		t.Fatal("no request ran out of its budget: the test does not exercise it")
	}
}
