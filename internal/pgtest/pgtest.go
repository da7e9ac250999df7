// Package pgtest starts a private PostgreSQL server for tests: a fresh
// cluster in a temporary directory, listening on a Unix socket only. Tests
// skip, naming the package to install, when the server binaries are not
// found.
//
// A package whose TestMain runs its tests through Main shares one server
// per test binary (initdb and the server's start are most of a test's
// time): Start then gives each test a fresh database of its own, so the
// tests stay independent, and Main stops the server when the tests end.
// Without Main, Start starts a server per test and stops it in t.Cleanup.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// bin finds a PostgreSQL binary in PATH or /usr/lib/postgresql/*/bin.
func bin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	sort.Strings(m)
	if len(m) > 0 {
		return m[len(m)-1]
	}
	return ""
}

// errSkip marks a reason to skip the tests (no server binaries, no user to
// run them as), not a failure.
var errSkip = errors.New("skip")

// lockedBuf is the server's log, written by exec's copying goroutine and
// read when a test fails.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// server is a running private cluster.
type server struct {
	dir, sock string
	log       *lockedBuf
	exited    chan error
	proc      *os.Process
}

func (s *server) dsn(db string) string {
	return fmt.Sprintf("host=%s port=5432 user=postgres dbname=%s sslmode=disable", s.sock, db)
}

// stop shuts the server down (fast shutdown) and removes its directory.
func (s *server) stop() {
	_ = s.proc.Signal(syscall.SIGINT)
	<-s.exited
	os.RemoveAll(s.dir)
}

// startServer runs initdb in a fresh temporary directory and starts the
// server on a Unix socket there. An error wrapping errSkip is a reason to
// skip; on any error nothing is left running or on disk.
func startServer() (_ *server, err error) {
	initdb, postgres := bin("initdb"), bin("postgres")
	if initdb == "" || postgres == "" {
		return nil, fmt.Errorf("%w: PostgreSQL server binaries (initdb, postgres) not found: install the Debian package postgresql", errSkip)
	}
	dir, err := os.MkdirTemp("", "sdcaudit-pg-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	var cred *syscall.Credential
	if os.Geteuid() == 0 { // initdb refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			u, err = user.Lookup("nobody")
		}
		if err != nil {
			return nil, fmt.Errorf("%w: running as root and no postgres or nobody user to run the server as", errSkip)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chmod(dir, 0o755); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{data, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
		if cred != nil {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, err
			}
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(name, args...)
		c.Dir = dir
		if cred != nil {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return c
	}
	if out, err := command(initdb, "-D", data, "--auth=trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	srv := command(postgres, "-D", data, "-k", sock, "-c", "listen_addresses=", "-p", "5432", "-c", "fsync=off")
	s := &server{dir: dir, sock: sock, log: &lockedBuf{}, exited: make(chan error, 1)}
	srv.Stdout, srv.Stderr = s.log, s.log
	if err := srv.Start(); err != nil {
		return nil, err
	}
	s.proc = srv.Process
	go func() { s.exited <- srv.Wait() }()
	// Poll a bounded number of times until the server accepts connections.
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		select {
		case err := <-s.exited:
			return nil, fmt.Errorf("postgres exited: %v\n%s", err, s.log.String())
		default:
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := pgx.Connect(cctx, s.dsn("postgres"))
		cancel()
		if err == nil {
			conn.Close(ctx)
			return s, nil
		}
		if attempt == 600 {
			err = fmt.Errorf("postgres does not accept connections: %v\n%s", err, s.log.String())
			_ = s.proc.Kill()
			<-s.exited
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shared is the server of a test binary whose TestMain calls Main.
var shared struct {
	enabled bool // set by Main before the tests run
	once    sync.Once
	srv     *server
	err     error
	dbs     atomic.Int64 // databases created, for their names
}

// Main runs the tests of a package (m.Run) with one server shared by its
// tests, started by the first Start, and stops the server after the last
// test. Use it as: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }.
func Main(m *testing.M) int {
	shared.enabled = true
	code := m.Run()
	if shared.srv != nil {
		shared.srv.stop()
	}
	return code
}

// connect connects to a database of srv, the connection closed in
// t.Cleanup.
func connect(t *testing.T, srv *server, db string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := pgx.Connect(cctx, srv.dsn(db))
	if err != nil {
		t.Fatalf("connecting to database %s: %v\n%s", db, err, srv.log.String())
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Start returns a connection to a fresh database of a private server on a
// Unix socket: under Main, a new database of the binary's shared server;
// otherwise the postgres database of a server started for this test and
// stopped in t.Cleanup.
func Start(t *testing.T) *pgx.Conn {
	t.Helper()
	if !shared.enabled {
		srv, err := startServer()
		if errors.Is(err, errSkip) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.stop)
		return connect(t, srv, "postgres")
	}
	shared.once.Do(func() { shared.srv, shared.err = startServer() })
	if errors.Is(shared.err, errSkip) {
		t.Skip(shared.err)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	db := fmt.Sprintf("test%d", shared.dbs.Add(1))
	admin := connect(t, shared.srv, "postgres")
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE "+db); err != nil {
		t.Fatalf("creating database %s: %v", db, err)
	}
	admin.Close(context.Background())
	return connect(t, shared.srv, db)
}
