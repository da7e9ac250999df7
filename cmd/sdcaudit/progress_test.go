package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// A log line clears the progress line first and the line is drawn again
// after it; the stage replaces "read" once reading ends.
func TestProgressClearsBeforeLogLines(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, 1000)
	clock := time.Unix(0, 0)
	p.start = clock
	p.now = func() time.Time { return clock }
	clock = clock.Add(2 * time.Second)
	p.Bytes(250)
	p.Rows(5000)
	if got := out.String(); !strings.Contains(got, "sdcaudit: read  25.0%  ETA 0:06  5,000 rows  2,500 rows/s") {
		t.Fatalf("line %q", got)
	}
	out.Reset()
	logWriter{p}.Write([]byte("WRN something\n"))
	if got := out.String(); !strings.HasPrefix(got, "\r\x1b[2KWRN something\n\r\x1b[2Ksdcaudit: read") {
		t.Errorf("log line not written on a cleared line: %q", got)
	}
	out.Reset()
	p.Stage("rules")
	if got := out.String(); !strings.HasSuffix(got, "sdcaudit: rules  (5,000 rows read)") {
		t.Errorf("stage line %q", got)
	}
	out.Reset()
	p.Finish()
	logWriter{p}.Write([]byte("done\n"))
	if got := out.String(); got != "\r\x1b[2Kdone\n" {
		t.Errorf("after Finish: %q", got)
	}
}

// With JSON logs every stderr line is JSON: durations carry their unit
// and the fatal error is a JSON line too.
func TestJSONLogsDurationsAndFatalError(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/t.csv"
	if err := os.WriteFile(path, []byte("g,v\nA,1\nB,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	run([]string{"check", path, "--dims", "g", "--value", "v", "--out", dir + "/out", "--log-format", "json", "--log-level", "debug"}, &bytes.Buffer{}, &stderr)
	if !strings.Contains(stderr.String(), `"read_ms":`) || strings.Contains(stderr.String(), `"read":`) {
		t.Errorf("durations without units: %s", stderr.String())
	}
	stderr.Reset()
	code := run([]string{"check", path, "--dims", "gg", "--value", "v", "--out", dir + "/out", "--log-format", "json"}, &bytes.Buffer{}, &stderr)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var last struct {
		Level    string `json:"level"`
		ExitCode int    `json:"exit_code"`
		Error    string `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || code != 3 || last.ExitCode != 3 || !strings.Contains(last.Error, `"gg"`) {
		t.Errorf("exit %d, fatal line %q (%v)", code, lines[len(lines)-1], err)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %q", l)
		}
	}
}
