// Command scaletool is the helper of bench/scale.sh (issue 28): it writes
// the benchmark's microdata file and times the baseline, a plain one-core
// encoding/csv read of it.
//
//	scaletool gen -rows N -out FILE   write N records (fixed seed)
//	scaletool gen -rows N -holdings H -out FILE
//	                                  the same with a holding column (bench/holdings.sh)
//	scaletool read FILE               read FILE with encoding/csv, print records
//
// The file is the one pipeline.BenchmarkCheckMicrodata generates: an id,
// three dimensions of 50, 40 and 10 levels and a lognormal turnover with
// two decimals, from the same seed, so that figures compare with the
// benchmark's. With -holdings it is the one BenchmarkCheckHoldings
// generates (its 1 M records and 100,000 holdings included): a holding id
// "group" (H of them), half the records in their holding's home cell and
// half anywhere, so that nearly every holding spans cells.
package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sdcaudit/sdcaudit/internal/benchdata"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "gen":
		fs := flag.NewFlagSet("gen", flag.ExitOnError)
		rows := fs.Int("rows", 10_000_000, "records to write")
		holdings := fs.Int("holdings", 0, "holdings (0: no holding column)")
		out := fs.String("out", "", "file to write")
		fs.Parse(os.Args[2:])
		if *out == "" || *rows < 1 || *holdings < 0 {
			usage()
		}
		write := func(w io.Writer) { benchdata.Microdata(w, *rows) }
		if *holdings > 0 {
			write = func(w io.Writer) { benchdata.Holdings(w, *rows, *holdings) }
		}
		if err := gen(*out, write); err != nil {
			fmt.Fprintln(os.Stderr, "scaletool gen:", err)
			os.Exit(1)
		}
	case "read":
		if len(os.Args) != 3 {
			usage()
		}
		n, err := read(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "scaletool read:", err)
			os.Exit(1)
		}
		fmt.Println(n)
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: scaletool gen -rows N [-holdings H] -out FILE | scaletool read FILE")
	os.Exit(2)
}

// gen writes the records write writes into a temporary file renamed to
// out when complete.
func gen(out string, write func(io.Writer)) error {
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// read is the baseline of the benchmarks: encoding/csv over a 256 KiB
// buffer, reusing the record, every field of every record (run it with
// GOMAXPROCS=1).
func read(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 256<<10))
	r.ReuseRecord = true
	n := 0
	for {
		_, err := r.Read()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
