package cells

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// errUnmodelledMarker reports a suppression marker outside the cells the
// audit reads: auditing without it would pass a pattern it never saw.
var errUnmodelledMarker = errors.New("suppression marker in a column the audit does not read; " +
	"audit needs one row per cell (dimension columns and one value column): " +
	"a crosstab with values across columns cannot be audited as it is")

// MarkerGuard passes a table's rows through unchanged and remembers the
// first suppression marker the audit would not model: in a column that is
// neither a dimension nor the audited value column (columns mapped to
// another statistic are allowed a marker where the row's value is itself
// suppressed). Next is called from one goroutine.
type MarkerGuard struct {
	readers.Source
	value   int    // index of the audited value column, -1 if absent
	allowed []bool // per column: a marker there is modelled (dims, value)
	mapped  []bool // per column: mapped to another statistic
	markers map[string]bool
	Found   *readers.Error
}

func NewMarkerGuard(src readers.Source, mapped, cols *configs.Columns, markers []string) *MarkerGuard {
	g := &MarkerGuard{Source: src, value: -1, markers: map[string]bool{}}
	for _, m := range markers {
		g.markers[m] = true
	}
	header := src.Header()
	g.allowed = make([]bool, len(header))
	g.mapped = make([]bool, len(header))
	idx := map[string]int{}
	for i, h := range header {
		if _, dup := idx[h]; !dup {
			idx[h] = i
		}
	}
	for _, d := range cols.Dims {
		if i, ok := idx[d]; ok {
			g.allowed[i] = true
		}
	}
	for _, r := range cols.Roles() {
		if i, ok := idx[r[1]]; ok {
			g.allowed[i], g.value = true, i
		}
	}
	if mapped != nil {
		names := append([]string(nil), mapped.Top...)
		for _, r := range mapped.Roles() {
			names = append(names, r[1])
		}
		for _, n := range names {
			if i, ok := idx[n]; ok && !g.allowed[i] {
				g.mapped[i] = true
			}
		}
	}
	return g
}

// Unwrap returns the guarded source.
func (g *MarkerGuard) Unwrap() readers.Source { return g.Source }

func (g *MarkerGuard) Next() (*readers.Batch, error) {
	b, err := g.Source.Next()
	if b == nil || g.Found != nil {
		return b, err
	}
	header := g.Header()
	for k, row := range b.Rows {
		valueMarked := false
		if g.value >= 0 && g.value < len(row) {
			v := strings.TrimSpace(row[g.value])
			valueMarked = v == "" || g.markers[v]
		}
		for c, field := range row {
			if c < len(g.allowed) && g.allowed[c] {
				continue
			}
			v := strings.TrimSpace(field)
			if !g.markers[v] || c < len(g.mapped) && g.mapped[c] && valueMarked {
				continue
			}
			file, sheet := g.Where()
			col := fmt.Sprintf("#%d", c+1)
			if c < len(header) {
				col = header[c]
			}
			line := 0
			if k < len(b.Lines) {
				line = b.Lines[k]
			}
			g.Found = &readers.Error{File: file, Sheet: sheet, Row: line, Column: col, Value: v, Err: errUnmodelledMarker}
			return b, err
		}
	}
	return b, err
}
