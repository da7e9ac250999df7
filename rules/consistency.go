package rules

import (
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/relations"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "consistency", Quality: true, Doc: "aggregate tables: every margin (total label, declared hierarchies) must equal the sum of its cells (within the rounding with input.rounded), for totals and counts, and an empty cell (n = 0) must have a zero total; otherwise the cells involved are review, since no audit of the table can be trusted", New: newConsistency})
}

// consistency checks that an aggregate table is internally consistent,
// exactly: each additive relation the table declares (a margin by the
// total label or a parent code of the suppression hierarchies, see
// relations.Of) holds for the totals and for the counts, and no cell
// has a total without contributors. A relation is checked for a figure only
// when every cell in it has that figure; suppressed or missing figures
// leave it unchecked. The margin and every cell of a relation that fails,
// and a cell with n = 0 and a non-zero total, get review with the
// difference. Cells built from records (microdata mode) add up by
// construction and are not checked.
//
// On a table whose published values are rounded to base B
// (input.rounded, ForRoundedTable), a margin of n cells adds up when it
// is within (n+1)·B/2 of their sum, the most n+1 roundings can move it
// (the tolerance of the structure inference); an empty cell's total is
// checked only when a published count of 0 cannot stand for a
// contributor (B < 2) and the total cannot stand for 0.
type consistency struct {
	rounded decimal.Dec // B; zero: exact values
}

func newConsistency(decode Decoder) (Rule, error) {
	var p struct{}
	if err := decodeParams("consistency", decode, &p); err != nil {
		return nil, err
	}
	return consistency{}, nil
}

func (consistency) Name() string { return "consistency" }

// CheckTable implements TableRule.
func (r consistency) CheckTable(t *audit.Table) {
	const name = "consistency"
	if t.Mode != audit.Aggregate {
		// one finding for every cell: its facts are the same
		f := finding(name, audit.NotApplicable, "cells built from records add up by construction", nil)
		for _, c := range t.Cells {
			c.Findings = append(c.Findings, f)
		}
		return
	}
	rels, err := relations.Of(t)
	if err != nil {
		f := finding(name, audit.Review, "the table's margins cannot be read, so no audit of it can be trusted: "+err.Error(), nil)
		for _, c := range t.Cells {
			c.Findings = append(c.Findings, f)
		}
		return
	}
	problems, checked := relationProblems(t, rels, r.rounded)
	for i, c := range t.Cells {
		c.Findings = append(c.Findings, consistencyFinding(c, problems[i], checked[i], r.rounded))
	}
}

// consistencyProblem is a margin relation that does not add up, as it is
// told on each cell of the relation.
type consistencyProblem struct {
	msg string
	v   audit.Figure
}

// consistencyFigures are the figures a margin relation must add up in.
var consistencyFigures = []struct {
	name  string
	known func(c *audit.Cell) bool
	value func(c *audit.Cell) decimal.Dec
}{
	{"total", func(c *audit.Cell) bool { return c.HasTotal }, func(c *audit.Cell) decimal.Dec { return c.Total }},
	{"count", func(c *audit.Cell) bool { return c.HasN }, func(c *audit.Cell) decimal.Dec { return decimal.FromInt(c.N) }},
}

// relationProblems checks every margin relation on each figure all of its
// cells know: problems[i] are the relations of cell i that do not add up
// (within the rounding to base rounded when it is not zero), checked[i]
// whether some relation of cell i could be checked.
func relationProblems(t *audit.Table, rels []relations.Relation, rounded decimal.Dec) (problems [][]consistencyProblem, checked []bool) {
	problems = make([][]consistencyProblem, len(t.Cells))
	checked = make([]bool, len(t.Cells))
	for _, r := range rels {
		for _, fig := range consistencyFigures {
			margin := t.Cells[r.Total]
			if !fig.known(margin) {
				continue
			}
			var sum decimal.Dec
			complete := true
			for _, j := range r.Parts {
				if !fig.known(t.Cells[j]) {
					complete = false
					break
				}
				sum = sum.Add(fig.value(t.Cells[j]))
			}
			if !complete {
				continue
			}
			checked[r.Total] = true
			for _, j := range r.Parts {
				checked[j] = true
			}
			mv := fig.value(margin)
			if mv.Cmp(sum) == 0 {
				continue
			}
			diff := mv.Sub(sum)
			var within string
			if rounded.Sign() > 0 {
				// n+1 published values, each within B/2 of its value
				lim := rounded.Mul(decimal.FromInt(int64(len(r.Parts) + 1))).Mul(decimal.Scaled(5, 1))
				if diff.Abs().Cmp(lim) <= 0 {
					continue
				}
				within = fmt.Sprintf(", more than the %s the rounding to base %s allows", lim, rounded)
			}
			along := r.Along
			p := consistencyProblem{
				msg: fmt.Sprintf("the %s of %s is %s but its %s along %s sum to %s (difference %s%s)", fig.name, t.KeyString(margin.Key), mv, report.Plural(int64(len(r.Parts)), "cell", "cells"), along, sum, diff, within),
				v: audit.GroupFig("", audit.TextFig("figure", fig.name), audit.TextFig("margin", t.KeyString(margin.Key)), audit.TextFig("along", along),
					audit.DecFig("margin_value", mv), audit.DecFig("sum", sum), audit.DecFig("difference", diff)),
			}
			problems[r.Total] = append(problems[r.Total], p)
			for _, j := range r.Parts {
				problems[j] = append(problems[j], p)
			}
		}
	}
	return problems, checked
}

// consistencyFinding is the rule's finding on c given the problems of its
// relations and whether one of them was checked.
func consistencyFinding(c *audit.Cell, problems []consistencyProblem, checked bool, rounded decimal.Dec) audit.Finding {
	const name = "consistency"
	var v []audit.Figure
	if c.HasN {
		v = append(v, audit.IntFig("n", c.N))
	}
	if c.HasTotal {
		v = append(v, audit.DecFig("X", c.Total))
	}
	var msgs []string
	if c.HasN && c.HasTotal {
		checked = true
		if c.N == 0 && !c.Total.IsZero() && roundedEmpty(rounded, c.Total) {
			msgs = append(msgs, fmt.Sprintf("no contributors (n = 0) but a total of %s", c.Total))
		}
	}
	if len(problems) > 0 {
		var rs []audit.Figure
		for _, p := range problems {
			msgs = append(msgs, p.msg)
			rs = append(rs, p.v)
		}
		v = append(v, audit.ListFig("relations", rs...))
	}
	switch {
	case len(msgs) > 0:
		return finding(name, audit.Review, "the table is inconsistent, so no audit of it can be trusted: "+strings.Join(msgs, "; "), v)
	case !checked:
		return finding(name, audit.NotApplicable, "no margin relation or count and total to check", nil)
	}
	if rounded.Sign() > 0 {
		return finding(name, audit.Pass, "the margins it belongs to add up within the rounding to base "+rounded.String()+" and its total fits its count", v)
	}
	return finding(name, audit.Pass, "the margins it belongs to add up and its total fits its count", v)
}

// roundedEmpty reports whether a published count of 0 with the non-zero
// total x is a cell without contributors and with a total: always on
// exact values; rounded to base B only when the count cannot stand for 1
// (B < 2) and the total cannot stand for 0 (|x| > B/2).
func roundedEmpty(base, x decimal.Dec) bool {
	if base.Sign() <= 0 {
		return true
	}
	half := base.Mul(decimal.Scaled(5, 1))
	return base.Cmp(decimal.FromInt(2)) < 0 && x.Abs().Cmp(half) > 0
}

// ForRoundedTable returns the table rule r judging a table whose
// published counts and totals are rounded to base (> 0): the
// consistency rule accepts margins within the rounding, the class rule
// sends a line whose other cells are published 0 to review when a 0 may
// stand for a contributor. Other table rules are returned as they are.
func ForRoundedTable(r TableRule, base decimal.Dec) TableRule {
	switch in := r.(type) {
	case consistency:
		in.rounded = base
		return in
	case class:
		in.rounded = base
		return in
	}
	return r
}
