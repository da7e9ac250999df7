package rules_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/rules"
)

// round2 rounds x half-up (away from zero; x ≥ 0 here) to 2 decimals.
func round2(x *big.Rat) string {
	a := new(big.Rat).Mul(x, big.NewRat(100, 1))
	f := new(big.Int).Quo(a.Num(), a.Denom())
	if new(big.Rat).Sub(a, new(big.Rat).SetInt(f)).Cmp(big.NewRat(1, 2)) >= 0 {
		f.Add(f, big.NewInt(1))
	}
	return new(big.Rat).SetFrac(f, big.NewInt(100)).FloatString(2)
}

// sqrt2 rounds sqrt(x) half-up to 2 decimals.
func sqrt2(x *big.Rat) string {
	X := new(big.Rat).Mul(x, big.NewRat(10000, 1))
	f := new(big.Int).Sqrt(new(big.Int).Quo(X.Num(), X.Denom()))
	h := new(big.Rat).SetFrac(new(big.Int).Add(new(big.Int).Mul(f, big.NewInt(2)), big.NewInt(1)), big.NewInt(2))
	if X.Cmp(h.Mul(h, h)) >= 0 {
		f.Add(f, big.NewInt(1))
	}
	return new(big.Rat).SetFrac(f, big.NewInt(100)).FloatString(2)
}

// published returns the mean and sample SD of n answers with sum S and sum
// of squares Q (on 1..5), at 2 dp half-up.
func published(n, S, Q int64) (string, string) {
	mean := round2(big.NewRat(S, n))
	return mean, sqrt2(big.NewRat(n*Q-S*S, n*(n-1)))
}

// surveyOracle lists every count vector (answers 1..5) whose mean and SD
// round to the published strings: for each (S, Q) that rounds to them
// (checked exactly), the counts of 5 and 4 are enumerated and those of 3,
// 2 and 1 follow from n, S and Q.
func surveyOracle(n int64, mean, sd string) [][5]int64 {
	var out [][5]int64
	for S := n; S <= 5*n; S++ {
		if round2(big.NewRat(S, n)) != mean {
			continue
		}
		for Q := (S*S + n - 1) / n; Q <= 5*S; Q++ {
			if m, s := published(n, S, Q); m != mean || s != sd {
				continue
			}
			for c5 := int64(0); c5 <= n; c5++ {
				for c4 := int64(0); c4+c5 <= n; c4++ {
					r, s, q := n-c5-c4, S-5*c5-4*c4, Q-25*c5-16*c4
					// c3 + c2 + c1 = r, 3c3 + 2c2 + c1 = s, 9c3 + 4c2 + c1 = q;
					// without c1: 2c3 + c2 = s - r, 8c3 + 3c2 = q - r
					a, b := s-r, q-r
					if (b-3*a)%2 != 0 {
						continue
					}
					c3 := (b - 3*a) / 2
					c2 := a - 2*c3
					c1 := r - c3 - c2
					if c3 >= 0 && c2 >= 0 && c1 >= 0 {
						out = append(out, [5]int64{c1, c2, c3, c4, c5})
					}
				}
			}
		}
	}
	return out
}

// TestMeanSDSurvey is issue 18's survey: 20 sites x 2 waves, 3 to 200
// respondents per cell, a 1..5 item, count, mean and SD published at 2 dp
// (fixed seed). Against the oracle's full list of samples per cell: no cell
// with at least 10 samples is flagged (with group_slack 0 a group
// disclosure is a unique sample); a unique sample or fewer than 10 samples
// is flagged.
// The cells are checked concurrently.
func TestMeanSDSurvey(t *testing.T) {
	r := mustRule(t, "meansd", "time_limit: 10m").(rules.CellRule)
	tab := &audit.Table{Measure: &audit.Domain{Min: decimal.FromInt(1), Max: decimal.FromInt(5), Step: decimal.FromInt(1)}}
	rng := rand.New(rand.NewPCG(20, 2))
	type cell struct {
		name     string
		n        int64
		mean, sd string
		sols     [][5]int64
		want     audit.Outcome
		allHave5 bool
	}
	var cells []cell
	for site := range 20 {
		for wave := range 2 {
			n := int64(3 + rng.IntN(198))
			w := [5]float64{}
			for i := range w {
				w[i] = rng.Float64() * float64(1+i)
			}
			var S, Q int64
			for range n {
				u := rng.Float64() * (w[0] + w[1] + w[2] + w[3] + w[4])
				k := int64(0)
				for ; k < 4 && u > w[k]; k++ {
					u -= w[k]
				}
				S += k + 1
				Q += (k + 1) * (k + 1)
			}
			mean, sd := published(n, S, Q)
			c := cell{name: fmt.Sprintf("site %d wave %d", site, wave), n: n, mean: mean, sd: sd}
			c.sols = surveyOracle(n, mean, sd)
			c.allHave5 = true
			for _, v := range c.sols {
				c.allHave5 = c.allHave5 && v[4] > 0
			}
			switch {
			case len(c.sols) == 0:
				t.Fatalf("%s: the oracle finds no sample for the true one", c.name)
			case len(c.sols) == 1 || len(c.sols) < 10:
				c.want = audit.Fail
			default:
				c.want = audit.Pass
			}
			cells = append(cells, c)
		}
	}
	got := make([]audit.Finding, len(cells))
	var wg sync.WaitGroup
	for i, c := range cells {
		wg.Go(func() {
			got[i] = r.Check(tab, &audit.Cell{HasN: true, N: c.n, Stats: audit.StatsOf(map[string]audit.Stat{
				"mean": {Text: c.mean, Value: decimal.Must(c.mean)}, "sd": {Text: c.sd, Value: decimal.Must(c.sd)}})})
		})
	}
	wg.Wait()
	safeWith5, big100 := 0, 0
	for i, c := range cells {
		f := got[i]
		if f.Outcome != c.want {
			t.Errorf("%s: n %d mean %s SD %s, %d samples: %s %q, want %s", c.name, c.n, c.mean, c.sd, len(c.sols), f.Outcome, f.Message(), c.want)
		}
		if c.want == audit.Pass && c.allHave5 {
			safeWith5++
		}
		if c.n >= 100 {
			big100++
		}
		if len(c.sols) == 1 && !strings.Contains(f.Message(), "unique") {
			t.Errorf("%s: a unique sample must say so: %q", c.name, f.Message())
		}
	}
	// the survey reaches the case: cells whose samples all contain
	// a 5 and that are not a finding
	if safeWith5 == 0 || big100 < 5 {
		t.Errorf("the generated survey does not exercise the issue: %d safe cells with a 5 in every sample, %d cells of 100+", safeWith5, big100)
	}
	t.Logf("%d cells, %d of 100+, %d passing with a 5 in every sample", len(cells), big100, safeWith5)
}
