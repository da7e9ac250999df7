package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// releaseJobs writes a release file (and its inputs) into dir and returns
// its jobs, as `sdcaudit run` builds them.
func releaseJobs(t *testing.T, dir, release string, files map[string]string) []Job {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "release.yaml")
	if err := os.WriteFile(path, []byte(release), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadJobs(t, path)
}

// loadJobs reads the release file path and returns its jobs, one per
// table, as `sdcaudit run` builds them.
func loadJobs(t *testing.T, path string) []Job {
	t.Helper()
	rel, err := configs.LoadRelease(path)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for i := range rel.Tables {
		tb := &rel.Tables[i]
		s, err := configs.Resolve(rel.Base(), tb.Layer())
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, Job{Path: rel.Path(*tb), Name: tb.Name, Settings: s})
	}
	return jobs
}

const trustRelease = `microdata: {dims: [g], value: v}
rules: {threshold: {min: %MIN%}}
tables:
  - {file: t.csv, name: a}
  - {file: u.csv, name: b}
`

var trustFiles = map[string]string{
	"t.csv": "g,v\nx,1\nx,2\ny,10\ny,11\ny,12\ny,13\n",
	"u.csv": "g,v\nx,5\nx,6\nx,7\nx,8\ny,10\ny,11\n",
}

// shardDirs runs every shard of a two-shard run of the release with
// threshold min (per shard: mins[i]) into its own directory.
func shardDirs(t *testing.T, mins ...string) []string {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for i, min := range mins {
		in := filepath.Join(root, "in"+min)
		if err := os.MkdirAll(in, 0o755); err != nil {
			t.Fatal(err)
		}
		jobs := releaseJobs(t, in, strings.ReplaceAll(trustRelease, "%MIN%", min), trustFiles)
		out := filepath.Join(root, "shard"+string(rune('0'+i)))
		if _, err := Run(context.Background(), jobs, Options{Workers: 1, Version: "test", Out: out, Shard: i, Shards: len(mins)}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, out)
	}
	return dirs
}

// refused checks that merging dirs is an input error (exit 3) naming the
// file and saying want.
func refused(t *testing.T, dirs []string, file, want string) {
	t.Helper()
	_, err := Merge(context.Background(), dirs, Options{Version: "test", Out: filepath.Join(t.TempDir(), "merged")})
	var re *readers.Error
	if !errors.As(err, &re) {
		t.Fatalf("merged (err %v), want an input error", err)
	}
	if !strings.Contains(re.File, file) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want one naming %s and saying %q", err, file, want)
	}
}

func partPath(dir string, i int) string { return filepath.Join(dir, PartFile(i, 2)) }

// edit rewrites a file with f.
func edit(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nb := f(b)
	if bytes.Equal(nb, b) {
		t.Fatalf("%s: the edit changed nothing", path)
	}
	if err := os.WriteFile(path, nb, 0o644); err != nil {
		t.Fatal(err)
	}
}

// redigest sets a part's content digest to what its content gives, as a
// forger who knows the format would.
func redigest(b []byte) []byte {
	re := regexp.MustCompile(`"digest": "[0-9a-f]{64}"`)
	blank := re.ReplaceAll(b, []byte(`"digest": ""`))
	sum := sha256.Sum256(blank)
	return re.ReplaceAll(b, []byte(`"digest": "`+hex.EncodeToString(sum[:])+`"`))
}

// TestMergeTrustsOnlyOneRun: merge refuses parts of two runs (another
// threshold), a part edited after the shard wrote it (a primary turned
// ok; with its digest recomputed too), a shard's table output edited, a
// part with a field the format does not have, and a well-formed but
// meaningless part: each is an input error naming the file and what
// differs. Before, each was merged (exit 1).
func TestMergeTrustsOnlyOneRun(t *testing.T) {
	t.Run("another run", func(t *testing.T) {
		dirs := shardDirs(t, "3", "4")
		refused(t, dirs, PartFile(1, 2), "a part of another run: its resolved configuration")
	})
	t.Run("a status edited", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		edit(t, partPath(dirs[0], 0), func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"status": "primary"`), []byte(`"status": "ok"`), 1)
		})
		refused(t, dirs, PartFile(0, 2), "does not match its digest")
	})
	t.Run("a status edited, digest recomputed", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		edit(t, partPath(dirs[0], 0), func(b []byte) []byte {
			return redigest(bytes.Replace(b, []byte(`"status": "primary"`), []byte(`"status": "ok"`), 1))
		})
		refused(t, dirs, PartFile(0, 2), "is not what its cells give")
	})
	t.Run("a report edited", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		edit(t, filepath.Join(dirs[1], "b.report.json"), func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"status":"primary"`), []byte(`"status":"ok"`), 1)
		})
		refused(t, dirs, "b.report.json", "its partial summary vouches for")
	})
	t.Run("an unknown field", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		edit(t, partPath(dirs[1], 1), func(b []byte) []byte {
			return redigest(bytes.Replace(b, []byte(`"schema": 2,`), []byte(`"schema": 2, "trusted": true,`), 1))
		})
		refused(t, dirs, PartFile(1, 2), `unknown field "trusted"`)
	})
	t.Run("meaningless", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		edit(t, partPath(dirs[1], 1), func([]byte) []byte {
			return []byte(`{"schema": 1, "shard": 1, "shards": 2, "version": "test", "tables": []}` + "\n")
		})
		refused(t, dirs, PartFile(1, 2), "schema 1")
	})
	t.Run("meaningless with a digest", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		b, err := os.ReadFile(partPath(dirs[1], 1))
		if err != nil {
			t.Fatal(err)
		}
		cfg := regexp.MustCompile(`"config_sha256": "[0-9a-f]{64}"`).Find(b)
		edit(t, partPath(dirs[1], 1), func([]byte) []byte {
			return redigest([]byte(`{"schema": 2, "shard": 1, "shards": 2, "version": "test", "jobs": 2, ` + string(cfg) +
				`, "inputs": [], "tables": [], "digest": "` + strings.Repeat("0", 64) + `"}`))
		})
		refused(t, dirs, PartFile(0, 2), "no partial summary holds the tables of input 2 of 2")
	})
	t.Run("an input claimed by two parts", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		edit(t, partPath(dirs[1], 1), func(b []byte) []byte {
			return redigest(bytes.ReplaceAll(b, []byte(`"job": 1,`), []byte(`"job": 0,`)))
		})
		refused(t, dirs, PartFile(1, 2), "holds tables of input 1 of 2, which")
	})
	t.Run("the same run", func(t *testing.T) {
		dirs := shardDirs(t, "3", "3")
		if _, err := Merge(context.Background(), dirs, Options{Version: "test", Out: filepath.Join(t.TempDir(), "merged")}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestShardedUnlinkedRunMerges: with linking turned off (linked: false)
// the unsharded run records the link groups in summary.json; the merged
// run writes the same bytes (the groups' tables stay in one shard).
func TestShardedUnlinkedRunMerges(t *testing.T) {
	ctx := context.Background()
	// the demo's businesses table twice (the same microdata: one link
	// group), without the survey, whose meansd count still has a clock
	all := demoJobs(t)
	jobs := []Job{all[0], all[3]}
	if jobs[1].Name != "businesses_again" {
		t.Fatalf("demo jobs: %s", jobs[1].Name)
	}
	dir := t.TempDir()
	opt := Options{Workers: 2, Version: "test", Link: LinkOff}
	opt.Out = filepath.Join(dir, "whole")
	if _, err := Run(ctx, jobs, opt); err != nil {
		t.Fatal(err)
	}
	want := dirFiles(t, opt.Out)
	if !bytes.Contains(want["summary.json"], []byte(`"link_groups"`)) {
		t.Fatal("the unsharded run records no link groups: the test checks nothing")
	}
	// two shards: the two tables of one microdata file would fall into
	// different shards
	const n = 2
	var dirs []string
	for i := range n {
		o := opt
		o.Shard, o.Shards = i, n
		o.Out = filepath.Join(dir, "shard"+string(rune('0'+i)))
		if _, err := Run(ctx, jobs, o); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, o.Out)
	}
	o := opt
	o.Out = filepath.Join(dir, "merged")
	if _, err := Merge(ctx, dirs, o); err != nil {
		t.Fatal(err)
	}
	got := dirFiles(t, o.Out)
	for f, b := range want {
		if !bytes.Equal(got[f], b) {
			t.Errorf("%s differs from the unsharded run's: %s", f, firstDiff(got[f], b))
		}
	}
}

// TestConfigDigest: the run's configuration digest does not depend on how
// the release file's path was spelled (shards started in other working
// directories or mounts), and changes with a rule parameter.
func TestConfigDigest(t *testing.T) {
	dir := t.TempDir()
	release := strings.ReplaceAll(trustRelease, "%MIN%", "3") +
		"overrides:\n  - {table: a, cell: {g: x}, action: safe, reason: known, by: K. Lee}\n"
	jobs := releaseJobs(t, dir, release, trustFiles)
	load := func(path string) []Job { return loadJobs(t, path) }
	// the same directory mounted elsewhere
	mount := filepath.Join(t.TempDir(), "mount")
	if err := os.Symlink(dir, mount); err != nil {
		t.Fatal(err)
	}
	other := load(filepath.Join(mount, "release.yaml"))
	if other[0].Path == jobs[0].Path || other[0].Settings.Overrides[0].Source == jobs[0].Settings.Overrides[0].Source {
		// both must differ for the test to check the base names
		t.Fatalf("the paths are spelled alike (%s, %s): the test checks nothing", other[0].Path, other[0].Settings.Overrides[0].Source)
	}
	a, err := configDigest(jobs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := configDigest(other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("the digest depends on the release file's path: %s, %s", a, b)
	}
	c, err := configDigest(releaseJobs(t, t.TempDir(), strings.ReplaceAll(release, "min: 3", "min: 4"), trustFiles), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := configDigest(jobs, Options{Link: LinkOff})
	if err != nil {
		t.Fatal(err)
	}
	if c == a || d == a {
		t.Errorf("another threshold or linking gives the same digest")
	}
}
