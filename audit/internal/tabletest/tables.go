// Package tabletest builds the tables that the tests of the suppression
// method, the interval audit and their relations share (grids with every
// margin, random and reference tables) and an independent rank test for
// the tests' own LP oracles.
package tabletest

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"pgregory.net/rapid"
)

// Microdata1 builds the 15-cell region x gender table (margins included) of
// sdctable_microdata1.csv, summing val per cell.
func Microdata1(t testing.TB) *audit.Table {
	t.Helper()
	// The reference data is part of the repository (testdata/reference):
	// a missing file fails the test.
	f, err := os.Open("../../testdata/reference/sdctable_microdata1.csv")
	if err != nil {
		t.Fatalf("reference data: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type acc struct{ vals []int64 }
	cells := map[[2]string]*acc{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseInt(r[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{r[0], "Total"} {
			for _, b := range []string{r[1], "Total"} {
				k := [2]string{a, b}
				if cells[k] == nil {
					cells[k] = &acc{}
				}
				cells[k].vals = append(cells[k].vals, v)
			}
		}
	}
	tb := &audit.Table{Name: "Microdata1", Dims: []string{"region", "gender"}, TotalLabel: "Total", Mode: audit.Microdata, Value: "val"}
	for k, a := range cells {
		sort.Slice(a.vals, func(i, j int) bool { return a.vals[i] > a.vals[j] })
		c := &audit.Cell{Key: []string{k[0], k[1]}, HasN: true, N: int64(len(a.vals)), HasTotal: true, Status: audit.StatusOK}
		var sum int64
		for _, v := range a.vals {
			sum += v
			c.Top = append(c.Top, decimal.FromInt(v))
		}
		c.Total = decimal.FromInt(sum)
		tb.Cells = append(tb.Cells, c)
	}
	tb.SortCells()
	return tb
}

// CellAt finds a cell by its key values.
func CellAt(t testing.TB, tb *audit.Table, key ...string) *audit.Cell {
	t.Helper()
	for _, c := range tb.Cells {
		if len(c.Key) != len(key) {
			continue
		}
		same := true
		for d := range key {
			if c.Key[d] != key[d] {
				same = false
				break
			}
		}
		if same {
			return c
		}
	}
	t.Fatalf("no cell %v", key)
	return nil
}

// MarkPrimary gives c a failing threshold finding and decides its status
// (primary).
func MarkPrimary(c *audit.Cell) {
	c.Findings = append(c.Findings, audit.Said("threshold", audit.Fail, "test primary", nil))
	audit.Decide(c)
}

// GridTable builds a magnitude table with the given dimension sizes, codes
// "d<dim>_<i>", every margin, interior values from val and contributor
// counts from n (both indexed by the interior cell's position).
func GridTable(sizes []int, val func(idx []int) int64, n func(idx []int) int64) *audit.Table {
	nd := len(sizes)
	dims := make([]string, nd)
	for d := range dims {
		dims[d] = "dim" + strconv.Itoa(d)
	}
	tb := &audit.Table{Name: "grid", Dims: dims, TotalLabel: "Total"}
	type agg struct {
		sum, n int64
	}
	cells := map[string]*agg{}
	var keys [][]string
	idx := make([]int, nd)
	var rec func(d int)
	rec = func(d int) {
		if d == nd {
			v, cnt := val(idx), n(idx)
			// Every combination of margins over this interior cell.
			for mask := 0; mask < 1<<nd; mask++ {
				key := make([]string, nd)
				for e := 0; e < nd; e++ {
					if mask&(1<<e) != 0 {
						key[e] = "Total"
					} else {
						key[e] = "d" + strconv.Itoa(e) + "_" + strconv.Itoa(idx[e])
					}
				}
				ks := JoinKey(key)
				a := cells[ks]
				if a == nil {
					a = &agg{}
					cells[ks] = a
					keys = append(keys, key)
				}
				a.sum += v
				a.n += cnt
			}
			return
		}
		for i := 0; i < sizes[d]; i++ {
			idx[d] = i
			rec(d + 1)
		}
	}
	rec(0)
	for _, k := range keys {
		a := cells[JoinKey(k)]
		tb.Cells = append(tb.Cells, &audit.Cell{Key: k, HasTotal: true, Total: decimal.FromInt(a.sum), HasN: true, N: a.n, Status: audit.StatusOK})
	}
	tb.SortCells()
	return tb
}

// JoinKey joins a cell key into one map key.
func JoinKey(k []string) string {
	s := ""
	for _, v := range k {
		s += v + "\x00"
	}
	return s
}

// Code is GridTable's code i of dimension d (d, i < 10).
func Code(d, i int) string { return "d" + string(rune('0'+d)) + "_" + string(rune('0'+i)) }

// DenseTable is a 50 x 40 x 10 magnitude table with every margin, like
// benchTable, but with share of the interior cells primary (the sparse
// microdata case: a few records per cell, most cells below the threshold).
func DenseTable(seed uint64, share float64) *audit.Table {
	rng := rand.New(rand.NewPCG(seed, 2))
	sizes := []int{50, 40, 10}
	vals := make(map[[3]int]int64)
	ns := make(map[[3]int]int64)
	for i := 0; i < 50; i++ {
		for j := 0; j < 40; j++ {
			for k := 0; k < 10; k++ {
				n := int64(rng.IntN(8))
				var v int64
				for r := int64(0); r < n; r++ {
					v += int64(math.Exp(rng.NormFloat64()*1.2 + 5))
				}
				vals[[3]int{i, j, k}], ns[[3]int{i, j, k}] = v, n
			}
		}
	}
	tb := GridTable(sizes, func(i []int) int64 { return vals[[3]int{i[0], i[1], i[2]}] },
		func(i []int) int64 { return ns[[3]int{i[0], i[1], i[2]}] })
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") && rng.Float64() < share {
			MarkPrimary(c)
		}
	}
	return tb
}

// RandomTable draws a small table (1 to 3 dimensions of 2 to 4 codes, all
// margins) with some empty cells, singletons and primary cells.
func RandomTable(rt *rapid.T) *audit.Table {
	nd := rapid.IntRange(1, 3).Draw(rt, "dims")
	sizes := make([]int, nd)
	cells := 1
	for d := range sizes {
		sizes[d] = rapid.IntRange(2, 4).Draw(rt, "size")
		cells *= sizes[d]
	}
	vals := rapid.SliceOfN(rapid.IntRange(0, 40), cells, cells).Draw(rt, "vals")
	ns := rapid.SliceOfN(rapid.IntRange(1, 4), cells, cells).Draw(rt, "n")
	at := func(idx []int) int {
		k := 0
		for d, i := range idx {
			k = k*sizes[d] + i
		}
		return k
	}
	tb := GridTable(sizes, func(i []int) int64 { return int64(vals[at(i)]) }, func(i []int) int64 {
		if vals[at(i)] == 0 {
			return 0
		}
		return int64(ns[at(i)])
	})
	for i, c := range tb.Cells {
		if !c.IsMargin("Total") && rapid.IntRange(0, 4).Draw(rt, "primary") == 0 {
			MarkPrimary(tb.Cells[i])
		}
	}
	return tb
}

// Independent rows by elimination modulo a large prime: rows Independent
// modulo p are Independent over the rationals (a row wrongly dropped would
// only widen the oracle's intervals, failing the comparison). Each set of
// rows has its own (oracles run on several goroutines).
type Independent struct {
	basis  [][]uint64
	pivots []int
}

const primeP = 1<<61 - 1

// Keep reports whether row is Independent of the rows kept so far, and
// then keeps it.
func (indep *Independent) Keep(row []float64, n int) bool {
	v := make([]uint64, n)
	for l, c := range row {
		v[l] = uint64((int64(c)%primeP + primeP) % primeP)
	}
	for b, bv := range indep.basis {
		if f := v[indep.pivots[b]]; f != 0 {
			for l := range v {
				v[l] = subMod(v[l], mulMod(f, bv[l]))
			}
		}
	}
	piv := -1
	for l, x := range v {
		if x != 0 {
			piv = l
			break
		}
	}
	if piv < 0 {
		return false
	}
	inv := powMod(v[piv], primeP-2)
	for l := range v {
		v[l] = mulMod(v[l], inv)
	}
	indep.basis = append(indep.basis, v)
	indep.pivots = append(indep.pivots, piv)
	return true
}

func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	_, rem := bits.Div64(hi, lo, primeP)
	return rem
}

func subMod(a, b uint64) uint64 {
	if a >= b {
		return a - b
	}
	return a + primeP - b
}

func powMod(a, e uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulMod(r, a)
		}
		a = mulMod(a, a)
	}
	return r
}

// HierTable is a table of two or three dimensions: the first hierarchical
// (leaves a0.. grouped under g0.., then Total), the others flat, every
// margin present, random values and about share of the interior cells
// primary; it returns the hierarchy of the first dimension.
func HierTable(seed uint64, leaves, groups int, flat []int, share float64) (*audit.Table, map[string]map[string]string) {
	rng := rand.New(rand.NewPCG(seed, 11))
	h := map[string]string{}
	for l := 0; l < leaves; l++ {
		h[fmt.Sprintf("a%d", l)] = fmt.Sprintf("g%d", rng.IntN(groups))
	}
	dims := []string{"a"}
	codes := [][]string{nil}
	for l := 0; l < leaves; l++ {
		codes[0] = append(codes[0], fmt.Sprintf("a%d", l))
	}
	for d, n := range flat {
		dims = append(dims, fmt.Sprintf("b%d", d))
		var cs []string
		for i := 0; i < n; i++ {
			cs = append(cs, fmt.Sprintf("b%d_%d", d, i))
		}
		codes = append(codes, cs)
	}
	// every key, with each leaf code possibly replaced by its ancestors
	up := func(d int, c string) []string {
		out := []string{c}
		if d == 0 {
			out = append(out, h[c])
		}
		return append(out, "Total")
	}
	sums := map[string]int64{}
	keys := map[string][]string{}
	var order []string
	var rec func(d int, leaf []string)
	rec = func(d int, leaf []string) {
		if d == len(dims) {
			v := int64(math.Exp(rng.NormFloat64()*1.2 + 4))
			var rec2 func(e int, key []string)
			rec2 = func(e int, key []string) {
				if e == len(dims) {
					ks := fmt.Sprint(key)
					if _, ok := keys[ks]; !ok {
						keys[ks] = append([]string(nil), key...)
						order = append(order, ks)
					}
					sums[ks] += v
					return
				}
				for _, c := range up(e, leaf[e]) {
					rec2(e+1, append(key, c))
				}
			}
			rec2(0, nil)
			return
		}
		for _, c := range codes[d] {
			rec(d+1, append(leaf, c))
		}
	}
	rec(0, nil)
	tb := &audit.Table{Name: "h", Dims: dims, TotalLabel: "Total"}
	for _, ks := range order {
		c := &audit.Cell{Key: keys[ks], HasTotal: true, Total: decimal.FromInt(sums[ks]), HasN: true, N: 3}
		tb.Cells = append(tb.Cells, c)
		interior := true
		for d, k := range c.Key {
			if k == "Total" || d == 0 && k[0] == 'g' {
				interior = false
			}
		}
		if interior && rng.Float64() < share {
			MarkPrimary(c)
		}
	}
	return tb, map[string]map[string]string{"a": h}
}

// ScaleTable is a table of the given sizes with every margin, skewed
// values and share of the interior cells primary.
func ScaleTable(seed uint64, sizes []int, share float64) *audit.Table {
	rng := rand.New(rand.NewPCG(seed, 3))
	cells := 1
	for _, n := range sizes {
		cells *= n
	}
	vals := make([]int64, cells)
	for i := range vals {
		vals[i] = int64(math.Exp(rng.NormFloat64()*1.2 + 5))
		if rng.IntN(20) == 0 {
			vals[i] = 0
		}
	}
	at := func(idx []int) int {
		k := 0
		for d, i := range idx {
			k = k*sizes[d] + i
		}
		return k
	}
	tb := GridTable(sizes, func(i []int) int64 { return vals[at(i)] }, func(i []int) int64 {
		if vals[at(i)] == 0 {
			return 0
		}
		return 3
	})
	for _, c := range tb.Cells {
		if !c.IsMargin("Total") && rng.Float64() < share {
			MarkPrimary(c)
		}
	}
	return tb
}

// ResultFor is the audit result of the cell with the given key.
func ResultFor(t testing.TB, r audit.Intervals, key ...string) audit.Interval {
	t.Helper()
	for _, c := range r.Cells {
		if strings.Join(c.Key, "/") == strings.Join(key, "/") {
			return c
		}
	}
	t.Fatalf("no audit result for %v", key)
	return audit.Interval{}
}

// RoundTo rounds v (≥ 0) to a multiple of base, half up: a published
// value of a table rounded to base (input.rounded).
func RoundTo(v, base int64) int64 { return (v + base/2) / base * base }

// DropCells removes about percent of the table's cells at random (rng),
// keeping the others in order: tables with absent cells.
func DropCells(t *audit.Table, rng *rand.Rand, percent int) {
	if percent <= 0 {
		return
	}
	kept := t.Cells[:0]
	for _, c := range t.Cells {
		if rng.IntN(100) >= percent {
			kept = append(kept, c)
		}
	}
	t.Cells = kept
}
