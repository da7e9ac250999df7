package report

import (
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/sdcaudit/sdcaudit/audit"
)

// FindingJSON writes a finding as {"rule", "status", "message", "values"},
// with the figures as an object in sorted key order (as encoding/json writes
// a map), without reflection (reports hold millions of findings).
func FindingJSON(f audit.Finding) []byte {
	var s Scratch
	return AppendFinding(make([]byte, 0, 256), &f, &s)
}

// FiguresAppender is an optional interface of Facts: AppendFigures appends
// the figures Figures(c) returns to figs (a slice the caller reuses), so
// that writing a finding need not allocate them. The items of nested
// figures (lists, groups) may be kept in figs' capacity past the returned
// length: the caller leaves that part alone while it uses the figures.
type FiguresAppender interface {
	AppendFigures(figs []audit.Figure, c *audit.Cell) []audit.Figure
}

// MessageAppender is an optional interface of Facts: AppendMessage
// appends the text Message(c) returns to b (plain text, not JSON).
type MessageAppender interface {
	AppendMessage(b []byte, c *audit.Cell) []byte
}

// Scratch is working memory AppendFinding reuses from one finding to
// the next; the zero value is ready. One goroutine at a time.
type Scratch struct {
	msg  []byte
	figs []audit.Figure
}

// AppendFinding appends FindingJSON(*f) to b, with reusable working
// memory: a finding whose Facts implement FiguresAppender and
// MessageAppender is written without allocating (the same bytes as
// through Figures and Message).
func AppendFinding(b []byte, f *audit.Finding, s *Scratch) []byte {
	b = append(b, `{"rule":`...)
	b = appendString(b, f.Rule)
	b = append(b, `,"status":`...)
	b = appendString(b, f.Outcome.String())
	b = append(b, `,"message":`...)
	if ma, ok := f.Facts.(MessageAppender); ok {
		s.msg = ma.AppendMessage(s.msg[:0], f.Cell)
		// s.msg is not changed while appendString reads it.
		b = appendString(b, unsafe.String(unsafe.SliceData(s.msg), len(s.msg)))
	} else {
		b = appendString(b, message(f))
	}
	var figs []audit.Figure
	if fa, ok := f.Facts.(FiguresAppender); ok {
		s.figs = fa.AppendFigures(s.figs[:0], f.Cell)
		figs = s.figs
	} else {
		figs = f.FigureList()
	}
	if len(figs) > 0 {
		b = append(b, `,"values":`...)
		b = appendObject(b, figs)
	}
	b = append(b, '}')
	clear(s.figs) // keep no cell's figures alive
	return b
}

// message is f.Message() without moving the finding to the heap: Message
// hands its receiver to Say, so every call allocated a copy of the finding
// even when Facts or Text give the sentence. Here only a finding with Say
// pays that copy.
func message(f *audit.Finding) string {
	switch {
	case f.Facts != nil:
		return f.Facts.Message(f.Cell)
	case f.Say != nil:
		g := *f
		return f.Say(&g)
	}
	return f.Text
}

// AppendFigure appends the figure's value (not its name) as JSON.
func AppendFigure(b []byte, g audit.Figure) []byte {
	switch g.Kind {
	case audit.KindDec:
		return g.Dec.Append(b)
	case audit.KindInt:
		return strconv.AppendInt(b, g.Int, 10)
	case audit.KindUint:
		return strconv.AppendUint(b, uint64(g.Int), 10)
	case audit.KindBool:
		return strconv.AppendBool(b, g.Int != 0)
	case audit.KindFloat:
		x := g.Float()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendString(b, strconv.FormatFloat(x, 'g', -1, 64))
		}
		return appendFloat(b, x)
	case audit.KindText:
		return appendString(b, g.Text)
	case audit.KindList:
		b = append(b, '[')
		for i, it := range g.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendFigure(b, it)
		}
		return append(b, ']')
	case audit.KindGroup:
		return appendObject(b, g.Items)
	}
	return append(b, "null"...)
}

// appendObject writes named figures as a JSON object in sorted key order.
func appendObject(b []byte, fs []audit.Figure) []byte {
	var small [16]int
	idx := small[:0]
	for i := range fs {
		idx = append(idx, i)
	}
	// insertion sort: a finding has a handful of figures
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && fs[idx[j]].Name < fs[idx[j-1]].Name; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	b = append(b, '{')
	for n, i := range idx {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendString(b, fs[i].Name)
		b = append(b, ':')
		b = AppendFigure(b, fs[i])
	}
	return append(b, '}')
}

// appendFloat formats a finite float64 as encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hex = "0123456789abcdef"

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash (the fast path of appendString).
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string, escaped as encoding/json does
// with HTML escaping off.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// appendString appends s as a JSON string (no HTML escaping, invalid UTF-8
// replaced), matching encoding/json with SetEscapeHTML(false).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
