package readers

import "testing"

// TestIsPopulationNote: a line that describes the population counted is
// a note; a dimension's name or a column label is not.
func TestIsPopulationNote(t *testing.T) {
	for s, want := range map[string]bool{
		"Base: all workers":             true,
		" base : all adults":            true,
		"Unweighted base - adults 16+":  true,
		"Weighted base = households":    true,
		"Universe: all usual residents": true,
		"Population: persons aged 16+":  true,
		"Population":                    false,
		"Population group":              false,
		"Base year 2015":                false,
		"Base":                          false,
		"Database: ONS":                 false,
		"Area":                          false,
	} {
		if got := isPopulationNote(s); got != want {
			t.Errorf("isPopulationNote(%q) = %v, want %v", s, got, want)
		}
	}
}
