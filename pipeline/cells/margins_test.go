package cells

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// oracleCell is a cell computed the slow way: every record updates every
// margin cell it falls into, contributions of a holding are summed per
// cell, all in exact rationals.
type oracleCell struct {
	rows, missing int64
	holdings      map[string]*big.Rat // nil: the holding's values are all missing
	values        []*big.Rat          // without a holding column
}

func (o *oracleCell) contributions() []*big.Rat {
	if o.holdings == nil {
		return o.values
	}
	var out []*big.Rat
	for _, v := range o.holdings {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// microOracle builds every cell of a microdata table from records (dims
// levels..., holding, value) by the per-record margin update.
func microOracle(recs [][]string, nd int, holding bool) map[string]*oracleCell {
	cells := map[string]*oracleCell{}
	for _, r := range recs {
		for mask := 0; mask < 1<<nd; mask++ {
			key := make([]string, nd)
			for d := range key {
				key[d] = r[d]
				if mask&(1<<d) != 0 {
					key[d] = "Total"
				}
			}
			k := strings.Join(key, "|")
			c := cells[k]
			if c == nil {
				c = &oracleCell{}
				if holding {
					c.holdings = map[string]*big.Rat{}
				}
				cells[k] = c
			}
			c.rows++
			text := r[nd+1]
			if text == "" {
				c.missing++
				if holding {
					if _, ok := c.holdings[r[nd]]; !ok {
						c.holdings[r[nd]] = nil
					}
				}
				continue
			}
			v, _ := new(big.Rat).SetString(text)
			if !holding {
				c.values = append(c.values, v)
				continue
			}
			s := c.holdings[r[nd]]
			if s == nil {
				s = new(big.Rat)
				c.holdings[r[nd]] = s
			}
			s.Add(s, v)
		}
	}
	return cells
}

// randomMicro writes random records: levels of nd dimensions, holdings
// that mostly stay in one cell but often span cells, ties, negative
// values and missing values.
func randomMicro(r *rand.Rand, nd, rows int) (string, [][]string) {
	var b strings.Builder
	hdr := []string{}
	for d := 0; d < nd; d++ {
		hdr = append(hdr, fmt.Sprintf("d%d", d))
	}
	b.WriteString(strings.Join(append(hdr, "h", "v"), ",") + "\n")
	nh := 1 + r.IntN(rows/2+1)
	levels := 1 + r.IntN(5)
	var recs [][]string
	for i := 0; i < rows; i++ {
		h := r.IntN(nh)
		rec := make([]string, nd+2)
		home := rand.New(rand.NewPCG(uint64(h), 9))
		for d := 0; d < nd; d++ {
			if r.IntN(3) == 0 {
				rec[d] = fmt.Sprintf("L%d", r.IntN(levels))
			} else {
				rec[d] = fmt.Sprintf("L%d", home.IntN(levels))
			}
		}
		rec[nd] = fmt.Sprintf("H%d", h)
		switch r.IntN(8) {
		case 0:
			rec[nd+1] = "" // missing
		case 1:
			rec[nd+1] = "5" // ties
		case 2:
			rec[nd+1] = fmt.Sprintf("-%d.%d", r.IntN(50), r.IntN(10))
		default:
			rec[nd+1] = fmt.Sprintf("%d.%02d", r.IntN(1000), r.IntN(100))
		}
		recs = append(recs, rec)
		b.WriteString(strings.Join(rec, ",") + "\n")
	}
	return b.String(), recs
}

func ratOf(d decimal.Dec) *big.Rat { return d.Rat() }

// checkAgainstOracle compares every cell of tab with the oracle's.
func checkAgainstOracle(t *testing.T, tab *audit.Table, want map[string]*oracleCell, top int) {
	t.Helper()
	if len(tab.Cells) < len(want) {
		t.Fatalf("%d cells, the oracle has %d", len(tab.Cells), len(want))
	}
	for _, c := range tab.Cells {
		k := strings.Join(c.Key, "|")
		o := want[k]
		if o == nil {
			// a combination no record falls into: empty
			if c.N != 0 || c.Rows != 0 {
				t.Fatalf("cell %s: not in the oracle, n=%d rows=%d", k, c.N, c.Rows)
			}
			continue
		}
		vals := o.contributions()
		slices.SortFunc(vals, func(a, b *big.Rat) int { return b.Cmp(a) })
		if c.N != int64(len(vals)) || c.Rows != o.rows || c.Missing != o.missing {
			t.Fatalf("cell %s: n=%d rows=%d missing=%d, want %d %d %d", k, c.N, c.Rows, c.Missing, len(vals), o.rows, o.missing)
		}
		total, sumsq := new(big.Rat), new(big.Rat)
		neg := int64(0)
		for _, v := range vals {
			total.Add(total, v)
			sumsq.Add(sumsq, new(big.Rat).Mul(v, v))
			if v.Sign() < 0 {
				neg++
			}
		}
		if ratOf(c.Total).Cmp(total) != 0 || c.Negative != neg {
			t.Fatalf("cell %s: total %s negative %d, want %s %d", k, c.Total, c.Negative, total.RatString(), neg)
		}
		if c.HasSumSq && ratOf(c.SumSq).Cmp(sumsq) != 0 {
			t.Fatalf("cell %s: sum of squares %s, want %s", k, c.SumSq, sumsq.RatString())
		}
		if len(vals) > 0 {
			if !c.HasRange || ratOf(c.Max).Cmp(vals[0]) != 0 || ratOf(c.Min).Cmp(vals[len(vals)-1]) != 0 {
				t.Fatalf("cell %s: range %s..%s, want %s..%s", k, c.Min, c.Max, vals[len(vals)-1].RatString(), vals[0].RatString())
			}
		}
		wantTop := vals[:min(top, len(vals))]
		if len(c.Top) != len(wantTop) {
			t.Fatalf("cell %s: %d top values, want %d", k, len(c.Top), len(wantTop))
		}
		for i, v := range wantTop {
			if ratOf(c.Top[i]).Cmp(v) != 0 {
				t.Fatalf("cell %s: top[%d] = %s, want %s", k, i, c.Top[i], v.RatString())
			}
		}
		if c.HasAbs {
			abs := make([]*big.Rat, len(vals))
			at := new(big.Rat)
			for i, v := range vals {
				abs[i] = new(big.Rat).Abs(v)
				at.Add(at, abs[i])
			}
			slices.SortFunc(abs, func(a, b *big.Rat) int { return b.Cmp(a) })
			if ratOf(c.AbsTotal).Cmp(at) != 0 {
				t.Fatalf("cell %s: absolute total %s, want %s", k, c.AbsTotal, at.RatString())
			}
			for i := range c.AbsTop {
				if ratOf(c.AbsTop[i]).Cmp(abs[i]) != 0 {
					t.Fatalf("cell %s: absolute top[%d] = %s, want %s", k, i, c.AbsTop[i], abs[i].RatString())
				}
			}
		}
	}
}

// Cells built by shards with derived margins, holdings summed per inner
// cell and merged upward only where they span cells, agree with the
// per-record margin update on random inputs (holdings spanning cells,
// ties, negatives, missing values), with 1 to 4 shards.
func TestMarginsAgreeWithPerRecordOracle(t *testing.T) {
	marginsAgreeWithOracle(t, Tuning{})
}

// marginsAgreeWithOracle is TestMarginsAgreeWithPerRecordOracle with the
// builders' tuning.
func marginsAgreeWithOracle(t *testing.T, tune Tuning) {
	r := rand.New(rand.NewPCG(15, 15))
	for iter := 0; iter < 40; iter++ {
		nd := 1 + r.IntN(3)
		rows := 1 + r.IntN(1500)
		text, recs := randomMicro(r, nd, rows)
		dims := make([]string, nd)
		for d := range dims {
			dims[d] = fmt.Sprintf("d%d", d)
		}
		holding := r.IntN(4) != 0
		cfg := fmt.Sprintf("microdata: {dims: [%s], value: v", strings.Join(dims, ", "))
		if holding {
			cfg += ", holding: h"
		}
		// Without power sums, holdings found in one finest cell are
		// finished there (finishLocalHoldings); publishing the SD keeps
		// power sums, and every holding is merged upward.
		powers := iter%2 == 1
		if powers {
			cfg += "}\npublish: [count, total, mean, sd]\n"
		} else {
			cfg += "}\npublish: [count, total]\n"
		}
		// the cells' figures do not depend on suppression: leave it out
		cfg += "suppression: {secondary: false, audit: false}\n"
		if r.IntN(2) == 0 {
			cfg = "profile: abs\n" + cfg
		}
		s := settings(t, cfg)
		rs, err := ruleNeeds(s)
		if err != nil {
			t.Fatal(err)
		}
		if (rs.needs.Powers > 0) != powers {
			t.Fatalf("power sums %d with %q", rs.needs.Powers, cfg)
		}
		want := microOracle(recs, nd, holding)
		var reports [][]byte
		for _, workers := range []int{1, 4} {
			src, err := readers.NewCSV("in.csv", strings.NewReader(text), readers.Options{BatchSize: 1 + r.IntN(100)})
			if err != nil {
				t.Fatal(err)
			}
			tab, err := loadTuned(context.Background(), src, s, workers, tune)
			if err != nil {
				t.Fatalf("iteration %d: %v", iter, err)
			}
			checkAgainstOracle(t, tab, want, rs.needs.Top)
			var out bytes.Buffer
			if err := (writers.Report{}).Write(&out, tab); err != nil {
				t.Fatal(err)
			}
			reports = append(reports, out.Bytes())
		}
		if !bytes.Equal(reports[0], reports[1]) {
			t.Fatalf("iteration %d: 1 and 4 shards give different reports", iter)
		}
	}
}

// TestHierarchyMarginsAgreeWithPerRecordOracle: with a hierarchy on the
// first dimension, every cell (leaves, parents, totals) matches the
// per-record oracle, holdings spanning cells included: a parent's cells
// are the oracle's cells of the records relabelled with their parent, on
// both the finest-cell path and, without power sums, the local-holdings
// path.
func TestHierarchyMarginsAgreeWithPerRecordOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	parent := map[string]string{"L0": "P0", "L1": "P0", "L2": "P1", "L3": "P1", "L4": "P1"}
	for iter := 0; iter < 16; iter++ {
		nd := 1 + r.IntN(3)
		text, recs := randomMicro(r, nd, 1+r.IntN(600))
		dims := make([]string, nd)
		for d := range dims {
			dims[d] = fmt.Sprintf("d%d", d)
		}
		holding := r.IntN(4) != 0
		cfg := fmt.Sprintf("microdata: {dims: [%s], value: v", strings.Join(dims, ", "))
		if holding {
			cfg += ", holding: h"
		}
		// the cells' figures do not depend on suppression: leave it out
		cfg += "}\nsuppression: {secondary: false, audit: false, hierarchies: {d0: {L0: P0, L1: P0, L2: P1, L3: P1, L4: P1}}}\n"
		if iter%2 == 1 {
			cfg += "publish: [count, total, mean, sd]\n"
		} else {
			cfg += "publish: [count, total]\n"
		}
		s := settings(t, cfg)
		rs, err := ruleNeeds(s)
		if err != nil {
			t.Fatal(err)
		}
		want := microOracle(recs, nd, holding)
		up := make([][]string, len(recs))
		for i, rec := range recs {
			up[i] = slices.Clone(rec)
			up[i][0] = parent[rec[0]]
		}
		for k, c := range microOracle(up, nd, holding) {
			if strings.HasPrefix(k, "P") {
				want[k] = c
			}
		}
		src, err := readers.NewCSV("in.csv", strings.NewReader(text), readers.Options{BatchSize: 1 + r.IntN(100)})
		if err != nil {
			t.Fatal(err)
		}
		tab, err := loadSource(context.Background(), src, s, 1+r.IntN(4))
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		parents := 0
		for _, c := range tab.Cells {
			if strings.HasPrefix(c.Key[0], "P") {
				parents++
			}
		}
		if parents == 0 {
			t.Fatalf("iteration %d: no parent cells", iter)
		}
		checkAgainstOracle(t, tab, want, rs.needs.Top)
	}
}
