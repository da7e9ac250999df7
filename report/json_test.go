package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func genDec(t *rapid.T, label string) decimal.Dec {
	m := rapid.Int64().Draw(t, label+"m")
	s := rapid.IntRange(0, 6).Draw(t, label+"s")
	return decimal.Scaled(m, s)
}

// genFigure draws a figure of any kind, nesting lists and groups up to depth.
func genFigure(t *rapid.T, name string, depth int) audit.Figure {
	kinds := 7
	if depth > 0 {
		kinds = 9
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, name+"kind") {
	case 0:
		return audit.NullFig(name)
	case 1:
		return audit.DecFig(name, genDec(t, name))
	case 2:
		return audit.IntFig(name, rapid.Int64().Draw(t, name+"i"))
	case 3:
		return audit.UintFig(name, rapid.Uint64().Draw(t, name+"u"))
	case 4:
		return audit.BoolFig(name, rapid.Bool().Draw(t, name+"b"))
	case 5:
		switch rapid.IntRange(0, 2).Draw(t, name+"fr") {
		case 0:
			return audit.FloatFig(name, rapid.Float64Range(-1e-5, 1e-5).Draw(t, name+"tiny"))
		case 1:
			return audit.FloatFig(name, rapid.Float64Range(1e20, 1e25).Draw(t, name+"huge"))
		}
		return audit.FloatFig(name, rapid.Float64Range(-1e9, 1e9).Draw(t, name+"f"))
	case 6:
		return audit.TextFig(name, rapid.String().Draw(t, name+"s"))
	case 7:
		n := rapid.IntRange(0, 3).Draw(t, name+"len")
		items := make([]audit.Figure, n)
		for i := range items {
			items[i] = genFigure(t, "", depth-1)
		}
		return audit.ListFig(name, items...)
	}
	return audit.GroupFig(name, genFigures(t, name+".", depth-1)...)
}

// genFigures draws figures with distinct names.
func genFigures(t *rapid.T, prefix string, depth int) []audit.Figure {
	names := rapid.SliceOfNDistinct(rapid.String(), 0, 6, rapid.ID).Draw(t, prefix+"names")
	out := make([]audit.Figure, len(names))
	for i, n := range names {
		out[i] = genFigure(t, n, depth)
	}
	return out
}

// TestFindingJSONMatchesEncodingJSON checks the hand-written encoder
// against encoding/json writing the same figures as plain Go values (maps
// with sorted keys), the form reports had before figures were typed.
func TestFindingJSONMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := audit.Finding{Rule: rapid.String().Draw(t, "rule"), Outcome: audit.Fail, Figures: genFigures(t, "", 2)}
		if rapid.Bool().Draw(t, "say") {
			f.Say = func(f *audit.Finding) string { return "n=" + f.Rule }
		} else {
			f.Text = rapid.String().Draw(t, "msg")
		}
		got := FindingJSON(f)
		type plain struct {
			Rule    string         `json:"rule"`
			Status  audit.Outcome  `json:"status"`
			Message string         `json:"message"`
			Values  map[string]any `json:"values,omitempty"`
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(plain{f.Rule, f.Outcome, f.Message(), f.Values()}); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimRight(buf.Bytes(), "\n")
		if !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

// TestAppendStringMatchesEncodingJSON checks the string escaper (its
// plain-ASCII fast path and the rest) against encoding/json without HTML
// escaping: every byte alone and between letters, and random byte strings
// with quotes, backslashes, control characters, U+2028/U+2029, other
// non-ASCII text and invalid UTF-8.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatalf("%v", err)
		}
		want := bytes.TrimRight(buf.Bytes(), "\n")
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("%q: got %s, want %s", s, got[1:], want)
		}
	}
	for c := range 256 {
		check(t, string([]byte{byte(c)}))
		check(t, "ab"+string([]byte{byte(c)})+"cd")
	}
	pieces := []string{"a", "plain text ", `"`, `\`, "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "<&>", "é", "日本",
		"\u2028", "\u2029", "\ufffd", "\xff", "\xc3", "\xe2\x80", "😀", "\xf0\x9f\x98"}
	rapid.Check(t, func(rt *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 12).Draw(rt, "parts")
		s := ""
		for _, p := range parts {
			s += p
		}
		check(rt, s)
	})
}

// shownFacts gives a finding's figures and message from its cell, as the
// rules' Facts do.
type shownFacts struct{ figs []audit.Figure }

func (s shownFacts) Figures(c *audit.Cell) []audit.Figure {
	return append([]audit.Figure{audit.IntFig("n", c.N)}, s.figs...)
}
func (s shownFacts) Message(c *audit.Cell) string { return "cell " + c.Key[0] + " <&> \u2028" }

// TestFactsFindingJSONMatchesEncodingJSON: a finding whose figures and
// message come from Facts is written as encoding/json writes its Message
// and Values.
func TestFactsFindingJSONMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := &audit.Cell{Key: []string{rapid.String().Draw(t, "key")}, N: rapid.Int64().Draw(t, "n")}
		figs := genFigures(t, "", 2)
		for i := range figs {
			if figs[i].Name == "n" {
				figs[i].Name = "n2"
			}
		}
		f := audit.Finding{Rule: rapid.String().Draw(t, "rule"), Outcome: audit.Review, Facts: shownFacts{figs}, Cell: c}
		got := FindingJSON(f)
		type plain struct {
			Rule    string         `json:"rule"`
			Status  audit.Outcome  `json:"status"`
			Message string         `json:"message"`
			Values  map[string]any `json:"values,omitempty"`
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(plain{f.Rule, f.Outcome, f.Message(), f.Values()}); err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimRight(buf.Bytes(), "\n"); !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

// TestAppendReadableMatchesReadable: figures appended for a person are
// Readable's texts, for every kind of figure.
func TestAppendReadableMatchesReadable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genFigure(t, rapid.SampledFrom([]string{"x", "n_range", "value", "min_count", "X"}).Draw(t, "name"), 2)
		if rapid.Bool().Draw(t, "pair") {
			g = audit.GroupFig("g", audit.DecFig("value", genDec(t, "v")), audit.IntFig("min_count", rapid.Int64().Draw(t, "m")))
		}
		if got, want := string(AppendReadable([]byte("»"), g)), "»"+Readable(g); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

func TestAppendThousandsMatchesThousands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[-+]?[0-9]{0,12}(\.[0-9]{0,4})?[a-z,]?`).Draw(t, "s")
		if got := string(appendThousands(nil, []byte(s))); got != Thousands(s) {
			t.Fatalf("%q: got %q, want %q", s, got, Thousands(s))
		}
	})
}

// TestThousandsCases pins Thousands on fixed texts (the rapid test above
// compares its two forms with each other).
func TestThousandsCases(t *testing.T) {
	for in, want := range map[string]string{
		"-1234567.25": "-1,234,567.25", "+1234": "+1,234", "123": "123", "1234.": "1,234.",
		"123456": "123,456", "1000000": "1,000,000", "12a": "12a", "1234.5x": "1234.5x",
		"": "", "-": "-", ".5": ".5", "1234,5": "1234,5", "-999": "-999",
	} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%q) = %q, want %q", in, got, want)
		}
	}
}
