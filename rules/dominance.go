package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "dominance", Doc: "(n,k) dominance: unsafe when the n largest contributions exceed k% of the total, x1+...+xn > k/100*X; several (n,k) sets may be active", Params: []Param{
		{Name: "sets", Doc: "the (n,k) sets, [{n: 2, k: 90}, ...]: a cell is unsafe when any set finds it dominated; 1 <= n <= 1000, 0 < k <= 100 (percent)"},
		{Name: "absolute", Doc: "true: judge contributions by their absolute values, so that negative contributions are assessed; false: a cell with a negative contribution is review"},
	}, New: newDominance})
}

type nk struct {
	n     int
	k     frac // k/100
	d     decimal.Dec
	label string // "(n,k)"
}

// dominance is the (n,k) rule with one or more (n,k) sets; a cell is
// sensitive when any set finds it dominated.
type dominance struct {
	sets     []nk
	need     int
	absolute bool
	facts    *dominanceFacts // made once by NewDominance
}

// NK is one (n,k) set of the dominance rule.
type NK struct {
	N int         `yaml:"n"`
	K decimal.Dec `yaml:"k"`
}

func newDominance(decode Decoder) (Rule, error) {
	var p struct {
		Sets     []NK `yaml:"sets"`
		Absolute bool `yaml:"absolute"`
	}
	if err := decodeParams("dominance", decode, &p); err != nil {
		return nil, err
	}
	return NewDominance(p.Absolute, p.Sets...)
}

// NewDominance builds the dominance rule from its (n,k) sets, validating
// 1 <= n and 0 < k <= 100.
func NewDominance(absolute bool, sets ...NK) (Rule, error) {
	if len(sets) == 0 {
		return nil, &ParamError{"dominance", "sets", "at least one (n, k) set is needed, e.g. sets: [{n: 2, k: 90}]"}
	}
	r := dominance{absolute: absolute}
	for i, s := range sets {
		if s.N < 1 {
			return nil, &ParamError{"dominance", fmt.Sprintf("sets[%d].n", i), fmt.Sprintf("must be at least 1, got %d", s.N)}
		}
		if s.N > 1000 {
			return nil, &ParamError{"dominance", fmt.Sprintf("sets[%d].n", i), fmt.Sprintf("must be at most 1000, got %d", s.N)}
		}
		k, err := percentFrac("dominance", fmt.Sprintf("sets[%d].k", i), s.K, 0, 100, true)
		if err != nil {
			return nil, err
		}
		r.sets = append(r.sets, nk{s.N, k, s.K, fmt.Sprintf("(%d,%s)", s.N, s.K)})
		r.need = max(r.need, s.N)
	}
	r.facts = &dominanceFacts{r}
	return r, nil
}

func (dominance) Name() string { return "dominance" }

func (r dominance) Needs() Needs { return Needs{Top: r.need, Absolute: r.absolute} }

// dominated tests x1 + ... + xn > k/100 X exactly.
func (s nk) dominated(m *magInput) bool { return m.topAbove(s.n, s.k) }

// Sensitive implements Sensitiver.
func (r dominance) Sensitive(t *audit.Table, c *audit.Cell) (bool, bool) {
	var m magInput
	st := readMagnitude(t, c, r.need, r.absolute, &m)
	if st != inOK {
		return false, false
	}
	for _, s := range r.sets {
		if s.dominated(&m) {
			return true, true
		}
	}
	return false, true
}

func (r dominance) Check(t *audit.Table, c *audit.Cell) audit.Finding {
	var m magInput
	st := readMagnitude(t, c, r.need, r.absolute, &m)
	if st != inOK {
		return inputFinding("dominance", st, c, r.need)
	}
	o := audit.Pass
	for _, s := range r.sets {
		if s.dominated(&m) {
			o = audit.Fail
			break
		}
	}
	return audit.Finding{Rule: "dominance", Outcome: o, Facts: r.facts, Cell: c}
}

// dominanceFacts give the figures behind a dominance finding, each set's
// computed from the cell when the finding is written.
type dominanceFacts struct{ r dominance }

// Figures implements audit.Facts.
func (g *dominanceFacts) Figures(c *audit.Cell) []audit.Figure {
	m := reread(c, g.r.need, g.r.absolute)
	vals := absoluteValues(&m, []audit.Figure{audit.DecFig("X", m.X)})
	sets := make([]audit.Figure, len(g.r.sets))
	for i, s := range g.r.sets {
		top := m.sumTop(s.n)
		sets[i] = audit.GroupFig("", audit.IntFig("n", int64(s.n)), audit.DecFig("k", s.d), audit.DecFig("top_sum", top),
			audit.DecFig("top_share_pct", pctOf(top, m.X)), audit.DecFig("k/100*X", s.k.times(m.X)), audit.BoolFig("dominated", s.dominated(&m)))
	}
	return append(vals, audit.ListFig("sets", sets...))
}

// Message implements audit.Facts.
func (g *dominanceFacts) Message(c *audit.Cell) string {
	m := reread(c, g.r.need, g.r.absolute)
	var failed, passed []string
	for _, s := range g.r.sets {
		if s.dominated(&m) {
			failed = append(failed, largest(s.n)+" "+report.PercentText(pctOf(m.sumTop(s.n), m.X), s.d)+" of the total, more than "+s.d.String()+"% "+s.label)
		} else {
			passed = append(passed, s.label)
		}
	}
	if len(failed) > 0 {
		return strings.Join(failed, "; ")
	}
	return "not dominated under " + strings.Join(passed, ", ")
}

// largest is the subject of a dominance sentence: "the largest
// contribution makes", "the 2 largest contributions make".
func largest(n int) string {
	if n == 1 {
		return "the largest contribution makes"
	}
	return "the " + strconv.Itoa(n) + " largest contributions make"
}

// pctOf formats 100 a / b.
func pctOf(a, b decimal.Dec) decimal.Dec {
	return ratio(100, a, b)
}

// AppendMessage implements report.MessageAppender: Message appended to b
// (a cell that is not dominated, the common case, without allocating).
func (g *dominanceFacts) AppendMessage(b []byte, c *audit.Cell) []byte {
	m := reread(c, g.r.need, g.r.absolute)
	failed := false
	for _, s := range g.r.sets {
		if s.dominated(&m) {
			if failed {
				b = append(b, "; "...)
			}
			failed = true
			b = append(b, largest(s.n)...)
			b = append(b, ' ')
			b = append(b, report.PercentText(pctOf(m.sumTop(s.n), m.X), s.d)...)
			b = append(b, " of the total, more than "...)
			b = s.d.Append(b)
			b = append(b, "% "...)
			b = append(b, s.label...)
		}
	}
	if failed {
		return b
	}
	b = append(b, "not dominated under "...)
	for i, s := range g.r.sets {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, s.label...)
	}
	return b
}

// AppendFigures implements report.FiguresAppender: Figures without
// allocating. The sets and their figures are kept in figs' capacity past
// the returned length.
func (g *dominanceFacts) AppendFigures(figs []audit.Figure, c *audit.Cell) []audit.Figure {
	const per = 6 // the figures of one set
	m := reread(c, g.r.need, g.r.absolute)
	top := len(figs) + 2
	if m.abs {
		top++
	}
	ns := len(g.r.sets)
	all := slices.Grow(figs, top-len(figs)+ns+ns*per)[:top+ns+ns*per]
	i := len(figs)
	all[i] = audit.DecFig("X", m.X)
	if m.abs {
		i++
		all[i] = audit.BoolFig("absolute", true)
	}
	sets := all[top : top+ns : top+ns]
	for j, s := range g.r.sets {
		lo := top + ns + j*per
		items := all[lo : lo+per : lo+per]
		sum := m.sumTop(s.n)
		items[0], items[1], items[2] = audit.IntFig("n", int64(s.n)), audit.DecFig("k", s.d), audit.DecFig("top_sum", sum)
		items[3], items[4], items[5] = audit.DecFig("top_share_pct", pctOf(sum, m.X)), audit.DecFig("k/100*X", s.k.times(m.X)), audit.BoolFig("dominated", s.dominated(&m))
		sets[j] = audit.GroupFig("", items...)
	}
	all[i+1] = audit.ListFig("sets", sets...)
	return all[:top]
}
