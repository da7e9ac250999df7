package configs

import "testing"

// TestMissingValues: IsMissing is exactly the list MissingValues, and no
// missing value is accepted as a marker.
func TestMissingValues(t *testing.T) {
	in := map[string]bool{}
	for _, v := range MissingValues {
		in[v] = true
		if !IsMissing(v) {
			t.Errorf("IsMissing(%q) = false", v)
		}
		if CheckMarker(v) == nil {
			t.Errorf("marker %q is accepted", v)
		}
	}
	for _, v := range []string{"x", "c", "na", "Null", "..", "-", "NAN", "nil", " "} {
		if IsMissing(v) != in[v] {
			t.Errorf("IsMissing(%q) = %v", v, IsMissing(v))
		}
	}
}
