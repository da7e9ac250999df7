package cells

import (
	"math"
	"math/big"
	"slices"
	"sort"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func sortStrings(s []string) { sort.Strings(s) }

func sortAccs(a []*cellAcc) {
	slices.SortFunc(a, func(x, y *cellAcc) int { return slices.Compare(x.key, y.key) })
}

// histMedian returns the sample median from the cell's histogram on the
// measure grid (the mean of the two middle values for even n).
func histMedian(t *audit.Table, c *audit.Cell) (*big.Rat, bool) {
	if c.Hist == nil || c.N == 0 || t.Measure == nil {
		return nil, false
	}
	at := func(k int64) int { // 0-based rank -> grid index
		var seen int64
		for i, h := range c.Hist {
			seen += h
			if seen > k {
				return i
			}
		}
		return len(c.Hist) - 1
	}
	val := func(i int) *big.Rat {
		return t.Measure.Min.Add(t.Measure.Step.Mul(decimal.FromInt(int64(i)))).Rat()
	}
	if c.N%2 == 1 {
		return val(at(c.N / 2)), true
	}
	m := new(big.Rat).Add(val(at(c.N/2-1)), val(at(c.N/2)))
	return m.Quo(m, big.NewRat(2, 1)), true
}

// momentMean returns the raw moment mean S_p / n from the scaled power sums.
func momentMean(c *audit.Cell, p int) float64 {
	return math.Exp(math.Log(math.Abs(c.Pow[p-1]))+float64(p)*math.Log(c.PowScale)-math.Log(float64(c.N))) * sign(c.Pow[p-1])
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// shapeStat returns the population (Fisher-Pearson) skewness g1 = m3/m2^1.5
// or the kurtosis m4/m2^2 (not excess) from the power sums.
func shapeStat(c *audit.Cell, which string) (float64, bool) {
	if c.N < 2 || len(c.Pow) < 4 && which == "kurtosis" || len(c.Pow) < 3 {
		return 0, false
	}
	n := float64(c.N)
	m1 := c.Pow[0] / n
	r2, r3 := c.Pow[1]/n, c.Pow[2]/n
	c2 := r2 - m1*m1
	if c2 <= 0 {
		return 0, false
	}
	c3 := r3 - 3*m1*r2 + 2*m1*m1*m1
	if which == "skewness" {
		return c3 / math.Pow(c2, 1.5), true
	}
	r4 := c.Pow[3] / n
	c4 := r4 - 4*m1*r3 + 6*m1*m1*r2 - 3*m1*m1*m1*m1
	return c4 / (c2 * c2), true
}
