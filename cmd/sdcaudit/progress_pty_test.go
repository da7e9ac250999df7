//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair from /dev/ptmx (posix_openpt with
// the Linux ioctls), in pure Go.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// On a terminal, check shows the stage and, while reading a 1 M-row file,
// the share of bytes read, rows/s and the time left; on anything else it
// shows nothing. The test reads the terminal until the run ends: it does
// not depend on timing.
func TestProgressOnTerminal(t *testing.T) {
	master, slave, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	defer master.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "big.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("region,v\n")
	for i := range 1_000_000 {
		fmt.Fprintf(w, "r%d,%d\n", i%8, 1+i%97)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var screen bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(&screen, master) // ends with EIO once the slave is closed
	}()
	var stdout bytes.Buffer
	code := run([]string{"check", path, "--dims", "region", "--value", "v", "--out", filepath.Join(dir, "out"), "--workers", "2"}, &stdout, slave)
	slave.Close()
	<-done
	if code > 1 {
		t.Fatalf("exit %d; terminal:\n%q\nstdout:\n%s", code, screen.String(), stdout.String())
	}
	text := screen.String()
	for _, re := range []string{
		`sdcaudit: read +\d{1,3}\.\d%`, // share of bytes read
		`\d rows/s`,                    // rate
		`ETA \d+:\d\d`,                 // time left
		`sdcaudit: (cells|rules|suppression|audit|write)  \(1,000,000 rows read\)`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("the terminal never showed %s:\n%q", re, tail(text, 2000))
		}
	}
	if !strings.HasSuffix(strings.TrimRight(text, " "), "\r\x1b[2K") {
		t.Errorf("the progress line is not cleared at the end: %q", tail(text, 200))
	}

	// not a terminal: no progress at all
	var errBuf bytes.Buffer
	run([]string{"check", path, "--dims", "region", "--value", "v", "--out", filepath.Join(dir, "out2")}, &bytes.Buffer{}, &errBuf)
	if strings.Contains(errBuf.String(), "rows") || strings.Contains(errBuf.String(), "\r") {
		t.Errorf("progress on a non-terminal: %q", errBuf.String())
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
