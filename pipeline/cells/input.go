package cells

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// inputInfo is how a delimited source was decoded, for the report; nil
// for other sources.
func inputInfo(src readers.Source) *audit.InputInfo {
	d, ok := readers.As[readers.Describer](src)
	if !ok {
		return nil
	}
	in := d.Info()
	return &audit.InputInfo{Encoding: in.Encoding, BOM: in.BOM, Delimiter: in.Delimiter, Decimal: in.Decimal, Detected: in.Detected}
}

// missingHint names the missing-value texts (configs.MissingValues) in
// "not a number" messages: "empty, NA, ... and . mean a missing value".
var missingHint = func() string {
	names := append([]string{"empty"}, configs.MissingValues[1:]...)
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " mean a missing value"
}()

// numberFormat is how the numbers of a table are parsed: with the decimal
// mark its input was read with; markers are the aggregate table's
// suppression markers (nil in microdata mode), named in messages.
func numberFormat(t *audit.Table, markers []string) readers.NumberFormat {
	f := readers.NumberFormat{Missing: missingHint}
	if in := t.Input; in != nil && in.Decimal == "," {
		f.Comma = true
		f.Detected = slices.Contains(in.Detected, "decimal")
	}
	if len(markers) > 0 {
		f.Missing += fmt.Sprintf(", the markers %s a suppressed one (declare others under markers: in the config)", strings.Join(markers, " "))
	}
	return f
}

// EmptyLevel is the name shown for an empty (or blank) dimension value. A
// table that also has a real level of that name is refused: the two would
// be one cell.
const EmptyLevel = "(empty)"

// maxEmptyRows is how many rows with an empty dimension value a warning
// lists.
const maxEmptyRows = 5

// emptyLevels records, per dimension, the rows with an empty value and the
// first row with the literal level EmptyLevel.
type emptyLevels struct {
	dims []emptyDim
}

type emptyDim struct {
	count   int64
	rows    []int // the first maxEmptyRows rows, ascending
	literal int   // the first row whose value is EmptyLevel; 0 for none
}

func newEmptyLevels(n int) emptyLevels { return emptyLevels{dims: make([]emptyDim, n)} }

// level returns the level name of value v of dimension d at row.
func (e *emptyLevels) level(d int, v string, row int) string {
	if v != "" && v[0] > ' ' && v != EmptyLevel {
		return v
	}
	ed := &e.dims[d]
	switch {
	case v == EmptyLevel:
		if ed.literal == 0 || row < ed.literal {
			ed.literal = row
		}
		return v
	case strings.TrimSpace(v) != "":
		return v
	}
	ed.count++
	if len(ed.rows) < maxEmptyRows {
		ed.rows = append(ed.rows, row)
	}
	return EmptyLevel
}

// merge adds the records of o (built from other rows).
func (e *emptyLevels) merge(o *emptyLevels) {
	for d := range e.dims {
		ed, od := &e.dims[d], &o.dims[d]
		ed.count += od.count
		ed.rows = append(ed.rows, od.rows...)
		slices.Sort(ed.rows)
		ed.rows = ed.rows[:min(len(ed.rows), maxEmptyRows)]
		if od.literal != 0 && (ed.literal == 0 || od.literal < ed.literal) {
			ed.literal = od.literal
		}
	}
}

// check refuses a dimension with both empty values and the level
// EmptyLevel.
func (e *emptyLevels) check(file string, dims []string) error {
	for d, ed := range e.dims {
		if ed.count > 0 && ed.literal != 0 {
			return &readers.Error{File: file, Row: ed.literal, Column: dims[d], Value: EmptyLevel,
				Err: fmt.Errorf("the level %q is also the name shown for empty values of this dimension (%s); rename that level or fill the empty values", EmptyLevel, ed.rowList())}
		}
	}
	return nil
}

// warnings are the report's remarks on empty dimension values.
func (e *emptyLevels) warnings(dims []string) []string {
	var w []string
	for d, ed := range e.dims {
		if ed.count > 0 {
			values := "values"
			if ed.count == 1 {
				values = "value"
			}
			w = append(w, fmt.Sprintf("dimension %q has %d empty %s (%s), shown as the level %q", dims[d], ed.count, values, ed.rowList(), EmptyLevel))
		}
	}
	return w
}

func (ed *emptyDim) rowList() string {
	var b strings.Builder
	b.WriteString("row")
	if ed.count > 1 {
		b.WriteString("s")
	}
	for i, r := range ed.rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(r))
	}
	if ed.count > int64(len(ed.rows)) {
		b.WriteString(", ...")
	}
	return b.String()
}
