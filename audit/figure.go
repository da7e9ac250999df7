package audit

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Kind says what a Figure holds.
type Kind uint8

// The kinds of figures. A Figure's value sits in the field its kind names.
const (
	KindNull  Kind = iota // no value (JSON null)
	KindDec               // an exact decimal: Dec
	KindInt               // a signed integer: Int
	KindUint              // an unsigned integer: uint64(Int)
	KindBool              // a truth value: Int != 0
	KindFloat             // a float64 (moment estimates): math.Float64frombits(uint64(Int))
	KindText              // a string: Text
	KindList              // an ordered list: Items, unnamed
	KindGroup             // a set of named figures (a JSON object): Items
)

// Figure is one named number (or text, list, group) behind a finding.
// Exact decimals stay decimal.Dec. Figures are built by the constructors
// below; the zero Figure is a null.
type Figure struct {
	Name  string
	Kind  Kind
	Dec   decimal.Dec
	Int   int64 // KindInt, KindUint, KindBool, and the bits of KindFloat
	Text  string
	Items []Figure // KindList, KindGroup
}

// DecFig is an exact decimal figure.
func DecFig(name string, d decimal.Dec) Figure { return Figure{Name: name, Kind: KindDec, Dec: d} }

// IntFig is an integer figure.
func IntFig(name string, v int64) Figure { return Figure{Name: name, Kind: KindInt, Int: v} }

// UintFig is an unsigned integer figure.
func UintFig(name string, v uint64) Figure { return Figure{Name: name, Kind: KindUint, Int: int64(v)} }

// BoolFig is a truth-value figure.
func BoolFig(name string, v bool) Figure {
	f := Figure{Name: name, Kind: KindBool}
	if v {
		f.Int = 1
	}
	return f
}

// FloatFig is a floating-point figure (for estimates that are not exact).
func FloatFig(name string, v float64) Figure {
	return Figure{Name: name, Kind: KindFloat, Int: int64(math.Float64bits(v))}
}

// TextFig is a text figure.
func TextFig(name, s string) Figure { return Figure{Name: name, Kind: KindText, Text: s} }

// NullFig is a figure without a value.
func NullFig(name string) Figure { return Figure{Name: name} }

// ListFig is an ordered list of unnamed figures.
func ListFig(name string, items ...Figure) Figure {
	return Figure{Name: name, Kind: KindList, Items: items}
}

// GroupFig is a group of named figures (written as an object).
func GroupFig(name string, items ...Figure) Figure {
	return Figure{Name: name, Kind: KindGroup, Items: items}
}

// TextsFig is a list of texts.
func TextsFig(name string, ss []string) Figure {
	items := make([]Figure, len(ss))
	for i, s := range ss {
		items[i] = TextFig("", s)
	}
	return ListFig(name, items...)
}

// FloatsFig is a list of floats.
func FloatsFig(name string, vs []float64) Figure {
	items := make([]Figure, len(vs))
	for i, v := range vs {
		items[i] = FloatFig("", v)
	}
	return ListFig(name, items...)
}

// Float returns a KindFloat figure's value.
func (g Figure) Float() float64 { return math.Float64frombits(uint64(g.Int)) }

// Bool returns a KindBool figure's value.
func (g Figure) Bool() bool { return g.Int != 0 }

// Get returns the item of a group named name.
func (g Figure) Get(name string) (Figure, bool) { return lookup(g.Items, name) }

// Any returns the figure as a plain Go value: decimal.Dec, int64, uint64,
// bool, float64, string, nil, []any for a list and map[string]any for a
// group. It is for tests and for text renderings that follow fmt.
func (g Figure) Any() any {
	switch g.Kind {
	case KindDec:
		return g.Dec
	case KindInt:
		return g.Int
	case KindUint:
		return uint64(g.Int)
	case KindBool:
		return g.Bool()
	case KindFloat:
		return g.Float()
	case KindText:
		return g.Text
	case KindList:
		out := make([]any, len(g.Items))
		for i, it := range g.Items {
			out[i] = it.Any()
		}
		return out
	case KindGroup:
		out := make(map[string]any, len(g.Items))
		for _, it := range g.Items {
			out[it.Name] = it.Any()
		}
		return out
	}
	return nil
}

// String renders the figure as fmt.Sprint renders its Any value.
func (g Figure) String() string {
	switch g.Kind {
	case KindText:
		return g.Text
	case KindDec:
		return g.Dec.String()
	case KindFloat:
		return strconv.FormatFloat(g.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(g.Any())
}

func lookup(fs []Figure, name string) (Figure, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return Figure{}, false
}

// Values returns the figures as a map of plain values (see Figure.Any), for
// tests and debugging; writers use FigureList.
func (f Finding) Values() map[string]any {
	return GroupFig("", f.FigureList()...).Any().(map[string]any)
}
