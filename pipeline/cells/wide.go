package cells

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// Wide (crosstab) tables are read long by readers (one row per body cell:
// the row dimensions, the column dimensions, the value), so that every
// stage after reading treats them like any aggregate table; the margins
// are their Total rows and columns.

// IsWide reports whether the settings read a wide table.
func IsWide(c *configs.Columns) bool { return c != nil && len(c.Across) > 0 }

// wideOptions are the reader options of a wide table, nil for others.
func wideOptions(s *configs.Settings) *readers.WideOptions {
	if !IsWide(s.Columns) {
		return nil
	}
	return &readers.WideOptions{Dims: s.Columns.Dims, Across: s.Columns.Across, Value: s.Columns.Value, Stats: s.Columns.Statistics, TotalLabel: s.TotalLabel, Markers: s.Markers}
}

// ReaderOptions are the reader settings of a configuration.
func ReaderOptions(s *configs.Settings) readers.Options {
	o := readers.Options{Format: s.Input.Format, Sheet: s.Input.Sheet, Range: s.Input.Range, Encoding: s.Input.Encoding, Decimal: s.Input.Decimal, Wide: wideOptions(s),
		Metadata: s.Input.Metadata, MaxRecordBytes: s.Input.MaxRecordBytes, MaxFieldBytes: s.Input.MaxFieldBytes}
	switch s.Input.Delimiter {
	case "tab", "\\t", "\t":
		o.Delimiter = '\t'
	case "":
	default:
		o.Delimiter = []rune(s.Input.Delimiter)[0]
	}
	return o
}

// DetectLayout detects the layout of a crosstab given without
// columns.dims and columns.across (nor microdata dimensions): an xlsx,
// CSV or TSV file is read with readers.DetectWide, and the settings are
// returned with the columns detected (columns.value and
// columns.statistics, when given, are kept). It returns s itself and a
// nil detection when the settings say the layout, or the file is of
// another format. A layout that cannot be detected is a configuration
// error naming the keys to set, as without detection.
//
// Detection reads the crosstab, and the table is read again when it is
// built: the pipeline detects while it compiles the jobs (so that a layout
// that cannot be detected is a configuration error, exit 2, before the
// run opens its inputs), and the run's input trail hashes a delimited
// file through the reader it opens afterwards. Only tables given without a
// layout are detected: published crosstabs, small beside microdata (given
// with its dimensions, never detected).
func DetectLayout(path string, s *configs.Settings) (*configs.Settings, *readers.WideDetection, error) {
	if s.Microdata != nil && len(s.Microdata.Dims) > 0 {
		return s, nil, nil
	}
	c := configs.Columns{}
	if s.Columns != nil {
		c = *s.Columns
	}
	if len(c.Dims) > 0 || len(c.Across) > 0 || len(c.Roles()) > 0 || len(c.Top) > 0 || len(c.Moments) > 0 {
		return s, nil, nil
	}
	opt := ReaderOptions(s)
	switch readers.FormatOf(path, opt) {
	case "xlsx", "csv", "tsv":
	default:
		return s, nil, nil
	}
	opt.Wide = &readers.WideOptions{TotalLabel: s.TotalLabel, Value: c.Value, Stats: c.Statistics, Markers: s.Markers}
	d, err := readers.DetectWide(path, opt)
	if errors.Is(err, readers.ErrRepeatedLabel) {
		return nil, nil, err // the data, not the layout: no key to set
	}
	if err != nil {
		return nil, nil, &configs.Error{Msg: fmt.Sprintf("%s: no dimensions: give --dims for microdata, columns.dims in the config for an aggregate table, or for a crosstab columns.dims, columns.across and columns.value; its layout was not detected: %v", path, err), Err: configs.ErrInvalid}
	}
	c.Dims, c.Across = d.Dims, d.Across
	if c.Value == "" && len(c.Statistics) == 0 {
		c.Value = d.Value
	}
	cs := *s
	cs.Columns = &c
	return &cs, d, nil
}

// NoteDetection says in t's report what was detected: input.layout, the
// keys in input.detected, and the note first among the warnings.
func NoteDetection(t *audit.Table, d *readers.WideDetection) {
	if d == nil {
		return
	}
	if t.Input == nil {
		t.Input = &audit.InputInfo{}
	}
	t.Input.Detected = append(t.Input.Detected, d.Detected...)
	t.Input.Layout = &audit.DetectedLayout{Dims: d.Dims, Across: d.Across, Value: d.Value, Note: d.Note}
	t.Warnings = append([]string{d.Note}, t.Warnings...)
	if t.Structure != nil {
		t.Structure.Layout = append([]string{d.Note}, t.Structure.Layout...)
	}
}

// LongColumns maps a wide table's configuration to the columns of the long
// table its reader gives: the row and column dimensions, and the value
// column (named after the statistic) in the role columns.value names. Other
// configurations are returned as they are.
func LongColumns(c *configs.Columns) (*configs.Columns, error) {
	if !IsWide(c) {
		return c, nil
	}
	if len(c.Dims) == 0 {
		return nil, &configs.Error{Msg: "a wide table (columns.across) needs columns.dims: its row dimensions, one label column each", Err: configs.ErrInvalid}
	}
	if len(c.Top) > 0 || len(c.Moments) > 0 || len(c.Roles()) > 0 {
		return nil, &configs.Error{Msg: "a wide table (columns.across) names what its body holds by columns.value or columns.statistics; columns.count, .total, .top, ... are for long tables", Err: configs.ErrInvalid}
	}
	dims := append(append([]string{}, c.Dims...), c.Across...)
	for i, d := range dims {
		if slices.Contains(dims[:i], d) {
			return nil, &configs.Error{Msg: fmt.Sprintf("dimension %q appears twice in columns.dims, columns.across and columns.value", d), Err: configs.ErrInvalid}
		}
	}
	long := &configs.Columns{Dims: dims}
	set := map[string]*string{"count": &long.Count, "total": &long.Total, "mean": &long.Mean, "sd": &long.SD, "variance": &long.Variance,
		"median": &long.Median, "min": &long.Min, "max": &long.Max, "skewness": &long.Skewness, "kurtosis": &long.Kurtosis}
	if (c.Value == "") == (len(c.Statistics) == 0) {
		return nil, &configs.Error{Msg: "a wide table (columns.across) needs what its body holds: columns.value (one statistic) or columns.statistics (the labels of a statistic header row above the across rows, each mapped to count, total, mean, ...), not both", Err: configs.ErrInvalid}
	}
	values := []string{c.Value}
	if c.Value == "" {
		values = values[:0]
		for label, st := range c.Statistics {
			if p, ok := set[st]; ok && *p != "" {
				return nil, &configs.Error{Msg: fmt.Sprintf("columns.statistics maps two labels to %s (%q is one)", st, label), Err: configs.ErrInvalid}
			}
			if p, ok := set[st]; ok {
				*p = st
			}
			values = append(values, st)
		}
	}
	for _, v := range values {
		p, ok := set[v]
		if !ok {
			return nil, &configs.Error{Msg: fmt.Sprintf("columns.value or columns.statistics: %q is not a statistic a wide table's body can hold (count, total, mean, sd, variance, median, min, max, skewness or kurtosis)", v), Err: configs.ErrInvalid}
		}
		*p = v
		if slices.Contains(dims, v) {
			return nil, &configs.Error{Msg: fmt.Sprintf("%q is both a dimension and the statistic of a wide table", v), Err: configs.ErrInvalid}
		}
	}
	return long, nil
}

// wideError names the sheet column of an error about a wide table's value
// (the long table read from it has one value column, named after the
// statistic).
func wideError(src readers.Source, err error) error {
	var re *readers.Error
	ws, ok := readers.As[readers.WideSource](src)
	if !ok || !errors.As(err, &re) || re.Row == 0 || re.Value == "" {
		return err
	}
	if col := ws.Layout().Locate(re.Row, re.Value); col != "" {
		re.Column = col
	}
	return err
}
