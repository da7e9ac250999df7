package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// demoJobs are the jobs of the demo release, with results.json on and
// the demo's first table listed twice more under other names, so that
// shards hold several tables.
func demoJobs(t *testing.T) []Job {
	t.Helper()
	jobs := loadJobs(t, "../configs/demo.yaml")
	for _, j := range jobs {
		j.Settings.Output.ACRO = true
		noClock(j.Settings, "")
	}
	jobs = append(jobs, Job{Path: jobs[0].Path, Name: "businesses_again", Settings: jobs[0].Settings},
		Job{Path: jobs[1].Path, Name: "survey_again", Settings: jobs[1].Settings})
	return jobs
}

// dirFiles reads every file of a directory.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.IsDir() {
			// results.json's checksums/ (and only it)
			for name, b := range dirFiles(t, filepath.Join(dir, e.Name())) {
				out[e.Name()+"/"+name] = b
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestShardedRunMerges: run over the demo release with 3 shards (each in
// its own directory, or all in one), then Merge, gives byte-identical
// tables, summary.json, summary.html and results.json, and the same
// verdict as the unsharded run.
func TestShardedRunMerges(t *testing.T) {
	ctx := context.Background()
	jobs := demoJobs(t)
	dir := t.TempDir()
	opt := Options{Workers: 3, Version: "test"}
	opt.Out = filepath.Join(dir, "whole")
	whole, err := Run(ctx, jobs, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := dirFiles(t, opt.Out)
	if _, ok := want["results.json"]; !ok {
		t.Fatal("no results.json in the unsharded run")
	}
	const n = 3
	var shardDirs []string
	for i := range n {
		o := opt
		o.Shard, o.Shards = i, n
		o.Out = filepath.Join(dir, "shard", string(rune('0'+i)))
		shardDirs = append(shardDirs, o.Out)
		if _, err := Run(ctx, jobs, o); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(o.Out, "summary.json")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("shard %d wrote summary.json", i)
		}
		// the same shard into one shared directory
		o.Out = filepath.Join(dir, "shared")
		if _, err := Run(ctx, jobs, o); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name string, got map[string][]byte, res *Result) {
		t.Helper()
		for f, b := range want {
			if !bytes.Equal(got[f], b) {
				t.Errorf("%s: %s differs from the unsharded run's", name, f)
			}
		}
		for f := range got {
			if _, ok := want[f]; !ok && !strings.HasPrefix(f, "summary.part-") {
				t.Errorf("%s: extra file %s", name, f)
			}
		}
		if res.Summary.NeedsPerson != whole.Summary.NeedsPerson || res.Summary.Totals.Cells != whole.Summary.Totals.Cells {
			t.Errorf("%s: verdict %v/%d cells, unsharded %v/%d", name, res.Summary.NeedsPerson, res.Summary.Totals.Cells, whole.Summary.NeedsPerson, whole.Summary.Totals.Cells)
		}
	}
	// shards in their own directories, merged into a new one (reversed
	// order of the arguments: the job order decides)
	o := opt
	o.Out = filepath.Join(dir, "merged")
	res, err := Merge(ctx, []string{shardDirs[2], shardDirs[0], shardDirs[1]}, o)
	if err != nil {
		t.Fatal(err)
	}
	check("merged", dirFiles(t, o.Out), res)
	// shards in one directory, merged in place
	o.Out = filepath.Join(dir, "shared")
	res, err = Merge(ctx, []string{o.Out}, o)
	if err != nil {
		t.Fatal(err)
	}
	check("in place", dirFiles(t, o.Out), res)

	// a missing or duplicated shard is an input error naming it
	var re *readers.Error
	if _, err := Merge(ctx, shardDirs[:2], o); !errors.As(err, &re) || !strings.Contains(err.Error(), "shard 2 of 3 is missing") {
		t.Errorf("missing shard: %v", err)
	}
	if _, err := Merge(ctx, []string{shardDirs[0], shardDirs[1], shardDirs[2], filepath.Join(dir, "shared")}, o); !errors.As(err, &re) || !strings.Contains(err.Error(), "is also in") {
		t.Errorf("duplicate shard: %v", err)
	}
	// a shard out of range is a configuration error
	o.Shard, o.Shards = 3, 3
	var ce *configs.Error
	if _, err := Run(ctx, jobs, o); !errors.As(err, &ce) {
		t.Errorf("shard 3 of 3: %v", err)
	}
}

// TestShardJobs: the partition is by job index modulo the shards, every
// job in exactly one shard.
func TestShardJobs(t *testing.T) {
	for shards := 1; shards <= 5; shards++ {
		var all []int
		for i := range shards {
			idx, err := shardJobs(make([]Job, 11), Options{Shard: i, Shards: shards})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range idx {
				if k%shards != i {
					t.Fatalf("job %d in shard %d of %d", k, i, shards)
				}
			}
			all = append(all, idx...)
		}
		slices.Sort(all)
		if len(all) != 11 || all[0] != 0 || all[10] != 10 {
			t.Fatalf("%d shards: jobs %v", shards, all)
		}
	}
}

// TestShardKeepsLinkedTablesTogether: tables that are protected together
// (the same microdata) are audited in one shard, or a shard would protect
// some of them apart from the others.
func TestShardKeepsLinkedTablesTogether(t *testing.T) {
	micro := func(file string, dims ...string) Job {
		return Job{Path: file, Settings: &configs.Settings{Microdata: &configs.Microdata{Dims: dims, Value: "v"}, TotalLabel: "Total"}}
	}
	jobs := []Job{micro("a.csv", "region", "sector"), micro("b.csv", "x"), micro("a.csv", "region", "size"), micro("c.csv", "y"), micro("a.csv", "district")}
	// linking on, off (the groups are still recorded: linked: false), or
	// not asked for
	for _, opt := range []Options{{Link: LinkOn}, {Link: LinkOff}, {}} {
		linked := opt.Link.Grouped()
		where := map[int]int{}
		for i := range 3 {
			opt.Shard, opt.Shards = i, 3
			idx, err := shardJobs(jobs, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range idx {
				where[j] = i
			}
		}
		if len(where) != len(jobs) {
			t.Fatalf("linked=%v: %d of %d jobs in some shard", linked, len(where), len(jobs))
		}
		if together := where[0] == where[2] && where[2] == where[4]; together != linked {
			t.Errorf("linked=%v: the tables of a.csv are in shards %d, %d, %d", linked, where[0], where[2], where[4])
		}
	}
}
