package pipelinetest

import "testing"

// TestFirstDiff: the first differing line is named with both versions,
// a missing line reads as empty, and equal outputs give "".
func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ want, got, diff string }{
		{"a\nb\nc", "a\nb\nc", ""},
		{"a\nb\nc", "a\nx\nc", "line 2\n want b\n  got x"},
		{"a\nb", "a\nb\nc", "line 3\n want \n  got c"},
		{"a\nb\nc", "a", "line 2\n want b\n  got "},
	} {
		if d := FirstDiff([]byte(c.want), []byte(c.got)); d != c.diff {
			t.Errorf("FirstDiff(%q, %q) = %q, want %q", c.want, c.got, d, c.diff)
		}
	}
}

// TestSettings: a YAML text is resolved over its profile, its keys
// overriding the profile's.
func TestSettings(t *testing.T) {
	s := Settings(t, "profile: acro\nmarker: zz\n")
	if s.Marker != "zz" {
		t.Errorf("marker %q, want zz", s.Marker)
	}
}
