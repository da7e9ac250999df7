package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/writers"
)

// A run's outputs appear in the output directory together or not at all.
// They are written into a staging directory inside it (stagingPrefix, the
// process id and a random suffix); only when every table and the run
// summary are written does the commit move them into place:
//
//  1. remove the previous summary.json and summary.html, so that no
//     summary vouches for the directory while it changes;
//  2. remove the outputs of this run's tables that this run does not
//     write (say NAME.annotated.xlsx of a run that asked for it);
//  3. rename every table output into place, then summary.html, then
//     summary.json last, syncing the directory between the steps.
//
// summary.json is the run's manifest: when it exists, every file it lists
// was written by the run that wrote it. An interrupted or failed run
// before the commit leaves the previous outputs untouched; cancellation is
// not honoured once the commit has begun (it takes a few renames). Only a
// crash during the commit leaves a directory without summary.json. The
// next run removes stale staging directories (of processes no longer
// running) and stale temporary files (.NAME.tmp*) before it starts. Two
// runs writing into one directory at once are not supported.
const stagingPrefix = ".sdcaudit-staging-"

// staging is one run's staging directory.
type staging struct {
	out, dir string
}

// beginStaging creates the output directory when missing, removes stale
// staging directories and temporary files, and creates this run's
// staging directory.
func beginStaging(out string) (*staging, error) {
	if err := mkdirAll(out); err != nil {
		return nil, err
	}
	if err := cleanStale(out); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(out, stagingPrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	return &staging{out: out, dir: dir}, nil
}

// tmpFile matches the temporary files of writers.WriteAtomic.
var tmpFile = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

// cleanStale removes what killed runs left in the output directory.
func cleanStale(out string) error {
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, stagingPrefix) && e.IsDir():
			if pid, ok := stagingPid(name); ok && pid != os.Getpid() && processAlive(pid) {
				continue // another run's, in progress
			}
			if err := os.RemoveAll(filepath.Join(out, name)); err != nil {
				return fmt.Errorf("output directory: removing a stale staging directory: %w", err)
			}
		case tmpFile.MatchString(name) && e.Type().IsRegular():
			if err := os.Remove(filepath.Join(out, name)); err != nil {
				return fmt.Errorf("output directory: removing a stale temporary file: %w", err)
			}
		}
	}
	return nil
}

// stagingPid is the process id in a staging directory's name.
func stagingPid(name string) (int, bool) {
	s, _, ok := strings.Cut(strings.TrimPrefix(name, stagingPrefix), "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(s)
	return pid, err == nil && pid > 0
}

// processAlive reports whether a process of that id runs (as far as the
// system can tell; false where it cannot).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, os.ErrPermission)
}

// abort removes the staging directory and everything in it.
func (s *staging) abort() { os.RemoveAll(s.dir) }

// commit moves the staged outputs into the output directory, as the
// package comment above describes: tables are this run's table names,
// files their outputs, run the run files (summary.html, summary.json) in
// the order they are renamed, the manifest last.
func (s *staging) commit(tables []string, files []string, run []string) error {
	fail := func(err error) error { return fmt.Errorf("output directory %s: %w", s.out, err) }
	for _, f := range []string{"summary.json", writers.HTMLFile, writers.ACROFile} {
		if err := os.Remove(filepath.Join(s.out, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fail(err)
		}
	}
	for _, t := range tables {
		for _, f := range allTableFiles(t) {
			if slices.Contains(files, f) {
				continue
			}
			if err := os.Remove(filepath.Join(s.out, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fail(err)
			}
		}
	}
	if err := syncDir(s.out); err != nil {
		return fail(err)
	}
	for _, f := range append(slices.Clone(files), run...) {
		name := f
		if d, base, ok := strings.Cut(f, "/"); ok && d == writers.ChecksumDir {
			// results.json's checksums (writers.WriteChecksums)
			if err := os.MkdirAll(filepath.Join(s.out, d), 0o755); err != nil {
				return fail(err)
			}
			name = base
		}
		if err := writers.CheckName(name); err != nil {
			return fail(fmt.Errorf("output file %q: %w", f, err))
		}
		if f == run[len(run)-1] {
			// everything else is in place: make it durable before the manifest
			if err := syncDir(s.out); err != nil {
				return fail(err)
			}
		}
		if err := os.Rename(filepath.Join(s.dir, f), filepath.Join(s.out, f)); err != nil {
			return fail(err)
		}
	}
	if err := syncDir(s.out); err != nil {
		return fail(err)
	}
	s.abort()
	return nil
}

// allTableFiles are the names of every output a table of that name can
// have, whatever the settings.
func allTableFiles(name string) []string {
	all := &configs.Settings{Output: configs.OutputSettings{SafeXLSX: true, Annotated: true, Findings: true, HTML: true, Apriori: true, ACRO: true}}
	t := &audit.Table{Name: name}
	var out []string
	for _, w := range tableWriters(all) {
		out = append(out, w.File(t))
	}
	return out
}

// syncDir makes renames and removals in dir durable where the system
// supports it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}
