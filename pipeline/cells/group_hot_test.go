package cells

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/writers"
)

// hotValue returns a value text that exercises the hot slab's edges:
// mixed scales (some beyond maxHotScale), negatives, ties written
// differently, values beyond the slab's bound and beyond int64, forms only
// the exact path reads, and missing values.
// With deep, some values have 12 decimals (their squares have more than
// decimal.MaxScale, which Cell.SumSq rounds on either path): the oracle
// test leaves them out.
func hotValue(r *rand.Rand, deep bool) string {
	switch r.IntN(20) {
	case 0:
		return "" // missing
	case 1:
		return []string{"5", "5.0", "5.00", "005", "5.", "+5"}[r.IntN(6)] // ties
	case 2:
		return fmt.Sprintf("-%d.%d", r.IntN(50), r.IntN(10))
	case 3:
		return []string{"-0", "-0.00", "0", ".5", "-.25", "1e3", "2.5E-1"}[r.IntN(7)]
	case 4: // near the bound of m² (3037000499) and beyond it
		return fmt.Sprintf("%d", 3037000499+int64(r.IntN(3))-1)
	case 5:
		return fmt.Sprintf("-30370004.%02d", r.IntN(100))
	case 6: // huge: sums leave int64 fast
		return fmt.Sprintf("%d%09d", 900000000+r.IntN(99999999), r.IntN(1000000000))
	case 7: // beyond int64
		return fmt.Sprintf("%d%018d", 1+r.IntN(9), r.Int64N(1e18))
	case 8: // more decimals than the slab keeps
		if !deep {
			return fmt.Sprintf("-0.0%08d", r.Int64N(1e8))
		}
		return fmt.Sprintf("0.%012d", r.Int64N(1e12))
	case 9: // scales 0..9
		sc := r.IntN(10)
		return fmt.Sprintf("%d.%0*d", r.IntN(100), sc, r.Int64N(int64(pow10i(sc))))
	}
	return fmt.Sprintf("%d.%02d", r.IntN(1000), r.IntN(100))
}

func pow10i(k int) int {
	p := 1
	for range k {
		p *= 10
	}
	return max(p, 1)
}

// hotRecords writes random records of nd dimensions (holding column h
// unused) with values from hotValue; scaleFirst starts with values of few
// decimals, so that the slab raises its scale on the way.
func hotRecords(r *rand.Rand, nd, rows int, deep bool) (string, [][]string) {
	var b strings.Builder
	hdr := []string{}
	for d := 0; d < nd; d++ {
		hdr = append(hdr, fmt.Sprintf("d%d", d))
	}
	b.WriteString(strings.Join(append(hdr, "h", "v"), ",") + "\n")
	levels := 1 + r.IntN(6)
	var recs [][]string
	for i := 0; i < rows; i++ {
		rec := make([]string, nd+2)
		for d := 0; d < nd; d++ {
			rec[d] = fmt.Sprintf("L%d", r.IntN(levels))
		}
		rec[nd] = "H0"
		if i < rows/4 && r.IntN(2) == 0 {
			rec[nd+1] = fmt.Sprintf("%d", r.IntN(100)) // scale 0 first
		} else {
			rec[nd+1] = hotValue(r, deep)
		}
		recs = append(recs, rec)
		b.WriteString(strings.Join(rec, ",") + "\n")
	}
	return b.String(), recs
}

// TestHotSlabAgreesWithOracle checks the cells grouped through the hot
// slab against the per-record oracle in exact rationals, with 1 and 4
// shards, and that the reports of both are byte-identical.
func TestHotSlabAgreesWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	cfgs := []string{
		"", // the default rules: top 2 and the sum of squares
		"publish: [count, total]\n",
		"publish: [count, total, min, max]\nrules: {dominance: {sets: [{n: 3, k: 80}]}}\n",
	}
	for iter := 0; iter < 24; iter++ {
		nd := 1 + r.IntN(3)
		rows := 1 + r.IntN(3000)
		text, recs := hotRecords(r, nd, rows, false)
		dims := make([]string, nd)
		for d := range dims {
			dims[d] = fmt.Sprintf("d%d", d)
		}
		cfg := fmt.Sprintf("microdata: {dims: [%s], value: v}\n", strings.Join(dims, ", ")) +
			cfgs[iter%len(cfgs)] + "suppression: {secondary: false, audit: false}\n"
		s := settings(t, cfg)
		rs, err := ruleNeeds(s)
		if err != nil {
			t.Fatal(err)
		}
		if !hotNeeds(rs.needs) {
			t.Fatalf("%q: needs %+v do not use the hot slab", cfg, rs.needs)
		}
		want := microOracle(recs, nd, false)
		var reports [][]byte
		for _, workers := range []int{1, 4} {
			src, err := readers.NewCSV("in.csv", strings.NewReader(text), readers.Options{BatchSize: 1 + r.IntN(200)})
			if err != nil {
				t.Fatal(err)
			}
			tab, err := loadSource(context.Background(), src, s, workers)
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

func hotNeeds(n rules.Needs) bool {
	return n.Powers == 0 && !n.Hist && !n.Absolute && n.Top <= maxHotTop
}

// TestHotSlabMatchesExactPath groups the same batches with and without
// the hot slab and compares the reports byte for byte; it also checks
// that the slab took values, raised its scale and flushed on overflow.
func TestHotSlabMatchesExactPath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 15))
	var took, raised int
	for iter := 0; iter < 30; iter++ {
		nd := 1 + r.IntN(3)
		text, _ := hotRecords(r, nd, 1+r.IntN(3000), true)
		dims := make([]string, nd)
		for d := range dims {
			dims[d] = fmt.Sprintf("d%d", d)
		}
		rulesCfg := fmt.Sprintf("rules: {dominance: {sets: [{n: %d, k: 80}]}}\n", 1+r.IntN(maxHotTop))
		pub := []string{"publish: [count, total]\n", "publish: [count, total, mean, min, max]\n", ""}[r.IntN(3)]
		s := settings(t, fmt.Sprintf("microdata: {dims: [%s], value: v}\n", strings.Join(dims, ", "))+pub+rulesCfg)
		rs, err := ruleNeeds(s)
		if err != nil {
			t.Fatal(err)
		}
		batch := 1 + r.IntN(300)
		var reports [][]byte
		for _, hot := range []bool{true, false} {
			src, err := readers.NewCSV("in.csv", strings.NewReader(text), readers.Options{BatchSize: batch})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := CompileSchema(s, "in.csv")
			if err != nil {
				t.Fatal(err)
			}
			tab := sc.newTable("in", "in.csv", "", s)
			b, err := newMicroBuilder(tab, "in.csv", src.Header(), "v", "", rs.needs)
			if err != nil {
				t.Fatal(err)
			}
			if b.hotOn != hotNeeds(rs.needs) {
				t.Fatalf("hotOn %v with needs %+v", b.hotOn, rs.needs)
			}
			b.hotOn = b.hotOn && hot
			for {
				bt, err := src.Next()
				if err != nil {
					break
				}
				if err := b.add(bt); err != nil {
					t.Fatal(err)
				}
			}
			if hot {
				if b.hotVals > 0 {
					took++
				}
				if b.hotScale > 0 {
					raised++
				}
			} else if b.hotVals != 0 {
				t.Fatal("the exact path used the slab")
			}
			if err := b.finish(); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := (writers.Report{}).Write(&out, tab); err != nil {
				t.Fatal(err)
			}
			reports = append(reports, out.Bytes())
		}
		if !bytes.Equal(reports[0], reports[1]) {
			t.Fatalf("iteration %d: the hot slab changes the report", iter)
		}
	}
	if took < 20 || raised < 20 {
		t.Fatalf("the slab took values in %d and raised its scale in %d of 30 runs", took, raised)
	}
}

// TestHotSlabFlushesOnOverflow sums values whose int64 mantissas overflow
// the slab's sum many times over, in one cell.
func TestHotSlabFlushesOnOverflow(t *testing.T) {
	var b strings.Builder
	b.WriteString("d,v\n")
	var recs [][]string
	for i := 0; i < 5000; i++ {
		v := fmt.Sprintf("%d", int64(9e17)+int64(i))
		if i%3 == 0 {
			v = "-" + v
		}
		recs = append(recs, []string{"A", "H", v})
		b.WriteString("A," + v + "\n")
	}
	s := settings(t, "microdata: {dims: [d], value: v}\npublish: [count, total]\nsuppression: {secondary: false, audit: false}\n")
	rs, err := ruleNeeds(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 4} {
		src, err := readers.NewCSV("in.csv", strings.NewReader(b.String()), readers.Options{BatchSize: 100})
		if err != nil {
			t.Fatal(err)
		}
		tab, err := loadSource(context.Background(), src, s, workers)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstOracle(t, tab, microOracle(recs, 1, false), rs.needs.Top)
	}
}

// TestHotSlabDecimalComma: with the decimal comma a point groups digits
// ("1.234" is 1234), which the slab's reading of texts must leave to
// NumberFormat.Parse.
func TestHotSlabDecimalComma(t *testing.T) {
	src, err := readers.NewCSV("in.csv", strings.NewReader("d;v\nA;1.234\nA;2,5\nA;7\nA;1.000.000\nB;-3\n"), readers.Options{BatchSize: 2, Delimiter: ';', Decimal: ","})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := loadSource(context.Background(), src, settings(t, "microdata: {dims: [d], value: v}\nsuppression: {secondary: false, audit: false}\n"), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1001243.5", "B": "-3", "Total": "1001240.5"}
	for _, c := range tab.Cells {
		if got := c.Total.String(); got != want[c.Key[0]] {
			t.Errorf("cell %s: total %s, want %s", c.Key[0], got, want[c.Key[0]])
		}
	}
}

// plainDecimal reads what NumberFormat.Parse reads, as the same Dec
// (mantissa and scale), and refuses what it does not read as plain text.
func TestPlainDecimalMatchesParse(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 5))
	texts := []string{"0", "-0", "0.0", "-0.000", "1.", "007", "2.000", "-12.50", "999999999999999999", "1000000000000000000",
		"-999999999999999999.", "0.000000000000000001", "1,5", "1.234,5", "1e3", "+5", " 5", "", "-", ".", "-.5", ".5", "5..", "1 234"}
	for range 3000 {
		var sb strings.Builder
		if r.IntN(3) == 0 {
			sb.WriteByte('-')
		}
		for range r.IntN(12) {
			sb.WriteByte("0123456789.,"[r.IntN(12)])
		}
		texts = append(texts, sb.String())
	}
	for _, comma := range []bool{false, true} {
		f := readers.NumberFormat{Comma: comma}
		for _, s := range texts {
			m, sc, ok := plainDecimal(s, comma)
			if !ok {
				continue
			}
			want, err := f.Parse(s)
			if err != nil {
				t.Fatalf("%q (comma %v): plainDecimal reads %d×10^-%d, Parse refuses it: %v", s, comma, m, sc, err)
			}
			got := decimal.Scaled(m, int(sc))
			wm, wok := want.Mantissa()
			if !wok || wm != m || want.Scale() != int(sc) || got.String() != want.String() {
				t.Fatalf("%q (comma %v): plainDecimal %d×10^-%d (%s), Parse %s", s, comma, m, sc, got, want)
			}
		}
	}
}
