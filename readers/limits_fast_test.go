package readers

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// pieceReader hands out its text in pieces of random sizes, as a file or
// a decoder may.
type pieceReader struct {
	s string
	r *rand.Rand
}

func (p *pieceReader) Read(b []byte) (int, error) {
	if p.s == "" {
		return 0, io.EOF
	}
	n := min(len(b), len(p.s), 1+p.r.IntN(64))
	copy(b, p.s[:n])
	p.s = p.s[n:]
	return n, nil
}

// recordOracle is the first record longer than limit (its first line),
// 0 if none: a record ends at a line break outside double quotes and its
// length does not count that line break.
func recordOracle(s string, limit int64) int {
	line, start, cur, inQuote := 1, 1, int64(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' && !inQuote {
			if cur > limit {
				return start
			}
			line++
			start, cur = line, 0
			continue
		}
		if c == '\n' {
			line++
		}
		if c == '"' {
			inQuote = !inQuote
		}
		cur++
	}
	if cur > limit {
		return start
	}
	return 0
}

// recordCap, on texts with and without quotes read in random pieces,
// passes every byte of a text whose records fit and otherwise fails on
// the first record that does not, naming its first line (the scan for
// texts without quotes included).
func TestRecordCapAgreesWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 4))
	pieces := []string{"a", "bb", "1234567", ",", "\n", "\n", "\r\n", `"`, "\"x\ny\"", "  "}
	for iter := range 20000 {
		var b strings.Builder
		quotes := r.IntN(2) == 0
		for range r.IntN(80) {
			p := pieces[r.IntN(len(pieces))]
			if !quotes && strings.Contains(p, `"`) {
				p = "q"
			}
			b.WriteString(p)
		}
		text := b.String()
		limit := int64(1 + r.IntN(30))
		if r.IntN(4) == 0 {
			limit = 1 << 20
		}
		cr := newRecordCap(&pieceReader{s: text, r: rand.New(rand.NewPCG(uint64(iter), 2))}, limit)
		out, err := io.ReadAll(cr)
		want := recordOracle(text, limit)
		var tl *RecordTooLongError
		switch {
		case want == 0 && err != nil:
			t.Fatalf("%q limit %d: %v, want no error", text, limit, err)
		case want == 0 && string(out) != text:
			t.Fatalf("%q limit %d: passed %q", text, limit, out)
		case want != 0 && (!errors.As(err, &tl) || tl.Line != want):
			t.Fatalf("%q limit %d: error %v, want the record of line %d too long", text, limit, err, want)
		case want != 0 && !strings.HasPrefix(text, string(out)):
			t.Fatalf("%q limit %d: passed %q, not a prefix", text, limit, out)
		}
	}
}
