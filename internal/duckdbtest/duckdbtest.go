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
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Version is the @duckdb/node-api version installed (DuckDB 1.5.x).
const Version = "1.5.6-r.1"

// runner serves requests on stdin, one JSON line each ({"sql": ...}),
// on the database file argv[2] (":memory:" for a fresh one): it runs the
// request's statements one after the other and answers one JSON line,
// {"rows": [...]} with the rows of the last statement as JSON texts
// (DECIMAL and HUGEINT values as exact strings) or {"error": ...}. One
// process serves a test's database: starting DuckDB costs more than most
// queries.
const runner = `const { DuckDBInstance } = require('@duckdb/node-api');
const readline = require('readline');
(async () => {
  const inst = await DuckDBInstance.create(process.argv[2], { threads: '2' });
  const conn = await inst.connect();
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    let answer;
    try {
      const ex = await conn.extractStatements(JSON.parse(line).sql);
      let last;
      for (let i = 0; i < ex.count; i++) {
        const p = await ex.prepare(i);
        last = await p.runAndReadAll();
      }
      answer = { rows: last ? last.getRowObjectsJson().map((r) => JSON.stringify(r)) : [] };
    } catch (e) {
      answer = { error: String((e && e.message) || e) };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
  conn.closeSync && conn.closeSync();
  inst.closeSync && inst.closeSync();
})().catch((e) => { process.stderr.write(String((e && e.message) || e) + '\n'); process.exit(1); });
`

// DB is a DuckDB database file in a test's temporary directory, served by
// one Node process for the test's lifetime.
type DB struct {
	dir    string
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
}

// lockedBuffer is the runner's stderr: written by exec's copying
// goroutine, read by Run.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<16 {
		return len(p), nil // enough to say why
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Start installs DuckDB if needed and returns a fresh database.
func Start(t testing.TB) *DB {
	t.Helper()
	installOnce.Do(func() { installDir, installErr = install() })
	dir, err := installDir, installErr
	if err != nil {
		if ci := os.Getenv("CI"); ci != "" && ci != "false" {
			t.Fatalf("DuckDB (npm %s) is needed under CI: %v", "@duckdb/node-api@"+Version, err)
		}
		t.Skipf("DuckDB not available (install node and npm; npm @duckdb/node-api@%s): %v", Version, err)
	}
	node, _ := exec.LookPath("node")
	tmp := t.TempDir()
	db := &DB{dir: tmp, stderr: &lockedBuffer{}}
	db.cmd = exec.Command(node, filepath.Join(dir, "runner.cjs"), filepath.Join(tmp, "test.duckdb"))
	db.cmd.Stderr = db.stderr
	if db.in, err = db.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := db.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	db.out = bufio.NewReaderSize(out, 1<<20)
	if err := db.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.in.Close() // the runner ends at the end of its input
		_ = db.cmd.Wait()
	})
	return db
}

// Dir is a temporary directory for the test's files.
func (db *DB) Dir() string { return db.dir }

// Run executes the statements of sql on the database (its state persists
// between calls) and returns the rows of the last one as JSON texts. A
// failing statement returns DuckDB's error message.
func (db *DB) Run(sql string) ([]string, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	req, err := json.Marshal(map[string]string{"sql": sql})
	if err != nil {
		return nil, err
	}
	if _, err := db.in.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("the DuckDB runner: %v (%s)", err, strings.TrimSpace(db.stderr.String()))
	}
	line, err := db.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("the DuckDB runner: %v (%s)", err, strings.TrimSpace(db.stderr.String()))
	}
	var ans struct {
		Rows  []string `json:"rows"`
		Error *string  `json:"error"`
	}
	if err := json.Unmarshal(line, &ans); err != nil {
		return nil, fmt.Errorf("the DuckDB runner's answer: %v", err)
	}
	if ans.Error != nil {
		return nil, errors.New(*ans.Error)
	}
	return ans.Rows, nil
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

// install runs once per test binary.
var (
	installOnce sync.Once
	installDir  string
	installErr  error
)

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
	probe := exec.Command(node, filepath.Join(dir, "runner.cjs"), ":memory:")
	probe.Stdin = strings.NewReader(`{"sql": "SELECT 42 AS x"}` + "\n")
	if out, err := probe.CombinedOutput(); err != nil || !strings.Contains(string(out), "42") {
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
