package cells

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/audit/structure"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/report"
)

// inferStructure finds the structure of an aggregate table once
// (audit/structure) and records it in the table: its margins, nested
// rows, and the role of every input column (header: the long table's
// columns as read; uncoded: per dimension, the row labels a code column
// leaves blank, structure.Options.Uncoded; indent: per dimension, the
// indentation of its labels, structure.Options.Indent; repeats: per
// dimension, the rows printed twice, structure.Options.Repeats).
func inferStructure(t *audit.Table, s *configs.Settings, header []string, text map[string]bool, uncoded map[string][]string, indent map[string]map[string]int, repeats map[string]map[string]string) error {
	opt := structure.Options{TotalLabels: s.TotalLabels, Totals: s.Totals, Hierarchies: t.Hierarchies, RowDims: len(t.Dims), Uncoded: uncoded, Indent: indent, Repeats: repeats}
	if len(opt.TotalLabels) == 0 && s.TotalLabel != "" {
		opt.TotalLabels = []string{s.TotalLabel}
	}
	if IsWide(s.Columns) {
		opt.Wide, opt.RowDims = true, len(s.Columns.Dims)
	}
	if s.Input.Rounded != nil {
		opt.Rounded = *s.Input.Rounded // margins within the rounding
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
	t.Structure.Rounded = opt.Rounded
	t.Warnings = append(t.Warnings, res.Warnings...)
	statisticCounts(t)
	if !IsWide(s.Columns) {
		roles, err := columnRoles(t, s.Columns, header, text)
		if err != nil {
			return err
		}
		t.Structure.Columns = roles
		// the columns not written are not published: their figures leave
		// the cells; a blank derived or safe figure is no statistic
		for _, c := range roles {
			key := ExtraStat(c.Column)
			for _, cell := range t.Cells {
				st, ok := cell.Stats.Get(key)
				if ok && (!c.Written || (c.Role == audit.RoleDerived || c.Role == audit.RolePublished) && st.Missing && !st.Marker) {
					cell.Stats.Delete(key)
				}
			}
		}
		for _, c := range roles {
			if c.Written && c.Role != audit.RoleDimension && !slices.Contains(t.ColumnLabels, c.Column) {
				t.Columns = append(t.Columns, ExtraStat(c.Column))
				t.ColumnLabels = append(t.ColumnLabels, c.Column)
			}
		}
		var lost []string
		for _, c := range t.Structure.Columns {
			if c.Role == audit.RoleUnderstood {
				lost = append(lost, fmt.Sprintf("%q", c.Column))
			}
		}
		if len(lost) > 0 {
			named := strings.Join(lost, ", ")
			if len(lost) > 5 {
				// a few, the rest counted: structure.columns lists all
				named = strings.Join(lost[:4], ", ") + fmt.Sprintf(" and %d more", len(lost)-4)
			}
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s not understood (not mapped to a dimension or a statistic in columns:): not audited and not written to the safe table; map %s in columns: (count, total, counts, derived) to audit %s, or list %s in columns.safe if safe to publish as %s", report.Plural(int64(len(lost)), "column", "columns"), named, pronoun(len(lost)), pronoun(len(lost)), map[bool]string{true: "it is", false: "they are"}[len(lost) == 1]))
		}
	}
	return nil
}

// statisticCounts gives each cell of a statistic code (Axis.NonAdditive:
// a rate, a median beside the counts) of a table of counts the number of
// contributors the rules judge it with: the count of its line (the same
// codes on every other axis) at the axis's one root count code (an
// additive code that adds up into nothing: Workers, of which Employees
// and Self-employed are parts; a margin, so confirmed as a count). Its
// own value is no count (a median age of 44 is not 44 contributors).
// Without one root that is a margin (Men and Women and no total; a lone
// "Income not known" beside two "average" codes), or where that count is
// not known, the cell has no count: the threshold rule cannot judge it,
// review.
func statisticCounts(t *audit.Table) {
	st := t.Structure
	if st == nil || !t.Frequency() {
		return
	}
	for a := range st.Axes {
		ax := &st.Axes[a]
		if len(ax.NonAdditive) == 0 {
			continue
		}
		root, roots := "", 0
		for _, c := range ax.Codes {
			if _, stat := ax.NonAdditive[c]; stat {
				continue
			}
			if _, part := ax.Parent[c]; !part {
				root, roots = c, roots+1
			}
		}
		line := ax.LineKey
		count := map[string]*audit.Cell{}
		// the root is a count only where it is a confirmed margin of
		// other codes: a lone unmarked sibling ("Income not known"
		// beside "Below average income") is no count of the line
		if roots == 1 && ax.IsMarginCode(root) {
			for _, c := range t.Cells {
				if ax.AxisCode(c.Key) == root {
					count[line(c.Key)] = c
				}
			}
		}
		counted := false
		for _, c := range t.Cells {
			if _, stat := ax.NonAdditive[ax.AxisCode(c.Key)]; !stat {
				continue
			}
			c.HasN, c.N = false, 0
			if n := count[line(c.Key)]; n != nil && n.HasN {
				c.HasN, c.N = true, n.N
				counted = true
			}
		}
		if !counted {
			noteUncounted(t, ax, root, roots)
		}
	}
}

// noteUncounted says, in the structure's notes and a table warning, why
// the statistics of axis ax (Axis.NonAdditive) have no number of
// contributors, so that no rule can judge them and they are review
// (statisticCounts): no count code beside them, several codes that add up
// into nothing, one (root) that no margin confirms as the count of its
// line, or a root whose cells give no count (the table read as one
// statistic: --value median). Labels only, never a value.
func noteUncounted(t *audit.Table, ax *audit.Axis, root string, roots int) {
	var stats []string
	for _, c := range ax.Codes {
		if _, ok := ax.NonAdditive[c]; ok {
			stats = append(stats, fmt.Sprintf("%q", audit.CodeText(c)))
		}
	}
	if len(stats) > 4 {
		stats = append(stats[:3], fmt.Sprintf("and %d more", len(stats)-3))
	}
	var why string
	switch {
	case roots == 0:
		why = "no count stands beside them"
	case roots > 1:
		why = "several codes beside them add up into nothing, so which one counts their contributors is not known"
	case !ax.IsMarginCode(root):
		why = fmt.Sprintf("%q beside them is no margin of other codes, so nothing confirms it as the count of their line: it may be a category of its own, or an estimate (weighted, or in thousands) rather than the contributors they were computed from", audit.CodeText(root))
	default:
		why = fmt.Sprintf("the cells of %q give no number of contributors (the table is read as one statistic, columns.value, or the counts are missing)", audit.CodeText(root))
	}
	msg := fmt.Sprintf("%s: the statistics %s have no number of contributors: %s; the rules cannot judge them and they are review: give the number of contributors of each cell (the microdata, or a count of respondents) to assess them", ax.Name(), strings.Join(stats, ", "), why)
	t.Structure.Notes = append(t.Structure.Notes, msg)
	t.Warnings = append(t.Warnings, msg)
}

// noteUnread lists, in the structure and a table warning, the numbers of
// a wide table's sheet that are no cell of it (readers.WideLayout.Unread:
// a count in a note row): not audited, they are withheld from the safe
// tables unless columns.safe names their cells.
//
// When every sheet of a workbook is read (input.sheet "*"), a bare cell
// reference in columns.safe ("D8") would declare that cell of every
// sheet safe: it is refused (a configuration error naming the key), and
// the sheet must be named ("T1!D8", "'My sheet'!D8").
func noteUnread(t *audit.Table, lay *readers.WideLayout, s *configs.Settings) error {
	var safe []string
	if s.Columns != nil {
		safe = s.Columns.Safe
	}
	if strings.TrimSpace(s.Input.Sheet) == "*" {
		for _, ref := range safe {
			if readers.IsCellRef(ref) {
				return &configs.Error{Msg: fmt.Sprintf("columns.safe: %q is a cell reference without a sheet, and every sheet is read (input.sheet \"*\"): it would declare that cell of every sheet safe; name its sheet (Sheet1!%[2]s, 'My sheet'!%[2]s)", ref, strings.ToUpper(strings.TrimSpace(ref))), Err: configs.ErrInvalid}
			}
		}
	}
	un := lay.Unread(safe)
	if len(un) == 0 || t.Structure == nil {
		return nil
	}
	names := lay.DescribeUnread(un)
	t.Structure.Unaudited = names
	list := names
	if len(list) > 5 {
		list = append(slices.Clone(list[:4]), fmt.Sprintf("and %d more", len(names)-4))
	}
	t.Warnings = append(t.Warnings, fmt.Sprintf("%s outside the table (%s): numbers in title, note or label rows that are no cell of the table, not audited: withheld from the safe table; give input.range or the layout that makes %s part of the table to audit %s, or list %s in columns.safe (as cell references) if safe to publish as %s", report.Plural(int64(len(un)), "value", "values"), strings.Join(list, ", "), pronoun(len(un)), pronoun(len(un)), map[bool]string{true: "its cell", false: "their cells"}[len(un) == 1], map[bool]string{true: "it stands", false: "they stand"}[len(un) == 1]))
	return nil
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// rateWords mark a column derived from a count: a rate, a share.
var rateWords = []string{"rate", "per ", "%", "percent", "share", "ratio", "proportion"}

// columnRoles is the role of every column of a long aggregate table: the
// configuration's dimensions and statistics; columns.counts (other counts
// of the same cells), columns.derived (a rate or share of a count) and
// columns.safe (published as they are); then, found from the numbers and
// names, whole-number columns that add up with the count (workers =
// employees + self-employed) as other counts, and numeric columns named
// as rates or shares as derived; every other column is not understood.
func columnRoles(t *audit.Table, c *configs.Columns, header []string, text map[string]bool) ([]audit.ColumnRole, error) {
	role := map[string]audit.ColumnRole{}
	if c == nil {
		c = &configs.Columns{}
	}
	for _, d := range c.Dims {
		role[d] = audit.ColumnRole{Column: d, Role: audit.RoleDimension, Written: true}
	}
	count := ""
	for _, r := range c.Roles() {
		kind := audit.RoleStatistic
		switch r[0] {
		case "count":
			kind, count = audit.RoleCount, r[1]
		case "total":
			kind = audit.RoleTotal
		}
		role[r[1]] = audit.ColumnRole{Column: r[1], Role: kind, Audited: true, Written: true}
	}
	for _, top := range c.Top {
		role[top] = audit.ColumnRole{Column: top, Role: audit.RoleStatistic, Audited: true}
	}
	has := func(col string) bool { return slices.Contains(header, col) }
	bad := func(key, col, why string) error {
		return &configs.Error{Msg: fmt.Sprintf("columns.%s: %q %s (columns %s)", key, col, why, strings.Join(header, ", ")), Err: configs.ErrInvalid}
	}
	for _, k := range c.Counts {
		if _, taken := role[k]; taken || !has(k) {
			return nil, bad("counts", k, "is not a column of the table that no other key maps")
		}
		if text[k] {
			return nil, bad("counts", k, "holds values that are not numbers")
		}
		role[k] = audit.ColumnRole{Column: k, Role: audit.RoleCount, Audited: true, Written: true}
	}
	for k, of := range c.Derived {
		if _, taken := role[k]; taken || !has(k) {
			return nil, bad("derived", k, "is not a column of the table that no other key maps")
		}
		if r, ok := role[of]; !ok || (r.Role != audit.RoleCount && r.Role != audit.RoleTotal) {
			return nil, bad("derived", k, fmt.Sprintf("is derived from %q, which is not a count or total column", of))
		}
		role[k] = audit.ColumnRole{Column: k, Role: audit.RoleDerived, Of: of, Written: true}
	}
	for _, k := range c.Safe {
		if _, taken := role[k]; taken || !has(k) {
			return nil, bad("safe", k, "is not a column of the table that no other key maps")
		}
		role[k] = audit.ColumnRole{Column: k, Role: audit.RolePublished, Written: true}
	}
	// other counts found by arithmetic: whole-number columns that, two or
	// three of them, add up to the count on every row
	if count != "" && len(c.Counts) == 0 {
		var whole []string
		for _, h := range header {
			if _, taken := role[h]; !taken && !text[h] && wholeColumn(t, h) {
				whole = append(whole, h)
			}
		}
		if parts := sumOf(t, "count", whole); parts != nil {
			for _, k := range parts {
				role[k] = audit.ColumnRole{Column: k, Role: audit.RoleCount, Audited: true, Written: true}
			}
			t.Structure.Notes = append(t.Structure.Notes, fmt.Sprintf("columns %s add up to %q on every row: audited as counts of the same cells", quoted(parts), count))
		}
	}
	// derived columns found by name: numeric, named as a rate or share
	var counts []string
	for _, h := range header {
		if r, ok := role[h]; ok && (r.Role == audit.RoleCount || r.Role == audit.RoleTotal) {
			counts = append(counts, h)
		}
	}
	for _, h := range header {
		if _, taken := role[h]; taken || text[h] || len(counts) == 0 {
			continue
		}
		n := strings.ToLower(h)
		if !slices.ContainsFunc(rateWords, func(w string) bool { return strings.Contains(n, w) }) {
			continue
		}
		of, best := counts[0], 0
		for _, k := range counts {
			if lk := strings.ToLower(k); strings.Contains(n, lk) && len(lk) > best {
				of, best = k, len(lk)
			}
		}
		role[h] = audit.ColumnRole{Column: h, Role: audit.RoleDerived, Of: of, Written: true}
		t.Structure.Notes = append(t.Structure.Notes, fmt.Sprintf("column %q is named as a rate or share: derived from %q, withheld wherever its row is (declare columns.derived otherwise)", h, of))
	}
	var out []audit.ColumnRole
	for _, h := range header {
		r, ok := role[h]
		if !ok {
			r = audit.ColumnRole{Column: h, Role: audit.RoleUnderstood}
		}
		out = append(out, r)
	}
	return out, nil
}

func quoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// wholeColumn reports whether an extra column holds only non-negative
// whole numbers (or markers and blanks), at least one.
func wholeColumn(t *audit.Table, col string) bool {
	key, any := ExtraStat(col), false
	for _, c := range t.Cells {
		st, _ := c.Stats.Get(key)
		if st.Missing {
			continue
		}
		if n, ok := st.Value.Int64(); !ok || n < 0 {
			return false
		}
		any = true
	}
	return any
}

// sumOf returns the two or three columns (in header order) that add up
// to the statistic stat on every row where all are known, with at least
// one such row where two are nonzero; nil when none or several sets do.
func sumOf(t *audit.Table, stat string, cols []string) []string {
	if len(cols) < 2 || len(cols) > 12 {
		return nil
	}
	var found [][]string
	try := func(set []string) {
		rows, nontrivial := 0, false
		for _, c := range t.Cells {
			total, ok := c.Stats.Get(stat)
			if !ok || total.Missing {
				continue
			}
			var sum decimal.Dec
			nonzero, complete := 0, true
			for _, k := range set {
				st, _ := c.Stats.Get(ExtraStat(k))
				if st.Missing {
					complete = false
					break
				}
				if !st.Value.IsZero() {
					nonzero++
				}
				sum = sum.Add(st.Value)
			}
			if !complete {
				continue
			}
			if sum.Cmp(total.Value) != 0 {
				return
			}
			rows++
			nontrivial = nontrivial || nonzero >= 2
		}
		if rows > 0 && nontrivial {
			found = append(found, slices.Clone(set))
		}
	}
	for i := range cols {
		for j := i + 1; j < len(cols); j++ {
			try([]string{cols[i], cols[j]})
			for k := j + 1; k < len(cols); k++ {
				try([]string{cols[i], cols[j], cols[k]})
			}
		}
	}
	if len(found) != 1 {
		return nil
	}
	return found[0]
}

// noteQualified warns where a repeated row label named by the row it is
// indented under (or whose block it is in: readers.WideLayout.Qualified)
// is not related to that row by the structure found: the name says where
// the layout puts the cell, the margins what the arithmetic confirms,
// and a person should see when they differ (the cells are distinct rows
// either way).
func noteQualified(t *audit.Table, lay *readers.WideLayout) {
	if len(lay.Qualified) == 0 || t.Structure == nil {
		return
	}
	rowOf := map[int]int{} // a sheet row -> its first cell's index
	for k := len(lay.Pos) - 1; k >= 0; k-- {
		rowOf[lay.Pos[k].Row] = k
	}
	var off []string
	first := ""
	for _, q := range lay.Qualified {
		k, ok := rowOf[q.Row]
		if !ok || q.Row > len(lay.Rows) || q.Col >= len(lay.Rows[q.Row-1]) {
			continue
		}
		key := lay.Keys[k]
		published := lay.Rows[q.Row-1][q.Col]
		for _, ax := range t.Structure.Axes {
			if len(ax.Dims) != 1 || ax.Dims[0] >= len(key) {
				continue
			}
			code := key[ax.Dims[0]]
			parent, ok := strings.CutSuffix(code, readers.QualifySep+published)
			if !ok {
				continue
			}
			if ax.Parent[code] != parent {
				off = append(off, code)
				if first == "" {
					first = fmt.Sprintf("%q at row %d is named by %q above it, but no margin found relates it to that row", code, q.Row, parent)
				}
			}
			if ax.Parent[code] == "" {
				// in no relation at all: the layout's relation (the
				// parent the sum of its group) is missing from the
				// margins, so no suppressed cell can be confirmed
				// protected (review finding: a table not indented whose
				// repeats the reader told apart by blocks of rows the
				// inference did not keep, for want of a grand total:
				// exactly recoverable primaries called protected)
				if name := ax.Name() + "=" + audit.CodeText(parent); !slices.Contains(t.Structure.Unconfirmed, name) {
					t.Structure.Unconfirmed = append(t.Structure.Unconfirmed, name)
				}
			}
		}
	}
	if len(off) > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s of repeated labels named by the layout not confirmed by the margins: %s; check the table's indentation or declare the hierarchy with suppression.hierarchies", report.Plural(int64(len(off)), "row", "rows"), first))
	}
}
