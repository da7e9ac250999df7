package cells

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/writers"
)

// TestHoldingsAgreeWithOracle checks cells with holdings against the
// per-record oracle in exact rationals, with 1 and 4 shards: holdings
// that span cells and shards, with many records (so that cells compact
// their holdings on the way), values beyond int64 (big sums that merges
// must not share), mixed scales, ties and missing values; with and
// without power sums (which merge every holding upward in the holdings'
// order).
func TestHoldingsAgreeWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 17))
	for iter := 0; iter < 16; iter++ {
		nd := 1 + r.IntN(3)
		rows := 1 + r.IntN(4000)
		nh := 1 + r.IntN(rows/3+1)
		levels := 1 + r.IntN(4)
		var b strings.Builder
		hdr := []string{}
		for d := 0; d < nd; d++ {
			hdr = append(hdr, fmt.Sprintf("d%d", d))
		}
		b.WriteString(strings.Join(append(hdr, "h", "v"), ",") + "\n")
		var recs [][]string
		for i := 0; i < rows; i++ {
			h := r.IntN(nh)
			home := rand.New(rand.NewPCG(uint64(h), 3))
			rec := make([]string, nd+2)
			for d := 0; d < nd; d++ {
				if r.IntN(4) == 0 {
					rec[d] = fmt.Sprintf("L%d", r.IntN(levels))
				} else {
					rec[d] = fmt.Sprintf("L%d", home.IntN(levels))
				}
			}
			rec[nd] = fmt.Sprintf("H%d", h)
			rec[nd+1] = hotValue(r, false)
			recs = append(recs, rec)
			b.WriteString(strings.Join(rec, ",") + "\n")
		}
		dims := make([]string, nd)
		for d := range dims {
			dims[d] = fmt.Sprintf("d%d", d)
		}
		cfg := fmt.Sprintf("microdata: {dims: [%s], value: v, holding: h}\n", strings.Join(dims, ", "))
		powers := iter%2 == 1
		if powers {
			cfg += "publish: [count, total, mean, sd]\n"
		} else {
			cfg += "publish: [count, total]\n"
		}
		cfg += "suppression: {secondary: false, audit: false}\n"
		s := settings(t, cfg)
		rs, err := ruleNeeds(s)
		if err != nil {
			t.Fatal(err)
		}
		if (rs.needs.Powers > 0) != powers {
			t.Fatalf("power sums %d with %q", rs.needs.Powers, cfg)
		}
		want := microOracle(recs, nd, true)
		var reports [][]byte
		for _, workers := range []int{1, 4} {
			src, err := readers.NewCSV("in.csv", strings.NewReader(b.String()), readers.Options{BatchSize: 1 + r.IntN(300)})
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

// TestHoldingsBigSumsLetGo: a holding's records with values beyond int64
// are added into one big sum as its entries compact; the big sums of the
// entries compacted away are let go (holdBig keeps about one per live
// entry, not one per record), and the sum stays exact.
func TestHoldingsBigSumsLetGo(t *testing.T) {
	var b strings.Builder
	b.WriteString("d,h,v\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "A,H%d,1234567890123456789%d\n", i%2, i%10)
	}
	s := settings(t, "microdata: {dims: [d], value: v, holding: h}\npublish: [count, total]\n")
	rs, err := ruleNeeds(s)
	if err != nil {
		t.Fatal(err)
	}
	src, err := readers.NewCSV("in.csv", strings.NewReader(b.String()), readers.Options{BatchSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := CompileSchema(s, "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	tab := sc.newTable("in", "in.csv", "", s)
	mb, err := newMicroBuilder(tab, "in.csv", src.Header(), "v", "h", rs.needs)
	if err != nil {
		t.Fatal(err)
	}
	for {
		bt, err := src.Next()
		if err != nil {
			break
		}
		if err := mb.add(bt); err != nil {
			t.Fatal(err)
		}
	}
	live := 0
	for _, r := range mb.holdBig {
		if r != nil {
			live++
		}
	}
	if live > 4*minCompact {
		t.Fatalf("%d big sums kept for 2 holdings of 5000 records", live)
	}
	if err := mb.finish(); err != nil {
		t.Fatal(err)
	}
	// 5000 × 12345678901234567890 + 500 × (0+1+...+9)
	want := "61728394506172839472500"
	for _, c := range tab.Cells {
		if c.Total.String() != want || c.N != 2 {
			t.Fatalf("cell %v: total %s over %d contributors, want %s over 2", c.Key, c.Total, c.N, want)
		}
	}
}

// Spanning holdings are contributed by holding (contributeSpanning) with
// the cells indexed by an array or, for sparse tables, by a map, through
// the contribution slab or on the exact path: each gives
// the reports of merging the holdings into the margins (the path kept for
// power sums and hierarchies, forced here by taking no spanning holdings
// out), byte for byte, at 1 and 3 shards.
func TestSpanningHoldingsMatchMerges(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 3))
	for iter := 0; iter < 12; iter++ {
		data := chunkCSV(r, 100+r.IntN(2000), ',', false, false, -1)
		cfg := "microdata: {dims: [region, \"sec\\ntor\"], value: v, holding: h}\nsuppression: {secondary: false, audit: false}\n"
		opt := readers.Options{BatchSize: 1 + r.IntN(60)}
		workers := 1 + 2*(iter%2)
		want, wantSafe, err := auditBytesTuned(t, data, cfg, opt, workers, true, Tuning{SpanOff: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, tune := range []Tuning{{}, {SpanMap: true}, {SpanExact: true}} {
			got, gotSafe, err := auditBytesTuned(t, data, cfg, opt, workers, true, tune)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) || !bytes.Equal(wantSafe, gotSafe) {
				t.Fatalf("iteration %d (%+v): holdings contributed by holding differ from merged\n%s", iter, tune, firstDiff(want, got))
			}
		}
	}
}

// holdTable gives ids in the order texts are first seen, the same id to
// the same text however often and after however many growths, and tells
// apart texts that differ in a byte or in length: short texts (held in
// the slot), long ones sharing their first 7 bytes, zero bytes, "".
func TestHoldTableInterns(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 6))
	tab := newHoldTable()
	var names []string
	want := map[string]uint32{}
	var texts []string // every text but "", for internTexts
	for range 200_000 {
		s := fmt.Sprintf("G%d", r.IntN(60_000))
		switch r.IntN(6) {
		case 0:
			s = s[:len(s)-1] + "\x00" // a near twin
		case 1:
			s = "enterprise-" + s // long: the same first 7 bytes
		case 2:
			s = s[:r.IntN(len(s)+1)] // short, empty included
		case 3:
			s = "G\x00\x00\x00\x00\x00" + s[1:] // zero bytes inside
		}
		id, ok := want[s]
		if !ok {
			id = uint32(len(want))
			want[s] = id
		}
		if got := tab.intern(s, &names); got != id {
			t.Fatalf("%q: id %d, want %d", s, got, id)
		}
		if s != "" {
			texts = append(texts, s)
		}
	}
	if len(names) != len(want) {
		t.Fatalf("%d names, want %d", len(names), len(want))
	}
	for s, id := range want {
		if names[id] != s {
			t.Fatalf("names[%d] = %q, want %q", id, names[id], s)
		}
	}
	// internTexts, in runs of any length (across internAhead), with ""
	// among them: the ids of interning one text at a time, "" none
	tab2 := newHoldTable()
	var names2 []string
	seen := map[string]uint32{}
	for len(texts) > 0 {
		n := min(len(texts), r.IntN(3*internAhead))
		run := append(slices.Clone(texts[:n]), "")
		texts = texts[n:]
		ids := tab2.internTexts(run, &names2, nil)
		for i, s := range run {
			want, ok := seen[s]
			switch {
			case s == "":
				want = noHolding
			case !ok:
				want = uint32(len(seen))
				seen[s] = want
			}
			if ids[i] != want {
				t.Fatalf("internTexts: %q has id %d, want %d", s, ids[i], want)
			}
		}
	}
	if !slices.Equal(names2, slices.DeleteFunc(slices.Clone(names), func(s string) bool { return s == "" })) {
		t.Fatalf("internTexts named %d texts, intern %d", len(names2), len(names))
	}
}

// The spanning holdings' contribution slab (contribSlab) gives a cell the
// contributors the exact path gives it (contribute): count, negatives,
// sum, sum of squares, range and largest values, whatever the sums'
// scales and magnitudes: sums beyond int64 or with more decimals than the
// slab's scale take the exact path, and a cell whose slab sum (or sum of
// squares) would overflow is merged on the way.
func TestContribSlabMatchesContribute(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		needs := rules.Needs{Top: rapid.IntRange(0, maxHotTop).Draw(t, "top"), SumSq: rapid.Bool().Draw(t, "sumsq")}
		b := &microBuilder{valIdx: 0, needs: needs}
		scale := int32(rapid.IntRange(0, 12).Draw(t, "slab scale"))
		sl := b.spanSlab(&spanning{entries: []spanEntry{{h: holding{scale: scale}}}}, 2)
		exact, viaSlab := b.newAcc(nil), b.newAcc(nil)
		n := rapid.IntRange(1, 60).Draw(t, "n")
		took, merged := 0, 0
		for i := 0; i < n; i++ {
			var s sum
			for range rapid.IntRange(1, 3).Draw(t, "parts") {
				var m int64
				switch rapid.IntRange(0, 3).Draw(t, "size") {
				case 0:
					m = rapid.Int64().Draw(t, "m") // sums past int64, slab sums that overflow
				case 1:
					m = rapid.Int64Range(-3037000600, 3037000600).Draw(t, "m") // about the bound of m²
				default:
					m = rapid.Int64Range(-1e6, 1e6).Draw(t, "m")
				}
				d := decimal.Scaled(m, rapid.IntRange(0, 12).Draw(t, "scale"))
				if rapid.IntRange(0, 20).Draw(t, "big") == 0 {
					d = d.Mul(decimal.Must("10000000000000000000"))
				}
				s.add(d)
			}
			b.contribute(exact, s.value())
			if m, ok := sl.mant(&s); ok {
				if h := sl.cell(1); !slabAdd(slices.Clone(h), m, sl.sumSq) {
					merged++
				}
				sl.add(b, viaSlab, 1, m)
				took++
				continue
			}
			b.contribute(viaSlab, s.value())
		}
		if h := sl.cell(1); h[hotN] > 0 {
			b.mergeSlab(viaSlab, h, sl.scale)
		}
		if sl.cell(0)[hotN] != 0 {
			t.Fatalf("cell 0 of the slab was written")
		}
		t.Logf("%d of %d through the slab, %d merges on the way", took, n, merged)
		eq := func(what string, x, y any) {
			if fmt.Sprint(x) != fmt.Sprint(y) {
				t.Fatalf("%s: slab %v, exact %v", what, y, x)
			}
		}
		eq("n", exact.n, viaSlab.n)
		eq("negative", exact.negative, viaSlab.negative)
		eq("total", exact.total.value(), viaSlab.total.value())
		if needs.SumSq {
			eq("sum of squares", exact.sumsq.value(), viaSlab.sumsq.value())
		}
		eq("range", []any{exact.hasRange, exact.min, exact.max}, []any{viaSlab.hasRange, viaSlab.min, viaSlab.max})
		eq("top", exact.top.v, viaSlab.top.v)
	})
}

// A record with an empty holding id is an error naming its row and the
// holding column, wherever it falls in a batch, after records whose
// holdings wait for applyHoldings and records that take the exact path.
func TestEmptyHoldingIDNamesItsRow(t *testing.T) {
	s := settings(t, "microdata: {dims: [d], value: v, holding: h}\nsuppression: {secondary: false, audit: false}\n")
	for _, bad := range []int{0, 1, 5, 37} {
		var b strings.Builder
		b.WriteString("d,h,v\n")
		for i := range 40 {
			h, v := fmt.Sprintf("H%d", i%7), []string{"1.5", "1e3", "", "12345678901234567890123"}[i%4]
			if i == bad {
				h = ""
			}
			fmt.Fprintf(&b, "A%d,%s,%s\n", i%3, h, v)
		}
		for _, batch := range []int{1, 8, 100} {
			src, err := readers.NewCSV("in.csv", strings.NewReader(b.String()), readers.Options{BatchSize: batch})
			if err != nil {
				t.Fatal(err)
			}
			_, err = loadSource(context.Background(), src, s, 1)
			var re *readers.Error
			if !errors.As(err, &re) || re.Row != bad+2 || re.Column != "holding" {
				t.Fatalf("empty id in record %d, batches of %d: %v, want an error at row %d, column holding", bad, batch, err, bad+2)
			}
		}
	}
}

// Spanning holdings whose sums in a cell leave int64 (the slab's fast
// pass gives up and adds them as exact sums) or the slab's bound (with
// the sum of squares: |m| <= 3037000499), reach -2^63, or have more
// decimals than others: the cells agree with the per-record oracle and
// with merging the holdings into the margins, at 1 and 3 shards.
func TestSpanningHoldingsNearInt64(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 9))
	for iter := range 40 {
		cfg := "microdata: {dims: [d0, d1], value: v, holding: h}\nsuppression: {secondary: false, audit: false}\n"
		vals := []string{"4611686018427387904", "4611686018427387903", "-4611686018427387904", "9223372036854775807", "-9223372036854775807", "3", "-7", ""}
		if iter%2 == 0 {
			cfg += "rules: {moments: {enabled: false}}\n" // no sum of squares: the bound is int64's
		} else {
			vals = []string{"3037000499", "3037000500", "-3037000499", "1518500250", "-1518500249", "3", "-7", ""}
		}
		if iter%4 >= 2 {
			vals = append(vals, "0.5", "-1.25")
		}
		var b strings.Builder
		b.WriteString("d0,d1,h,v\n")
		var recs [][]string
		// about one record per holding and finest cell: the holdings'
		// sums in the finest cells fit int64, those in the margins often not
		for range 10 + r.IntN(60) {
			rec := []string{fmt.Sprintf("A%d", r.IntN(3)), fmt.Sprintf("B%d", r.IntN(3)), fmt.Sprintf("H%d", r.IntN(12)), vals[r.IntN(len(vals))]}
			recs = append(recs, rec)
			b.WriteString(strings.Join(rec, ",") + "\n")
		}
		rs, err := ruleNeeds(settings(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		if rs.needs.SumSq != (iter%2 == 1) || rs.needs.Powers > 0 {
			t.Fatalf("needs %+v with %q", rs.needs, cfg)
		}
		want := microOracle(recs, 2, true)
		for _, workers := range []int{1, 3} {
			opt := readers.Options{BatchSize: 1 + r.IntN(50)}
			src, err := readers.NewCSV("in.csv", strings.NewReader(b.String()), opt)
			if err != nil {
				t.Fatal(err)
			}
			tab, err := loadTuned(context.Background(), src, settings(t, cfg), workers, Tuning{})
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstOracle(t, tab, want, rs.needs.Top)
			merged, mergedSafe, err := auditBytesTuned(t, []byte(b.String()), cfg, opt, workers, true, Tuning{SpanOff: true})
			if err != nil {
				t.Fatal(err)
			}
			got, gotSafe, err := auditBytesTuned(t, []byte(b.String()), cfg, opt, workers, true, Tuning{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(merged, got) || !bytes.Equal(mergedSafe, gotSafe) {
				t.Fatalf("iteration %d, %d shards: holdings contributed by holding differ from merged\n%s", iter, workers, firstDiff(merged, got))
			}
		}
	}
}
