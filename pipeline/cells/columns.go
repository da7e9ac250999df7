package cells

import (
	"errors"
	"fmt"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// findColumn returns the index in header of a configured column: the
// column of that exact name, else the one column whose name matches once
// note references and footnote numbers are set aside and case is folded
// (configs.ColumnKey: "Deaths" matches "Deaths [note 4]"). ok is false
// when none matches; several that match only so are returned in amb.
func findColumn(header []string, name string) (i int, ok bool, amb []string) {
	for i, h := range header {
		if h == name {
			return i, true, nil
		}
	}
	key := configs.ColumnKey(name)
	found := -1
	for i, h := range header {
		if configs.ColumnKey(h) == key {
			if found >= 0 {
				amb = append(amb, h)
				continue
			}
			found = i
		}
	}
	if len(amb) > 0 {
		return -1, false, append([]string{header[found]}, amb...)
	}
	return found, found >= 0, nil
}

// MissingColumn is the error of a configured column that the header lacks:
// it names file, row 1 and the column, lists a few of the header's columns
// (all of them only when there are few) and suggests the column meant when
// the name looks like a typo (--dims sektor -> sector), notes set aside.
func MissingColumn(file, name, role string, header []string) error {
	return missingColumnAmb(file, name, role, header, nil, true)
}

// missingColumnAmb is MissingColumn for a name that matched several
// columns (amb) or none; the header is listed only when listHeader is set
// (the first of several missing columns lists it, the others do not).
func missingColumnAmb(file, name, role string, header []string, amb []string, listHeader bool) error {
	var msg string
	if len(amb) > 0 {
		msg = fmt.Sprintf("the %s column matches %d columns once notes are set aside (%s): give the column's full name", role, len(amb), readers.ColumnList(amb))
	} else {
		msg = fmt.Sprintf("the %s column is not in the header", role)
		if listHeader {
			msg += fmt.Sprintf(" (%d columns: %s)", len(header), readers.ColumnList(header))
		}
		if s := suggestColumn(name, header); s != "" {
			msg += "; did you mean " + s + "?"
		}
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

// suggestColumn is configs.Suggest over the header's names with notes set
// aside, returning the header's own spelling.
func suggestColumn(name string, header []string) string {
	keys := make([]string, len(header))
	for i, h := range header {
		keys[i] = configs.ColumnKey(h)
	}
	s := configs.Suggest(configs.ColumnKey(name), keys)
	if s == "" {
		return configs.Suggest(name, header)
	}
	for i, k := range keys {
		if k == s {
			return header[i]
		}
	}
	return ""
}
