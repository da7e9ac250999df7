package audit

import (
	"iter"
	"reflect"
)

// RuleFindings hold the findings of the rules run on every cell (the cell
// rules, and the table rules' one finding per cell) for a run of at most
// 65,536 consecutive cells of a table, in columns: a byte per cell and
// column, and the rule name and facts of a column once for the run (those
// of its finding on the first cell that has one). A finding that does not
// share them (other facts, another rule name, another cell) is kept whole,
// apart. A table of a million cells and a dozen rules so holds about a
// dozen bytes per cell for its rules' findings, not a dozen findings.
//
// A cell's findings are its columns' findings, in column order, then
// Cell.Findings (those added later: secondary suppression, overrides,
// links, ...); AppendFindings gives them all. Columns are written while
// the rules run (Put) and never changed afterwards.
type RuleFindings struct {
	k     int
	rules []string  // per column: the rule of its shared finding
	facts []Facts   // per column: the facts of its shared finding
	cmp   []bool    // per column: facts[j] can be compared with ==
	cell  []bool    // per column: its shared finding reads its cell (Cell set), not nil
	codes []uint8   // per cell and column: codeNone, an Outcome, or codeOwn
	own   []Finding // the findings kept whole, by ownAt
	ownAt map[int32]int32
}

// The codes of a cell's column besides the outcomes of findings that share
// the column's rule and facts.
const (
	codeNone uint8 = 0   // no finding in this column
	codeOwn  uint8 = 255 // the finding is kept whole (RuleFindings.own)
)

// MaxRuleFindingsCells is the largest number of cells of one RuleFindings.
const MaxRuleFindingsCells = 1 << 16

// NewRuleFindings returns the columns for cells cells and k findings each.
func NewRuleFindings(cells, k int) *RuleFindings {
	if cells > MaxRuleFindingsCells {
		panic("audit: RuleFindings of more than 65536 cells")
	}
	return &RuleFindings{k: k, rules: make([]string, k), facts: make([]Facts, k), cmp: make([]bool, k), cell: make([]bool, k), codes: make([]uint8, cells*k)}
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
	if s.fits(c, j, f) {
		if s.rules[j] == "" {
			s.rules[j], s.facts[j], s.cell[j] = f.Rule, f.Facts, f.Cell != nil
			s.cmp[j] = f.Facts == nil || reflect.TypeOf(f.Facts).Comparable()
		}
		s.codes[at] = uint8(f.Outcome)
		return
	}
	if s.ownAt == nil {
		s.ownAt = map[int32]int32{}
	}
	s.codes[at] = codeOwn
	s.ownAt[int32(at)] = int32(len(s.own))
	s.own = append(s.own, f)
}

// fits reports whether f is column j's shared finding on c, but for its
// outcome, or can be when the column has none yet.
func (s *RuleFindings) fits(c *Cell, j int, f Finding) bool {
	if f.Rule == "" || f.Outcome == 0 || uint8(f.Outcome) >= codeOwn || (f.Cell != nil && f.Cell != c) {
		return false
	}
	if s.rules[j] == "" {
		return true
	}
	return f.Rule == s.rules[j] && s.cmp[j] && f.Facts == s.facts[j] && (f.Cell != nil) == s.cell[j]
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
			f := Finding{Rule: s.rules[j], Outcome: Outcome(code), Facts: s.facts[j]}
			if s.cell[j] {
				f.Cell = c
			}
			dst = append(dst, f)
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
					f = Finding{Rule: s.rules[j], Outcome: Outcome(code), Facts: s.facts[j]}
					if s.cell[j] {
						f.Cell = c
					}
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
				f(Outcome(code), s.rules[j])
			}
		}
	}
	for i := range c.Findings {
		f(c.Findings[i].Outcome, c.Findings[i].Rule)
	}
}

// MoveFindings moves the cell's findings (Findings) into the columns from
// from on, when the cell has exactly want of them and each shares its
// column's rule and facts: the table rules' one finding per cell, so that
// they too cost a byte per cell. It reports whether it moved them.
func (s *RuleFindings) MoveFindings(c *Cell, i, from, want int) bool {
	if len(c.Findings) != want || from+want > s.k || (c.ruled != nil && (c.ruled != s || int(c.ruledAt) != i)) {
		return false
	}
	for j, f := range c.Findings {
		if !s.fits(c, from+j, f) {
			return false
		}
	}
	for j, f := range c.Findings {
		s.Put(c, i, from+j, f)
	}
	c.Findings = nil
	return true
}
