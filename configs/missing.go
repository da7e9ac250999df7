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
