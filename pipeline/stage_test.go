package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// snapshot is every file in dir (recursively) with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func names(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writeMicro writes rows records of region, sex, income with a seed.
func writeMicro(t *testing.T, path string, rows, seed int) int {
	t.Helper()
	var b strings.Builder
	b.WriteString("region,sex,income\n")
	for i := range rows {
		fmt.Fprintf(&b, "R%d,%c,%d\n", (i*7+seed)%5, "MF"[(i+seed)%2], 100+(i*31+seed*17)%1000)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestInterruptedRunLeavesPreviousOutputs: a run interrupted after its
// first table is written and while the second is read leaves the output
// directory exactly as the previous run left it: no new report beside the
// previous run's other files and summary.
func TestInterruptedRunLeavesPreviousOutputs(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	s := settings(t, "microdata: {dims: [region, sex], value: income}\noutput: {annotated: true, html: true}\n")
	jobs := []Job{{Path: filepath.Join(in, "one.csv"), Settings: s}, {Path: filepath.Join(in, "two.csv"), Settings: s}}
	writeMicro(t, jobs[0].Path, 200, 1)
	writeMicro(t, jobs[1].Path, 200, 2)
	if _, err := Run(context.Background(), jobs, Options{Out: out, Workers: 1, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	if len(before) != 8 {
		t.Fatalf("first run wrote %v", names(before))
	}
	// Other data; the interrupt comes once the second table is being read
	// (workers 1: the first table is read, evaluated and written before).
	first := writeMicro(t, jobs[0].Path, 300, 3)
	writeMicro(t, jobs[1].Path, 300, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rows atomic.Int64
	progress := func(n int64) {
		if rows.Add(n) > int64(first) {
			cancel()
		}
	}
	_, err := Run(ctx, jobs, Options{Out: out, Workers: 1, Version: "test", Progress: progress})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	after := snapshot(t, out)
	if strings.Join(names(after), " ") != strings.Join(names(before), " ") {
		t.Fatalf("files after the interrupt %v, before %v", names(after), names(before))
	}
	for f, b := range before {
		if after[f] != b {
			t.Errorf("%s changed by the interrupted run", f)
		}
	}
}

// TestStaleFilesRemoved: what a killed run left (temporary files, staging
// directories of processes that no longer run) goes at the next run; a
// staging directory of a running process stays.
func TestStaleFilesRemoved(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid // exited: its staging directory is stale
	alive := os.Getppid()
	for _, d := range []string{".sdcaudit-staging-" + strconv.Itoa(dead) + "-123", ".sdcaudit-staging-old", ".sdcaudit-staging-" + strconv.Itoa(alive) + "-456"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, d, "micro.report.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".micro.report.json.tmp123456", ".summary.json.tmp42", "keep.txt", ".keep"} {
		if err := os.WriteFile(filepath.Join(out, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := settings(t, "microdata: {dims: [region, sex], value: income}\noutput: {annotated: false, html: false}\n")
	if _, err := Run(context.Background(), []Job{{Path: "../testdata/golden/micro.csv", Settings: s}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	got := names(snapshot(t, out))
	want := []string{".keep", ".sdcaudit-staging-" + strconv.Itoa(alive) + "-456/micro.report.json", "keep.txt", "micro.report.json", "micro.safe.csv", "summary.json"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("output directory holds %v, want %v", got, want)
	}
}

// TestRunReplacesAllOutputsOfItsTables: a run that writes fewer outputs
// for a table than the previous run removes the previous run's others, so
// that no file of another run sits beside its outputs.
func TestRunReplacesAllOutputsOfItsTables(t *testing.T) {
	out := t.TempDir()
	job := func(y string) []Job {
		return []Job{{Path: "../testdata/golden/micro.csv", Settings: settings(t, "microdata: {dims: [region, sex], value: income}\n"+y)}}
	}
	if err := os.WriteFile(filepath.Join(out, "other.annotated.xlsx"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), job("output: {annotated: true, findings: true, html: true}\n"), Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), job("output: {annotated: false, findings: false, html: false}\n"), Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	got := names(snapshot(t, out))
	want := []string{"micro.report.json", "micro.safe.csv", "other.annotated.xlsx", "summary.json"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("output directory holds %v, want %v", got, want)
	}
}
