package suppress

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
)

// patternCost is the cost (sum of values) of tb's secondary cells and the
// number of them that are totals.
func patternCost(tb *audit.Table) (cost float64, cells, totals int) {
	for _, c := range tb.Cells {
		if c.Status == audit.StatusSecondary {
			cost += c.Total.Float64()
			cells++
			if c.IsMargin("Total") {
				totals++
			}
		}
	}
	return cost, cells, totals
}

// BenchmarkLPMethodVsOptimum protects the tables of TestLPMethodNearOptimal
// with the lp method and, as the baseline, the hypercube method, and
// reports each one's geometric mean and worst ratio of cost to the exact
// optimum (margin weight 0: the cheapest interior pattern when one
// exists), and the tables where a method suppresses a total while the
// optimum suppresses none. The optimum is enumerated once per table.
func BenchmarkLPMethodVsOptimum(b *testing.B) {
	optima := make([]float64, len(oracleCases))
	optTotals := make([]int, len(oracleCases))
	for ci, oc := range oracleCases {
		tb := optTable(uint64(ci+1), oc.sizes, oc.nprim)
		s, err := newStructure(tb, Options{})
		if err != nil {
			b.Fatal(err)
		}
		var prim []int
		for i, c := range tb.Cells {
			if c.Status == audit.StatusPrimary {
				prim = append(prim, i)
			}
		}
		cost, set, ok := optimalPattern(b, s, prim, Options{}, false)
		if !ok {
			cost, set, ok = optimalPattern(b, s, prim, Options{}, true)
		}
		if !ok {
			b.Fatalf("table %d: no pattern protects the primaries", ci)
		}
		optima[ci] = cost
		for _, i := range set {
			if tb.Cells[i].IsMargin("Total") {
				optTotals[ci]++
			}
		}
	}
	for b.Loop() {
		for _, method := range []string{"lp", "hypercube"} {
			logSum, worst, extraTotals := 0.0, 0.0, 0
			for ci, oc := range oracleCases {
				tb := optTable(uint64(ci+1), oc.sizes, oc.nprim)
				if _, err := Protect(context.Background(), tb, Options{Method: method}); err != nil {
					b.Fatal(err)
				}
				cost, _, totals := patternCost(tb)
				r := cost / optima[ci]
				logSum += math.Log(r)
				worst = math.Max(worst, r)
				if optTotals[ci] == 0 && totals > 0 {
					extraTotals++
				}
			}
			b.ReportMetric(math.Exp(logSum/float64(len(oracleCases))), method+"-geomean")
			b.ReportMetric(worst, method+"-worst")
			b.ReportMetric(float64(extraTotals), method+"-extra-totals")
		}
	}
}

// BenchmarkLPMethod50x40x10 protects the 50 x 40 x 10 table (23,001 cells
// with every margin) at 1%, 5%, 20% and 50% primaries with the lp method
// and the hypercube method in the same run, and audits each pattern:
// suppression and audit time, secondary cells, their cost, the totals
// among them, and the primaries the audit does not call protected; for
// the lp method also whether the hypercube method's pattern was kept
// (hypercube-kept 1: it protects more primaries or costs less).
func BenchmarkLPMethod50x40x10(b *testing.B) {
	for _, share := range []float64{0.01, 0.05, 0.2, 0.5} {
		for _, method := range []string{"lp", "hypercube"} {
			b.Run(method+"-"+pct(share), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					tb := scaleTable(3, []int{50, 40, 10}, share)
					b.StartTimer()
					opt := Options{Method: method}
					t0 := time.Now()
					run, err := protectRun(context.Background(), tb, opt)
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					res, err := Audit(context.Background(), tb, opt)
					if err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					cost, cells, totals := patternCost(tb)
					unsafe := 0
					for _, iv := range res.Cells {
						if iv.Status == audit.StatusPrimary && !iv.Protected {
							unsafe++
						}
					}
					b.ReportMetric(t1.Sub(t0).Seconds(), "suppress-s")
					b.ReportMetric(t2.Sub(t1).Seconds(), "audit-s")
					b.ReportMetric(float64(cells), "secondary")
					b.ReportMetric(cost, "cost")
					b.ReportMetric(float64(totals), "totals")
					b.ReportMetric(float64(unsafe), "unprotected")
					if method == "lp" {
						hc := 0.0
						if run.Chosen == "hypercube" {
							hc = 1
						}
						b.ReportMetric(hc, "hypercube-kept")
					}
				}
			})
		}
	}
}

func pct(share float64) string {
	return itoa(int(math.Round(share*100))) + "pct"
}
