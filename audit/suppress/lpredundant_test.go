package suppress

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/report"
)

// TestLPMethodLocalRedundancy: on tables above redundancyLimit the local
// redundancy pass (dropLocal) must lower the lp method's cost and keep
// every primary protected: the audit calls each one protected and gonum
// certifies it (protectLarge), with the pass on; the same table protected
// with the pass off costs more.
func TestLPMethodLocalRedundancy(t *testing.T) {
	// The lp method's own pattern (not the cheaper of it and the
	// hypercube method's).
	own := DefaultTuning()
	own.CompareLarge = false
	for _, tc := range []struct {
		seed  uint64
		sizes []int
		share float64
	}{{11, []int{20, 15, 6}, 0.05}} {
		if n := len(scaleTable(tc.seed, tc.sizes, tc.share).Cells); n <= own.RedundancyLimit {
			t.Fatalf("%v: %d cells, not above Tuning.RedundancyLimit %d", tc.sizes, n, own.RedundancyLimit)
		}
		noLocal := own
		noLocal.LocalRedundancy = false
		off := scaleTable(tc.seed, tc.sizes, tc.share)
		_, err := Protect(context.Background(), off, Options{Tuning: &noLocal})
		if err != nil {
			t.Fatal(err)
		}
		costOff, nOff, _ := patternCost(off)

		on := scaleTable(tc.seed, tc.sizes, tc.share)
		protectLarge(t, on, Options{Tuning: &own}, true)
		costOn, nOn, _ := patternCost(on)
		t.Logf("%v at %v: cost %v (%d cells) without the pass, %v (%d cells) with it", tc.sizes, tc.share, costOff, nOff, costOn, nOn)
		if !(costOn < costOff) {
			t.Errorf("%v at %v: cost %v with the pass, %v without: want lower", tc.sizes, tc.share, costOn, costOff)
		}
	}
}

// TestProtectKeepsCheaperPattern: on a large table the default (lp)
// method must never cost more than the hypercube method's pattern. Seed 6
// at 5% is a table where the lp method alone costs more (the hypercube
// pattern is kept: run.Chosen "hypercube", the same cells and findings as
// a hypercube run), seed 3 one where it costs less (kept); the expected
// choice follows from the two methods' costs and both must occur. Every
// primary of the kept pattern is protected by the audit (and the kept
// hypercube pattern certified by gonum), and a second run gives the same
// pattern and report (under the race detector, heavySeeds' seed 6 only,
// the default method runs once: its pattern is compared with the kept
// method's own run), and returns the audit Audit gives of it.
func TestProtectKeepsCheaperPattern(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	ctx := context.Background()
	seen := map[string]bool{}
	for _, seed := range heavySeeds() {
		tc := struct {
			seed uint64
			want string
		}{seed, "lp"}
		sizes, share := []int{20, 15, 6}, 0.05
		hc := scaleTable(tc.seed, sizes, share)
		if _, err := Protect(ctx, hc, Options{Method: "hypercube"}); err != nil {
			t.Fatal(err)
		}
		hCost, _, _ := patternCost(hc)
		own := DefaultTuning()
		own.CompareLarge = false
		// Under the race detector both runs with the joint method get a
		// tenth of its budget (raceJointWork), so that they still match.
		var joint JointOptions
		if tabletest.RaceEnabled {
			joint.Work = raceJointWork
		}
		lo := scaleTable(tc.seed, sizes, share)
		_, err := Protect(ctx, lo, Options{Tuning: &own, Joint: joint})
		if err != nil {
			t.Fatal(err)
		}
		lCost, _, _ := patternCost(lo)
		if hCost < lCost {
			tc.want = "hypercube"
		}
		seen[tc.want] = true

		// gonum certifies the kept hypercube pattern (the lp method's
		// patterns are certified by TestLPMethodLocalRedundancy; on seed
		// 3 gonum's dense simplex takes a minute). Under the race
		// detector the default method runs once, not twice: the checks
		// and the certificate are of the run below, whose pattern is
		// still compared with the hc or lo run's (the kept method's own
		// run, a separate Protect).
		var tb *audit.Table
		if !tabletest.RaceEnabled {
			tb = scaleTable(tc.seed, sizes, share)
			protectLarge(t, tb, Options{}, tc.want == "hypercube")
		}
		again := scaleTable(tc.seed, sizes, share)
		t0 := time.Now()
		res, err := Protect(ctx, again, Options{Joint: joint})
		run := res.Run
		if err != nil {
			t.Fatal(err)
		}
		var audited *audit.Intervals // Audit's of again, when checkLarge computed it
		if tb == nil {
			tb = again
			a := checkLarge(t, again, Options{}, tc.want == "hypercube", time.Since(t0), nil)
			audited = &a
		}
		cost, _, _ := patternCost(tb)
		if cost > hCost || cost > lCost {
			t.Errorf("seed %d: cost %v, hypercube %v, lp alone %v: want the lesser", tc.seed, cost, hCost, lCost)
		}
		if run.Chosen != tc.want || run.ChosenReason == "" || run.Method != "lp" {
			t.Errorf("seed %d: method %q chosen %q (%q), want %q (hypercube %v, lp alone %v)", tc.seed, run.Method, run.Chosen, run.ChosenReason, tc.want, hCost, lCost)
		}
		// The audit Protect returns is the one Audit gives of the table
		// it leaves.
		if res.Audit == nil {
			t.Fatalf("seed %d: no audit returned", tc.seed)
		}
		if audited == nil {
			want, err := Audit(ctx, again, Options{})
			if err != nil {
				t.Fatal(err)
			}
			audited = &want
		}
		if gj, wj := mustJSON(t, *res.Audit), mustJSON(t, *audited); gj != wj {
			t.Errorf("seed %d (%s kept): the returned audit differs from Audit's:\n%s\n%s", tc.seed, run.Chosen, gj, wj)
		}
		js := report.IntervalsJSON(audit.Intervals{Suppression: &run})
		if !strings.Contains(string(js), `"chosen":"`+tc.want+`","chosen_reason":`) {
			t.Errorf("seed %d: report %s: want chosen %q with its reason", tc.seed, js, tc.want)
		}
		ref := lo
		if tc.want == "hypercube" {
			ref = hc
		}
		for i, c := range again.Cells {
			if c.Status != tb.Cells[i].Status || c.Status != ref.Cells[i].Status || len(c.Findings) != len(ref.Cells[i].Findings) {
				t.Fatalf("seed %d: cell %s: status %s, first run %s, %s run %s", tc.seed, again.KeyString(c.Key), c.Status, tb.Cells[i].Status, tc.want, ref.Cells[i].Status)
			}
			for k, f := range c.Findings {
				if f.Message() != ref.Cells[i].Findings[k].Message() {
					t.Fatalf("seed %d: cell %s: finding %q, %s run %q", tc.seed, again.KeyString(c.Key), f.Message(), tc.want, ref.Cells[i].Findings[k].Message())
				}
			}
		}
	}
	if !tabletest.RaceEnabled && (!seen["lp"] || !seen["hypercube"]) {
		t.Errorf("choices %v: want both lp and hypercube among the cases", seen)
	}
}

// mustJSON is the audit as report.json writes it.
func mustJSON(t *testing.T, v audit.Intervals) string {
	t.Helper()
	return string(report.IntervalsJSON(v))
}
