package rules

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/report"
)

func init() {
	Register(Spec{Name: "class", Doc: "class/group disclosure in frequency tables: a row or column (any line of cells along one dimension, margins included) whose whole nonzero count sits in one cell reveals every member's category; that cell is unsafe", Params: []Param{
		{Name: "magnitude", Doc: "true: also check the counts a magnitude table publishes; false: frequency tables only"},
	}, New: newClass})
}

// class is the group (class) disclosure check. For every line of cells
// along one dimension d with the other dimensions fixed (a fixed value may
// be the margin label), it looks at the cells of the line that are not the
// margin of d. When the dimension has at least two categories and exactly
// one cell of the line holds contributors, every member of the group
// defined by the fixed dimensions is known to be in that cell's category
// of d. That cell is marked unsafe: it is the figure that, with the line's
// margin or its zeros, discloses the attribute, and suppressing it (plus the
// secondary cells an interval audit then asks for) hides it. The zeros of
// the line are not marked: they are what the zeros rule judges.
//
// Cells whose count is unknown make their lines undecidable; those lines
// are skipped. Combinations absent from an aggregate table count as empty,
// as a reader of the published table would take them.
//
// On a table whose counts are rounded to base B (input.rounded,
// ForRoundedTable) with B >= 2, a published 0 stands for 0 to ⌊B/2⌋
// contributors: a line whose only non-zero published count is the cell
// discloses only if its zeros are true zeros, so the cell is review (it
// cannot be assessed on the rounded figures), not primary.
type class struct {
	magnitude bool
	rounded   decimal.Dec // B; zero: exact counts
}

func newClass(decode Decoder) (Rule, error) {
	var p struct {
		Magnitude bool `yaml:"magnitude"`
	}
	if err := decodeParams("class", decode, &p); err != nil {
		return nil, err
	}
	return class{magnitude: p.Magnitude}, nil
}

func (class) Name() string { return "class" }

// applies reports whether the table publishes counts by category: a
// frequency table, or with magnitude: true any table that shows counts.
func (r class) applies(t *audit.Table) bool {
	has := func(list []string, s string) bool {
		for _, v := range list {
			if v == s {
				return true
			}
		}
		return false
	}
	switch t.Mode {
	case audit.Microdata:
		if t.Value == "" {
			return true
		}
		return r.magnitude && (has(t.Publish, "count") || len(t.Publish) == 0)
	default:
		if !has(t.Columns, "count") {
			return false
		}
		return !has(t.Columns, "total") || r.magnitude
	}
}

type classHit struct {
	along string
	code  string // the cell's code along the line ("" : its key value)
	group string
	n     int64
}

// CheckTable implements TableRule.
func (r class) CheckTable(t *audit.Table) {
	if !r.applies(t) {
		// one finding for every cell: its facts are the same
		f := finding("class", audit.NotApplicable, "not a frequency table (set magnitude: true to check the counts of magnitude tables)", nil)
		for _, c := range t.Cells {
			c.Findings = append(c.Findings, f)
		}
		return
	}
	if t.Structure != nil {
		r.checkStructure(t)
		return
	}
	total := t.TotalLabel
	nd := len(t.Dims)
	levels := make([]map[string]bool, nd)
	for d := range levels {
		levels[d] = map[string]bool{}
	}
	for _, c := range t.Cells {
		for d, v := range c.Key {
			if v != total {
				levels[d][v] = true
			}
		}
	}
	hits := map[*audit.Cell][]classHit{}
	for d := 0; d < nd; d++ {
		if len(levels[d]) < 2 {
			continue
		}
		var ls classLines
		for _, c := range t.Cells {
			if c.Key[d] != total {
				ls.add(lineKey(c.Key, d), c)
			}
		}
		for _, c := range ls.alone() {
			hits[c] = append(hits[c], classHit{along: t.Dims[d], group: groupString(t, c.Key, d), n: c.N})
		}
	}
	classFindings(t, hits, r.rounded)
}

// classFindings gives every cell its class finding from the hits.
func classFindings(t *audit.Table, hits map[*audit.Cell][]classHit, rounded decimal.Dec) {
	// zeroHigh is the most contributors a published 0 stands for.
	var zeroHigh int64
	if rounded.Sign() > 0 {
		zeroHigh = floorRat(new(big.Rat).Quo(rounded.Rat(), big.NewRat(2, 1)))
	}
	for _, c := range t.Cells {
		h := hits[c]
		if len(h) == 0 {
			if !c.HasN {
				c.Findings = append(c.Findings, finding("class", audit.NotApplicable, "the count is not known", nil))
				continue
			}
			c.Findings = append(c.Findings, finding("class", audit.Pass, "no row or column has its whole count in this cell", []audit.Figure{audit.IntFig("n", c.N)}))
			continue
		}
		sort.Slice(h, func(i, j int) bool { return h[i].along < h[j].along })
		var msgs []string
		var lines []audit.Figure
		for _, x := range h {
			code := x.code
			if code == "" {
				code = c.Key[dimIndex(t, x.along)]
			}
			msgs = append(msgs, fmt.Sprintf("all %d of %s have %s=%s", x.n, x.group, x.along, code))
			lines = append(lines, audit.GroupFig("", audit.TextFig("along", x.along), audit.TextFig("group", x.group), audit.IntFig("n", x.n)))
		}
		if zeroHigh > 0 {
			c.Findings = append(c.Findings, finding("class", audit.Review, "group disclosure if the other cells published 0 are empty: "+strings.Join(msgs, "; ")+"; rounded to base "+report.DecText(rounded)+", a published 0 stands for 0 to "+strconv.FormatInt(zeroHigh, 10)+": the cell cannot be assessed on the rounded figures",
				[]audit.Figure{audit.IntFig("n", c.N), audit.ListFig("lines", lines...), audit.DecFig("rounding_base", rounded), audit.IntFig("zero_high", zeroHigh)}))
			continue
		}
		c.Findings = append(c.Findings, finding("class", audit.Fail, "group disclosure: "+strings.Join(msgs, "; ")+": publishing this cell reveals the category of every member", []audit.Figure{audit.IntFig("n", c.N), audit.ListFig("lines", lines...)}))
	}
}

func lineKey(key []string, d int) string {
	var b strings.Builder
	for i, v := range key {
		if i == d {
			b.WriteString("\x01")
		} else {
			b.WriteString(v)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// groupString names the group a line describes: the fixed dimension
// values that are not margins ("region=A"), or "the whole table".
func groupString(t *audit.Table, key []string, d int) string {
	var parts []string
	for i, v := range key {
		if i != d && v != t.TotalLabel {
			parts = append(parts, t.Dims[i]+"="+v)
		}
	}
	if len(parts) == 0 {
		return "the whole table"
	}
	return strings.Join(parts, ", ")
}

func dimIndex(t *audit.Table, name string) int {
	for i, d := range t.Dims {
		if d == name {
			return i
		}
	}
	return 0
}

// checkStructure is the class check over the table's structure: along
// each axis, the lines are the codes that add up into one margin (or,
// without one, every code that is no margin), split by the group of a
// nested axis: class disclosure is judged within groups, and
// combinations that do not exist (absent cells of nested rows) are not
// part of any line.
//
// Codes only labelled as statistics (Axis.NonAdditive on an axis whose
// statistics are not confirmed: "Below average income" and "Above average
// income" beside "Income not known", no total) are judged both ways:
// left out of the lines, as statistics, and in them, as categories
// counted by their own published value. A cell that holds its line's
// whole count either way is a class hit: a statistic read as a category
// must not hide a hit on the counts beside it, nor a category read as a
// statistic a hit on itself.
func (r class) checkStructure(t *audit.Table) {
	st := t.Structure
	hits := map[*audit.Cell][]classHit{}
	unconfirmed := false
	for a := range st.Axes {
		if len(st.Axes[a].NonAdditive) > 0 && !st.Axes[a].StatisticsConfirmed() {
			unconfirmed = true
		}
	}
	r.structureLines(t, false, hits)
	if unconfirmed {
		r.structureLines(t, true, hits)
	}
	classFindings(t, hits, r.rounded)
}

// structureLines adds to hits the class hits of the structure's lines;
// asCategories keeps the codes only labelled as statistics (not
// confirmed) in the lines, counted by their published value.
func (r class) structureLines(t *audit.Table, asCategories bool, hits map[*audit.Cell][]classHit) {
	st := t.Structure
	for a := range st.Axes {
		ax := &st.Axes[a]
		// sibling sets: the children of each margin, and the codes that
		// are in no relation
		children := ax.Children()
		var sets [][]string
		var free []string
		for _, c := range ax.Codes {
			if _, stat := ax.NonAdditive[c]; stat && (!asCategories || ax.StatisticsConfirmed()) {
				continue // a statistic (a median, a rate): no category
			}
			if _, ok := ax.Parent[c]; !ok && !ax.IsMarginCode(c) {
				free = append(free, c)
			}
		}
		for _, c := range ax.Codes {
			if ch, ok := children[c]; ok {
				sets = append(sets, ch)
			}
		}
		if len(free) > 0 {
			sets = append(sets, free)
		}
		if len(ax.Dims) > 1 {
			sets = splitByGroup(sets)
		}
		setOf := map[string][]int{}
		for k, set := range sets {
			if len(set) < 2 {
				continue
			}
			for _, c := range set {
				setOf[c] = append(setOf[c], k)
			}
		}
		var ls classLines
		for _, c := range t.Cells {
			if statisticCell(st, c.Key, asCategories) {
				// a statistic's cell is in no line of categories: its
				// count is that of its line (pipeline/cells
				// statisticCounts), judged there
				continue
			}
			code := ax.AxisCode(c.Key)
			for _, k := range setOf[code] {
				var b strings.Builder
				fmt.Fprintf(&b, "%d\x00", k)
				for e := range st.Axes {
					if e != a {
						b.WriteString(st.Axes[e].AxisCode(c.Key))
						b.WriteByte(0)
					}
				}
				if asCategories && !st.Additive(c.Key) {
					n, ok := ownCount(c)
					ls.addCount(b.String(), c, n, ok)
				} else {
					ls.add(b.String(), c)
				}
			}
		}
		for _, c := range ls.alone() {
			code := ax.AxisCode(c.Key)
			along := ax.Name()
			group := structureGroup(t, c.Key, a)
			if len(ax.Dims) > 1 {
				// the line is within the group of the outer dimensions
				along = ax.Names[len(ax.Names)-1]
				parts := strings.Split(code, "\x1f")
				code = parts[len(parts)-1]
				var g []string
				for i, d := range ax.Dims[:len(ax.Dims)-1] {
					g = append(g, t.Dims[d]+"="+parts[i])
				}
				if group == "the whole table" {
					group = strings.Join(g, ", ")
				} else {
					group = strings.Join(g, ", ") + ", " + group
				}
			}
			n := c.N
			if asCategories && !st.Additive(c.Key) {
				n, _ = ownCount(c)
			}
			h := classHit{along: along, code: code, group: group, n: n}
			if !slices.Contains(hits[c], h) {
				hits[c] = append(hits[c], h)
			}
		}
	}
}

// ownCount is a cell's count read as a category's: its count, or where a
// statistic's has none (pipeline/cells statisticCounts) the published
// value of its count column.
func ownCount(c *audit.Cell) (int64, bool) {
	if c.HasN {
		return c.N, true
	}
	st, ok := c.Stats.Get("count")
	if !ok || st.Missing {
		return 0, false
	}
	n, ok := st.Value.Int64()
	if !ok || n < 0 {
		return 0, false
	}
	return n, true
}

// statisticCell reports whether a cell is left out of the class rule's
// lines as a statistic's: a statistic code's on some axis, only on one
// whose statistics are confirmed (Axis.StatisticsConfirmed) when codes
// only labelled as statistics are judged as categories.
func statisticCell(st *audit.Structure, key []string, asCategories bool) bool {
	for a := range st.Axes {
		ax := &st.Axes[a]
		if _, stat := ax.NonAdditive[ax.AxisCode(key)]; stat && (!asCategories || ax.StatisticsConfirmed()) {
			return true
		}
	}
	return false
}

// splitByGroup splits sets of nested axis codes by their outer values.
func splitByGroup(sets [][]string) [][]string {
	var out [][]string
	for _, set := range sets {
		idx := map[string]int{}
		start := len(out)
		for _, c := range set {
			g := c
			if i := strings.LastIndexByte(c, 0x1f); i >= 0 {
				g = c[:i]
			}
			k, ok := idx[g]
			if !ok {
				k = len(out)
				idx[g] = k
				out = append(out, nil)
			}
			out[k] = append(out[k], c)
		}
		_ = start
	}
	return out
}

// structureGroup names the group a line along axis a describes: the
// other axes' codes that are not margins, or "the whole table".
func structureGroup(t *audit.Table, key []string, a int) string {
	st := t.Structure
	var parts []string
	for e := range st.Axes {
		if e == a {
			continue
		}
		code := st.Axes[e].AxisCode(key)
		if st.Axes[e].IsMarginCode(code) {
			continue
		}
		parts = append(parts, st.Axes[e].Name()+"="+audit.CodeText(code))
	}
	if len(parts) == 0 {
		return "the whole table"
	}
	return strings.Join(parts, ", ")
}

// classLines gathers a table's cells by line (a row or column of one
// dimension, the others held), in the order lines first appear.
type classLines struct {
	byKey map[string]*classLine
	order []string
}

type classLine struct {
	cells   []*audit.Cell // cells with contributors
	unknown bool          // a cell whose count is not known
}

func (ls *classLines) add(key string, c *audit.Cell) { ls.addCount(key, c, c.N, c.HasN) }

// addCount adds a cell to a line with the count n (known: whether it is).
func (ls *classLines) addCount(key string, c *audit.Cell, n int64, known bool) {
	if ls.byKey == nil {
		ls.byKey = map[string]*classLine{}
	}
	l := ls.byKey[key]
	if l == nil {
		l = &classLine{}
		ls.byKey[key] = l
		ls.order = append(ls.order, key)
	}
	switch {
	case !known:
		l.unknown = true
	case n > 0:
		l.cells = append(l.cells, c)
	}
}

// alone returns, line by line, the cell that holds a whole line's
// contributors: the one non-empty cell of a line whose counts are all
// known.
func (ls *classLines) alone() []*audit.Cell {
	var out []*audit.Cell
	for _, k := range ls.order {
		if l := ls.byKey[k]; !l.unknown && len(l.cells) == 1 {
			out = append(out, l.cells[0])
		}
	}
	return out
}
