package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/report"
)

// progress is the one-line display of a run on a terminal: the stage
// (read, cells, rules, suppression, audit, write) and, while reading, the
// share of the input bytes read, rows per second and the time left. Log
// lines go through it so that the line is cleared before each and drawn
// again after. It holds no confidential values: only counts.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	stage  string
	rows   int64
	bytes  int64
	size   int64 // total bytes of the inputs that report bytes read; 0 unknown
	start  time.Time
	last   time.Time
	drawn  bool
	closed bool
	now    func() time.Time
}

// newProgress returns a display on w for inputs of size bytes in all (0
// when unknown).
func newProgress(w io.Writer, size int64) *progress {
	return &progress{w: w, size: size, now: time.Now, start: time.Now(), stage: pipeline.StageRead}
}

// inputSize sums the sizes of the delimited text inputs (the only ones
// whose bytes read are reported).
func inputSize(jobs []pipeline.Job) int64 {
	var n int64
	for _, j := range jobs {
		if st, err := os.Stat(j.Path); err == nil && st.Mode().IsRegular() {
			n += st.Size()
		}
	}
	return n
}

// Stage records the stage a table enters and redraws.
func (p *progress) Stage(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stage == s {
		return
	}
	p.stage = s
	p.draw(true)
}

// Rows adds rows read.
func (p *progress) Rows(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rows += n
	p.draw(false)
}

// Bytes adds input bytes read.
func (p *progress) Bytes(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes += n
}

// Finish clears the line for good.
func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.closed = true
}

// clear erases the drawn line (caller holds mu).
func (p *progress) clear() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[2K")
		p.drawn = false
	}
}

// draw redraws the line, at most every 100 ms unless forced (caller holds
// mu).
func (p *progress) draw(force bool) {
	if p.closed {
		return
	}
	now := p.now()
	if !force && p.drawn && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	io.WriteString(p.w, "\r\x1b[2K"+p.line(now))
	p.drawn = true
}

// line is the text of the display.
func (p *progress) line(now time.Time) string {
	rows := report.Thousands(strconv.FormatInt(p.rows, 10))
	if p.stage != pipeline.StageRead {
		return fmt.Sprintf("sdcaudit: %s  (%s rows read)", p.stage, rows)
	}
	s := "sdcaudit: read"
	el := now.Sub(p.start).Seconds()
	if p.size > 0 {
		frac := min(1, float64(p.bytes)/float64(p.size))
		s += fmt.Sprintf(" %5.1f%%", 100*frac)
		if frac > 0 && frac < 1 && el > 0 {
			s += "  ETA " + clock(time.Duration(el*(1-frac)/frac*float64(time.Second)))
		}
	}
	s += "  " + rows + " rows"
	if el > 0 {
		s += "  " + report.Thousands(strconv.FormatInt(int64(float64(p.rows)/el), 10)) + " rows/s"
	}
	return s
}

// clock formats a duration as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// logWriter writes log lines through the display: it clears the line,
// writes the log line and draws the line again.
type logWriter struct{ p *progress }

func (l logWriter) Write(b []byte) (int, error) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	was := l.p.drawn
	l.p.clear()
	n, err := l.p.w.Write(b)
	if was {
		l.p.draw(true)
	}
	return n, err
}
