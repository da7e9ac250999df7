package audit

// Frequency reports whether t is a frequency table: no cell has a known
// total (X), so secondary suppression and the interval audit protect its
// counts of contributors (N). A table with a total in some cell is a
// magnitude table: microdata with a value column, an aggregate table with
// a total column that is published somewhere. This is the one place the
// distinction is decided (pipeline's suppression options, the
// suppression's value role, linked tables).
func (t *Table) Frequency() bool {
	for _, c := range t.Cells {
		if c.HasTotal {
			return false
		}
	}
	return true
}
