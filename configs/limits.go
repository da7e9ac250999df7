package configs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// Size limits of the files a run reads besides its tables, so that a path
// such as /dev/zero or a mistaken data file given as a config cannot make
// a run allocate without bound. Table files have their own limits
// (input.max_record_bytes, input.max_field_bytes).
const (
	// MaxConfigBytes bounds a config file and a release file (YAML).
	MaxConfigBytes = 16 << 20
	// MaxOverridesBytes bounds an overrides file (CSV; at most
	// 1,048,576 rows).
	MaxOverridesBytes = 256 << 20
)

// ErrTooLarge is a file larger than its limit.
var ErrTooLarge = errors.New("file too large")

// readCapped reads a whole file of at most limit bytes; what names the
// kind of file in the error.
func readCapped(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(&cappedReader{r: f, left: limit, path: path, what: what})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, &Error{File: path, Err: err}
	}
	return data, nil
}

// cappedReader reads r and fails with an *Error wrapping ErrTooLarge once
// more than left bytes were read (io.LimitReader would cut the file
// silently).
type cappedReader struct {
	r          io.Reader
	left       int64
	limit      int64
	path, what string
	// maxLine, when positive, bounds a line too (line is the current
	// line's length so far, lines the line number).
	maxLine     int64
	line, lines int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.limit == 0 {
		c.limit = c.left
	}
	if c.left < 0 {
		return 0, c.tooLarge()
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n - 1, c.tooLarge()
	}
	if c.maxLine > 0 {
		q := p[:n]
		for len(q) > 0 {
			i := bytes.IndexByte(q, '\n')
			if i < 0 {
				c.line += int64(len(q))
				break
			}
			c.line += int64(i)
			if c.line > c.maxLine {
				break
			}
			c.line, c.lines = 0, c.lines+1
			q = q[i+1:]
		}
		if c.line > c.maxLine {
			c.left = -1
			return 0, &Error{File: c.path, Line: int(c.lines + 1), Msg: fmt.Sprintf("a line of the %s is longer than %d bytes, or has no line break: is it the right file?", c.what, c.maxLine), Err: ErrTooLarge}
		}
	}
	return n, err
}

func (c *cappedReader) tooLarge() error {
	return &Error{File: c.path, Msg: fmt.Sprintf("the %s is larger than %d bytes: is it the right file?", c.what, c.limit), Err: ErrTooLarge}
}

// excerpt shortens a text quoted from a file for a message (at most about
// 60 bytes, cut at a character boundary).
func excerpt(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// maxMessage bounds the text of one *Error: a message quoting a long key
// or value of a file is cut in its middle.
const maxMessage = 2000

func shortMessage(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	head, tail := maxMessage/2, maxMessage/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return fmt.Sprintf("%s ...(%d bytes cut)... %s", s[:head], t-head, s[t:])
}
