package cells

import (
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/report"
)

// noteUnused lists, in t.UnusedColumns and a table warning, the columns
// of a record-level input that the microdata builder mb does not read
// (microBuilder.readColumns): neither a dimension, the value, the
// holding nor a hierarchy's parent column. They are not audited and no
// output holds them; the checker sees what was left out (an income
// column beside the one given as the value, a second region column).
// Names only, never a value.
func noteUnused(t *audit.Table, header []string, mb *microBuilder) {
	read := mb.readColumns(len(header))
	var names []string
	for c, r := range read {
		if !r {
			names = append(names, header[c])
		}
	}
	if len(names) == 0 {
		return
	}
	t.UnusedColumns = names
	list := make([]string, 0, min(len(names), 6))
	for i, n := range names {
		if i == 5 && len(names) > 6 {
			list = append(list, fmt.Sprintf("and %d more", len(names)-5))
			break
		}
		list = append(list, fmt.Sprintf("%q", n))
	}
	which := "one"
	if len(names) == 1 {
		which = "it"
	}
	t.Warnings = append(t.Warnings, fmt.Sprintf("%s of the input not used (%s): neither a dimension, the value, the holding nor a hierarchy's parent column, so not audited and in no output; if %s should be audited, name it in --dims, --value or --holding (microdata: in the configuration)",
		report.Plural(int64(len(names)), "column", "columns"), strings.Join(list, ", "), which))
}
