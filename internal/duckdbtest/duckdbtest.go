// Package duckdbtest runs SQL on DuckDB itself for tests: the engine
// shipped by the npm package @duckdb/node-api (a pinned version), which
// it installs with npm into the user's cache directory on first use, and
// drives with a small Node script. No cgo and no Go dependency.
//
// When node or npm is missing, or the install fails, tests skip saying
// so, except under CI (the environment variable CI set and not "false"),
// where they fail: CI must run them.
package duckdbtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Version is the @duckdb/node-api version installed (DuckDB 1.5.x).
const Version = "1.5.6-r.1"

// runner executes the SQL statements of the file argv[2] on the database
// file argv[3] (":memory:" for a fresh one), one after the other, and
// prints the rows of the last statement as JSON lines (DECIMAL and
// HUGEINT values as exact strings). An error is printed on stderr with
// exit status 1.
const runner = `const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
(async () => {
  const sql = fs.readFileSync(process.argv[2], 'utf8');
  const inst = await DuckDBInstance.create(process.argv[3], { threads: '2' });
  const conn = await inst.connect();
  try {
    const ex = await conn.extractStatements(sql);
    let last;
    for (let i = 0; i < ex.count; i++) {
      const p = await ex.prepare(i);
      last = await p.runAndReadAll();
    }
    const out = [];
    if (last) for (const r of last.getRowObjectsJson()) out.push(JSON.stringify(r));
    process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
  } catch (e) {
    process.stderr.write(String((e && e.message) || e) + '\n');
    process.exitCode = 1;
  } finally {
    conn.closeSync && conn.closeSync();
    inst.closeSync && inst.closeSync();
  }
})();
`

// DB is a DuckDB database file in a test's temporary directory.
type DB struct {
	node, script, file, dir string
}

// Start installs DuckDB if needed and returns a fresh database.
func Start(t testing.TB) *DB {
	t.Helper()
	dir, err := install()
	if err != nil {
		if ci := os.Getenv("CI"); ci != "" && ci != "false" {
			t.Fatalf("DuckDB (npm %s) is needed under CI: %v", "@duckdb/node-api@"+Version, err)
		}
		t.Skipf("DuckDB not available (install node and npm; npm @duckdb/node-api@%s): %v", Version, err)
	}
	node, _ := exec.LookPath("node")
	tmp := t.TempDir()
	return &DB{node: node, script: filepath.Join(dir, "runner.cjs"), file: filepath.Join(tmp, "test.duckdb"), dir: tmp}
}

// Dir is a temporary directory for the test's files.
func (db *DB) Dir() string { return db.dir }

// Run executes the statements of sql on the database (its state persists
// between calls) and returns the rows of the last one as JSON lines. A
// failing statement returns DuckDB's error message.
func (db *DB) Run(sql string) ([]string, error) {
	f, err := os.CreateTemp(db.dir, "q-*.sql")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(sql); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	cmd := exec.Command(db.node, db.script, f.Name(), db.file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	var out []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// MustRun is Run that fails the test on an error.
func (db *DB) MustRun(t testing.TB, sql string) []string {
	t.Helper()
	out, err := db.Run(sql)
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, sql)
	}
	return out
}

// Quote is a DuckDB string literal.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// install makes sure the package is in the cache directory (under a file
// lock: test binaries of several packages run at once) and returns it.
func install() (string, error) {
	for _, b := range []string{"node", "npm"} {
		if _, err := exec.LookPath(b); err != nil {
			return "", fmt.Errorf("%s not found in PATH", b)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "sdcaudit", "duckdb-node-"+Version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	done := filepath.Join(dir, ".installed")
	if _, err := os.Stat(done); err != nil {
		cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "@duckdb/node-api@"+Version)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm install @duckdb/node-api@%s: %v\n%s", Version, err, out)
		}
		if err := os.WriteFile(done, []byte(Version+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	if err := writeAtomic(filepath.Join(dir, "runner.cjs"), runner); err != nil {
		return "", err
	}
	// a smoke query: the native engine loads on this machine
	node, _ := exec.LookPath("node")
	probe := filepath.Join(dir, "probe.sql")
	if err := writeAtomic(probe, "SELECT 42 AS x"); err != nil {
		return "", err
	}
	if out, err := exec.Command(node, filepath.Join(dir, "runner.cjs"), probe, ":memory:").CombinedOutput(); err != nil || !strings.Contains(string(out), "42") {
		return "", fmt.Errorf("the DuckDB engine does not run: %v\n%s", err, out)
	}
	return dir, nil
}

// writeAtomic replaces a file by a complete new one (a test process may
// be reading the old one).
func writeAtomic(path, content string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
