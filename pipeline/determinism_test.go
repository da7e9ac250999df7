package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sdcaudit/sdcaudit/audit/intervals"
)

// TestCheckIdenticalAtAnyWorkers (issue 23 item 4b): check on a generated
// 12 x 10 x 6 microdata table (1,200 records: most cells below the
// threshold, one linked component of suppressed cells beyond the dense
// LP's 400 cells, so the audit takes the witness and sparse-LP paths with
// its workers) writes byte-identical outputs with --workers 1, 2 and 3,
// each at two of GOMAXPROCS 1, 2 and 4 (every value of each covered).
// Under the race detector each worker count runs at one GOMAXPROCS
// (workers 1 at 1, 2 at 4, 3 at 2: every value of each still covered,
// both parallel worker counts with more than one P for the detector to
// see), half the runs.
func TestCheckIdenticalAtAnyWorkers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "micro.csv")
	var buf bytes.Buffer
	r := rand.New(rand.NewPCG(7, 1200))
	fmt.Fprintln(&buf, "id,region,industry,size,turnover")
	for i := 0; i < 1200; i++ {
		fmt.Fprintf(&buf, "%d,R%02d,I%02d,S%d,%.2f\n", i, r.IntN(12), r.IntN(10), r.IntN(6), math.Exp(10+1.5*r.NormFloat64()))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "microdata: {dims: [region, industry, size], value: turnover}\nsuppression: {secondary: false, audit: true}\n"
	procs := [][]int{{1, 2}, {2, 4}, {4, 1}} // by workers
	if raceEnabled {
		procs = [][]int{{1}, {4}, {2}}
	}
	// The exact bounds' budgets before the bulk phase (main d96f241): the
	// sparse LP then leaves approximate intervals, the budgeted paths this
	// test is about (the defaults settle every cell of this table).
	tune := intervals.DefaultTuning().BeforeBulk()
	var first string
	for _, w := range []int{1, 2, 3} {
		for _, p := range procs[w-1] {
			out := filepath.Join(dir, fmt.Sprintf("out-w%d-p%d", w, p))
			old := runtime.GOMAXPROCS(p)
			_, err := Run(context.Background(), []Job{{Path: path, Name: "micro", Settings: settings(t, cfg)}}, Options{Out: out, Workers: w, Log: zerolog.Nop(), Version: "test", AuditTuning: &tune})
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if first == "" {
				first = out
				continue
			}
			sameOutputFiles(t, first, out, fmt.Sprintf("workers %d, GOMAXPROCS %d", w, p))
		}
	}
	rep, _ := os.ReadFile(filepath.Join(first, "micro.report.json"))
	if !bytes.Contains(rep, []byte(`"interval_audit"`)) || !bytes.Contains(rep, []byte(`"approximate": true`)) && !bytes.Contains(rep, []byte(`"approximate":true`)) {
		t.Fatalf("the report has no interval audit with approximate intervals: the test does not reach the budgeted paths")
	}
}

// sameOutputFiles checks that every output of the run in dir first (at
// least three) is written byte for byte the same by the run in dir out
// (which names in errors).
func sameOutputFiles(t *testing.T, first, out, which string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(first, "*"))
	if len(files) < 3 {
		t.Fatalf("outputs %v", files)
	}
	for _, f := range files {
		x, _ := os.ReadFile(f)
		y, err := os.ReadFile(filepath.Join(out, filepath.Base(f)))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs from the first run (%v)", which, filepath.Base(f), err)
		}
	}
}
