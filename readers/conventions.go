package readers

// The conventions of statistical workbooks that the crosstab reader
// follows by default: suppression markers ("[c]", "[x]", "..", ...; the
// one list is configs.DefaultMarkers), note references in names
// ("[note 4]"), units rows under the header ("(thousands)", "£ million",
// "%"), and cover, contents and notes sheets that hold no table.

import (
	"regexp"
	"strings"

	"github.com/sdcaudit/sdcaudit/configs"
)

// markerSet is a set of marker texts: the given list, or
// configs.DefaultMarkers when it is nil.
func markerSet(list []string) map[string]bool {
	if list == nil {
		list = configs.DefaultMarkers
	}
	m := make(map[string]bool, len(list))
	for _, t := range list {
		m[t] = true
	}
	return m
}

// unitsRe matches a cell that states a unit of measurement rather than a
// label: "(thousands)", "£ million", "%", "£000s", "per 100,000",
// "2018=100", "(£Million)", "figures in £ millions". A bare word that can
// be a label ("Count", "Rate", "Number") is a unit only in parentheses.
var unitsRe = regexp.MustCompile(`(?i)^(` + unitWords + `|\(\s*(` + unitWords + `|numbers?|counts?|index|rates?|percentages?)\s*\))$`)

const unitWords = `%|£|€|\$|per ?cent|` +
	`(£|€|\$|us\$)?\s*(thousands?|millions?|billions?|000s?|m|bn|k)` +
	`|(£|€|\$)\s*(per|a)\s+\w+` +
	`|(rate\s+)?per\s+[0-9][0-9,]*(\s+\w+)*` +
	`|[0-9]{4}\s*=\s*100` +
	`|(figures|values)\s+in\s+.+`

// isUnits reports whether a cell states a unit rather than a label.
func isUnits(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && len(s) <= 64 && unitsRe.MatchString(s)
}

// skipSheetNames are the names (case folded, punctuation as spaces) of
// sheets that describe a workbook rather than hold a table: read by
// --sheet '*' they would stop the run at the first sheet.
var skipSheetNames = map[string]bool{
	"cover": true, "cover sheet": true, "coversheet": true, "front page": true, "title page": true,
	"contents": true, "table of contents": true, "toc": true, "index": true,
	"notes": true, "notes and definitions": true, "definitions": true, "glossary": true,
	"information": true, "info": true, "about": true, "about this data": true, "readme": true, "read me": true,
	"metadata": true, "background": true, "methodology": true, "quality": true, "guidance": true,
}

// isSkipSheet reports whether a sheet's name says it is a cover,
// contents or notes sheet.
func isSkipSheet(name string) bool {
	n := strings.ToLower(strings.Join(strings.FieldsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}), " "))
	return skipSheetNames[n]
}

// populationNoteRe matches a note that describes the population a table
// counts ("Base: all workers", "Unweighted base - adults 16+",
// "Universe: households", "Population: all usual residents"): a label
// followed by a colon, dash or equals sign and the description.
var populationNoteRe = regexp.MustCompile(`(?i)^((un)?weighted\s+|sample\s+)?(base|universe|population)\s*[:=\-–]\s*\S`)

// isPopulationNote reports whether a cell is a population note, which
// describes the table rather than naming a dimension or labelling a
// column: a row that starts with one is a title or note row, never a
// header row (its text would name the column dimension).
func isPopulationNote(s string) bool {
	return populationNoteRe.MatchString(strings.TrimSpace(s))
}
