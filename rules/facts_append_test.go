package rules

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

// TestFactsAppendFormsEqual: the append forms of the hot rules' facts
// (report.FiguresAppender, report.MessageAppender) give what Figures and
// Message give, on random cells of every outcome, after whatever the
// reused buffers held; a finding's JSON written through them is the JSON
// of a plain finding holding Figures() and Message(); and writing a
// finding of a cell with small values allocates nothing.
func TestFactsAppendFormsEqual(t *testing.T) {
	th, _ := NewThreshold(3)
	th10, _ := NewThreshold(10)
	pp, _ := NewPPercent(decimal.FromInt(10), false)
	ppAbs, _ := NewPPercent(decimal.Must("12.5"), true)
	dom, _ := NewDominance(false, NK{N: 2, K: decimal.FromInt(90)})
	dom2, _ := NewDominance(true, NK{N: 1, K: decimal.FromInt(50)}, NK{N: 3, K: decimal.Must("75.5")})
	params := func(m map[string]any) Decoder {
		return func(v any) error {
			b, _ := json.Marshal(m)
			return json.Unmarshal(b, v)
		}
	}
	z0, _ := newZeros(params(map[string]any{"disclosive": false}))
	z1, _ := newZeros(params(map[string]any{"disclosive": true}))
	neg0, _ := newNegative(params(map[string]any{"mode": "review"}))
	neg1, _ := newNegative(params(map[string]any{"mode": "absolute"}))
	az, _ := newAllZero(params(map[string]any{}))
	rs := []CellRule{th.(CellRule), th10.(CellRule), pp.(CellRule), ppAbs.(CellRule), dom.(CellRule), dom2.(CellRule),
		z0.(CellRule), z1.(CellRule), neg0.(CellRule), neg1.(CellRule), az.(CellRule)}
	tables := []*audit.Table{nil, {Mode: audit.Aggregate}, {Mode: audit.Microdata, Value: "v"}}
	rng := rand.New(rand.NewPCG(15, 2))
	val := func() decimal.Dec {
		switch rng.IntN(6) {
		case 0:
			return decimal.FromInt(int64(rng.IntN(7) - 2))
		case 1:
			return decimal.Must("123456789012345678901234567890.125") // beyond int64
		case 2:
			return decimal.FromInt(-int64(rng.IntN(5_000_000)))
		}
		return decimal.Must(decimal.FromInt(int64(rng.IntN(20_000_000))).String() + "." + decimal.FromInt(int64(rng.IntN(100))).String())
	}
	seen := map[string]map[audit.Outcome]bool{}
	var s report.Scratch
	msg := []byte("stale")
	figs := []audit.Figure{audit.TextFig("stale", "x")}
	for range 4000 {
		c := &audit.Cell{HasN: rng.IntN(5) > 0, N: int64(rng.IntN(14) - 1), HasTotal: rng.IntN(6) > 0, Missing: int64(rng.IntN(3) / 2), Negative: int64(rng.IntN(6) / 4 * rng.IntN(3000)),
			HasAbs: rng.IntN(2) == 0, AbsTotal: val(), Stats: audit.StatsOf(map[string]audit.Stat{})}
		if rng.IntN(3) > 0 {
			c.N = int64(rng.IntN(2_000_000))
		}
		c.Total = val()
		for range rng.IntN(5) {
			c.Top = append(c.Top, val())
			c.AbsTop = append(c.AbsTop, val())
		}
		slices.SortFunc(c.Top, func(a, b decimal.Dec) int { return b.Cmp(a) })
		slices.SortFunc(c.AbsTop, func(a, b decimal.Dec) int { return b.Cmp(a) })
		if rng.IntN(2) == 0 {
			// the total near the largest contributions: dominated, p% unsafe
			sum := decimal.FromInt(int64(rng.IntN(3)))
			for _, x := range c.Top {
				sum = sum.Add(x)
			}
			c.Total = sum
		}
		if rng.IntN(4) == 0 {
			c.Stats.Set("count", audit.Stat{Text: "1", Marker: rng.IntN(2) == 0, Missing: true})
		}
		if rng.IntN(4) == 0 {
			c.Total = decimal.Dec{}
		}
		for _, r := range rs {
			f := r.Check(tables[rng.IntN(len(tables))], c)
			fa, okF := f.Facts.(report.FiguresAppender)
			ma, okM := f.Facts.(report.MessageAppender)
			if f.Cell == nil {
				continue // facts that hold their figures and message (an input finding)
			}
			if !okM || !okF {
				t.Fatalf("%s: the facts do not implement the append forms", r.Name())
			}
			want := f.Facts.Message(c)
			msg = ma.AppendMessage(msg[:0], c)
			if string(msg) != want {
				t.Fatalf("%s on %+v: AppendMessage %q, Message %q", r.Name(), c, msg, want)
			}
			wantFigs := f.Facts.Figures(c)
			if okF {
				figs = fa.AppendFigures(figs[:1], c)
				if !reflect.DeepEqual(figs[1:], wantFigs) || figs[0].Name != "stale" {
					t.Fatalf("%s on %+v: AppendFigures %v, Figures %v", r.Name(), c, figs[1:], wantFigs)
				}
			}
			plain := audit.Said(f.Rule, f.Outcome, want, wantFigs)
			wantJSON := report.FindingJSON(plain)
			got := report.AppendFinding([]byte("x"), &f, &s)
			if string(got[1:]) != string(wantJSON) {
				t.Fatalf("%s: AppendFinding %s, want %s", r.Name(), got[1:], wantJSON)
			}
			if seen[r.Name()] == nil {
				seen[r.Name()] = map[audit.Outcome]bool{}
			}
			seen[r.Name()][f.Outcome] = true
		}
	}
	for name, want := range map[string][]audit.Outcome{"threshold": {audit.Pass, audit.Fail}, "p_percent": {audit.Pass, audit.Fail},
		"dominance": {audit.Pass, audit.Fail}, "zeros": {audit.Pass, audit.Fail}, "negative": {audit.Pass, audit.Review},
		"all_zero": {audit.Pass, audit.Fail, audit.NotApplicable}} {
		for _, o := range want {
			if !seen[name][o] {
				t.Errorf("%s: no %s among the random cells", name, o)
			}
		}
	}
	// The common case allocates nothing once the scratch has grown.
	c := &audit.Cell{HasN: true, N: 25, HasTotal: true, Total: decimal.FromInt(1_000_000), Top: []decimal.Dec{decimal.FromInt(300_000), decimal.FromInt(200_000)}}
	b := make([]byte, 0, 4096)
	for _, r := range rs {
		f := r.Check(tables[1], c)
		if n := testing.AllocsPerRun(20, func() { b = report.AppendFinding(b[:0], &f, &s) }); n != 0 {
			t.Errorf("%s: writing a finding allocates %v times", r.Name(), n)
		}
	}
}
