package cells

import (
	"fmt"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/rules"
)

// Schema is a table's shape compiled once from its settings: how cells are
// obtained, the dimensions, the statistics the table publishes with their
// kinds, and the highest moment order they release. Tables read from
// sources are made from it (newTable); the pipeline takes no decision
// about statistics from column names.
type Schema struct {
	mode audit.Mode
	dims []string
	// value and holding are the microdata value and holding columns.
	value, holding string
	// publish is Table.Publish: the names of the published statistics
	// as configured (microdata) or the role columns (aggregate).
	publish []string
	// columns are the output columns of the publishable table, by role.
	columns []statColumn
	// top are the aggregate input columns of the largest contributions.
	top []string
	// order is Table.MomentOrder (audit.PublishedOrder of the columns).
	order int
	// cells: the input is a cell summary of the microdata (docs/cells.md).
	cells bool
}

// statColumn is one published statistic and, in an aggregate table, the
// input column holding it.
type statColumn struct {
	stat  audit.Statistic
	input string
}

// CompileSchema compiles the settings of the tables of one file into a
// schema; errors are configuration errors.
func CompileSchema(s *configs.Settings, file string) (*Schema, error) {
	switch {
	case s.Microdata != nil && len(s.Microdata.Dims) > 0:
		return microSchema(s)
	case s.Columns != nil && (len(s.Columns.Dims) > 0 || IsWide(s.Columns)):
		cols, err := LongColumns(s.Columns)
		if err != nil {
			return nil, err
		}
		return aggregateSchema(cols)
	}
	return nil, &configs.Error{Msg: fmt.Sprintf("%s: no dimensions: give --dims for microdata, columns.dims in the config for an aggregate table, or for a crosstab columns.dims (row dimensions), columns.across (column dimensions, one header row each) and columns.value (what the body holds)", file), Err: configs.ErrInvalid}
}

// CompileCellsSchema compiles the schema of a cell summary (docs/cells.md)
// of the microdata the settings describe, refusing what the rules need
// (needs) and a summary cannot give.
func CompileCellsSchema(s *configs.Settings, file string, needs rules.Needs) (*Schema, error) {
	sc, err := CompileSchema(s, file)
	if err != nil {
		return nil, err
	}
	if sc.mode != audit.Microdata {
		return nil, &configs.Error{Msg: fmt.Sprintf("%s: a cell summary needs the microdata's dimensions (--dims, --value, --holding or microdata: in the config)", file), Err: configs.ErrInvalid}
	}
	if err := refuseCells(file, needs, s.Microdata != nil && len(s.Microdata.Parents) > 0); err != nil {
		return nil, err
	}
	sc.cells = true
	return sc, nil
}

// microSchema: the statistics listed in publish (count, and total with a
// value column, when none is listed), then the raw moment means m1..mK of
// `moments: {order: K}`.
func microSchema(s *configs.Settings) (*Schema, error) {
	m := s.Microdata
	if err := checkMicroColumns(m); err != nil {
		return nil, err
	}
	sc := &Schema{mode: audit.Microdata, dims: m.Dims, value: m.Value, holding: m.Holding, publish: s.Publish.Stats}
	if len(sc.publish) == 0 {
		sc.publish = []string{"count"}
		if sc.value != "" {
			sc.publish = append(sc.publish, "total")
		}
	}
	for _, p := range sc.publish {
		if p == "moments" {
			continue
		}
		st, ok := audit.ParseStatistic(p)
		if !ok {
			return nil, &configs.Error{Msg: fmt.Sprintf("unknown statistic %q in publish", p), Err: configs.ErrInvalid}
		}
		if sc.value == "" && st.Kind != audit.KindCount {
			return nil, &configs.Error{Msg: fmt.Sprintf("publish %q needs a value column (--value)", p), Err: configs.ErrInvalid}
		}
		sc.columns = append(sc.columns, statColumn{stat: st})
	}
	for p := 1; p <= s.Publish.MomentOrder; p++ {
		sc.columns = append(sc.columns, statColumn{stat: audit.Moment(p)})
	}
	sc.order = audit.PublishedOrder(sc.stats())
	return sc, nil
}

// aggregateSchema: one column per role the configuration maps, in the
// fixed order of configs.Columns.Roles.
func aggregateSchema(c *configs.Columns) (*Schema, error) {
	sc := &Schema{mode: audit.Aggregate, dims: c.Dims, top: c.Top}
	for _, r := range c.Roles() {
		st, ok := audit.ParseStatistic(r[0])
		if !ok {
			return nil, &configs.Error{Msg: fmt.Sprintf("unknown statistic role %q", r[0]), Err: configs.ErrInvalid}
		}
		sc.columns = append(sc.columns, statColumn{stat: st, input: r[1]})
		sc.publish = append(sc.publish, r[0])
	}
	sc.order = audit.PublishedOrder(sc.stats())
	return sc, nil
}

// stats returns the published statistics.
func (sc *Schema) stats() []audit.Statistic {
	out := make([]audit.Statistic, len(sc.columns))
	for i, c := range sc.columns {
		out[i] = c.stat
	}
	return out
}

// newTable returns an empty table of the schema for a source in file
// (and sheet).
func (sc *Schema) newTable(name, file, sheet string, s *configs.Settings) *audit.Table {
	t := &audit.Table{Name: name, Source: file, TotalLabel: s.TotalLabel, Decimals: s.Decimals, Hierarchies: s.Suppression.Hierarchies}
	if sheet != "" {
		t.Source = file + " [" + sheet + "]"
	}
	if s.Measure != nil {
		t.Measure = &audit.Domain{Min: s.Measure.Min, Max: s.Measure.Max, Step: s.Measure.Step, Magnitude: s.Measure.Kind == "magnitude"}
	}
	t.Mode, t.Dims, t.Value, t.MomentOrder = sc.mode, sc.dims, sc.value, sc.order
	t.Publish = sc.publish
	for _, c := range sc.columns {
		t.Columns = append(t.Columns, c.stat.String())
		if sc.mode == audit.Aggregate {
			t.ColumnLabels = append(t.ColumnLabels, c.input)
		}
	}
	return t
}

// checkMicroColumns refuses the holding column given as the value column:
// the holding names each contributor's unit, the value what it
// contributes. (A value column may also be a dimension: its levels are
// then labels.)
func checkMicroColumns(m *configs.Microdata) error {
	if m.Holding != "" && m.Holding == m.Value {
		return &configs.Error{Msg: fmt.Sprintf("the holding column (--holding) %q is also the value column (--value): the holding names each contributor's unit (an enterprise group id), the value what it contributes", m.Holding), Err: configs.ErrInvalid}
	}
	return nil
}

// PublishedNeeds adds to what the rules need per cell (n) what the
// published statistics need, whatever the rules. Power sums are kept only
// up to the highest moment the table releases: an intruder can use no
// other, and they cost time on every record.
func PublishedNeeds(p *configs.Publish, n rules.Needs) rules.Needs {
	stats := publishedStats(p)
	order := audit.PublishedOrder(stats)
	n.Powers = min(n.Powers, order)
	for _, st := range stats {
		switch st.Kind {
		case audit.KindSD, audit.KindVariance:
			n.SumSq = true
		case audit.KindMedian:
			n.Hist = true
		case audit.KindSkewness, audit.KindKurtosis:
			n.Powers = max(n.Powers, order)
		}
	}
	n.Powers = max(n.Powers, p.MomentOrder)
	return n
}

// publishedStats are the statistics a publish list names: the names
// listed, then m1..mK of `moments: {order: K}`.
func publishedStats(p *configs.Publish) []audit.Statistic {
	var out []audit.Statistic
	for _, name := range p.Stats {
		if st, ok := audit.ParseStatistic(name); ok {
			out = append(out, st)
		}
	}
	for k := 1; k <= p.MomentOrder; k++ {
		out = append(out, audit.Moment(k))
	}
	return out
}
