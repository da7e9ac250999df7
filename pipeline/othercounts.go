package pipeline

import (
	"context"
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/rules"
)

// otherCount is a count column of a long table besides its count:
// another count of the same cells (employees beside workers), judged by
// the rules and protected like the count.
type otherCount struct {
	key, column string // key in Cell.Stats, input column
}

// otherCounts are the table's other count columns (its structure's
// audited count columns other than columns.count).
func otherCounts(t *audit.Table) []otherCount {
	if t.Structure == nil {
		return nil
	}
	var out []otherCount
	for _, c := range t.Structure.Columns {
		if c.Role != audit.RoleCount || !c.Audited {
			continue
		}
		key := cells.ExtraStat(c.Column)
		for _, col := range t.Columns {
			if col == key {
				out = append(out, otherCount{key, c.Column})
			}
		}
	}
	return out
}

// shadowTable is the table of one other count column: the same cells
// (keys, structure) holding that count, for the rules to judge.
func shadowTable(t *audit.Table, k otherCount) *audit.Table {
	s := &audit.Table{Name: t.Name, Source: t.Source, Mode: audit.Aggregate, Dims: t.Dims, TotalLabel: t.TotalLabel, Hierarchies: t.Hierarchies,
		Structure: t.Structure, Decimals: t.Decimals, Columns: []string{"count"}, ColumnLabels: []string{k.column}, Publish: []string{"count"}}
	s.Cells = make([]*audit.Cell, len(t.Cells))
	for i, c := range t.Cells {
		st, _ := c.Stats.Get(k.key)
		sc := &audit.Cell{Key: c.Key, Row: c.Row}
		sc.Stats.Set("count", st)
		if !st.Missing {
			if n, ok := st.Value.Int64(); ok && n >= 0 {
				sc.HasN, sc.N = true, n
			}
		}
		s.Cells[i] = sc
	}
	return s
}

// evaluateOtherCounts runs the rules on every other count column and
// gives each cell the findings that failed or ask for review there,
// named after the column: a cell is primary when any of its counts is.
// cellRules and tableRules are the table's rules (RuleSet.cellRules,
// RuleSet.tableRules: rounded counts judged as the intervals they stand
// for).
func evaluateOtherCounts(ctx context.Context, t *audit.Table, cellRules []rules.CellRule, tableRules []rules.TableRule) error {
	for _, k := range otherCounts(t) {
		s := shadowTable(t, k)
		for _, c := range s.Cells {
			for _, r := range cellRules {
				c.Findings = append(c.Findings, r.Check(s, c))
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, r := range tableRules {
			r.CheckTable(s)
		}
		for i, c := range s.Cells {
			for _, f := range c.EachFinding() {
				if f.Outcome != audit.Fail && f.Outcome != audit.Review {
					continue
				}
				t.Cells[i].Findings = append(t.Cells[i].Findings, audit.Said(f.Rule, f.Outcome, k.column+": "+f.Message(), f.FigureList()))
			}
		}
	}
	return nil
}

// protectOtherCounts protects and audits every other count column after
// the count: secondary suppression adds the cells each needs (a pattern
// only grows, so what protected the count still does), and the cells an
// intruder can narrow in that column get a review finding. It reports
// whether cells were added.
func protectOtherCounts(ctx context.Context, t *audit.Table, opt suppress.Options, secondary bool) (bool, error) {
	added := false
	for _, k := range otherCounts(t) {
		o := opt
		o.Role, o.Column = audit.RoleCount, k.key
		o.Protection.Min = 1
		before := t.Summarize().Secondary
		var res *audit.Intervals
		if secondary {
			_, r, err := suppress.ProtectAudit(ctx, t, o)
			if err != nil {
				return added, fmt.Errorf("%s: secondary suppression of %q: %w", t.Source, k.column, err)
			}
			res = r
		}
		if res == nil {
			r, err := suppress.Audit(ctx, t, o)
			if err != nil {
				return added, fmt.Errorf("%s: interval audit of %q: %w", t.Source, k.column, err)
			}
			res = &r
		}
		if t.Summarize().Secondary != before {
			added = true
		}
		byKey := map[string]*audit.Cell{}
		for _, c := range t.Cells {
			byKey[fmt.Sprint(c.Key)] = c
		}
		for _, r := range res.Cells {
			c := byKey[fmt.Sprint(r.Key)]
			if c == nil || !(r.Exact || r.Undetermined || !r.Protected) {
				continue
			}
			what := "can be narrowed inside its protection levels"
			switch {
			case r.Exact:
				what = "is given exactly by the published cells"
			case r.Undetermined:
				what = "could not be decided within the audit's limits"
			}
			c.Findings = append(c.Findings, audit.Said("interval_audit", audit.Review, fmt.Sprintf("%s: this cell's %s %s", k.column, k.column, what), nil))
			if c.Status == audit.StatusOK {
				c.Status = audit.StatusReview
			}
		}
		for _, w := range res.Warnings {
			t.Warnings = append(t.Warnings, k.column+": "+w)
		}
	}
	return added, nil
}
