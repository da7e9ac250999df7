package audit

import (
	"iter"
	"reflect"
)

// RuleFindings hold the findings of the rules run on every cell (the cell
// rules, and the table rules' one finding per cell) for a run of at most
// 65,536 consecutive cells of a table, in columns: a byte per cell and
// column, and the few kinds of finding a column holds (a rule name, facts,
// and whether the finding reads its cell) once for the run. A finding of
// another kind (a sixty-fourth kind in a column, facts that cannot be
// compared, a finding about another cell) is kept whole, apart. A table of
// a million cells and a dozen rules so holds about a dozen bytes per cell
// for its rules' findings, not a dozen findings.
//
// A cell's findings are its columns' findings, in column order, then
// Cell.Findings (those added later: secondary suppression, overrides,
// links, ...); AppendFindings gives them all. Columns are written while
// the rules run (Put) and never changed afterwards.
type RuleFindings struct {
	k     int
	kinds [][]findingKind // per column, the kinds of its findings
	codes []uint8         // per cell and column: codeNone, codeOwn, or a kind and an outcome (code)
	own   []Finding       // the findings kept whole, by ownAt
	ownAt map[int32]int32
}

// findingKind is a finding but for its outcome.
type findingKind struct {
	rule  string
	facts Facts
	cell  bool // the finding reads its cell (Finding.Cell set), not nil
}

// The codes of a cell's column besides those of a kind and an outcome:
// 1 + kind*4 + outcome-1, for the kinds 0 to maxKinds-1 of the column and
// the outcomes Pass to NotApplicable.
const (
	codeNone uint8 = 0   // no finding in this column
	codeOwn  uint8 = 255 // the finding is kept whole (RuleFindings.own)
	maxKinds       = 63
)

// MaxRuleFindingsCells is the largest number of cells of one RuleFindings.
const MaxRuleFindingsCells = 1 << 16

// NewRuleFindings returns the columns for cells cells and k findings each.
func NewRuleFindings(cells, k int) *RuleFindings {
	if cells > MaxRuleFindingsCells {
		panic("audit: RuleFindings of more than 65536 cells")
	}
	return &RuleFindings{k: k, kinds: make([][]findingKind, k), codes: make([]uint8, cells*k)}
}

// Attach makes c the run's i-th cell, with no finding in any column yet
// and none in Findings.
func (s *RuleFindings) Attach(c *Cell, i int) {
	c.ruled, c.ruledAt, c.Findings = s, uint16(i), nil
}

// ClearFindings removes every finding of the cell.
func (c *Cell) ClearFindings() {
	c.ruled, c.ruledAt, c.Findings = nil, 0, nil
}

// Put records f as the finding in column j of the run's i-th cell, c.
// The cell then reads its columns from s (a cell belongs to one
// RuleFindings).
func (s *RuleFindings) Put(c *Cell, i, j int, f Finding) {
	c.ruled, c.ruledAt = s, uint16(i)
	at := i*s.k + j
	if code, ok := s.code(c, j, f, true); ok {
		s.codes[at] = code
		return
	}
	if s.ownAt == nil {
		s.ownAt = map[int32]int32{}
	}
	s.codes[at] = codeOwn
	s.ownAt[int32(at)] = int32(len(s.own))
	s.own = append(s.own, f)
}

// code returns the code of f on c in column j, adding its kind to the
// column when add is set and the column has room; false when f is to be
// kept whole.
func (s *RuleFindings) code(c *Cell, j int, f Finding, add bool) (uint8, bool) {
	if f.Outcome < Pass || f.Outcome > NotApplicable || (f.Cell != nil && f.Cell != c) {
		return 0, false
	}
	kinds := s.kinds[j]
	for n := range kinds {
		if kd := &kinds[n]; kd.rule == f.Rule && kd.cell == (f.Cell != nil) && sameFacts(kd.facts, f.Facts) {
			return uint8(1 + n*4 + int(f.Outcome) - 1), true
		}
	}
	if len(kinds) == maxKinds || (f.Facts != nil && !reflect.TypeOf(f.Facts).Comparable()) {
		return 0, false
	}
	if add {
		s.kinds[j] = append(kinds, findingKind{rule: f.Rule, facts: f.Facts, cell: f.Cell != nil})
	}
	return uint8(1 + len(kinds)*4 + int(f.Outcome) - 1), true
}

// sameFacts reports whether a, the facts of a kind (comparable), and b
// are the same facts, without comparing facts that cannot be compared.
func sameFacts(a, b Facts) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && a == b
}

// finding is the finding of code on c in column j.
func (s *RuleFindings) finding(c *Cell, j int, code uint8) Finding {
	kd := &s.kinds[j][(code-1)/4]
	f := Finding{Rule: kd.rule, Outcome: Outcome((code-1)%4 + 1), Facts: kd.facts}
	if kd.cell {
		f.Cell = c
	}
	return f
}

// appendRuled appends the findings of c's columns.
func (c *Cell) appendRuled(dst []Finding) []Finding {
	s := c.ruled
	if s == nil {
		return dst
	}
	base := int(c.ruledAt) * s.k
	for j, code := range s.codes[base : base+s.k] {
		switch code {
		case codeNone:
		case codeOwn:
			dst = append(dst, s.own[s.ownAt[int32(base+j)]])
		default:
			dst = append(dst, s.finding(c, j, code))
		}
	}
	return dst
}

// AppendFindings appends every finding of the cell to dst, in order: its
// rules' (RuleFindings), then Findings.
func (c *Cell) AppendFindings(dst []Finding) []Finding {
	return append(c.appendRuled(dst), c.Findings...)
}

// AllFindings returns every finding of the cell (see AppendFindings): Findings
// itself when the cell has no columns, a new slice otherwise.
func (c *Cell) AllFindings() []Finding {
	if c.ruled == nil {
		return c.Findings
	}
	return c.AppendFindings(make([]Finding, 0, c.ruled.k+len(c.Findings)))
}

// EachFinding yields every finding of the cell with its position, in the
// order of AppendFindings, building each as it goes.
func (c *Cell) EachFinding() iter.Seq2[int, Finding] {
	return func(yield func(int, Finding) bool) {
		n := 0
		if s := c.ruled; s != nil {
			base := int(c.ruledAt) * s.k
			for j, code := range s.codes[base : base+s.k] {
				var f Finding
				switch code {
				case codeNone:
					continue
				case codeOwn:
					f = s.own[s.ownAt[int32(base+j)]]
				default:
					f = s.finding(c, j, code)
				}
				if !yield(n, f) {
					return
				}
				n++
			}
		}
		for _, f := range c.Findings {
			if !yield(n, f) {
				return
			}
			n++
		}
	}
}

// NumFindings is the number of findings of the cell.
func (c *Cell) NumFindings() int {
	n := len(c.Findings)
	if s := c.ruled; s != nil {
		base := int(c.ruledAt) * s.k
		for _, code := range s.codes[base : base+s.k] {
			if code != codeNone {
				n++
			}
		}
	}
	return n
}

// eachOutcome calls f with the outcome and rule of each finding of the
// cell, in order, without building the findings.
func (c *Cell) eachOutcome(f func(o Outcome, rule string)) {
	if s := c.ruled; s != nil {
		base := int(c.ruledAt) * s.k
		for j, code := range s.codes[base : base+s.k] {
			switch code {
			case codeNone:
			case codeOwn:
				g := &s.own[s.ownAt[int32(base+j)]]
				f(g.Outcome, g.Rule)
			default:
				f(Outcome((code-1)%4+1), s.kinds[j][(code-1)/4].rule)
			}
		}
	}
	for i := range c.Findings {
		f(c.Findings[i].Outcome, c.Findings[i].Rule)
	}
}

// MoveFindings moves the cell's findings (Findings) into the columns from
// from on, when the cell has exactly want of them and none would be kept
// whole: the table rules' one finding per cell, so that
// they too cost a byte per cell. It reports whether it moved them.
func (s *RuleFindings) MoveFindings(c *Cell, i, from, want int) bool {
	if len(c.Findings) != want || from+want > s.k || (c.ruled != nil && (c.ruled != s || int(c.ruledAt) != i)) {
		return false
	}
	for j, f := range c.Findings {
		if _, ok := s.code(c, from+j, f, false); !ok {
			return false
		}
	}
	for j, f := range c.Findings {
		s.Put(c, i, from+j, f)
	}
	c.Findings = nil
	return true
}
