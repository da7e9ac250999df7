package audit

import (
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Structure is what a table's layout means, found once per table (from the
// configuration, the labels and the numbers; package audit/structure) and
// read by every consumer: the rules (class, consistency), secondary
// suppression and the interval audit, and the reports. A nil Structure
// means the table's margins are those of its total label and its declared
// hierarchies (Table.TotalLabel, Table.Hierarchies), as for tables built
// from records.
type Structure struct {
	// Axes partition the table's dimensions: a dimension on its own, or
	// nested dimensions (a group label column beside a detail column) read
	// as one. Margins are relations along one axis, the other axes held
	// fixed.
	Axes []Axis `json:"axes"`
	// Columns is the role of every column of the input (aggregate tables).
	Columns []ColumnRole `json:"columns,omitempty"`
	// Margins is false when no margin was found: secondary suppression
	// and the audit then have no relation to work with.
	Margins bool `json:"margins"`
	// Notes say what was found and how, for the checker.
	Notes []string `json:"notes,omitempty"`
	// Unconfirmed are totals not used as margins because they add up
	// only within the rounding of a table whose rounding base the
	// configuration does not give (input.rounded), or because they are
	// the sum of a second breakdown besides the one used as their margin:
	// the relations are incomplete, so the interval audit cannot call a
	// suppressed cell protected (it is undetermined, a person decides).
	Unconfirmed []string `json:"unconfirmed,omitempty"`
	// MarginWarnings are the warnings of the margin inference (a label
	// that reads as a total but does not add up, a declared total that
	// does not, a code above others that is not their sum). They are
	// also among the table's warnings; the audit of a received table
	// repeats them, since they change what bounds a suppressed cell.
	MarginWarnings []string `json:"-"`
	// Layout says how the table was found in its file (the reader's
	// account: header rows, label columns, labels carried down, sheets
	// skipped), labels and positions only.
	Layout []string `json:"layout,omitempty"`
	// Unaudited names the values published with the table that are no
	// cell of it (a number in a title or note row of a wide table): not
	// audited, so withheld from the safe tables unless declared safe to
	// publish (columns.safe). References and row labels only, never a
	// value.
	Unaudited []string `json:"unaudited,omitempty"`
	// Rounded is the base B the published values are rounded to
	// (input.rounded; zero: exact): margins were confirmed within the
	// rounding, and the rules and the audit judge every value a
	// published figure stands for.
	Rounded decimal.Dec `json:"-"`
}

// Axis is one or more dimensions of a table read as one for margins.
type Axis struct {
	// Dims are the indices in Table.Dims, outermost first; more than one
	// when the dimensions are nested.
	Dims []int `json:"dims"`
	// Names are the dimensions' names.
	Names []string `json:"names"`
	// Codes are the axis codes in table order (AxisCode of a cell).
	Codes []string `json:"codes"`
	// Parent maps a code to the margin code it adds up into, along this
	// axis with the other axes held fixed. A code without a parent adds
	// up into nothing.
	Parent map[string]string `json:"parent,omitempty"`
	// Found says, per margin code, how it was found: "configuration",
	// "label", "label and arithmetic", "arithmetic", "GSS codes".
	Found map[string]string `json:"found,omitempty"`
	// Signed are the codes whose cells may be negative (a balance or net
	// row found as a difference of two others, or a row or column with
	// negative published values), with how each was found: a suppressed
	// cell with such a code has no lower bound 0 in secondary suppression
	// and the audit. Every other cell is non-negative.
	Signed map[string]string `json:"signed,omitempty"`
	// NonAdditive are the codes whose cells do not add up along the other
	// axes (a column of medians, means, percentiles, standard errors,
	// rates or shares beside a count or total column), with what each
	// reads as: the margins of the other axes hold in the additive codes
	// only (a "Total" row that is the sum of the rows below it in the
	// count column, not in the median column), and relations are
	// written only there.
	NonAdditive map[string]string `json:"non_additive,omitempty"`
	// Breakdowns are, per margin code with two or more breakdowns, every
	// one of them in table order (People = Men + Women = the age bands):
	// disjoint runs of consecutive codes, each adding up to the margin on
	// every line. The first is also in Parent; the margin's true
	// structure is a cross of hidden dimensions (Sex x Age, with
	// unpublished interior cells), protected and audited through a cover
	// table (audit/link.ProtectCrossed). Only flat breakdowns that
	// account for every code of the axis are recorded.
	Breakdowns map[string][][]string `json:"breakdowns,omitempty"`
	// CountCodes are the codes labelled as counts on an axis with
	// NonAdditive codes, in a table read as one statistic without counts
	// or totals (ASHE's number of jobs beside median hours, read with
	// --value median): their cells' published value is the figure the
	// margins add up.
	CountCodes map[string]bool `json:"-"`
}

// ColumnRole is the role of one input column.
type ColumnRole struct {
	Column string `json:"column"`
	// Role is dimension, count, total, statistic, derived, published
	// (declared safe to publish as it is) or not understood.
	Role Role `json:"role"`
	// Of names the count a derived column is derived from.
	Of string `json:"of,omitempty"`
	// Audited is true when the column's values were judged by the rules
	// and protected by secondary suppression.
	Audited bool `json:"audited"`
	// Written is true when the column is written to the safe table.
	Written bool `json:"written"`
}

// Role is what a column of a table holds, or which figure of a cell a
// computation uses: RoleCount is the contributors (N, the "count"
// column), RoleTotal the sum of contributions (X, the "total" column).
// It is not the total label (Table.TotalLabel), which names margins.
type Role string

// Column roles.
const (
	RoleDimension  Role = "dimension"
	RoleCount      Role = "count"
	RoleTotal      Role = "total"
	RoleStatistic  Role = "statistic"
	RoleDerived    Role = "derived"
	RolePublished  Role = "published"
	RoleUnderstood Role = "not understood"
)

const (
	axisCodeSep      = " / "
	axisCodeSepBytes = "\x1f"
)

// AxisCode is the code of a cell key along axis a: the key value of its
// dimension, or the nested dimensions' values joined.
func (a *Axis) AxisCode(key []string) string {
	if len(a.Dims) == 1 {
		return key[a.Dims[0]]
	}
	parts := make([]string, len(a.Dims))
	for i, d := range a.Dims {
		parts[i] = key[d]
	}
	return strings.Join(parts, axisCodeSepBytes)
}

// LineKey identifies the line of a cell key along axis a: its values on
// every dimension that is not the axis's, joined (the cells that share
// them differ only in their axis code).
func (a *Axis) LineKey(key []string) string {
	parts := make([]string, 0, len(key))
	for d, v := range key {
		if !slices.Contains(a.Dims, d) {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, "\x00")
}

// CodeText is an axis code for people: nested values joined by " / ".
func CodeText(code string) string { return strings.ReplaceAll(code, axisCodeSepBytes, axisCodeSep) }

// IsMarginCode reports whether code is a margin of the axis: some code
// adds up into it.
func (a *Axis) IsMarginCode(code string) bool {
	_, ok := a.Found[code]
	return ok
}

// StatisticsConfirmed reports whether the axis's NonAdditive codes are
// evidenced as statistics, not only labelled so: some code that is not
// one of them is a margin that other codes add up into (the margins are
// confirmed with the NonAdditive codes' figures left out, so a count
// category wrongly labelled as a statistic would break them). Without
// that ("Below average income" and "Above average income" beside
// "Income not known", no total) a label is only a hint: the class rule
// keeps such codes as categories, and their cells have no root count.
func (a *Axis) StatisticsConfirmed() bool {
	if len(a.NonAdditive) == 0 {
		return false
	}
	for c := range a.Found {
		if _, stat := a.NonAdditive[c]; !stat {
			return true
		}
	}
	return false
}

// Name names the axis: its dimensions joined by " / ".
func (a *Axis) Name() string { return strings.Join(a.Names, axisCodeSep) }

// Children returns, for every margin code, the codes that add up into it,
// in table order.
func (a *Axis) Children() map[string][]string {
	out := map[string][]string{}
	for _, c := range a.Codes {
		if p, ok := a.Parent[c]; ok {
			out[p] = append(out[p], c)
		}
	}
	return out
}

// AxisOf returns the axis that holds dimension d, or nil.
func (s *Structure) AxisOf(d int) *Axis {
	for i := range s.Axes {
		for _, e := range s.Axes[i].Dims {
			if e == d {
				return &s.Axes[i]
			}
		}
	}
	return nil
}

// IsSigned reports whether a cell may be negative: its code along some
// axis is signed (Axis.Signed).
func (s *Structure) IsSigned(key []string) bool {
	for i := range s.Axes {
		if len(s.Axes[i].Signed) == 0 {
			continue
		}
		if _, ok := s.Axes[i].Signed[s.Axes[i].AxisCode(key)]; ok {
			return true
		}
	}
	return false
}

// Additive reports whether a cell adds up along the axes' margins: no
// code of its key is non-additive (Axis.NonAdditive).
func (s *Structure) Additive(key []string) bool {
	for i := range s.Axes {
		if len(s.Axes[i].NonAdditive) == 0 {
			continue
		}
		if _, ok := s.Axes[i].NonAdditive[s.Axes[i].AxisCode(key)]; ok {
			return false
		}
	}
	return true
}

// IsMargin reports whether a cell is a margin in some axis.
func (s *Structure) IsMargin(key []string) bool {
	for i := range s.Axes {
		if s.Axes[i].IsMarginCode(s.Axes[i].AxisCode(key)) {
			return true
		}
	}
	return false
}

// Crossed returns the axis whose margin has two or more breakdowns
// (Axis.Breakdowns) and that margin's code, or nil.
func (s *Structure) Crossed() (*Axis, string) {
	if s == nil {
		return nil, ""
	}
	for i := range s.Axes {
		for c := range s.Axes[i].Breakdowns {
			return &s.Axes[i], c
		}
	}
	return nil, ""
}
