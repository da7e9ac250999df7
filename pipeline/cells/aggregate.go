package cells

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// aggBuilder reads an already aggregated table: one row per cell, columns
// mapped to roles by the configuration.
type aggBuilder struct {
	t       *audit.Table
	file    string
	header  []string
	dimIdx  []int
	roles   []statColumn
	names   []string // roles[i].stat.String(), the keys of Cell.Stats
	roleIdx []int
	topIdx  []int
	markers map[string]bool
	seen    map[string]int
	num     readers.NumberFormat
	empty   emptyLevels
	// extra are the input columns mapped to no role: kept in each
	// cell's Stats under ExtraStat(name) for the table's structure to
	// give them a role (pipeline/structure.go); extraText marks those
	// holding something that is not a number or a marker.
	extra     []int
	extraText []bool
}

// ExtraStat is the key in Cell.Stats of an input column of a long
// aggregate table mapped to no role by columns: (other counts, derived
// columns, columns declared safe).
func ExtraStat(column string) string { return "column:" + column }

func newAggBuilder(t *audit.Table, file string, header []string, sc *Schema, markers []string) (*aggBuilder, error) {
	var missing []error
	col := func(name, role string) (int, error) {
		i, ok, amb := findColumn(header, name)
		if !ok {
			missing = append(missing, missingColumnAmb(file, name, role, header, amb, len(missing) == 0))
			return -1, nil // every missing column is reported at once, below
		}
		return i, nil
	}
	b := &aggBuilder{t: t, file: file, header: header, markers: map[string]bool{}, seen: map[string]int{}, num: numberFormat(t, markers), empty: newEmptyLevels(len(sc.dims))}
	for _, m := range markers {
		b.markers[m] = true
	}
	if len(sc.dims) == 0 {
		return nil, fmt.Errorf("aggregate mode needs columns.dims in the config")
	}
	for _, d := range sc.dims {
		i, err := col(d, "dimension")
		if err != nil {
			return nil, err
		}
		b.dimIdx = append(b.dimIdx, i)
	}
	b.roles = sc.columns
	if len(b.roles) == 0 {
		return nil, fmt.Errorf("aggregate mode needs at least one statistic column (columns.count, columns.total, ...)")
	}
	for _, r := range b.roles {
		i, err := col(r.input, r.stat.String())
		if err != nil {
			return nil, err
		}
		b.roleIdx = append(b.roleIdx, i)
		b.names = append(b.names, r.stat.String())
	}
	for k, name := range sc.top {
		i, err := col(name, fmt.Sprintf("top%d", k+1))
		if err != nil {
			return nil, err
		}
		b.topIdx = append(b.topIdx, i)
	}
	if len(missing) > 0 {
		return nil, errors.Join(missing...)
	}
	used := map[int]bool{}
	for _, i := range append(append(slices.Clone(b.dimIdx), b.roleIdx...), b.topIdx...) {
		used[i] = true
	}
	for i := range header {
		if !used[i] {
			b.extra = append(b.extra, i)
		}
	}
	b.extraText = make([]bool, len(b.extra))
	return b, nil
}

func (b *aggBuilder) add(batch *readers.Batch) error {
	for r, row := range batch.Rows {
		line := batch.Lines[r]
		c := &audit.Cell{Key: make([]string, len(b.dimIdx)), Row: line}
		c.Stats.Grow(len(b.roles) + len(b.extra))
		for d, i := range b.dimIdx {
			c.Key[d] = b.empty.level(d, strings.TrimSpace(row[i]), line)
		}
		if err := b.empty.check(b.file, b.t.Dims); err != nil {
			return err
		}
		k := strings.Join(c.Key, "\x00")
		if prev, dup := b.seen[k]; dup {
			return &readers.Error{File: b.file, Row: line, Err: fmt.Errorf("duplicate cell %s (also row %d)", b.t.KeyString(c.Key), prev)}
		}
		b.seen[k] = line
		for j, role := range b.roles {
			text := strings.TrimSpace(row[b.roleIdx[j]])
			st, err := b.stat(text)
			if err != nil {
				return &readers.Error{File: b.file, Row: line, Column: role.input, Value: text, Err: err}
			}
			c.Stats.Set(b.names[j], st)
			switch role.stat.Kind {
			case audit.KindCount:
				if !st.Missing {
					n, ok := st.Value.Int64()
					if !ok || n < 0 {
						return &readers.Error{File: b.file, Row: line, Column: role.input, Value: text, Err: fmt.Errorf("a count must be a non-negative integer")}
					}
					c.HasN, c.N = true, n
				}
			case audit.KindTotal:
				if !st.Missing {
					c.HasTotal, c.Total = true, st.Value
				}
			}
		}
		for k, i := range b.topIdx {
			text := strings.TrimSpace(row[i])
			st, err := b.stat(text)
			if err != nil {
				return &readers.Error{File: b.file, Row: line, Column: b.colName(i), Value: text, Err: err}
			}
			if st.Missing {
				break // fewer contributors than top columns, or not given
			}
			if k > 0 && st.Value.Cmp(c.Top[k-1]) > 0 {
				return &readers.Error{File: b.file, Row: line, Column: b.colName(i), Value: text, Err: fmt.Errorf("top contributions must be in descending order")}
			}
			if st.Value.Sign() < 0 {
				c.Negative++
			}
			c.Top = append(c.Top, st.Value)
		}
		for j, i := range b.extra {
			text := strings.TrimSpace(row[i])
			st, err := b.stat(text)
			if err != nil {
				st, b.extraText[j] = audit.Stat{Text: text, Missing: true}, true
			}
			c.Stats.Set(ExtraStat(b.header[i]), st)
		}
		if c.HasN && int64(len(c.Top)) >= c.N {
			c.AllTop = true
		}
		b.t.Cells = append(b.t.Cells, c)
	}
	return nil
}

func (b *aggBuilder) colName(i int) string { return b.header[i] }

// stat parses one statistic: empty is missing, a marker is missing and
// marked, anything else must be a number (readers.NumberFormat: thousands
// separators, a decimal comma when the input has one).
func (b *aggBuilder) stat(text string) (audit.Stat, error) {
	if configs.IsMissing(text) {
		return audit.Stat{Text: text, Missing: true}, nil
	}
	if b.markers[text] {
		return audit.Stat{Text: text, Missing: true, Marker: true}, nil
	}
	d, err := b.num.Parse(text)
	if err != nil {
		return audit.Stat{}, err
	}
	return audit.Stat{Text: text, Value: d}, nil
}

// finish keeps the cells in input order: the report follows the table as read.
func (b *aggBuilder) finish() error {
	b.t.Warnings = append(b.t.Warnings, b.empty.warnings(b.t.Dims)...)
	return nil
}
