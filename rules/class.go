package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
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
type class struct{ magnitude bool }

func newClass(decode Decoder) (Rule, error) {
	var p struct {
		Magnitude bool `yaml:"magnitude"`
	}
	if err := decodeParams("class", decode, &p); err != nil {
		return nil, err
	}
	return class{p.Magnitude}, nil
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
	group string
	n     int64
}

// CheckTable implements TableRule.
func (r class) CheckTable(t *audit.Table) {
	if !r.applies(t) {
		for _, c := range t.Cells {
			c.Findings = append(c.Findings, finding("class", audit.NotApplicable, "not a frequency table (set magnitude: true to check the counts of magnitude tables)", nil))
		}
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
		type line struct {
			cells   []*audit.Cell
			unknown bool
		}
		lines := map[string]*line{}
		var order []string
		for _, c := range t.Cells {
			if c.Key[d] == total {
				continue
			}
			k := lineKey(c.Key, d)
			l := lines[k]
			if l == nil {
				l = &line{}
				lines[k] = l
				order = append(order, k)
			}
			if !c.HasN {
				l.unknown = true
				continue
			}
			if c.N > 0 {
				l.cells = append(l.cells, c)
			}
		}
		for _, k := range order {
			l := lines[k]
			if l.unknown || len(l.cells) != 1 {
				continue
			}
			c := l.cells[0]
			hits[c] = append(hits[c], classHit{along: t.Dims[d], group: groupString(t, c.Key, d), n: c.N})
		}
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
			d := dimIndex(t, x.along)
			msgs = append(msgs, fmt.Sprintf("all %d of %s have %s=%s", x.n, x.group, x.along, c.Key[d]))
			lines = append(lines, audit.GroupFig("", audit.TextFig("along", x.along), audit.TextFig("group", x.group), audit.IntFig("n", x.n)))
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
