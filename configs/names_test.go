package configs

import (
	"strconv"
	"strings"
	"testing"
)

// TestStripNotes: note references are not part of a name; the name itself
// is kept, case and all.
func TestStripNotes(t *testing.T) {
	for in, want := range map[string]string{
		"Deaths [note 4]":                  "Deaths",
		"Deaths [Note 4]":                  "Deaths",
		"Rate per 100,000 [notes 2 and 3]": "Rate per 100,000",
		"All ages [note 1, 2]":             "All ages",
		"Total²":                           "Total",
		"[note 3]":                         "[note 3]",
		"Area  name":                       "Area name",
		"Standard error3 (£M)":             "Standard error3 (£M)",
		"Q1":                               "Q1",
		"[x]":                              "[x]",
	} {
		if got := StripNotes(in); got != want {
			t.Errorf("StripNotes(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestColumnKey: a footnote number glued to a word is dropped when
// matching, case is folded; codes and years keep their digits.
func TestColumnKey(t *testing.T) {
	for in, want := range map[string]string{
		"Standard error3 (£M)":          "standard error (£m)",
		"Coefficient of variation4 (%)": "coefficient of variation (%)",
		"Deaths [note 4]":               "deaths",
		"Q1 2020":                       "q1 2020",
		"UKC11":                         "ukc11",
		"Age 16 to 24":                  "age 16 to 24",
		"covid19 deaths":                "covid deaths",
	} {
		if got := ColumnKey(in); got != want {
			t.Errorf("ColumnKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDefaultMarkers: the one default list holds the GSS shorthand and
// the producers' symbols; none of them reads as a missing value or a
// number; the settings start from it.
func TestDefaultMarkers(t *testing.T) {
	for _, want := range []string{"[c]", "[x]", "[z]", "[u]", "[low]", "..", ":", "c", "x"} {
		found := false
		for _, m := range DefaultMarkers {
			found = found || m == want
		}
		if !found {
			t.Errorf("DefaultMarkers lacks %q", want)
		}
	}
	for _, m := range DefaultMarkers {
		if IsMissing(m) {
			t.Errorf("marker %q is a missing value", m)
		}
		if _, err := strconv.ParseFloat(m, 64); err == nil {
			t.Errorf("marker %q reads as a number", m)
		}
	}
	c, err := Parse("c.yaml", []byte("{}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Markers, " ") != strings.Join(DefaultMarkers, " ") {
		t.Errorf("settings' markers %q, want DefaultMarkers", s.Markers)
	}
	s.Markers[0] = "changed"
	if DefaultMarkers[0] == "changed" {
		t.Error("the settings share DefaultMarkers' array")
	}
}
