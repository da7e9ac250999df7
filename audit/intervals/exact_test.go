package intervals

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/report"
)

// receivedTable is oracleTable's magnitude table (values in hundredths,
// every margin) as received from elsewhere: share of its interior cells
// carry a suppression marker (no value); every other cell and every
// margin is published.
func receivedTable(seed uint64, sizes []int, share float64) *audit.Table {
	tb := oracleTable(seed, sizes, 0)
	rng := rand.New(rand.NewPCG(seed, 11))
	for _, c := range tb.Cells {
		c.Findings, c.Status = nil, audit.StatusOK
		if !c.IsMargin("Total") && rng.Float64() < share {
			c.HasTotal, c.Total = false, decimal.Dec{}
			c.Stats = audit.StatsOf(map[string]audit.Stat{"total": {Text: "x", Missing: true, Marker: true}})
		}
	}
	return tb
}

// auditBytes audits tb with the given workers and GOMAXPROCS and returns
// the JSON of the result.
func auditBytes(t testing.TB, tb *audit.Table, workers, procs int, tune *Tuning) ([]byte, audit.Intervals) {
	t.Helper()
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	res, err := Audit(context.Background(), tb, Options{Role: "total", Workers: workers, Tuning: tune})
	if err != nil {
		t.Fatal(err)
	}
	out := report.IntervalsJSON(res)
	return out, res
}

// TestAuditIdenticalAtAnyWorkers (issue 23 item 4b): the interval audit of
// tables whose components go to the sparse LP (largeComponent lowered so
// that tables of a test's size reach it: witnesses, the exact LPs in
// chunks, the phase 1 of received tables, the bulk phase's lanes,
// approximate cells where the work budget ends) gives the same bytes with
// 1, 2 and 3 workers and GOMAXPROCS 1, 2 and 4. Before, the sparse LP shared the open cells among the
// workers (cell k to worker k mod w), each chaining its LPs from the point
// the previous one reached and stopping at the protection levels, so the
// inner bounds of approximate cells depended on the worker count.
func TestAuditIdenticalAtAnyWorkers(t *testing.T) {
	cases := []struct {
		name string
		tb   func() *audit.Table
		// budget: Tuning.ExactIters (small: some intervals stay
		// approximate)
		budget int
	}{
		{"middle-14x12x6", func() *audit.Table { return middleTable(1, []int{14, 12, 6}, 0.3) }, 32},
		{"middle-14x12x6-small-budget", func() *audit.Table { return middleTable(2, []int{14, 12, 6}, 0.3) }, 2},
		{"received-20x15x6-20pct", func() *audit.Table { return receivedTable(3, []int{20, 15, 6}, 0.2) }, 32},
		{"received-20x15x6-30pct-small-budget", func() *audit.Table { return receivedTable(4, []int{20, 15, 6}, 0.3) }, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tune := largeAt(40)
			tune.ExactIters = tc.budget
			tb := tc.tb()
			first, res := auditBytes(t, tb, 1, 1, tune)
			t.Logf("%d cells, %d approximate, %d undetermined, %d exact", len(res.Cells), res.Approximate, res.Undetermined, res.ExactlyDisclosed)
			if len(res.Cells) < 100 {
				t.Fatalf("%d cells audited: the table is too small for the test", len(res.Cells))
			}
			// Every pair of workers 1-3 and GOMAXPROCS 1, 2, 4; under the
			// race detector three of them (the bulk phase of the exact
			// bounds made each audit dearer).
			var pairs [][2]int
			for _, w := range []int{1, 2, 3} {
				for _, p := range []int{1, 2, 4} {
					pairs = append(pairs, [2]int{w, p})
				}
			}
			if tabletest.RaceEnabled {
				pairs = [][2]int{{1, 2}, {2, 1}, {3, 4}}
			}
			for _, wp := range pairs {
				w, p := wp[0], wp[1]
				out, _ := auditBytes(t, tb, w, p, tune)
				if !bytes.Equal(out, first) {
					t.Errorf("workers %d, GOMAXPROCS %d: audit differs from workers 1, GOMAXPROCS 1", w, p)
				}
			}
		})
	}
}

// TestAuditReceivedExactAgainstOracle (issue 25 item 4): received tables
// with 10% and 20% of their interior cells marked, components solved by
// the sparse LP from a phase 1 (largeComponent lowered: the components of
// tables of a test's size are smaller than the default), every cell
// determined and exact (not approximate), each interval equal to the
// certified optimum (certifiedIntervals: gonum's LU proves each bound by
// weak duality) within 1e-7 of the table's largest value, on a sample of at
// least 200 cells. The 30 x 20 x 8 table at 20% (one component of 722
// cells) left 116 cells undetermined with the exact bounds' budget of
// before (20,000 iterations per component, no bulk phase); the bulk
// phase (sparseRun.bulk) and the budgets of now settle every cell. Under
// the race detector the 20 x 15 x 8 tables only.
func TestAuditReceivedExactAgainstOracle(t *testing.T) {
	cases := []struct {
		share float64
		seed  uint64
		sizes []int
	}{{0.1, 5, []int{20, 15, 8}}, {0.2, 6, []int{20, 15, 8}}, {0.2, 6, []int{30, 20, 8}}}
	if tabletest.RaceEnabled {
		cases = cases[:2]
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%v-%gpct", tc.sizes, tc.share*100), func(t *testing.T) {
			tb := receivedTable(tc.seed, tc.sizes, tc.share)
			s, err := newStructure(tb, Options{Role: "total"})
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-7 * s.Scale()
			_, res := auditBytes(t, tb, 2, runtime.GOMAXPROCS(0), largeAt(40))
			if res.Undetermined != 0 || res.Approximate != 0 {
				t.Fatalf("%d undetermined, %d approximate of %d; warnings %q", res.Undetermined, res.Approximate, len(res.Cells), res.Warnings)
			}
			// Every cell of the small tables, every fourth of the large
			// one (the oracle's dense LU per bound dominates the time).
			every := 1 + len(res.Cells)/500*3
			sample := func(i int) bool { return i%every == 0 }
			lo, hi := certifiedSample(t, tb, tol, sample)
			index := map[string]int{}
			for i, c := range tb.Cells {
				index[tabletest.JoinKey(c.Key)] = i
			}
			compared, bad := 0, 0
			for _, r := range res.Cells {
				i := index[tabletest.JoinKey(r.Key)]
				if !sample(i) {
					continue
				}
				wlo, whi := lo[i], hi[i]
				compared++
				if math.Abs(r.Lo-wlo) > tol || math.Abs(r.Hi-whi) > tol {
					if bad++; bad <= 10 {
						t.Errorf("%v: audit [%v, %v], oracle [%v, %v]", r.Key, r.Lo, r.Hi, wlo, whi)
					}
				}
			}
			t.Logf("%d cells compared, %d exactly disclosed", compared, res.ExactlyDisclosed)
			if compared < 200 {
				t.Fatalf("%d cells compared, want at least 200", compared)
			}
		})
	}
}
