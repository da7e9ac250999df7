package readers

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// readBatches reads every batch of a Parquet file, every numeric column
// asked as numbers when typed, with n decoders (n < 2: the sequential
// reader), and returns the batches and the error that ended them ("" at
// the end of the file).
func readBatches(t *testing.T, path string, opt Options, typed bool, n int) ([]*Batch, string) {
	t.Helper()
	srcs, err := OpenParquet(path, opt)
	if err != nil {
		return nil, "open: " + err.Error()
	}
	src := srcs[0]
	defer src.Close()
	if typed {
		for c := range src.Header() {
			src.(Typed).ReadNumbers(c)
		}
	}
	if n >= 2 {
		src.(ParallelDecoder).DecodeParallel(context.Background(), n)
	}
	var out []*Batch
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out, ""
		}
		if err != nil {
			return out, err.Error()
		}
		out = append(out, b)
	}
}

// TestParquetParallelMatchesSequential: with 2 to 4 decoders the Parquet
// reader returns exactly the batches of the sequential reader (rows,
// lines, typed numbers, batch boundaries), on random tables of every type
// (nulls, dictionary pages, decimals, floats) in several row groups, with
// batch sizes that do and do not divide the row groups.
func TestParquetParallelMatchesSequential(t *testing.T) {
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 16))
		recs := randomTypedRecords(t, rng, 3, 1500)
		p := filepath.Join(t.TempDir(), "t.parquet")
		rowGroup := []int64{500, 700, 1024}[seed]
		writeParquetFile(t, p, rowGroup, recs...)
		for _, r := range recs {
			r.Release()
		}
		if g := parquetMeta(t, p).rowGroups; g < 4 {
			t.Fatalf("%d row groups, want several", g)
		}
		for _, batch := range []int{100, 256, 4096} {
			for _, typed := range []bool{false, true} {
				opt := Options{BatchSize: batch}
				want, wantErr := readBatches(t, p, opt, typed, 1)
				if wantErr != "" || len(want) == 0 {
					t.Fatalf("sequential: %d batches, %q", len(want), wantErr)
				}
				for n := 2; n <= 4; n++ {
					got, gotErr := readBatches(t, p, opt, typed, n)
					if gotErr != "" {
						t.Fatalf("seed %d batch %d typed %v, %d decoders: %s", seed, batch, typed, n, gotErr)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d batch %d typed %v, %d decoders: the batches differ from the sequential reader's", seed, batch, typed, n)
					}
				}
			}
		}
	}
}

// TestParquetParallelErrors: on Parquet files whose pages are damaged
// (the footer intact, so that the file opens), the parallel reader
// returns the batches the sequential reader returns before its error and
// then the same error (file, row, column, message), whichever decoder
// meets it and whatever later row groups other decoders have damaged.
func TestParquetParallelErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 16))
	recs := randomTypedRecords(t, rng, 2, 1000)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeParquetFile(t, good, 200, recs...)
	for _, r := range recs {
		r.Release()
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	footer := int(binary.LittleEndian.Uint32(data[len(data)-8:])) + 8
	body := len(data) - footer - 4 // the pages, after "PAR1"
	failed, late := 0, 0
	for k := range 40 {
		bad := append([]byte(nil), data...)
		for range 4 + 8*(k%4) {
			i := 4 + rng.IntN(body)
			bad[i] ^= byte(1 + rng.IntN(255))
		}
		p := filepath.Join(dir, fmt.Sprintf("bad%d.parquet", k))
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, typed := range []bool{false, true} {
			want, wantErr := readBatches(t, p, Options{BatchSize: 150}, typed, 1)
			if wantErr != "" {
				failed++
				if len(want) > 0 {
					late++
				}
			}
			for n := 2; n <= 4; n++ {
				got, gotErr := readBatches(t, p, Options{BatchSize: 150}, typed, n)
				if gotErr != wantErr {
					t.Fatalf("file %d typed %v, %d decoders: error\n%s\nthe sequential reader's\n%s", k, typed, n, gotErr, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("file %d typed %v, %d decoders: %d batches before the error, the sequential reader %d", k, typed, n, len(got), len(want))
				}
			}
		}
	}
	if failed < 30 || late < 20 {
		t.Fatalf("only %d damaged reads failed, %d after the first batch: the test shows little", failed, late)
	}
}

// TestParquetParallelStops: a reader closed, or whose context is
// cancelled, in the middle of the file stops its decoders (Close waits
// for them; -race and the leak of a blocked decoder would show).
func TestParquetParallelStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 16))
	recs := randomTypedRecords(t, rng, 2, 3000)
	p := filepath.Join(t.TempDir(), "t.parquet")
	writeParquetFile(t, p, 300, recs...)
	for _, r := range recs {
		r.Release()
	}
	for _, cancelFirst := range []bool{false, true} {
		srcs, err := OpenParquet(p, Options{BatchSize: 100})
		if err != nil {
			t.Fatal(err)
		}
		src := srcs[0]
		ctx, cancel := context.WithCancel(context.Background())
		src.(ParallelDecoder).DecodeParallel(ctx, 3)
		for range 5 {
			if _, err := src.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if cancelFirst {
			cancel()
			// the batches already decoded may still come, then the
			// context's error; never a batch out of order or EOF
			for {
				_, err := src.Next()
				if err == nil {
					continue
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("after cancel: %v, want context.Canceled", err)
				}
				break
			}
		}
		src.Close() // waits for the decoders
		cancel()
	}
}

// TestParquetParallelOnlyWithinBudget: each decoder has a memory budget of
// its own, so the file is decoded in parallel only when n row groups'
// claims fit in one budget together; otherwise one row group at a time,
// with the same batches.
func TestParquetParallelOnlyWithinBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 16))
	recs := randomTypedRecords(t, rng, 3, 1500)
	p := filepath.Join(t.TempDir(), "t.parquet")
	writeParquetFile(t, p, 500, recs...)
	for _, r := range recs {
		r.Release()
	}
	want, wantErr := readBatches(t, p, Options{BatchSize: 256}, true, 1)
	if wantErr != "" {
		t.Fatal(wantErr)
	}
	for _, tight := range []bool{false, true} {
		srcs, err := OpenParquet(p, Options{BatchSize: 256})
		if err != nil {
			t.Fatal(err)
		}
		s := srcs[0].(*parquetSource)
		for c := range s.Header() {
			s.ReadNumbers(c)
		}
		const n = 3
		most := s.largestRowGroup()
		if most <= 0 {
			t.Fatalf("largest row group claims %d bytes", most)
		}
		// the budget as DecodeParallel sees it (the claims only: decoding
		// itself takes more than they claim, so the file is then read with
		// its own budget)
		limit := s.mem.limit
		s.mem.limit = n * most
		if tight {
			s.mem.limit--
		}
		s.DecodeParallel(context.Background(), n)
		if parallel := s.par != nil; parallel == tight {
			t.Fatalf("budget %d for %d row groups of up to %d bytes: parallel %v", s.mem.limit, n, most, parallel)
		}
		s.mem.limit = limit
		var got []*Batch
		for {
			b, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b)
		}
		s.Close()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tight %v: the batches differ from the sequential reader's", tight)
		}
	}
}

// TestParquetCloseReportsNoError: closing a Parquet file opened by path
// reports no error (arrow-go's reader closes the file first; the second
// close's "file already closed" is not an error of the read).
func TestParquetCloseReportsNoError(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 16))
	recs := randomTypedRecords(t, rng, 2, 50)
	p := filepath.Join(t.TempDir(), "t.parquet")
	writeParquetFile(t, p, 500, recs...)
	for _, r := range recs {
		r.Release()
	}
	srcs, err := OpenParquet(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srcs[0].Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
