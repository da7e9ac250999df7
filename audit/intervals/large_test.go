package intervals

import (
	"context"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"

	"pgregory.net/rapid"
)

// heavyTable draws a small table with heavy suppression: most interior
// cells primary or secondary.
func heavyTable(rt *rapid.T) *audit.Table {
	tb := tabletest.RandomTable(rt)
	for _, c := range tb.Cells {
		if c.Status == audit.StatusOK && rapid.IntRange(0, 9).Draw(rt, "heavy") < 6 {
			if c.IsMargin("Total") {
				if rapid.IntRange(0, 3).Draw(rt, "margin") == 0 {
					c.Status = audit.StatusSecondary
				}
				continue
			}
			if rapid.Bool().Draw(rt, "primary") {
				tabletest.MarkPrimary(c)
			} else {
				c.Status = audit.StatusSecondary
			}
		}
	}
	return tb
}

// allLarge is the audit tuning that treats every component as large
// (witnesses, propagation, then the sparse whole-component LP when sparse
// is set, and neighbourhood LPs) with the given neighbourhood rounds.
func allLarge(rounds []NbhdRound, sparse bool) *Tuning {
	tune := DefaultTuning()
	tune.LargeComponent, tune.NbhdRounds, tune.Sparse = 0, rounds, sparse
	return &tune
}

// largeAt is the default audit tuning with components above n cells
// large (tables of a test's size then reach the large-component audit).
func largeAt(n int) *Tuning {
	tune := DefaultTuning()
	tune.LargeComponent = n
	return &tune
}

// The verdicts of the large-component audit (witness moves and interval
// propagation alone, or with neighbourhood LPs) agree with the full LP on
// random heavily suppressed tables: a cell it calls protected is protected,
// one it calls exact or under-protected is so, its intervals lie inside the
// LP's, and with neighbourhood LPs (which here cover the whole component)
// every cell is settled and every exact disclosure found.
func TestWitnessAgreesWithLP(t *testing.T) {
	var witnessed, total int
	defer func() { t.Logf("%d of %d verdicts settled without LP", witnessed, total) }()
	rapid.Check(t, func(rt *rapid.T) {
		tb := heavyTable(rt)
		ctx := context.Background()
		full, err := Audit(ctx, tb, Options{})
		if err != nil {
			rt.Fatal(err)
		}
		byKey := map[string]audit.Interval{}
		for _, r := range full.Cells {
			byKey[tabletest.JoinKey(r.Key)] = r
		}
		// Witnesses alone; with neighbourhood LPs; with the sparse LP.
		for mode := 0; mode < 3; mode++ {
			withLP := mode > 0
			var rounds []NbhdRound
			if mode == 1 {
				rounds = DefaultTuning().NbhdRounds
			}
			res, err := Audit(ctx, tb, Options{Tuning: allLarge(rounds, mode == 2)})
			if err != nil {
				rt.Fatal(err)
			}
			if len(res.Cells) != len(full.Cells) {
				rt.Fatalf("%d cells, full LP %d", len(res.Cells), len(full.Cells))
			}
			for _, r := range res.Cells {
				f := byKey[tabletest.JoinKey(r.Key)]
				if r.Lo < f.Lo-1e-6 || r.Hi > f.Hi+1e-6 {
					rt.Fatalf("mode %d %v: [%v, %v] outside the LP interval [%v, %v]", mode, r.Key, r.Lo, r.Hi, f.Lo, f.Hi)
				}
				if r.Lo > r.Value+1e-9 || r.Hi < r.Value-1e-9 {
					rt.Fatalf("%v: [%v, %v] misses %v", r.Key, r.Lo, r.Hi, r.Value)
				}
				if !withLP {
					total++
				}
				if r.Undetermined {
					if withLP {
						rt.Fatalf("mode %d: %v undetermined with LPs covering the table (LP %+v)", mode, r.Key, f)
					}
					if r.Protected || r.Exact {
						rt.Fatalf("%v undetermined yet protected/exact: %+v", r.Key, r)
					}
					continue
				}
				if !withLP {
					witnessed++
				}
				if r.Protected != f.Protected || r.Exact != f.Exact {
					rt.Fatalf("mode %d %v (value %v, levels %v/%v): protected %v exact %v [%v, %v]; full LP protected %v exact %v [%v, %v]",
						mode, r.Key, r.Value, r.Lower, r.Upper, r.Protected, r.Exact, r.Lo, r.Hi, f.Protected, f.Exact, f.Lo, f.Hi)
				}
			}
			if withLP && (res.ExactlyDisclosed != full.ExactlyDisclosed || res.UnderProtected != full.UnderProtected) {
				rt.Fatalf("mode %d: counts %d/%d, full LP %d/%d", mode, res.ExactlyDisclosed, res.UnderProtected, full.ExactlyDisclosed, full.UnderProtected)
			}
		}
	})
}

// A received table whose markers link more cells than one LP takes: the
// audit returns quickly with those cells undetermined (outer bounds) and a warning, not after hours of LP.
func TestAuditReceivedLargeComponent(t *testing.T) {
	tb := tabletest.DenseTable(5, 0.8)
	for _, c := range tb.Cells {
		if c.Status == audit.StatusPrimary {
			c.Findings, c.Status = nil, audit.StatusOK
			c.HasTotal, c.Total = false, decimal.Dec{}
			c.Stats = audit.StatsOf(map[string]audit.Stat{"total": {Text: "x", Missing: true, Marker: true}})
		}
	}
	// The phase 1 of its 16,050 linked cells runs out of a small budget
	// (the default, 40,000 iterations, takes minutes at this size).
	tune := DefaultTuning()
	tune.Phase1Iters = 300
	t0 := time.Now()
	res, err := Audit(context.Background(), tb, Options{Role: "total", Tuning: &tune})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: %d cells, %d undetermined, %d exact; warnings %q", time.Since(t0), len(res.Cells), res.Undetermined, res.ExactlyDisclosed, res.Warnings)
	if res.Undetermined == 0 || !res.NeedsPerson() || len(res.Warnings) == 0 {
		t.Fatalf("undetermined %d, warnings %v", res.Undetermined, res.Warnings)
	}
	for _, r := range res.Cells {
		if r.Undetermined && (r.Protected || r.Lo > r.Hi || r.Lo < 0) {
			t.Fatalf("%v: %+v", r.Key, r)
		}
	}
}
