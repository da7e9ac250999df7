// Package pgtest starts a private PostgreSQL server for tests: a fresh
// cluster in a temporary directory, listening on a Unix socket only. Tests
// skip, naming the package to install, when the server binaries are not
// found.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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

// Start starts a private server on a Unix socket and returns a
// connection to it; the server is stopped in t.Cleanup.
func Start(t *testing.T) *pgx.Conn {
	t.Helper()
	initdb, postgres := bin("initdb"), bin("postgres")
	if initdb == "" || postgres == "" {
		t.Skip("PostgreSQL server binaries (initdb, postgres) not found: install the Debian package postgresql")
	}
	dir, err := os.MkdirTemp("", "sdcaudit-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	var cred *syscall.Credential
	if os.Geteuid() == 0 { // initdb refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			u, err = user.Lookup("nobody")
		}
		if err != nil {
			t.Skip("running as root and no postgres or nobody user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{data, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if cred != nil {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				t.Fatal(err)
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
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	srv := command(postgres, "-D", data, "-k", sock, "-c", "listen_addresses=", "-p", "5432", "-c", "fsync=off")
	var logBuf strings.Builder
	srv.Stdout, srv.Stderr = &logBuf, &logBuf
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGINT) // fast shutdown
		<-exited
	})
	ctx := context.Background()
	dsn := fmt.Sprintf("host=%s port=5432 user=postgres dbname=postgres sslmode=disable", sock)
	// Poll a bounded number of times until the server accepts connections.
	for attempt := 0; ; attempt++ {
		select {
		case err := <-exited:
			t.Fatalf("postgres exited: %v\n%s", err, logBuf.String())
		default:
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := pgx.Connect(cctx, dsn)
		cancel()
		if err == nil {
			t.Cleanup(func() { conn.Close(context.Background()) })
			return conn
		}
		if attempt == 600 {
			t.Fatalf("postgres does not accept connections: %v\n%s", err, logBuf.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
