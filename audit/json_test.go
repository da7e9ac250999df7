package audit

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

func genDec(t *rapid.T, label string) decimal.Dec {
	m := rapid.Int64().Draw(t, label+"m")
	s := rapid.IntRange(0, 6).Draw(t, label+"s")
	return decimal.Scaled(m, s)
}

// genFigure draws a figure of any kind, nesting lists and groups up to depth.
func genFigure(t *rapid.T, name string, depth int) Figure {
	kinds := 7
	if depth > 0 {
		kinds = 9
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, name+"kind") {
	case 0:
		return NullFig(name)
	case 1:
		return DecFig(name, genDec(t, name))
	case 2:
		return IntFig(name, rapid.Int64().Draw(t, name+"i"))
	case 3:
		return UintFig(name, rapid.Uint64().Draw(t, name+"u"))
	case 4:
		return BoolFig(name, rapid.Bool().Draw(t, name+"b"))
	case 5:
		switch rapid.IntRange(0, 2).Draw(t, name+"fr") {
		case 0:
			return FloatFig(name, rapid.Float64Range(-1e-5, 1e-5).Draw(t, name+"tiny"))
		case 1:
			return FloatFig(name, rapid.Float64Range(1e20, 1e25).Draw(t, name+"huge"))
		}
		return FloatFig(name, rapid.Float64Range(-1e9, 1e9).Draw(t, name+"f"))
	case 6:
		return TextFig(name, rapid.String().Draw(t, name+"s"))
	case 7:
		n := rapid.IntRange(0, 3).Draw(t, name+"len")
		items := make([]Figure, n)
		for i := range items {
			items[i] = genFigure(t, "", depth-1)
		}
		return ListFig(name, items...)
	}
	return GroupFig(name, genFigures(t, name+".", depth-1)...)
}

// genFigures draws figures with distinct names.
func genFigures(t *rapid.T, prefix string, depth int) []Figure {
	names := rapid.SliceOfNDistinct(rapid.String(), 0, 6, rapid.ID).Draw(t, prefix+"names")
	out := make([]Figure, len(names))
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
		f := Finding{Rule: rapid.String().Draw(t, "rule"), Status: Fail, Figures: genFigures(t, "", 2)}
		if rapid.Bool().Draw(t, "say") {
			f.Say = func(f *Finding) string { return "n=" + f.Rule }
		} else {
			f.Text = rapid.String().Draw(t, "msg")
		}
		got, err := f.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		type plain struct {
			Rule    string         `json:"rule"`
			Status  Outcome        `json:"status"`
			Message string         `json:"message"`
			Values  map[string]any `json:"values,omitempty"`
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(plain{f.Rule, f.Status, f.Message(), f.Values()}); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimRight(buf.Bytes(), "\n")
		if !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
