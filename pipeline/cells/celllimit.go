package cells

import (
	"fmt"
	"math"
	"strings"

	"github.com/sdcaudit/sdcaudit/configs"
)

// Default limits on the cells a microdata table (or a cell summary)
// implies, input.max_cells and input.max_cells_per_record: every
// combination of each dimension's levels and margins is a cell, so a few
// records that each carry their own level in two dimensions (an id taken
// for a dimension) would build millions of empty cells.
const (
	DefaultMaxCells          = 5_000_000
	DefaultMaxCellsPerRecord = 100
	// perRecordFloor: a table of at most this many cells is never
	// refused for its cells per record (small tables are cheap).
	perRecordFloor = 100_000
)

// cellLimits are a table's limits on its implied cells.
type cellLimits struct {
	max, perRecord int64
}

func limitsOf(s *configs.Settings) cellLimits {
	l := cellLimits{max: s.Input.MaxCells, perRecord: s.Input.MaxCellsPerRecord}
	if l.max <= 0 {
		l.max = DefaultMaxCells
	}
	if l.perRecord <= 0 {
		l.perRecord = DefaultMaxCellsPerRecord
	}
	return l
}

// impliedDim is one dimension's contribution to the implied cells: its
// levels (codes the records carry) and its margins (the total and the
// parent codes of a hierarchy).
type impliedDim struct {
	name            string
	levels, margins int64
}

// check refuses a table whose dimensions imply more cells than the limits
// allow for its records, before any cell is built: a configuration error
// (exit 2) naming each dimension with its level count and the keys that
// raise the limits.
func (l cellLimits) check(file string, dims []impliedDim, records int64) error {
	if l.max <= 0 || l.perRecord <= 0 {
		l = limitsOf(&configs.Settings{Input: configs.Input{MaxCells: l.max, MaxCellsPerRecord: l.perRecord}})
	}
	cells := int64(1)
	for _, d := range dims {
		n := d.levels + d.margins
		if n > 0 && cells > math.MaxInt64/n {
			cells = math.MaxInt64
			break
		}
		cells *= n
	}
	over := ""
	switch {
	case cells > l.max:
		over = fmt.Sprintf("more than input.max_cells (%d)", l.max)
	case cells > perRecordFloor && cells > l.perRecord*max(records, 1):
		over = fmt.Sprintf("%d per record, more than input.max_cells_per_record (%d)", cells/max(records, 1), l.perRecord)
	default:
		return nil
	}
	var parts []string
	for _, d := range dims {
		m := "the total"
		if d.margins > 1 {
			m = fmt.Sprintf("%d margins (the total and %d parent codes)", d.margins, d.margins-1)
		}
		parts = append(parts, fmt.Sprintf("%s has %d levels and %s", d.name, d.levels, m))
	}
	product := "more than 9.2e18"
	if cells < math.MaxInt64 {
		product = fmt.Sprint(cells)
	}
	return &configs.Error{Msg: fmt.Sprintf("%s: the dimensions imply %s cells (every combination of levels and margins) for %d records: %s; %s. Is a dimension an id or a free text? If the table is meant, raise input.max_cells or input.max_cells_per_record in the config",
		file, product, records, strings.Join(parts, ", "), over), Err: configs.ErrInvalid}
}

// checkImplied checks the cells the records read imply (finish, before the
// empty cells and the margins are built).
func (b *microBuilder) checkImplied() error {
	var records int64
	for _, a := range b.cells {
		records += a.rows
	}
	dims := make([]impliedDim, len(b.names))
	for d := range b.names {
		dims[d] = impliedDim{name: b.t.Dims[d], levels: int64(len(b.names[d])), margins: 1 + int64(b.hier.parentCodes(d, b.names[d], b.t.TotalLabel))}
	}
	return b.limits.check(b.file, dims, records)
}

// parentCodes counts the codes above the given codes of dimension d in
// its hierarchy (the total excluded): the margins a hierarchy adds. It is
// 0 without a hierarchy.
func (h *microHier) parentCodes(d int, codes []string, total string) int {
	if h == nil {
		return 0
	}
	p := h.parent[d]
	if p == nil && h.found != nil && d < len(h.found.parent) {
		p = h.found.parent[d] // parent columns, not yet settled
	}
	if len(p) == 0 {
		return 0
	}
	seen := map[string]bool{}
	for _, c := range codes {
		cur := c
		for steps := 0; steps < maxHierDepth; steps++ {
			par, ok := p[cur]
			if !ok || par == "" || par == total || seen[par] {
				break
			}
			seen[par] = true
			cur = par
		}
	}
	return len(seen)
}
