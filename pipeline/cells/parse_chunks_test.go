package cells

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"

	"github.com/sdcaudit/sdcaudit/readers"
)

// sequential hides a source's NextChunk, so that build reads it by Next.
// (build looks for a Chunker on the source itself, not through wrappers.)
type sequential struct{ readers.Source }

func (s sequential) Unwrap() readers.Source { return s.Source }

// chunkCSV writes a random delimited file for the parallel-parse tests:
// labels with the delimiter, quotes and line breaks (quoted), CRLF and LF
// lines, blank lines, a byte-order mark, ties, negative and missing
// values, holdings spanning cells, and, when latin1, text in Latin-1.
// bad, when > 0, puts one faulty record (a bad number, a bare quote, a
// wrong field count, a quote left open or, with utf8, bytes that are not
// UTF-8) at about that record.
func chunkCSV(r *rand.Rand, rows int, delim byte, latin1, utf8 bool, bad int) []byte {
	var b bytes.Buffer
	if !latin1 && r.IntN(3) == 0 {
		b.WriteString("\xEF\xBB\xBF")
	}
	d := string(delim)
	eol := func() string {
		if r.IntN(2) == 0 {
			return "\r\n"
		}
		return "\n"
	}
	b.WriteString("region" + d + "\"sec\ntor\"" + d + "h" + d + "v" + eol())
	labels := []string{"North", "South", `"East` + d + ` coast"`, `"the ""West"""`, "\"Mid\nlands\"", "\"High\r\nlands\"", "Zürich"}
	if latin1 {
		labels[6] = "Z\xFCrich"
	}
	nh := 1 + r.IntN(rows/3+1)
	for i := 0; i < rows; i++ {
		if r.IntN(20) == 0 {
			b.WriteString(eol()) // a blank line
		}
		h := r.IntN(nh)
		home := rand.New(rand.NewPCG(uint64(h), 3))
		reg, sec := labels[home.IntN(len(labels))], home.IntN(4)
		if r.IntN(3) == 0 {
			reg, sec = labels[r.IntN(len(labels))], r.IntN(4)
		}
		var v string
		switch r.IntN(8) {
		case 0:
			v = ""
		case 1:
			v = "NA"
		case 2:
			v = "7" // ties
		case 3:
			v = fmt.Sprintf("-%d.%d", r.IntN(50), r.IntN(10))
		case 4:
			v = fmt.Sprintf("\"%d.5\"", r.IntN(100))
		default:
			v = fmt.Sprintf("%d.%02d", r.IntN(100000), r.IntN(100))
		}
		hold := fmt.Sprintf("G%d", h)
		if i == bad {
			switch r.IntN(5) {
			case 0:
				v = "12x"
			case 1:
				hold = `G"1`
			case 2:
				v += d + "1"
			case 3:
				hold = `"G` // the quote stays open to the end
			case 4:
				if utf8 {
					hold = "G\xFF"
				} else {
					v = "1..2"
				}
			}
		}
		sector := fmt.Sprintf("S%d", sec)
		if sec == 3 {
			sector = fmt.Sprintf("\"S%s%d\"", d, sec)
		}
		b.WriteString(reg + d + sector + d + hold + d + v)
		if i < rows-1 || r.IntN(2) == 0 {
			b.WriteString(eol())
		}
	}
	return b.Bytes()
}

// auditBytes audits a file in memory and returns its report.json and
// safe.csv, or the error.
func auditBytes(t *testing.T, data []byte, cfg string, opt readers.Options, workers int, parallel bool) ([]byte, []byte, error) {
	t.Helper()
	return auditBytesTuned(t, data, cfg, opt, workers, parallel, Tuning{})
}

// auditBytesTuned is auditBytes with the builders' tuning.
func auditBytesTuned(t *testing.T, data []byte, cfg string, opt readers.Options, workers int, parallel bool, tune Tuning) ([]byte, []byte, error) {
	t.Helper()
	src, err := readers.NewCSV("in.csv", bytes.NewReader(data), opt)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := src.(readers.Chunker); !ok {
		t.Fatal("the CSV source does not cut chunks")
	}
	if !parallel {
		src = sequential{src}
	}
	return outputsOf(t, src, cfg, workers, tune)
}

// Parsing chunks in the shards gives the same report.json and safe.csv as
// parsing by Next, byte for byte, on random files whose quoted fields hold
// delimiters and line breaks, with chunks small enough that many records
// span a chunk's end, with and without power sums (whose floating-point
// sums depend on the partition of the records: chunk i must hold batch
// i's records exactly).
func TestParallelParseMatchesSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	broken := 0 // reports with a label holding a line break
	for iter := 0; iter < 60; iter++ {
		delim := []byte{',', ';', '\t'}[r.IntN(3)]
		latin1 := r.IntN(4) == 0
		data := chunkCSV(r, 1+r.IntN(1200), delim, latin1, false, -1)
		cfg := "microdata: {dims: [region, \"sec\\ntor\"], value: v"
		if r.IntN(3) != 0 {
			cfg += ", holding: h"
		}
		cfg += "}\n"
		if iter%2 == 1 {
			cfg += "publish: [count, total, mean, sd, moments: {order: 3}]\n"
		}
		cfg += "suppression: {secondary: false, audit: false}\n"
		opt := readers.Options{BatchSize: 1 + r.IntN(40)}
		workers := 1 + r.IntN(4)
		rep0, safe0, err0 := auditBytes(t, data, cfg, opt, workers, false)
		rep1, safe1, err1 := auditBytes(t, data, cfg, opt, workers, true)
		if err0 != nil || err1 != nil {
			t.Fatalf("iteration %d: sequential %v, parallel %v", iter, err0, err1)
		}
		if !bytes.Equal(rep0, rep1) || !bytes.Equal(safe0, safe1) {
			t.Fatalf("iteration %d (delimiter %q, batch %d, %d workers): parallel parsing gives other outputs\n%s", iter, delim, opt.BatchSize, workers, firstDiff(rep0, rep1))
		}
		if bytes.Contains(rep0, []byte("Mid\\nlands")) {
			broken++
		}
	}
	if broken < 10 {
		t.Fatalf("only %d reports show the label with a line break", broken)
	}
}

// An input error names the same file, row and column whether the file is
// parsed by Next or in chunks: the record with the smallest row wins.
func TestParallelParseErrorsMatchSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 3))
	for iter := 0; iter < 80; iter++ {
		delim := []byte{',', ';', '\t'}[r.IntN(3)]
		rows := 2 + r.IntN(1500)
		utf8 := r.IntN(3) == 0
		data := chunkCSV(r, rows, delim, false, utf8, r.IntN(rows))
		opt := readers.Options{BatchSize: 1 + r.IntN(40)}
		if utf8 {
			opt.Encoding = "utf-8"
		}
		cfg := "microdata: {dims: [region, \"sec\\ntor\"], value: v, holding: h}\nsuppression: {secondary: false, audit: false}\n"
		workers := 1 + r.IntN(4)
		_, _, err0 := auditBytes(t, data, cfg, opt, workers, false)
		_, _, err1 := auditBytes(t, data, cfg, opt, workers, true)
		var re *readers.Error
		if err0 == nil || !errors.As(err0, &re) || re.Row < 2 {
			t.Fatalf("iteration %d: sequential read gives %v, want an input error naming a row", iter, err0)
		}
		if err1 == nil || err0.Error() != err1.Error() {
			t.Fatalf("iteration %d (batch %d, %d workers):\nsequential %v\nparallel   %v", iter, opt.BatchSize, workers, err0, err1)
		}
	}
}

// A cancelled run stops with the context's error, parsing in chunks.
func TestParallelParseHonoursCancel(t *testing.T) {
	data := chunkCSV(rand.New(rand.NewPCG(1, 1)), 5000, ',', false, false, -1)
	src, err := readers.NewCSV("in.csv", bytes.NewReader(data), readers.Options{BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = loadSource(ctx, src, settings(t, "microdata: {dims: [region], value: v}\n"), 2)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// The outputs do not depend on the number of shards: batch i goes to
// shard i mod n and the shards are merged in a fixed order, so report.json
// and safe.csv are byte for byte those of one shard at 2, 3 and 7 shards
// (and 16 workers), parsed in chunks or by Next, on random files of many
// small batches, with holdings spanning cells and shards, with and
// without power sums (floating point: their shards do not follow the
// worker count, see partitions).
func TestShardCountsGiveSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 4))
	for iter := 0; iter < 24; iter++ {
		data := chunkCSV(r, 200+r.IntN(1500), ',', false, false, -1)
		cfg := "microdata: {dims: [region, \"sec\\ntor\"], value: v"
		if iter%3 != 0 {
			cfg += ", holding: h"
		}
		cfg += "}\n"
		if iter%2 == 1 {
			cfg += "publish: [count, total, mean, sd, moments: {order: 4}]\n"
		}
		cfg += "suppression: {secondary: false, audit: false}\n"
		opt := readers.Options{BatchSize: 1 + r.IntN(25)}
		parallel := iter%4 != 3
		rep0, safe0, err := auditBytes(t, data, cfg, opt, 1, parallel)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{2, 3, 7, 16} {
			rep, safe, err := auditBytes(t, data, cfg, opt, n, parallel)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rep0, rep) || !bytes.Equal(safe0, safe) {
				t.Fatalf("iteration %d (batch %d, parallel %v): %d workers give other outputs than one\n%s", iter, opt.BatchSize, parallel, n, firstDiff(rep0, rep))
			}
		}
	}
}

// partitions follows the worker count, uncapped, unless the cells keep
// power sums.
func TestPartitionsFollowWorkers(t *testing.T) {
	exact := &microBuilder{}
	pow := &microBuilder{}
	pow.needs.Powers = 3
	for _, w := range []int{0, 1, 2, 3, 7, 16, 64} {
		if got := partitions(exact, w); got != max(1, w) {
			t.Errorf("%d workers: %d shards, want %d", w, got, max(1, w))
		}
		if got := partitions(pow, w); got != powerShards {
			t.Errorf("%d workers with power sums: %d shards, want %d", w, got, powerShards)
		}
	}
}

// Merging the shards in parallel (absorbAll) gives report.json and
// safe.csv byte for byte as merging them one by one (absorb), on random
// files of three dimensions with many levels, first seen in other orders
// by other shards (so that the level ids are mapped in absorb's order),
// ties, negative and missing values, at 2 to 16 workers, with and without
// power sums (floating point: the merges of each cell must come in shard
// order) and with holdings (merged one by one either way).
func TestParallelAbsorbMatchesSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 9))
	for iter := 0; iter < 16; iter++ {
		var b bytes.Buffer
		b.WriteString("a,b,c,h,v\n")
		na, nb := 2+r.IntN(60), 1+r.IntN(12)
		rows := 500 + r.IntN(4000)
		for i := 0; i < rows; i++ {
			var v string
			switch r.IntN(7) {
			case 0:
				v = ""
			case 1:
				v = "7"
			case 2:
				v = fmt.Sprintf("-%d.%d", r.IntN(50), r.IntN(10))
			default:
				v = fmt.Sprintf("%d.%02d", r.IntN(100000), r.IntN(100))
			}
			fmt.Fprintf(&b, "A%d,B%d,C%d,H%d,%s\n", r.IntN(na), r.IntN(nb), r.IntN(3), r.IntN(rows/4+1), v)
		}
		cfg := "microdata: {dims: [a, b, c], value: v"
		if iter%4 == 3 {
			cfg += ", holding: h"
		}
		cfg += "}\n"
		if iter%2 == 1 {
			cfg += "publish: [count, total, mean, sd, moments: {order: 4}]\n"
		}
		cfg += "suppression: {secondary: false, audit: false}\n"
		opt := readers.Options{BatchSize: 1 + r.IntN(30)}
		for _, n := range []int{2, 3, 5, 16} {
			var tabs [2]*audit.Table
			for k, tune := range []Tuning{{SerialAbsorb: true}, {}} {
				src, err := readers.NewCSV("in.csv", bytes.NewReader(b.Bytes()), opt)
				if err != nil {
					t.Fatal(err)
				}
				if tabs[k], err = loadTuned(context.Background(), src, settings(t, cfg), n, tune); err != nil {
					t.Fatal(err)
				}
			}
			// every figure of every cell, power sums bit for bit
			if !reflect.DeepEqual(tabs[0], tabs[1]) {
				for i := range tabs[0].Cells {
					if i < len(tabs[1].Cells) && !reflect.DeepEqual(tabs[0].Cells[i], tabs[1].Cells[i]) {
						t.Fatalf("iteration %d (batch %d, %d workers): cell %v differs:\nserial   %+v\nparallel %+v", iter, opt.BatchSize, n, tabs[0].Cells[i].Key, *tabs[0].Cells[i], *tabs[1].Cells[i])
					}
				}
				t.Fatalf("iteration %d (batch %d, %d workers): the parallel merge gives another table", iter, opt.BatchSize, n)
			}
		}
	}
}
