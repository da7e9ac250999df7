package pipeline

import (
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
