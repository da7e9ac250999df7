package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/writers"
)

// Wide (crosstab) tables are read long by readers (one row per body cell:
// the row dimensions, the column dimensions, the value), so that every
// stage after reading treats them like any aggregate table; the margins
// are their Total rows and columns.

// isWide reports whether the settings read a wide table.
func isWide(c *configs.Columns) bool { return c != nil && len(c.Across) > 0 }

// wideOptions are the reader options of a wide table, nil for others.
func wideOptions(s *configs.Settings) *readers.WideOptions {
	if !isWide(s.Columns) {
		return nil
	}
	return &readers.WideOptions{Dims: s.Columns.Dims, Across: s.Columns.Across, Value: s.Columns.Value, TotalLabel: s.TotalLabel}
}

// longColumns maps a wide table's configuration to the columns of the long
// table its reader gives: the row and column dimensions, and the value
// column (named after the statistic) in the role columns.value names. Other
// configurations are returned as they are.
func longColumns(c *configs.Columns) (*configs.Columns, error) {
	if !isWide(c) {
		return c, nil
	}
	if len(c.Dims) == 0 {
		return nil, &configs.Error{Msg: "a wide table (columns.across) needs columns.dims: its row dimensions, one label column each", Err: configs.ErrInvalid}
	}
	if len(c.Top) > 0 || len(c.Moments) > 0 || len(c.Roles()) > 0 {
		return nil, &configs.Error{Msg: "a wide table (columns.across) holds one statistic, named by columns.value; columns.count, .total, .top, ... are for long tables", Err: configs.ErrInvalid}
	}
	dims := append(append([]string{}, c.Dims...), c.Across...)
	for i, d := range dims {
		if slices.Contains(dims[:i], d) || d == c.Value {
			return nil, &configs.Error{Msg: fmt.Sprintf("dimension %q appears twice in columns.dims, columns.across and columns.value", d), Err: configs.ErrInvalid}
		}
	}
	long := &configs.Columns{Dims: dims}
	set := map[string]*string{"count": &long.Count, "total": &long.Total, "mean": &long.Mean, "sd": &long.SD, "variance": &long.Variance,
		"median": &long.Median, "min": &long.Min, "max": &long.Max, "skewness": &long.Skewness, "kurtosis": &long.Kurtosis}
	p, ok := set[c.Value]
	if !ok {
		return nil, &configs.Error{Msg: fmt.Sprintf("columns.value %q: a wide table's body holds count, total, mean, sd, variance, median, min, max, skewness or kurtosis", c.Value), Err: configs.ErrInvalid}
	}
	*p = c.Value
	return long, nil
}

// outputWriters are the writers of a table read from src: those of the
// settings, with outputs that look like the input for a wide table: the
// annotated copy of its workbook, and the safe tables laid out wide unless
// output.layout is long.
func outputWriters(src readers.Source, s *configs.Settings) []writers.TableWriter {
	ws := tableWriters(s)
	ws0, ok := readers.As[readers.WideSource](src)
	if !ok {
		return ws
	}
	lay := ws0.Layout()
	x := &writers.Crosstab{File: lay.File, Sheet: lay.Sheet, Format: lay.Format, Rows: lay.Rows, Pos: make(map[string][2]int, len(lay.Keys))}
	for i, k := range lay.Keys {
		x.Pos[strings.Join(k, "\x00")] = [2]int{lay.Pos[i].Row, lay.Pos[i].Col}
	}
	wide := s.Output.Layout != "long"
	for i, w := range ws {
		switch w := w.(type) {
		case writers.Annotated:
			if lay.Format == "xlsx" {
				ws[i] = writers.AnnotatedCopy{Layout: x}
			}
		case writers.SafeCSV:
			if wide {
				ws[i] = writers.SafeWideCSV{Options: w.Options, Layout: x}
			}
		case writers.SafeXLSX:
			if wide {
				ws[i] = writers.SafeWideXLSX{Options: w.Options, Layout: x}
			}
		}
	}
	return ws
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
