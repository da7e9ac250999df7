package intervals

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/report"
)

// middleTable is a magnitude table of the given sizes with every margin,
// values in hundredths (one in eight interior cells empty) and share of
// the interior cells primary, no secondary suppression: the middle
// density, where few all-suppressed moves exist and witnesses settle
// little.
func middleTable(seed uint64, sizes []int, share float64) *audit.Table {
	rng := rand.New(rand.NewPCG(seed, 12))
	cells := 1
	for _, n := range sizes {
		cells *= n
	}
	vals := make([]int64, cells)
	for i := range vals {
		if rng.IntN(8) > 0 {
			vals[i] = int64(math.Exp(rng.NormFloat64()+7)) + 1
		}
	}
	at := func(idx []int) int {
		k := 0
		for d, i := range idx {
			k = k*sizes[d] + i
		}
		return k
	}
	tb := tabletest.GridTable(sizes, func(i []int) int64 { return vals[at(i)] }, func(i []int) int64 {
		if vals[at(i)] == 0 {
			return 0
		}
		return 3
	})
	for _, c := range tb.Cells {
		c.Total = c.Total.Mul(decimal.Scaled(1, 2))
		if !c.IsMargin("Total") && rng.Float64() < share {
			tabletest.MarkPrimary(c)
		}
	}
	return tb
}

// TestAuditSparseAgainstOracle audits middle-density tables whose
// components are large (largeComponent lowered so that tables the oracle
// can solve take the large-component path), so that the cells witnesses
// leave open go to the sparse whole-component LP with several workers.
// Every verdict (exact, protected, under-protected) must match the
// certified optimum (certifiedIntervals: gonum's LU proves each bound
// optimal), the reported (inner) intervals must lie inside the optimum's,
// no cell may stay undetermined, and two runs must agree byte for byte.
func TestAuditSparseAgainstOracle(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int
		seed  uint64
		share float64
	}{
		{"3d-14x12x6-30pct", []int{14, 12, 6}, 1, 0.3},
		{"3d-12x8x5-40pct", []int{12, 8, 5}, 2, 0.4},
		{"3d-12x10x6-35pct", []int{12, 10, 6}, 4, 0.35},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := middleTable(tc.seed, tc.sizes, tc.share)
			opt := Options{Workers: 4, Tuning: largeAt(40)}
			s, _, iv := runIntervals(t, tb, opt)
			scale := s.Scale()
			tol := 1e-7 * scale
			atol := 1e-9 * scale
			if iv.sparse < 20 || iv.largest <= opt.Tuning.LargeComponent {
				t.Fatalf("%d cells given to the sparse LP, largest component %d: want >= 20 and a component above %d", iv.sparse, iv.largest, opt.Tuning.LargeComponent)
			}
			key := "sparse-" + tc.name
			var o oracleResult
			if v, ok := oracleCache.Load(key); ok {
				o = v.(oracleResult)
			} else {
				o.lo, o.hi = certifiedIntervals(t, tb, tol)
				oracleCache.Store(key, o)
			}
			index := map[string]int{}
			for i, c := range tb.Cells {
				index[tabletest.JoinKey(c.Key)] = i
			}
			var first []byte
			for run := 0; run < 2; run++ {
				res, err := Audit(context.Background(), tb, opt)
				if err != nil {
					t.Fatal(err)
				}
				if res.Undetermined != 0 {
					t.Errorf("run %d: %d cells undetermined", run, res.Undetermined)
				}
				for _, r := range res.Cells {
					i := index[tabletest.JoinKey(r.Key)]
					wlo, whi := o.lo[i], o.hi[i]
					if r.Lo < wlo-tol || r.Hi > whi+tol || r.Lo > r.Value+tol || r.Hi < r.Value-tol {
						t.Errorf("run %d: %v (value %v): audit [%v, %v] not inside the oracle's [%v, %v]", run, r.Key, r.Value, r.Lo, r.Hi, wlo, whi)
						continue
					}
					w := whi - wlo
					switch {
					case w <= atol/2 && !r.Exact, w > 2*atol && r.Exact:
						t.Errorf("run %d: %v: exact %v, audit [%v, %v] approx %v, oracle [%v, %v]", run, r.Key, r.Exact, r.Lo, r.Hi, r.Approximate, wlo, whi)
						continue
					case w <= 2*atol:
						continue
					}
					up, down := s.levels(opt, i, s.Val[i])
					margin := math.Min(whi-(s.Val[i]+up), s.Val[i]-down-wlo)
					if math.Abs(margin) <= 2*tol {
						continue
					}
					if want := margin > 0; r.Protected != want {
						t.Errorf("run %d: %v (value %v, levels %v/%v): protected %v, audit [%v, %v], oracle [%v, %v]", run, r.Key, r.Value, r.Upper, r.Lower, r.Protected, r.Lo, r.Hi, wlo, whi)
					}
				}
				out := report.IntervalsJSON(res)
				if first == nil {
					first = out
					t.Logf("%d cells, %d given to the sparse LP; %d exact, %d under-protected, %d approximate", len(res.Cells), iv.sparse, res.ExactlyDisclosed, res.UnderProtected, res.Approximate)
				} else if !bytes.Equal(out, first) {
					t.Errorf("run %d differs from run 0", run)
				}
			}
		})
	}
}

// A cell whose reported interval has zero width is never called
// under-protected: on every path (witnesses alone, neighbourhood LPs, the
// sparse LP) it is exactly disclosed, or undetermined when that path
// cannot tell. (Witnesses once labelled such a cell under-protected from
// outer bounds missing a level while the full LP found it exact.)
func TestZeroWidthIsNeverUnderProtected(t *testing.T) {
	tb := middleTable(1, []int{14, 12, 6}, 0.3)
	ctx := context.Background()
	full, err := Audit(ctx, tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string]bool{}
	for _, r := range full.Cells {
		exact[tabletest.JoinKey(r.Key)] = r.Exact
	}
	for mode := 0; mode < 3; mode++ {
		var rounds []NbhdRound
		if mode == 1 {
			rounds = DefaultTuning().NbhdRounds
		}
		res, err := Audit(ctx, tb, Options{Workers: 2, Tuning: allLarge(rounds, mode == 2)})
		if err != nil {
			t.Fatal(err)
		}
		zero := 0
		for _, r := range res.Cells {
			if r.Hi-r.Lo > 1e-6 {
				continue
			}
			zero++
			if !r.Exact && !r.Undetermined {
				t.Errorf("mode %d: %v [%v, %v] (full LP exact %v): under-protected with zero width", mode, r.Key, r.Lo, r.Hi, exact[tabletest.JoinKey(r.Key)])
			}
			if mode > 0 && r.Exact != exact[tabletest.JoinKey(r.Key)] {
				t.Errorf("mode %d: %v: exact %v, full LP %v", mode, r.Key, r.Exact, exact[tabletest.JoinKey(r.Key)])
			}
		}
		if zero == 0 {
			t.Fatalf("mode %d: no interval of zero width", mode)
		}
	}
}

// A large component whose true values do not fit the published cells (no
// witness, no feasible start) goes to the sparse LP from a phase 1: every
// cell settled, with the intervals of the dense LP (largeComponent at its
// default, the component solved as one dense LP).
func TestAuditLargeInfeasibleComponent(t *testing.T) {
	tb := middleTable(1, []int{14, 12, 6}, 0.3)
	ctx := context.Background()
	full, err := Audit(ctx, tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]audit.Interval{}
	for _, r := range full.Cells {
		byKey[tabletest.JoinKey(r.Key)] = r
	}
	// Change one suppressed cell's (unpublished) value, in a relation
	// with other unknown cells (not exact).
	for _, c := range tb.Cells {
		if r, ok := byKey[tabletest.JoinKey(c.Key)]; ok && !r.Exact && !c.IsMargin("Total") && c.Total.Sign() > 0 {
			c.Total = c.Total.Add(decimal.Scaled(100, 2))
			break
		}
	}
	dense, err := Audit(ctx, tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Audit(ctx, tb, Options{Tuning: largeAt(40)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Undetermined != 0 || res.Approximate != 0 || len(res.Warnings) != len(dense.Warnings) {
		t.Fatalf("%d undetermined, %d approximate, warnings %q; want every cell exact", res.Undetermined, res.Approximate, res.Warnings)
	}
	if len(res.Cells) != len(dense.Cells) {
		t.Fatalf("%d cells, dense %d", len(res.Cells), len(dense.Cells))
	}
	for k, r := range res.Cells {
		d := dense.Cells[k]
		if math.Abs(r.Lo-d.Lo) > 1e-6 || math.Abs(r.Hi-d.Hi) > 1e-6 || r.Exact != d.Exact || r.Protected != d.Protected {
			t.Errorf("%v: sparse [%v, %v] exact %v protected %v, dense [%v, %v] exact %v protected %v", r.Key, r.Lo, r.Hi, r.Exact, r.Protected, d.Lo, d.Hi, d.Exact, d.Protected)
		}
	}
}
