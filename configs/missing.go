package configs

// MissingValues are the texts that mean "no value" in input tables: a
// microdata record with one of them is not a contributor, an aggregate
// statistic with one of them is missing, and no suppression marker may be
// one of them. IsMissing is the fast test of the same list.
// The empty text comes first.
var MissingValues = []string{"", "NA", "NaN", "nan", "null", "NULL", "."}

// IsMissing reports whether a text is one of MissingValues.
func IsMissing(s string) bool {
	switch s {
	case "", "NA", "NaN", "nan", "null", "NULL", ".":
		return true
	}
	return false
}

// DefaultMarkers are the texts that mark an already suppressed (or
// otherwise withheld) cell in an input table when the configuration does
// not list its own (`markers:`): the letters and symbols statistical
// producers print ("c" or "x" confidential, ".." and "..." not available,
// ":" Eurostat's not available, "*", "-"), the bracketed shorthand of the
// UK Government Statistical Service ("[c]" confidential, "[x]" not
// available, "[z]" not applicable, "[u]" low reliability, "[low]" rounds
// to zero) and "n/a". It is the one list: the readers' layout detection
// and the table builders read the same texts as markers. Upper-case "C"
// and "X" are not in it (the readers had them): they are codes too (SIC
// section C), and `audit` refuses a marker in a column it does not read.
var DefaultMarkers = []string{
	"c", "x", "..", "...", "*", "-", ":",
	"[c]", "[x]", "[z]", "[u]", "[low]", "n/a",
}

// Markers returns a copy of DefaultMarkers, for settings that may be
// changed.
func Markers() []string { return append([]string(nil), DefaultMarkers...) }
