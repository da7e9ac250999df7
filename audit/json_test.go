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

func TestFindingJSONMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := Finding{Rule: rapid.String().Draw(t, "rule"), Status: Fail, Message: rapid.String().Draw(t, "msg"),
			Values: map[string]any{
				rapid.String().Draw(t, "k1"): genDec(t, "v1"),
				rapid.String().Draw(t, "k2"): rapid.String().Draw(t, "s"),
				"int":                        rapid.Int64().Draw(t, "i"),
				"float":                      rapid.Float64Range(-1e9, 1e9).Draw(t, "f"),
				"tiny":                       rapid.Float64Range(-1e-5, 1e-5).Draw(t, "tiny"),
				"huge":                       rapid.Float64Range(1e20, 1e25).Draw(t, "huge"),
				"list":                       []int{1, 2},
				"floats":                     []float64{rapid.Float64().Draw(t, "f1"), 0.5},
				"sets":                       []map[string]any{{"n": 2, "k": genDec(t, "k"), "x": rapid.Float64Range(-1e3, 1e3).Draw(t, "x")}},
				"any":                        []any{"a", int64(3), nil, true},
				"obj":                        map[string]any{"z": 1, "a": rapid.String().Draw(t, "os")},
			}}
		got, err := f.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		type plain Finding // without the custom marshaller
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(plain(f)); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimRight(buf.Bytes(), "\n")
		if !bytes.Equal(got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
