package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/structure"
	"github.com/sdcaudit/sdcaudit/configs"
)

// noMargins is the table warning of a table without margins.
const noMargins = "secondary suppression was not applied because no margins were found: no row or column is labelled as a total (total_label, totals:) or is the sum of others; if the table has margins, declare them with total_label, totals: or suppression.hierarchies"

// inferStructure finds the structure of an aggregate table once
// (audit/structure) and records it in the table: its margins, nested
// rows, and the role of every input column (header: the long table's
// columns as read).
func inferStructure(t *audit.Table, s *configs.Settings, header []string) error {
	opt := structure.Options{TotalLabels: s.TotalLabels, Totals: s.Totals, Hierarchies: t.Hierarchies, RowDims: len(t.Dims)}
	if len(opt.TotalLabels) == 0 && s.TotalLabel != "" {
		opt.TotalLabels = []string{s.TotalLabel}
	}
	if isWide(s.Columns) {
		opt.Wide, opt.RowDims = true, len(s.Columns.Dims)
	}
	for d := range s.Totals {
		if !slices.Contains(t.Dims, d) {
			return &configs.Error{Msg: fmt.Sprintf("totals: %q is not a dimension of the table (dimensions %s)", d, strings.Join(t.Dims, ", ")), Err: configs.ErrInvalid}
		}
	}
	res, err := structure.Infer(t, opt)
	if err != nil {
		return err
	}
	t.Structure = res.Structure
	t.Warnings = append(t.Warnings, res.Warnings...)
	if !isWide(s.Columns) {
		t.Structure.Columns = columnRoles(t, s.Columns, header)
		var lost []string
		for _, c := range t.Structure.Columns {
			if c.Role == audit.RoleUnderstood {
				lost = append(lost, fmt.Sprintf("%q", c.Column))
			}
		}
		if len(lost) > 0 {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s not understood (not mapped to a dimension or a statistic in columns:): not audited and not written to the safe table; map %s in columns: (count, total, ...) to audit %s", audit.Plural(int64(len(lost)), "column", "columns"), strings.Join(lost, ", "), pronoun(len(lost))))
		}
	}
	return nil
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// columnRoles is the role of every column of a long aggregate table.
func columnRoles(t *audit.Table, c *configs.Columns, header []string) []audit.ColumnRole {
	role := map[string]audit.ColumnRole{}
	if c != nil {
		for _, d := range c.Dims {
			role[d] = audit.ColumnRole{Column: d, Role: audit.RoleDimension, Written: true}
		}
		for _, r := range c.Roles() {
			kind := audit.RoleStatistic
			switch r[0] {
			case "count":
				kind = audit.RoleCount
			case "total":
				kind = audit.RoleTotal
			}
			role[r[1]] = audit.ColumnRole{Column: r[1], Role: kind, Audited: true, Written: true}
		}
		for _, top := range c.Top {
			role[top] = audit.ColumnRole{Column: top, Role: audit.RoleStatistic, Audited: true}
		}
	}
	var out []audit.ColumnRole
	for _, h := range header {
		r, ok := role[h]
		if !ok {
			r = audit.ColumnRole{Column: h, Role: audit.RoleUnderstood}
		}
		out = append(out, r)
	}
	return out
}
