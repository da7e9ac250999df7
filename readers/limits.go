package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Limits on what one record of a delimited file may hold, so that an input
// without line breaks (a stream of zeros, a truncated export) cannot make
// the reader allocate without bound. Options.MaxRecordBytes and
// Options.MaxFieldBytes (config input.max_record_bytes and
// input.max_field_bytes) raise or lower them.
const (
	// DefaultMaxRecordBytes bounds the text of one record (a header
	// included; a quoted field's line breaks do not end it).
	DefaultMaxRecordBytes = 16 << 20
	// DefaultMaxFieldBytes bounds the text of one field.
	DefaultMaxFieldBytes = 1 << 20
)

// ErrNoRows is an input with a header (or a sheet with a header) and no
// data record: an empty export is never "nothing needs a person".
var ErrNoRows = errors.New("no data rows")

func (o Options) maxRecord() int64 {
	if o.MaxRecordBytes > 0 {
		return o.MaxRecordBytes
	}
	return DefaultMaxRecordBytes
}

func (o Options) maxField() int64 {
	if o.MaxFieldBytes > 0 {
		return o.MaxFieldBytes
	}
	return DefaultMaxFieldBytes
}

// RecordTooLongError is a record of delimited text longer than the limit.
// Line is the 1-based physical line the record starts on.
type RecordTooLongError struct {
	Line  int
	Limit int64
}

func (e *RecordTooLongError) Error() string {
	return fmt.Sprintf("%v: a record (row) longer than %d bytes, or no line break; raise input.max_record_bytes if the record is real", ErrTooLarge, e.Limit)
}

// Unwrap returns ErrTooLarge.
func (e *RecordTooLongError) Unwrap() error { return ErrTooLarge }

// recordCap passes text through and fails with a *RecordTooLongError as
// soon as one record is longer than limit bytes. A record ends at a line
// break outside double quotes (quote parity, as NextChunk counts it): a
// quoted field's line breaks belong to its record. The bytes of the
// record that crossed the limit are not passed on, so a reader above holds
// at most limit bytes plus one buffer of one record.
type recordCap struct {
	r       io.Reader
	limit   int64
	cur     int64 // bytes of the current record so far
	line    int   // the physical line the reader is on (1-based)
	start   int   // the line the current record started on
	inQuote bool
	err     error
}

func newRecordCap(r io.Reader, limit int64) *recordCap {
	return &recordCap{r: r, limit: limit, line: 1, start: 1}
}

func (c *recordCap) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	q := p[:n]
	if !c.inQuote && int64(len(q)) <= c.limit && bytes.IndexByte(q, '"') < 0 {
		// No quote: records end at line breaks. Only the part before the
		// first line break continues a record; every later one is shorter
		// than q, so within the limit. Scanned at memchr speed, since
		// this runs on the one goroutine that reads the file.
		first := bytes.IndexByte(q, '\n')
		if first < 0 {
			c.cur += int64(len(q))
			if c.cur > c.limit {
				return c.fail(0)
			}
			return n, err
		}
		if c.cur+int64(first) > c.limit {
			c.cur += int64(first)
			return c.fail(0)
		}
		last := bytes.LastIndexByte(q, '\n')
		c.line += 1 + bytes.Count(q[first+1:last+1], []byte{'\n'})
		c.cur, c.start = int64(len(q)-last-1), c.line
		return n, err
	}
	i := 0
	// nextQ and nextNL are the positions of the next quote and line
	// break at or after i (-1: none), kept so that the scan is linear.
	nextQ, nextNL := -2, -2
	for i < len(q) {
		if nextQ != -1 && nextQ < i {
			nextQ = indexFrom(q, i, '"')
		}
		if c.inQuote {
			end := len(q)
			if nextQ >= 0 {
				end = nextQ + 1
			}
			c.line += bytes.Count(q[i:end], []byte{'\n'})
			c.cur += int64(end - i)
			if nextQ >= 0 {
				c.inQuote = false
			}
			if c.cur > c.limit {
				return c.fail(i)
			}
			i = end
			continue
		}
		if nextNL != -1 && nextNL < i {
			nextNL = indexFrom(q, i, '\n')
		}
		switch {
		case nextNL >= 0 && (nextQ < 0 || nextNL < nextQ):
			c.cur += int64(nextNL - i)
			if c.cur > c.limit {
				return c.fail(i)
			}
			i = nextNL + 1
			c.line++
			c.cur, c.start = 0, c.line
		case nextQ >= 0:
			c.cur += int64(nextQ + 1 - i)
			if c.cur > c.limit {
				return c.fail(i)
			}
			i = nextQ + 1
			c.inQuote = true
		default:
			c.cur += int64(len(q) - i)
			if c.cur > c.limit {
				return c.fail(i)
			}
			i = len(q)
		}
	}
	return n, err
}

// fail makes the error sticky and passes on the bytes before the record
// segment that crossed the limit.
func (c *recordCap) fail(i int) (int, error) {
	c.err = &RecordTooLongError{Line: c.start, Limit: c.limit}
	return i, c.err
}

func indexFrom(b []byte, i int, c byte) int {
	j := bytes.IndexByte(b[i:], c)
	if j < 0 {
		return -1
	}
	return i + j
}

// Excerpt shortens a text taken from an input for a message: at most about
// 60 bytes, cut at a character boundary, with "..." and the full length
// when cut. Messages never echo more of an input than this.
func Excerpt(s string) string {
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

// ColumnList lists column names for a message (`"a", "b", "c"`), each
// name shortened by Excerpt and at most six of them ("and N more"), so
// that a header of any size gives a short message.
func ColumnList(names []string) string {
	const most = 6
	var b strings.Builder
	for i, n := range names {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(names)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", Excerpt(n))
	}
	return b.String()
}

// maxMessage bounds the cause text of an *Error: a cause quoting input
// that some check forgot to shorten still gives a short message.
const maxMessage = 1000

// shortMessage cuts a message longer than maxMessage in its middle.
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
