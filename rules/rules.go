// Package rules holds every cell-level disclosure check behind one small
// interface, registered by name. A rule reads one cell (and the table it
// belongs to for context such as the margin label or the measure domain)
// and returns a Finding: pass, fail, review or not applicable, with a
// sentence a person understands and the figures behind it.
//
// Rules register themselves in init functions; the pipeline builds the
// rules a configuration enables with New. The heavy mathematics of some
// rules lives in subpackages (rules/meansd, rules/moments) that know
// nothing of tables.
package rules

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Rule is a named disclosure check. Every rule implements CellRule,
// TableRule, or both.
type Rule interface {
	Name() string
}

// CellRule checks one cell. Check must be safe for concurrent use on
// different cells and must not modify the cell.
type CellRule interface {
	Rule
	Check(t *audit.Table, c *audit.Cell) audit.Finding
}

// TableRule checks relations between the cells of a table (for example a
// row whose whole total sits in one cell). It runs after every CellRule and
// appends its findings to the cells concerned.
type TableRule interface {
	Rule
	CheckTable(t *audit.Table)
}

// Needs says what a rule needs the cell builder to keep per cell.
type Needs struct {
	Top    int  // number of largest contributions
	Powers int  // highest power sum for the moment attack
	SumSq  bool // exact sum of squares
	Hist   bool // histogram on the measure domain
	// Absolute asks for totals and top contributions by absolute value
	// (Cell.AbsTotal, Cell.AbsTop), with Top contributions kept as well.
	Absolute bool
}

// Merge returns the larger of two needs.
func (n Needs) Merge(o Needs) Needs {
	return Needs{Top: max(n.Top, o.Top), Powers: max(n.Powers, o.Powers), SumSq: n.SumSq || o.SumSq, Hist: n.Hist || o.Hist, Absolute: n.Absolute || o.Absolute}
}

// Needer is implemented by rules that need more than counts and totals.
type Needer interface {
	Needs() Needs
}

// Decoder fills a rule's parameter struct from configuration. It is strict:
// unknown parameters are errors.
type Decoder func(v any) error

// Factory builds a rule from its parameters.
type Factory func(decode Decoder) (Rule, error)

// Spec describes a registered rule.
type Spec struct {
	Name string
	// Doc is a one-line description for `sdcaudit rules`.
	Doc string
	// Params declares the rule's parameters, in the order `sdcaudit rules`
	// shows them: the keys of its parameter struct (its yaml tags), each
	// with what it means. Their values live only in the profiles
	// (configs/profiles/*.yaml) and config files; the factory starts from
	// the zero struct and every declared parameter must be set.
	Params []Param
	New    Factory
	// Quality marks a rule that checks the input (missing statistics,
	// negative contributions, margins that add up) rather than whether
	// a cell discloses a contributor: such a rule's pass does not make a
	// cell assessed. A cell that every enabled sensitivity rule (every
	// other rule) found not applicable is sent to review.
	Quality bool
}

// Param declares one rule parameter.
type Param struct {
	// Name is the configuration key (the yaml tag of the field).
	Name string
	// Doc says what the parameter means, with its unit and range.
	Doc string
}

// decodeParams fills p, a pointer to the rule's zero parameter struct,
// from the configuration, and checks that every parameter the rule
// declares is set (a missing one is a *ParamError: rules have no
// defaults of their own). A nil decode sets nothing.
func decodeParams(rule string, decode Decoder, p any) error {
	set := map[string]any{}
	if decode != nil {
		if err := decode(&set); err != nil {
			return err
		}
		if err := decode(p); err != nil {
			return err
		}
	}
	s, _ := Lookup(rule)
	for _, prm := range s.Params {
		if _, ok := set[prm.Name]; !ok {
			return &ParamError{rule, prm.Name, fmt.Sprintf("not set; set it in the profile or config (rules: {%s: {%s: ...}})", rule, prm.Name)}
		}
	}
	return nil
}

var (
	mu       sync.RWMutex
	registry = map[string]Spec{}
)

// Register adds a rule. It panics on a duplicate name, which is a
// programming error.
func Register(s Spec) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic("rules: duplicate rule " + s.Name)
	}
	registry[s.Name] = s
}

// Lookup returns the rule registered under name.
func Lookup(name string) (Spec, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := registry[name]
	return s, ok
}

// Names lists the registered rules in alphabetical order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New builds the named rule with its parameters.
func New(name string, decode Decoder) (Rule, error) {
	s, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownRule, name, Names())
	}
	r, err := s.New(decode)
	if err != nil {
		var pe *ParamError
		if errors.As(err, &pe) && pe.Rule == name {
			return nil, err // its text names the rule
		}
		return nil, fmt.Errorf("rule %s: %w", name, err)
	}
	return r, nil
}

// Errors of building rules (errors.Is reaches them).
var (
	// ErrUnknownRule is a rule name that is not registered.
	ErrUnknownRule = errors.New("unknown rule")
	// ErrParam is an invalid rule parameter; every *ParamError wraps it.
	ErrParam = errors.New("invalid rule parameter")
)

// ParamError reports an invalid rule parameter. Its text names the rule
// and the parameter; it unwraps to ErrParam.
type ParamError struct {
	// Rule is the rule's registered name; Param the parameter's key.
	Rule, Param string
	// Msg says what is wrong with the value.
	Msg string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("rule %s: parameter %s: %s", e.Rule, e.Param, e.Msg)
}

// Unwrap returns ErrParam.
func (e *ParamError) Unwrap() error { return ErrParam }

// pct is a percentage parameter kept exact as num/den.
type pct struct{ num, den int64 }

func toPct(rule, param string, d decimal.Dec, lo, hi int64, loOpen bool) (pct, error) {
	num, den, ok := d.Frac()
	if !ok {
		return pct{}, &ParamError{rule, param, "too many digits"}
	}
	low := decimal.FromInt(lo)
	if c := d.Cmp(low); c < 0 || (loOpen && c == 0) || d.Cmp(decimal.FromInt(hi)) > 0 {
		op := "<="
		if loOpen {
			op = "<"
		}
		return pct{}, &ParamError{rule, param, fmt.Sprintf("must satisfy %d %s %s <= %d, got %s", lo, op, param, hi, d)}
	}
	return pct{num, den}, nil
}

// finding builds a finding with a fixed message. A finding without
// figures shares its facts with every other finding of the same message
// (up to maxSaid messages), so that a rule that says the same of every
// cell ("empty cell", "the table publishes neither min nor max") costs a
// table's cells no facts each and fits audit.RuleFindings' columns.
func finding(rule string, o audit.Outcome, msg string, figs []audit.Figure) audit.Finding {
	if figs == nil {
		if st, ok := saidOnce.Load(msg); ok {
			return audit.Finding{Rule: rule, Outcome: o, Facts: st.(*audit.Statement)}
		}
		if saidCount.Load() < maxSaid {
			st, loaded := saidOnce.LoadOrStore(msg, &audit.Statement{Text: msg})
			if !loaded {
				saidCount.Add(1)
			}
			return audit.Finding{Rule: rule, Outcome: o, Facts: st.(*audit.Statement)}
		}
	}
	return audit.Said(rule, o, msg, figs)
}

// saidOnce holds the facts of the findings without figures, by message
// (see finding); saidCount counts them.
var (
	saidOnce  sync.Map
	saidCount atomic.Int64
)

// maxSaid bounds the messages finding shares: messages that hold a
// cell's own words (an error, a count) may be many.
const maxSaid = 4096

// said builds a finding whose message say renders from its figures when
// it is written (say is a function of the rule's that captures no
// per-cell state).
func said(rule string, o audit.Outcome, say func(figs []audit.Figure) string, figs []audit.Figure) audit.Finding {
	return audit.Finding{Rule: rule, Outcome: o, Facts: &saying{figs, say}}
}

// saying are facts whose message say renders from the figures.
type saying struct {
	figs []audit.Figure
	say  func(figs []audit.Figure) string
}

// Figures implements audit.Facts.
func (s *saying) Figures(*audit.Cell) []audit.Figure { return s.figs }

// Message implements audit.Facts.
func (s *saying) Message(*audit.Cell) string { return s.say(s.figs) }

// fig returns the figure named name (the zero Figure when absent), for
// the functions rendering messages.
func fig(figs []audit.Figure, name string) audit.Figure {
	for _, g := range figs {
		if g.Name == name {
			return g
		}
	}
	return audit.Figure{}
}

// itoa formats an integer figure.
func itoa(g audit.Figure) string { return strconv.FormatInt(g.Int, 10) }

// explainFacts give a finding's figures and message from its cell through
// the rule's explain; made once by the rule's constructor, so that Check
// does not allocate.
type explainFacts struct {
	explain func(*audit.Table, *audit.Cell) audit.Finding
}

// Figures implements audit.Facts.
func (g *explainFacts) Figures(c *audit.Cell) []audit.Figure { return g.explain(nil, c).FigureList() }

// Message implements audit.Facts.
func (g *explainFacts) Message(c *audit.Cell) string { return g.explain(nil, c).Message() }
