package suppress

import (
	"context"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"pgregory.net/rapid"
)

// fataler is what the helpers need of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// searchSetup builds the structure, suppressor and primaries (largest
// first) as protect does, for the searches run on their own.
func searchSetup(t fataler, tb *audit.Table, opt Options) (*structure, *suppressor, []int) {
	t.Helper()
	s, err := newStructure(tb, opt)
	if err != nil {
		t.Fatal(err)
	}
	sp := &suppressor{s: s, opt: opt, sup: make([]bool, len(tb.Cells)), cost: make([]float64, len(tb.Cells)), single: make([]bool, len(tb.Cells))}
	delta := s.Scale() * 1e-6
	var prim []int
	for i, c := range tb.Cells {
		sp.sup[i] = s.IsSuppressed(i)
		sp.single[i] = s.Role == audit.RoleTotal && c.HasN && c.N == 1
		sp.cost[i] = math.Abs(s.Val[i]) + delta
		if c.Status == audit.StatusPrimary {
			prim = append(prim, i)
		}
	}
	sort.SliceStable(prim, func(a, b int) bool { return s.Val[prim[a]] > s.Val[prim[b]] })
	if err := sp.knowRounded(context.Background(), prim, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return s, sp, prim
}

// lpSearchPattern is the lp method's own pattern (before any audit
// compares it with the others).
func lpSearchPattern(t fataler, tb *audit.Table, opt Options) []bool {
	t.Helper()
	s, sp, prim := searchSetup(t, tb, opt)
	lm := newLPMethod(s, sp, opt)
	if err := lm.run(context.Background(), prim, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(sp.sup)
}

// jointSearchPattern is the joint search's own pattern (nil: none found),
// from no incumbent.
func jointSearchPattern(t fataler, tb *audit.Table, opt Options) []bool {
	t.Helper()
	s, sp, prim := searchSetup(t, tb, opt)
	origSup := slices.Clone(sp.sup)
	lm := newLPMethod(s, sp, opt)
	res, _, err := runJoint(context.Background(), s, sp, opt, prim, origSup, objectiveCosts(tb, opt, s, lm.margin), lm.margin, time.Time{}, [2]float64{math.Inf(1), math.Inf(1)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.sup == nil {
		return nil
	}
	out := slices.Clone(origSup)
	for i, v := range res.sup {
		out[i] = out[i] || v
	}
	return out
}

// hugeScaleTable is TestProtectionToleranceRelativeToLevel's 3x3 table:
// values up to 2e9 (a table-scaled tolerance of about 6), the primary 100
// with protection level 10.
func hugeScaleTable() *audit.Table {
	v := [][]int64{{100, 5, 1000000}, {20, 20, 2000000000}, {1000000, 2000000000, 2000000000}}
	tb := tabletest.GridTable([]int{3, 3}, func(i []int) int64 { return v[i[0]][i[1]] }, func(i []int) int64 { return 3 })
	for _, c := range tb.Cells {
		if c.Key[0] == "d0_0" && c.Key[1] == "d1_0" {
			tabletest.MarkPrimary(c)
		}
	}
	return tb
}

// TestSearchesProtectAtHugeScale: the lp method and the joint search judged
// a primary protected within 1e-9 of the table's largest value (about 6
// here), so on this table both offered the pattern that lets the primary
// 100 (level 10) move only 5 up, which the audit then refused. Their own
// patterns must now protect it by gonum's attack.
func TestSearchesProtectAtHugeScale(t *testing.T) {
	for _, method := range []string{"lp", "joint"} {
		tb := hugeScaleTable()
		var sup []bool
		if method == "lp" {
			sup = lpSearchPattern(t, tb, Options{})
		} else {
			sup = jointSearchPattern(t, tb, Options{})
		}
		if sup == nil {
			t.Errorf("%s: no pattern", method)
			continue
		}
		if ok, why := oracleProtected(newOrTable(tb, nil, 0.10), sup); !ok {
			t.Errorf("%s search's own pattern %v does not protect by gonum's attack: %s", method, sup, why)
		}
	}
}

// TestSearchesProtectMixedScalesRapid: grid tables whose interior mixes
// small values (the primaries among them) with values of 1e7 to 4e7, so
// that the table-scaled tolerance (up to 1) exceeds the small primaries'
// levels: the lp method's and the joint search's own patterns must protect
// every primary by gonum's attack. (The grand total stays under 1e9: with
// a tolerance of 1 or more the interval audit itself, which the lp
// method's redundancy pass asks, settles a bound at a row's total when
// the LP's vertex is within the tolerance of it, rangeChunk.solve, and
// can call such a pattern protected: the audit's matter, not the
// searches'.)
func TestSearchesProtectMixedScalesRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n0, n1 := rapid.IntRange(3, 5).Draw(rt, "n0"), rapid.IntRange(3, 5).Draw(rt, "n1")
		vals := make([][]int64, n0)
		var small [][2]int
		for i := range vals {
			vals[i] = make([]int64, n1)
			for j := range vals[i] {
				if rapid.Bool().Draw(rt, "huge") {
					vals[i][j] = rapid.Int64Range(10_000_000, 40_000_000).Draw(rt, "v")
				} else {
					vals[i][j] = rapid.Int64Range(1, 300).Draw(rt, "v")
					small = append(small, [2]int{i, j})
				}
			}
		}
		if len(small) == 0 {
			return
		}
		tb := tabletest.GridTable([]int{n0, n1}, func(i []int) int64 { return vals[i[0]][i[1]] }, func([]int) int64 { return 3 })
		np := rapid.IntRange(1, min(2, len(small))).Draw(rt, "primaries")
		for range np {
			pick := small[rapid.IntRange(0, len(small)-1).Draw(rt, "primary")]
			for _, c := range tb.Cells {
				if c.Key[0] == tabletest.Code(0, pick[0]) && c.Key[1] == tabletest.Code(1, pick[1]) && c.Status != audit.StatusPrimary {
					tabletest.MarkPrimary(c)
				}
			}
		}
		o := newOrTable(tb, nil, 0.10)
		if sup := lpSearchPattern(rt, tb, Options{}); true {
			if ok, why := oracleProtected(o, sup); !ok {
				rt.Fatalf("lp search's own pattern does not protect by gonum's attack: %s", why)
			}
		}
		for _, c := range tb.Cells { // the lp method marked its cells secondary
			if c.Status == audit.StatusSecondary {
				c.Status = audit.StatusOK
			}
		}
		if sup := jointSearchPattern(rt, tb, Options{}); sup != nil {
			if ok, why := oracleProtected(o, sup); !ok {
				rt.Fatalf("joint search's own pattern does not protect by gonum's attack: %s", why)
			}
		}
	})
}
