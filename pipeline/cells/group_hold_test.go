package cells

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/readers"
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
// the cells indexed by an array or, for sparse tables, by a map: both give
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
		for _, dense := range []bool{true, false} {
			got, gotSafe, err := auditBytesTuned(t, data, cfg, opt, workers, true, Tuning{SpanMap: !dense})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) || !bytes.Equal(wantSafe, gotSafe) {
				t.Fatalf("iteration %d (dense %v): holdings contributed by holding differ from merged\n%s", iter, dense, firstDiff(want, got))
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
	}
	if len(names) != len(want) {
		t.Fatalf("%d names, want %d", len(names), len(want))
	}
	for s, id := range want {
		if names[id] != s {
			t.Fatalf("names[%d] = %q, want %q", id, names[id], s)
		}
	}
}
