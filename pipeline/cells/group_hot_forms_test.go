package cells

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// typedHotValue returns a value as a typed number (as Parquet and Arrow
// give them): scales 0..18, mantissas near the slab's bounds and beyond
// int64, negatives and zero.
func typedHotValue(r *rand.Rand) decimal.Dec {
	switch r.IntN(8) {
	case 0:
		return decimal.Scaled(r.Int64N(1e18)-5e17, r.IntN(19))
	case 1:
		return decimal.Scaled(3037000499+r.Int64N(3)-1, r.IntN(3))
	case 2:
		return decimal.Must(fmt.Sprintf("%d%018d", 1+r.IntN(9), r.Int64N(1e18)))
	case 3:
		return decimal.Scaled(-r.Int64N(1e9), r.IntN(12))
	case 4:
		return decimal.Scaled(0, 0)
	}
	return decimal.Scaled(r.Int64N(2e5)-1e5, r.IntN(4))
}

// TestHotSlabTypedMatchesExactPath groups typed numbers (the slab's
// hotDec) with and without the slab and compares the reports.
func TestHotSlabTypedMatchesExactPath(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for iter := 0; iter < 20; iter++ {
		pub := []string{"publish: [count, total]\n", "publish: [count, total, mean, min, max]\n", ""}[iter%3]
		s := settings(t, "microdata: {dims: [d], value: v}\n"+pub+fmt.Sprintf("rules: {dominance: {sets: [{n: %d, k: 80}]}}\n", 1+r.IntN(maxHotTop)))
		rs, err := ruleNeeds(s)
		if err != nil {
			t.Fatal(err)
		}
		needs := rs.needs
		needs.SumSq = needs.SumSq && iter%2 == 0 // without it, the slab's bound is that of int64
		var batches []*readers.Batch
		for range 1 + r.IntN(20) {
			n := 1 + r.IntN(200)
			bt := &readers.Batch{Rows: make([][]string, n), Lines: make([]int, n), Numbers: [][]decimal.Dec{nil, make([]decimal.Dec, n)}}
			for i := range n {
				bt.Rows[i] = []string{fmt.Sprintf("L%d", r.IntN(4)), readers.NumberField}
				bt.Numbers[1][i] = typedHotValue(r)
				bt.Lines[i] = i + 2
			}
			batches = append(batches, bt)
		}
		var reports [][]byte
		var cells []string
		for _, hot := range []bool{true, false} {
			sc, err := CompileSchema(s, "in.parquet")
			if err != nil {
				t.Fatal(err)
			}
			tab := sc.newTable("in", "in.parquet", "", s)
			b, err := newMicroBuilder(tab, "in.parquet", []string{"d", "v"}, "v", "", needs)
			if err != nil {
				t.Fatal(err)
			}
			b.hotOn = b.hotOn && hot
			for _, bt := range batches {
				if err := b.add(bt); err != nil {
					t.Fatal(err)
				}
			}
			if hot && b.hotVals == 0 {
				t.Fatal("the slab took no value")
			}
			if err := b.finish(); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := (writers.Report{}).Write(&out, tab); err != nil {
				t.Fatal(err)
			}
			reports = append(reports, out.Bytes())
			var cs bytes.Buffer
			for _, c := range tab.Cells {
				fmt.Fprintf(&cs, "%v n=%d rows=%d neg=%d total=%s sq=%s min=%s max=%s top=%v\n", c.Key, c.N, c.Rows, c.Negative, c.Total, c.SumSq, c.Min, c.Max, c.Top)
			}
			cells = append(cells, cs.String())
		}
		if cells[0] != cells[1] {
			t.Fatalf("iteration %d: the hot slab changes the cells of typed numbers:\n%s\nwant\n%s", iter, cells[0], cells[1])
		}
		if !bytes.Equal(reports[0], reports[1]) {
			t.Fatalf("iteration %d: the hot slab changes the report of typed numbers", iter)
		}
	}
}

// TestHotTextReadsAsNumberFormat checks the slab's reader of number text
// against the exact path's (configs.IsMissing, then NumberFormat.Parse),
// with the decimal point and the decimal comma, on random texts over the
// characters of number forms: every text the slab reads is a number the
// exact path reads as the same value.
func TestHotTextReadsAsNumberFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 6))
	const alphabet = "0123456789.-+ ,e'"
	read := 0
	for _, comma := range []bool{false, true} {
		b := &microBuilder{num: readers.NumberFormat{Comma: comma}, hotScale: maxHotScale, hotLimit: math.MaxInt64, hotVals: hotRaiseWindow}
		for range 400000 {
			n := 1 + r.IntN(22)
			buf := make([]byte, n)
			for i := range buf {
				if r.IntN(3) > 0 {
					buf[i] = '0' + byte(r.IntN(10))
				} else {
					buf[i] = alphabet[r.IntN(len(alphabet))]
				}
			}
			s := string(buf)
			m, ok := b.hotText(s)
			if !ok {
				continue
			}
			read++
			if configs.IsMissing(s) {
				t.Fatalf("%q: the slab reads a missing value as %d", s, m)
			}
			d, err := b.num.Parse(s)
			if err != nil {
				t.Fatalf("comma %v: %q: the slab reads %d, the exact path fails: %v", comma, s, m, err)
			}
			if got := decimal.Scaled(m, maxHotScale); got.Cmp(d) != 0 {
				t.Fatalf("comma %v: %q: the slab reads %s, the exact path %s", comma, s, got, d)
			}
		}
	}
	if read < 10000 {
		t.Fatalf("the slab read only %d texts", read)
	}
}

// TestHotTextTrailingZeros: a value written with trailing zero decimals
// ("2.000000000", as fixed-format exports write them) has the scale of
// its value, so that it does not raise the slab's scale, and with it
// shrink the slab's bound under the sum of squares, for the values after
// it (which then all took the exact path).
func TestHotTextTrailingZeros(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("d,v\nA,2.000000000\nA,-7.50\n")
	for i := range 5000 {
		fmt.Fprintf(&sb, "L%d,%d.%02d0000\n", i%50, 100+i%9000, i%100)
	}
	s := settings(t, "microdata: {dims: [d], value: v}\n")
	rs, err := ruleNeeds(s)
	if err != nil {
		t.Fatal(err)
	}
	if !rs.needs.SumSq {
		t.Fatal("the default rules keep no sum of squares: this test is about its bound")
	}
	src, err := readers.NewCSV("in.csv", strings.NewReader(sb.String()), readers.Options{BatchSize: 700})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := CompileSchema(s, "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	b, err := newMicroBuilder(sc.newTable("in", "in.csv", "", s), "in.csv", src.Header(), "v", "", rs.needs)
	if err != nil {
		t.Fatal(err)
	}
	for {
		bt, err := src.Next()
		if err != nil {
			break
		}
		if err := b.add(bt); err != nil {
			t.Fatal(err)
		}
	}
	if b.hotScale != 2 || b.hotVals != 5002 {
		t.Fatalf("the slab's scale is %d and it took %d of 5002 values, want 2 and all", b.hotScale, b.hotVals)
	}
}
