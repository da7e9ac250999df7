package writers

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// oldOrdered is ordered as it marshalled before: every value through
// json.Marshal (the oracle of TestACROResultsMatchReflection).
type oldOrdered []kv

func (o oldOrdered) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = report.AppendString(b, e.k)
		b = append(b, ':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// toOld turns a document of ordered objects into oldOrdered ones.
func toOld(v any) any {
	switch v := v.(type) {
	case ordered:
		out := make(oldOrdered, len(v))
		for i, e := range v {
			out[i] = kv{e.k, toOld(e.v)}
		}
		return out
	case []ordered:
		if v == nil {
			return []oldOrdered(nil)
		}
		out := make([]oldOrdered, len(v))
		for i, o := range v {
			out[i] = toOld(o).(oldOrdered)
		}
		return out
	}
	return v
}

// TestACROResultsMatchReflection: results.json, whose objects are now
// appended without reflection, is byte-identical to encoding/json's
// rendering of the same document through json.Marshal of every value, on
// random runs with hostile names (markup and ampersands, which encoding/json
// escapes, U+2028, invalid UTF-8), every status, overrides and interval
// audits; and WriteRunContext writes exactly that document.
func TestACROResultsMatchReflection(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 5))
	for i := range 200 {
		var tables []*audit.Table
		for range 1 + r.IntN(3) {
			tab := randomTable(r)
			tab.Name = hostileText(r)
			switch r.IntN(3) {
			case 0:
				tab.Audit = &audit.Intervals{ExactlyDisclosed: r.IntN(3), UnderProtected: r.IntN(2)}
			case 1:
				tab.Run = &audit.Trail{Inputs: []audit.InputTrail{{Name: hostileText(r), Sheet: hostileText(r)}}, Profile: hostileText(r)}
			}
			tables = append(tables, tab)
		}
		a := ACROResults{Timestamp: hostileText(r)}
		cc := canceller{ctx: context.Background()}
		results := ordered{}
		for _, tab := range tables {
			rec, err := a.record(&cc, tab)
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, kv{tab.Name, rec})
		}
		doc := ordered{{"version", ACROVersion}, {"results", results}}
		want, err := json.MarshalIndent(toOld(doc), "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := a.WriteRunContext(context.Background(), &got, tables); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), append(want, '\n')) {
			g, w := got.Bytes(), want
			k := 0
			for k < min(len(g), len(w)) && g[k] == w[k] {
				k++
			}
			t.Fatalf("run %d: differ at byte %d:\ngot  %q\nwant %q", i, k, g[max(0, k-80):min(len(g), k+80)], w[max(0, k-80):min(len(w), k+80)])
		}
	}
}
