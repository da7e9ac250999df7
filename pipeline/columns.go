package pipeline

import (
	"errors"
	"fmt"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// missingColumn is the error of a configured column that the header lacks:
// it names file, row 1 and the column, lists the header and suggests the
// column meant when the name looks like a typo (--dims sektor -> sector).
func missingColumn(file, name, role string, header []string) error {
	msg := fmt.Sprintf("the %s column is not in the header (columns: %s)", role, readers.ColumnList(header))
	if s := configs.Suggest(name, header); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return &readers.Error{File: file, Row: 1, Column: name, Err: fmt.Errorf("%w: %s", readers.ErrColumn, msg)}
}

// atHeaderRow moves the header errors of a table set up from src (a
// column the header lacks, reported at row 1) to the row its header is
// on, e.g. row 8 of a sheet with titles above its table.
func atHeaderRow(err error, src readers.Source) error {
	row := readers.HeaderRow(src)
	if err == nil || row == 1 {
		return err
	}
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case *readers.Error:
			if x.Row == 1 && errors.Is(x.Err, readers.ErrColumn) {
				x.Row = row
			}
		case interface{ Unwrap() []error }:
			for _, u := range x.Unwrap() {
				walk(u)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return err
}
