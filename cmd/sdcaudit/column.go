package main

// The one column of values of sdcaudit moments --values, read exactly.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/readers"
)

// valueColumn is one numeric column of a table file, read exactly.
type valueColumn struct {
	// Values are the column's numbers in file order.
	Values []decimal.Dec
	// Missing counts the empty and NA cells, which are not values.
	Missing int
}

// readColumn reads the named column of the first table of a file. Every
// value must be a number (at most decimal.MaxScale decimals), non-negative
// when nonNegative; empty and NA cells are counted as missing. A problem is
// a *readers.Error naming the file, row and column; a column with no
// values is one too.
func readColumn(ctx context.Context, path, column string, nonNegative bool) (*valueColumn, error) {
	srcs, err := readers.Open(path, readers.Options{})
	if err != nil {
		return nil, asInput(path, err)
	}
	defer func() {
		for _, s := range srcs {
			s.Close()
		}
	}()
	src := srcs[0]
	col := slices.Index(src.Header(), column)
	if col < 0 {
		return nil, &readers.Error{File: path, Row: 1, Column: column, Err: fmt.Errorf("%w (columns: %s)", readers.ErrColumn, readers.ColumnList(src.Header()))}
	}
	out := &valueColumn{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, asInput(path, err)
		}
		for i, row := range b.Rows {
			v := strings.TrimSpace(row[col])
			if v == "" || strings.EqualFold(v, "NA") {
				out.Missing++
				continue
			}
			d, err := columnValue(v, nonNegative)
			if err != nil {
				return nil, &readers.Error{File: path, Row: b.Lines[i], Column: column, Value: v, Err: err}
			}
			out.Values = append(out.Values, d)
		}
	}
	if len(out.Values) == 0 {
		return nil, &readers.Error{File: path, Column: column, Err: errors.New("no values")}
	}
	return out, nil
}

func columnValue(v string, nonNegative bool) (decimal.Dec, error) {
	d, err := decimal.Parse(v)
	if err != nil {
		if strings.Contains(err.Error(), "decimal places") {
			return d, fmt.Errorf("%w: more than %d decimal places (the most kept exactly)", readers.ErrNotNumber, decimal.MaxScale)
		}
		return d, readers.ErrNotNumber
	}
	if nonNegative && d.Sign() < 0 {
		return d, errors.New("negative value: the Lehmer-mean attack assumes non-negative values")
	}
	return d, nil
}

// asInput makes err a *readers.Error for path unless it already is one.
func asInput(path string, err error) error {
	var re *readers.Error
	if errors.As(err, &re) {
		return err
	}
	return &readers.Error{File: path, Err: err}
}
