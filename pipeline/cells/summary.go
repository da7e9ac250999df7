package cells

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
	"github.com/sdcaudit/sdcaudit/sqlgen"
)

// cellsBuilder reads a cell summary (docs/cells.md, schema 1): one row per
// observed cell and margin, as `sdcaudit sql` computes it in an engine. It
// checks the summary's invariants exactly (a violation means an engine
// overflowed or truncated: an input error naming the cell), adds the empty
// combinations of the observed levels, and fills the same audit.Cell
// figures the microdata builder fills from records.
type cellsBuilder struct {
	t     *audit.Table
	file  string
	needs rules.Needs
	// holding and value: the configuration's microdata columns.
	holding, value string
	col            cellsColumns
	powers         int // sum_pow_ columns in the header
	meta           string
	metaRow        int
	scale, k       int // the meta's scale and top-k
	limbBits       int // the meta's limb_bits (0: no limbs)
	rows           []*summaryRow
	seen           map[string]int // cell key -> row
	maxRows        int
	// anc and isPar are, per dimension with a hierarchy, each code's
	// ancestors (nearest first, the total left out) and the parent
	// codes; nil elsewhere.
	anc   []map[string][]string
	isPar []map[string]bool
	hier  []string // the dimensions with a hierarchy
	// limits bound the cells the summary implies (celllimit.go).
	limits cellLimits
}

type cellsColumns struct {
	dims                                                  []int
	gid, rows, n, missing, negative, total, min, max, top int
	scale, meta                                           int
	// pow are, per power, its column, or its limb columns
	// (sum_pow_p_limb_0, ...: the power sum is Σ limb_i·2^(limbBits·i)).
	pow [][]int
	// limbs: the power sums are given in limbs (meta limb_bits).
	limbs bool
}

// summaryRow is one row of a cell summary.
type summaryRow struct {
	line                       int
	mask                       int // bit d set: dimension d aggregated
	key                        []string
	rows, n, missing, negative int64
	total, min, max            decimal.Dec
	top                        []decimal.Dec
	pow                        []*big.Int
}

// maxSummaryRows bounds the rows of a cell summary kept in memory.
const maxSummaryRows = 5_000_000

// maxLimbs and maxLimbBits bound the limbs of a power sum given in limbs
// (sqlgen writes at most 26 limbs of 60 bits, at --powers 12).
const (
	maxLimbs    = 64
	maxLimbBits = 126
)

// ErrCells is wrapped by every violation of a cell summary's invariants.
var ErrCells = fmt.Errorf("cell summary")

func newCellsBuilder(t *audit.Table, file string, header []string, sc *Schema, needs rules.Needs) (*cellsBuilder, error) {
	if err := refuseCells(file, needs, false); err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, h := range header {
		idx[h] = i
	}
	b := &cellsBuilder{t: t, file: file, needs: needs, holding: sc.holding, value: sc.value, seen: map[string]int{}, scale: -1, maxRows: maxSummaryRows}
	if err := b.hierarchies(); err != nil {
		return nil, err
	}
	col := func(name string) (int, error) {
		i, ok := idx[name]
		if !ok {
			return -1, &readers.Error{File: file, Row: 1, Column: name, Err: fmt.Errorf("%w: the cell summary has no column %q (docs/cells.md; header %s)", readers.ErrColumn, name, readers.ColumnList(header))}
		}
		return i, nil
	}
	var err error
	for _, d := range sc.dims {
		i, err := col(d)
		if err != nil {
			return nil, err
		}
		b.col.dims = append(b.col.dims, i)
	}
	for _, c := range []struct {
		p    *int
		name string
	}{{&b.col.gid, "grouping_id"}, {&b.col.rows, "rows"}, {&b.col.n, "n"}, {&b.col.missing, "missing"}, {&b.col.negative, "negative"}, {&b.col.meta, "meta"}} {
		if *c.p, err = col(c.name); err != nil {
			return nil, err
		}
	}
	if sc.value == "" {
		return b, nil
	}
	for _, c := range []struct {
		p    *int
		name string
	}{{&b.col.total, "total"}, {&b.col.min, "min"}, {&b.col.max, "max"}, {&b.col.top, "top"}, {&b.col.scale, "scale"}} {
		if *c.p, err = col(c.name); err != nil {
			return nil, err
		}
	}
	for p := 1; ; p++ {
		name := "sum_pow_" + strconv.Itoa(p)
		if i, ok := idx[name]; ok {
			if _, ok := idx[name+"_limb_0"]; ok {
				return nil, &readers.Error{File: file, Row: 1, Column: name, Err: fmt.Errorf("%w: the cell summary has both %s and its limbs %s_limb_0", readers.ErrColumn, name, name)}
			}
			if b.col.limbs {
				return nil, &readers.Error{File: file, Row: 1, Column: name, Err: fmt.Errorf("%w: the cell summary gives some power sums in limbs and %s whole", readers.ErrColumn, name)}
			}
			b.col.pow = append(b.col.pow, []int{i})
			continue
		}
		var limbs []int
		for l := 0; ; l++ {
			i, ok := idx[name+"_limb_"+strconv.Itoa(l)]
			if !ok {
				break
			}
			if l >= maxLimbs {
				return nil, &readers.Error{File: file, Row: 1, Column: name + "_limb_" + strconv.Itoa(l), Err: fmt.Errorf("%w: more than %d limbs of a power sum", readers.ErrColumn, maxLimbs)}
			}
			limbs = append(limbs, i)
		}
		if limbs == nil {
			break
		}
		if p > 1 && !b.col.limbs {
			return nil, &readers.Error{File: file, Row: 1, Column: name + "_limb_0", Err: fmt.Errorf("%w: the cell summary gives some power sums whole and %s in limbs", readers.ErrColumn, name)}
		}
		b.col.limbs = true
		b.col.pow = append(b.col.pow, limbs)
	}
	b.powers = len(b.col.pow)
	if b.powers == 0 {
		return nil, &readers.Error{File: file, Row: 1, Column: "sum_pow_1", Err: fmt.Errorf("%w: the cell summary has no power sums (sum_pow_1 ...)", readers.ErrColumn)}
	}
	need := max(needs.Powers, 1)
	if needs.SumSq {
		need = max(need, 2)
	}
	if b.powers < need {
		return nil, &configs.Error{Msg: fmt.Sprintf("%s: the cell summary has power sums up to %d, the configuration needs %d: run sdcaudit sql with --powers %d", file, b.powers, need, need), Err: configs.ErrInvalid}
	}
	return b, nil
}

// hierarchies reads the table's hierarchies (suppression.hierarchies and
// hierarchy files): a summary computed with them has a cell for every
// level, the total of the dimension flagged by grouping_id.
func (b *cellsBuilder) hierarchies() error {
	nd := len(b.t.Dims)
	b.anc, b.isPar = make([]map[string][]string, nd), make([]map[string]bool, nd)
	for d, dim := range b.t.Dims {
		p := b.t.Hierarchies[dim]
		if len(p) == 0 {
			continue
		}
		b.hier = append(b.hier, dim)
		b.anc[d], b.isPar[d] = map[string][]string{}, map[string]bool{}
		for c, par := range p {
			b.isPar[d][par] = true
			var chain []string
			for cur := c; ; {
				next, ok := p[cur]
				if !ok || next == b.t.TotalLabel {
					break
				}
				if len(chain) >= maxHierDepth {
					return &configs.Error{Msg: fmt.Sprintf("the hierarchy of %s has a cycle (or more than %d levels) through %q", dim, maxHierDepth, c), Err: configs.ErrInvalid}
				}
				chain = append(chain, next)
				cur = next
			}
			b.anc[d][c] = chain
		}
	}
	return nil
}

// finest reports whether a row is a cell of the finest grouping set: no
// dimension aggregated, none at a parent level of its hierarchy.
func (b *cellsBuilder) finest(r *summaryRow) bool {
	if r.mask != 0 {
		return false
	}
	for d, k := range r.key {
		if b.isPar[d][k] {
			return false
		}
	}
	return true
}

// refuseCells refuses configurations a cell summary cannot serve
// (docs/cells.md: not computed yet). parents: microdata.parents is set.
func refuseCells(file string, needs rules.Needs, parents bool) error {
	if needs.Absolute {
		return &configs.Error{Msg: fmt.Sprintf("%s: a cell summary has no totals or top contributions by absolute value: disable absolute in the rules or audit the microdata", file), Err: configs.ErrInvalid}
	}
	if needs.Hist {
		return &configs.Error{Msg: fmt.Sprintf("%s: a cell summary has no histogram for a published median: remove median from publish or audit the microdata", file), Err: configs.ErrInvalid}
	}
	if parents {
		return &configs.Error{Msg: fmt.Sprintf("%s: a cell summary has no parent columns: give the hierarchy as suppression.hierarchies or hierarchy_files instead of microdata.parents, or audit the microdata", file), Err: configs.ErrInvalid}
	}
	return nil
}

// fail is a violation at a row, naming the cell when known.
func (b *cellsBuilder) fail(line int, column, value string, format string, a ...any) error {
	return &readers.Error{File: b.file, Row: line, Column: column, Value: value, Err: fmt.Errorf("%w: %s", ErrCells, fmt.Sprintf(format, a...))}
}

func (b *cellsBuilder) cellName(r *summaryRow) string {
	parts := make([]string, len(r.key))
	for d, k := range r.key {
		parts[d] = b.t.Dims[d] + "=" + k
	}
	return "cell (" + strings.Join(parts, ", ") + ")"
}

func (b *cellsBuilder) add(batch *readers.Batch) error {
	for r, row := range batch.Rows {
		line := batch.Lines[r]
		if len(b.rows) >= b.maxRows {
			return b.fail(line, "", "", "more than %d cells", b.maxRows)
		}
		sr, err := b.parseRow(row, line)
		if err != nil {
			return err
		}
		b.rows = append(b.rows, sr)
	}
	return nil
}

// parseRow reads one row and checks the invariants it holds on its own.
func (b *cellsBuilder) parseRow(row []string, line int) (*summaryRow, error) {
	nd := len(b.col.dims)
	sr := &summaryRow{line: line, key: make([]string, nd)}
	if row[b.col.meta] != b.meta {
		if b.meta != "" {
			return nil, b.fail(line, "meta", "", "the meta column differs from row %d's", b.metaRow)
		}
		if err := b.checkMeta(row[b.col.meta], line); err != nil {
			return nil, err
		}
		b.meta, b.metaRow = row[b.col.meta], line
	}
	gid, err := strconv.ParseUint(strings.TrimSpace(row[b.col.gid]), 10, 32)
	if err != nil || gid >= 1<<nd {
		return nil, b.fail(line, "grouping_id", row[b.col.gid], "grouping_id is not between 0 and %d", 1<<nd-1)
	}
	for d, i := range b.col.dims {
		if gid&(1<<(nd-1-d)) != 0 {
			sr.mask |= 1 << d
			sr.key[d] = b.t.TotalLabel
			continue
		}
		v := row[i]
		if v == b.t.TotalLabel {
			return nil, &readers.Error{File: b.file, Row: line, Column: b.t.Dims[d], Value: v, Err: fmt.Errorf("a dimension value equals the margin label %q (set total_label in the config)", v)}
		}
		if strings.TrimSpace(v) == "" {
			v = EmptyLevel
		}
		sr.key[d] = v
	}
	name := b.cellName(sr)
	count := func(c int, column string) (int64, error) {
		v, err := strconv.ParseInt(strings.TrimSpace(row[c]), 10, 64)
		if err != nil || v < 0 {
			return 0, b.fail(line, column, row[c], "%s: %s is not a count", name, column)
		}
		return v, nil
	}
	if sr.rows, err = count(b.col.rows, "rows"); err != nil {
		return nil, err
	}
	if sr.n, err = count(b.col.n, "n"); err != nil {
		return nil, err
	}
	if sr.missing, err = count(b.col.missing, "missing"); err != nil {
		return nil, err
	}
	if sr.negative, err = count(b.col.negative, "negative"); err != nil {
		return nil, err
	}
	switch {
	case sr.missing > sr.rows:
		return nil, b.fail(line, "missing", "", "%s: missing %d exceeds rows %d", name, sr.missing, sr.rows)
	case sr.negative > sr.n:
		return nil, b.fail(line, "negative", "", "%s: negative %d exceeds n %d", name, sr.negative, sr.n)
	case b.holding == "" && sr.n > sr.rows-sr.missing:
		return nil, b.fail(line, "n", "", "%s: n %d exceeds rows %d minus missing %d", name, sr.n, sr.rows, sr.missing)
	case b.value == "" && (sr.missing != 0 || sr.negative != 0):
		return nil, b.fail(line, "missing", "", "%s: a frequency table has no missing or negative values", name)
	}
	if b.value != "" {
		if err := b.parseValues(sr, row, name); err != nil {
			return nil, err
		}
	}
	k := strconv.Itoa(sr.mask) + "\x00" + strings.Join(sr.key, "\x00")
	if prev, dup := b.seen[k]; dup {
		return nil, b.fail(line, "", "", "%s appears twice (rows %d and %d)", name, prev, line)
	}
	b.seen[k] = line
	return sr, nil
}

// checkMeta checks the summary's metadata against the configuration.
func (b *cellsBuilder) checkMeta(text string, line int) error {
	var m sqlgen.Meta
	bad := func(format string, a ...any) error {
		return b.fail(line, "meta", "", "meta: "+format, a...)
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		return bad("not the JSON object of docs/cells.md: %v", err)
	}
	switch {
	case m.Schema != sqlgen.SchemaVersion:
		return bad("schema %d, this version reads schema %d", m.Schema, sqlgen.SchemaVersion)
	case !slices.Equal(m.Dims, b.t.Dims):
		return bad("dimensions %v, the configuration has %v", m.Dims, b.t.Dims)
	case m.Value != b.value:
		return bad("value column %q, the configuration has %q", m.Value, b.value)
	case m.Holding != b.holding:
		return bad("holding column %q, the configuration has %q", m.Holding, b.holding)
	case !slices.Equal(m.Hierarchies, b.hier):
		return bad("hierarchy levels of %v, the configuration has hierarchies for %v: run sdcaudit sql with the same configuration", m.Hierarchies, b.hier)
	}
	if b.value == "" {
		return nil
	}
	if m.Powers != b.powers {
		return bad("powers %d, the summary has %d sum_pow columns", m.Powers, b.powers)
	}
	switch {
	case b.col.limbs && (m.LimbBits < 1 || m.LimbBits > maxLimbBits):
		return bad("the power sums are in limbs (sum_pow_p_limb_i) but limb_bits is %d, want 1..%d", m.LimbBits, maxLimbBits)
	case !b.col.limbs && m.LimbBits != 0:
		return bad("limb_bits %d but the power sums are not in limbs (sum_pow_p_limb_i)", m.LimbBits)
	}
	b.limbBits = m.LimbBits
	if m.Top < b.needs.Top {
		return &configs.Error{Msg: fmt.Sprintf("%s: the cell summary keeps %d largest contributions, the configured rules need %d: run sdcaudit sql with --top-k %d", b.file, m.Top, b.needs.Top, b.needs.Top), Err: configs.ErrInvalid}
	}
	if m.Scale < 0 || m.Scale > sqlgen.MaxScale {
		return bad("scale %d out of range", m.Scale)
	}
	b.scale, b.k = m.Scale, m.Top
	return nil
}

// parseValues reads the value columns of a row and checks them.
func (b *cellsBuilder) parseValues(sr *summaryRow, row []string, name string) error {
	dec := func(c int, column string) (decimal.Dec, bool, error) {
		s := strings.TrimSpace(row[c])
		if s == "" {
			return decimal.Dec{}, false, nil
		}
		d, err := decimal.Parse(s)
		if err != nil {
			return d, false, b.fail(sr.line, column, row[c], "%s: %s: %v", name, column, err)
		}
		return d, true, nil
	}
	var ok bool
	var err error
	if sc, err := strconv.Atoi(strings.TrimSpace(row[b.col.scale])); err != nil || sc != b.scale {
		return b.fail(sr.line, "scale", row[b.col.scale], "%s: scale is not the meta's %d", name, b.scale)
	}
	if sr.total, ok, err = dec(b.col.total, "total"); err != nil {
		return err
	} else if !ok {
		return b.fail(sr.line, "total", "", "%s: the total is empty", name)
	}
	minV, hasMin, err := dec(b.col.min, "min")
	if err != nil {
		return err
	}
	maxV, hasMax, err := dec(b.col.max, "max")
	if err != nil {
		return err
	}
	if hasMin != (sr.n > 0) || hasMax != (sr.n > 0) {
		return b.fail(sr.line, "min", "", "%s: min and max must be given exactly when n > 0", name)
	}
	sr.min, sr.max = minV, maxV
	if err := b.parseTop(sr, row, name); err != nil {
		return err
	}
	if sr.n == 0 && sr.total.Sign() != 0 {
		return b.fail(sr.line, "total", "", "%s: the total of an empty cell is not 0", name)
	}
	return b.parsePowers(sr, row, name)
}

// parseTop reads a row's top column (its largest values, at most
// min(k, n) of them) and checks them against the row's n, min and max.
func (b *cellsBuilder) parseTop(sr *summaryRow, row []string, name string) error {
	if s := strings.TrimSpace(row[b.col.top]); s != "" {
		if c := strings.Count(s, ";") + 1; int64(c) > min(int64(b.k), sr.n) {
			return b.fail(sr.line, "top", "", "%s: top has %d values, want min(k=%d, n=%d)", name, c, b.k, sr.n)
		}
		for _, p := range strings.Split(s, ";") {
			d, err := decimal.Parse(p)
			if err != nil {
				return b.fail(sr.line, "top", "", "%s: top: %v", name, err)
			}
			sr.top = append(sr.top, d)
		}
	}
	k := int64(b.k)
	if want := min(k, sr.n); int64(len(sr.top)) != want {
		return b.fail(sr.line, "top", "", "%s: top has %d values, want min(k=%d, n=%d) = %d (truncated?)", name, len(sr.top), k, sr.n, want)
	}
	for i, v := range sr.top {
		if i > 0 && v.Cmp(sr.top[i-1]) > 0 {
			return b.fail(sr.line, "top", "", "%s: top is not in descending order", name)
		}
		if v.Cmp(sr.min) < 0 || v.Cmp(sr.max) > 0 {
			return b.fail(sr.line, "top", "", "%s: a top value lies outside [min, max]", name)
		}
	}
	if sr.n > 0 && sr.top[0].Cmp(sr.max) != 0 {
		return b.fail(sr.line, "top", "", "%s: the largest top value is not max", name)
	}
	return nil
}

// parsePowers reads a row's power sums (whole, or from their limbs) into
// sr.pow and checks that sum_pow_1 is the total times 10^scale.
func (b *cellsBuilder) parsePowers(sr *summaryRow, row []string, name string) error {
	for p, cols := range b.col.pow {
		v := new(big.Int)
		base := new(big.Int).Lsh(big.NewInt(1), uint(b.limbBits))
		for l := len(cols) - 1; l >= 0; l-- {
			c := cols[l]
			column := "sum_pow_" + strconv.Itoa(p+1)
			if b.col.limbs {
				column += "_limb_" + strconv.Itoa(l)
			}
			s := strings.TrimSpace(row[c])
			if s == "" && sr.n == 0 {
				s = "0"
			}
			if strings.Contains(s, ".") {
				s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
			}
			if len(s) > decimal.MaxDecLen {
				return b.fail(sr.line, column, "", "%s: a power sum of more than %d digits", name, decimal.MaxDecLen)
			}
			x, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return b.fail(sr.line, column, row[c], "%s: not an integer power sum", name)
			}
			// Horner: the limbs from the highest (signed limbs allowed)
			if b.col.limbs {
				v.Mul(v, base)
			}
			v.Add(v, x)
		}
		sr.pow = append(sr.pow, v)
	}
	// sum_pow_1 = total · 10^S
	t := new(big.Rat).Mul(sr.total.Rat(), new(big.Rat).SetInt(pow10(b.scale)))
	if !t.IsInt() || t.Num().Cmp(sr.pow[0]) != 0 {
		return b.fail(sr.line, "sum_pow_1", "", "%s: sum_pow_1 is not total·10^%d (overflow?)", name, b.scale)
	}
	return nil
}

func pow10(s int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil) }

// rowKey is the key of a cell in b.seen.
func rowKey(mask int, key []string) string {
	return strconv.Itoa(mask) + "\x00" + strings.Join(key, "\x00")
}

// sums are what a cell's children in the finest grouping set add up to.
type sums struct {
	rows, n, missing, negative int64
	total                      decimal.Dec
	pow                        []*big.Int
	children                   int
}

// finish checks the margins against their children, adds the empty cells
// and builds the table's cells.
func (b *cellsBuilder) finish() error {
	index := make(map[string]int, len(b.rows))
	for i, r := range b.rows {
		index[rowKey(r.mask, r.key)] = i
	}
	acc := make([]*sums, len(b.rows))
	for _, r := range b.rows {
		if !b.finest(r) {
			continue
		}
		var missing error
		b.eachMargin(r.key, func(mask int, key []string) bool {
			i, ok := index[rowKey(mask, key)]
			if !ok {
				m := &summaryRow{key: key}
				missing = b.fail(r.line, "", "", "%s is missing from the summary, although %s is in it (truncated?)", b.cellName(m), b.cellName(r))
				return false
			}
			s := acc[i]
			if s == nil {
				s = &sums{}
				acc[i] = s
			}
			s.children++
			s.rows += r.rows
			s.n += r.n
			s.missing += r.missing
			s.negative += r.negative
			if b.value != "" {
				s.total = s.total.Add(r.total)
				for p, v := range r.pow {
					if p == len(s.pow) {
						s.pow = append(s.pow, new(big.Int))
					}
					s.pow[p].Add(s.pow[p], v)
				}
			}
			return true
		})
		if missing != nil {
			return missing
		}
	}
	for i, r := range b.rows {
		if b.finest(r) {
			continue
		}
		if err := b.checkMargin(r, acc[i]); err != nil {
			return err
		}
	}
	cells := make([]*audit.Cell, 0, len(b.rows))
	for _, r := range b.rows {
		cells = append(cells, b.cell(r))
	}
	empty, err := b.emptyCells(index)
	if err != nil {
		return err
	}
	cells = append(cells, empty...)
	b.t.Cells = cells
	b.t.SortCells()
	sortStrings(b.t.Warnings)
	return nil
}

// eachMargin calls fn with every margin a finest cell adds to: in each
// dimension its code, each ancestor of the code or the total (mask bit
// set), except the cell itself, until fn returns false. key is reused.
func (b *cellsBuilder) eachMargin(cell []string, fn func(mask int, key []string) bool) {
	nd := len(cell)
	opts := make([][]string, nd)
	for d, k := range cell {
		opts[d] = append(append([]string{k}, b.anc[d][k]...), b.t.TotalLabel)
	}
	marginKeys(opts, func(key []string, idx []int) bool {
		mask := 0
		for i := range key {
			if idx[i] == len(opts[i])-1 {
				mask |= 1 << i
			}
		}
		return fn(mask, key)
	})
}

// checkMargin compares a margin with the sums over its children.
func (b *cellsBuilder) checkMargin(r *summaryRow, s *sums) error {
	name := b.cellName(r)
	if s == nil {
		return b.fail(r.line, "", "", "%s has no cells below it in the finest grouping set", name)
	}
	differs := func(what string, got, want any) error {
		return b.fail(r.line, what, fmt.Sprint(got), "%s: %s %v is not the sum over its %d cells in the finest grouping set, %v (overflow or truncation in the engine?)", name, what, got, s.children, want)
	}
	switch {
	case r.rows != s.rows:
		return differs("rows", r.rows, s.rows)
	case r.missing != s.missing:
		return differs("missing", r.missing, s.missing)
	case b.holding == "" && r.n != s.n:
		return differs("n", r.n, s.n)
	case b.holding == "" && r.negative != s.negative:
		return differs("negative", r.negative, s.negative)
	case r.n > s.n:
		return b.fail(r.line, "n", strconv.FormatInt(r.n, 10), "%s: n %d exceeds the contributors of its cells, %d", name, r.n, s.n)
	}
	if b.value == "" {
		return nil
	}
	if r.total.Cmp(s.total) != 0 {
		return differs("total", r.total, s.total)
	}
	// With a holding spanning cells, Σ x^p of the margin is not additive
	// for p > 1 (the holding's contributions are summed first).
	for p, v := range r.pow {
		if p > 0 && b.holding != "" {
			break
		}
		if v.Cmp(s.pow[p]) != 0 {
			return differs("sum_pow_"+strconv.Itoa(p+1), v, s.pow[p])
		}
	}
	return nil
}

// cell returns the audit cell of a summary row: the figures the microdata
// builder fills (see microBuilder.finish), and the published statistics.
func (b *cellsBuilder) cell(r *summaryRow) *audit.Cell {
	c := &audit.Cell{Key: r.key, HasN: true, N: r.n, Rows: r.rows, Missing: r.missing, Negative: r.negative}
	if b.value != "" {
		c.HasTotal, c.Total = true, r.total
		if k := min(len(r.top), b.needs.Top); k > 0 {
			c.Top = r.top[:k:k]
		}
		c.AllTop = int64(len(c.Top)) >= r.n
		c.HasRange = r.n > 0
		c.Min, c.Max = r.min, r.max
		if b.needs.SumSq {
			c.HasSumSq = true
			c.SumSq = decimal.FromRat(b.powerSum(r, 2))
		}
		if b.needs.Powers > 0 {
			c.Pow = make([]float64, b.needs.Powers)
			scale := new(big.Rat).Abs(r.max.Rat())
			if a := new(big.Rat).Abs(r.min.Rat()); a.Cmp(scale) > 0 {
				scale = a
			}
			if r.n > 0 && scale.Sign() > 0 {
				c.PowScale, _ = scale.Float64()
				f := new(big.Rat)
				for p := range c.Pow {
					f.Quo(b.powerSum(r, p+1), new(big.Rat).SetInt(new(big.Int).Exp(scale.Num(), big.NewInt(int64(p+1)), nil)))
					f.Mul(f, new(big.Rat).SetInt(new(big.Int).Exp(scale.Denom(), big.NewInt(int64(p+1)), nil)))
					c.Pow[p], _ = f.Float64()
				}
			}
		}
	}
	publishStats(b.t, c)
	return c
}

// powerSum is S_p = Σ x^p = sum_pow_p / 10^(p·S).
func (b *cellsBuilder) powerSum(r *summaryRow, p int) *big.Rat {
	return new(big.Rat).SetFrac(r.pow[p-1], pow10(p*b.scale))
}

// emptyCells are the combinations of the observed levels (and their
// margins) the summary does not list, as the microdata builder adds them
// (addEmptyCells): zeros can be disclosive.
func (b *cellsBuilder) emptyCells(index map[string]int) ([]*audit.Cell, error) {
	nd := len(b.t.Dims)
	levels := make([][]string, nd)
	seen := make([]map[string]bool, nd)
	for d := range seen {
		seen[d] = map[string]bool{}
	}
	finest := 0
	var records int64
	for _, r := range b.rows {
		if !b.finest(r) {
			continue
		}
		finest++
		records += r.rows
		for d, l := range r.key {
			if !seen[d][l] {
				seen[d][l] = true
				levels[d] = append(levels[d], l)
			}
		}
	}
	implied := make([]impliedDim, nd)
	for d := range levels {
		above := map[string]bool{}
		for _, l := range levels[d] {
			for _, a := range b.anc[d][l] {
				if !seen[d][a] {
					above[a] = true
				}
			}
		}
		implied[d] = impliedDim{name: b.t.Dims[d], levels: int64(len(levels[d])), margins: 1 + int64(len(above))}
	}
	if err := b.limits.check(b.file, implied, records); err != nil {
		return nil, err
	}
	total, ok := crossSize(b.t, levels)
	if !ok {
		return nil, nil
	}
	if finest == 0 || total == finest {
		return nil, nil
	}
	// the levels of a hierarchy: the observed codes and their ancestors
	for d := range levels {
		for _, l := range levels[d] {
			for _, a := range b.anc[d][l] {
				if !seen[d][a] {
					seen[d][a] = true
					levels[d] = append(levels[d], a)
				}
			}
		}
	}
	var out []*audit.Cell
	opts := make([][]string, nd) // each dimension's codes, then its total
	for d := range levels {
		opts[d] = append(slices.Clip(levels[d]), b.t.TotalLabel)
	}
	eachCross(opts, func(key []string, idx []int) {
		mask := 0
		for d := range idx {
			if idx[d] == len(levels[d]) {
				mask |= 1 << d
			}
		}
		if _, ok := index[rowKey(mask, key)]; !ok {
			r := &summaryRow{mask: mask, key: slices.Clone(key)}
			for range b.col.pow {
				r.pow = append(r.pow, new(big.Int))
			}
			out = append(out, b.cell(r))
		}
	})
	return out, nil
}
