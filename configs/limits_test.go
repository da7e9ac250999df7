package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesWithoutEnd: a config, a release or an overrides file without
// end (/dev/zero) or over its size is a configuration error naming the
// file, read in bounded memory (issue 23 item 6).
func TestFilesWithoutEnd(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Fatalf("this test needs /dev/zero: %v", err)
	}
	for what, load := range map[string]func(string) error{
		"config":    func(p string) error { _, err := Load(p); return err },
		"release":   func(p string) error { _, err := LoadRelease(p); return err },
		"overrides": func(p string) error { _, err := LoadOverrides(p); return err },
		"hierarchy": func(p string) error { _, err := LoadHRC(p, '@', "Total"); return err },
	} {
		err := load("/dev/zero")
		var ce *Error
		if !errors.As(err, &ce) || (what != "hierarchy" && !errors.Is(err, ErrTooLarge)) || ce.File != "/dev/zero" || len(err.Error()) > 200 {
			t.Errorf("%s /dev/zero: %v", what, err)
		}
	}
	// a line of an overrides file without end, after a good header
	p := filepath.Join(t.TempDir(), "ov.csv")
	os.WriteFile(p, []byte("region,action,reason,by\nNorth,safe,ok,me\n"+strings.Repeat("x", 1<<20+1)), 0o644)
	if _, err := LoadOverrides(p); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p+":3:") {
		t.Errorf("an endless overrides line: %v", err)
	}
}

// TestDuplicateKeysAtEveryLevel: a key given twice in any mapping is an
// error with its line, in a config and in a release file (issue 23 item
// 12).
func TestDuplicateKeysAtEveryLevel(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"rules: {threshold: {min: 5, min: 7}}\n", `test.yaml:1:29: key "min" is given twice in rules.threshold (first on line 1)`},
		{"rules:\n  threshold:\n    min: 5\n    enabled: true\n    min: 7\n", `test.yaml:5:5: key "min" is given twice in rules.threshold (first on line 3)`},
		{"suppression:\n  hierarchies:\n    region: {N1: North, N1: South}\n", `test.yaml:3:25: key "N1" is given twice in suppression.hierarchies.region`},
		{"marker: x\nmarker: c\n", `test.yaml:2:1: key "marker" is given twice in the top level`},
	} {
		_, err := Parse("test.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
	p := filepath.Join(t.TempDir(), "rel.yaml")
	os.WriteFile(p, []byte("tables:\n  - file: a.csv\n    microdata: {dims: [g], dims: [h]}\n"), 0o644)
	if _, err := LoadRelease(p); err == nil || !strings.Contains(err.Error(), `key "dims" is given twice in tables[0].microdata`) {
		t.Errorf("release: %v", err)
	}
}

// TestInputAndLabelValues: values that decode but cannot work are
// configuration errors: a delimiter of two characters or a quote, a
// negative limit, an empty total label or one equal to the marker (issue
// 23 item 12).
func TestInputAndLabelValues(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{`input: {delimiter: ";;"}`, "must be one character"},
		{`input: {delimiter: '"'}`, "cannot separate fields"},
		{`input: {max_record_bytes: -1}`, "input.max_record_bytes must be positive"},
		{`input: {max_cells_per_record: -5}`, "input.max_cells_per_record must be positive"},
		{`total_label: ""`, "total_label must not be empty"},
		{`total_label: " "`, "total_label must not be empty"},
		{`total_label: x`, `total_label "x" is also the suppression marker`},
		{"marker: c\ntotal_label: c", `total_label "c" is also the suppression marker`},
	} {
		c, err := Parse("test.yaml", []byte(tc.yaml))
		if err == nil {
			_, err = Resolve(c)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.yaml, err, tc.want)
		}
	}
	for _, ok := range []string{`input: {delimiter: "|"}`, `input: {delimiter: tab}`, `input: {delimiter: ";", max_record_bytes: 100, max_field_bytes: 10}`, `total_label: All`} {
		c, err := Parse("test.yaml", []byte(ok))
		if err == nil {
			_, err = Resolve(c)
		}
		if err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestMessagesQuoteAnExcerpt: a value of 100,000 characters is reported
// without quoting all of it.
func TestMessagesQuoteAnExcerpt(t *testing.T) {
	c, err := Parse("test.yaml", []byte("input: {encoding: \""+strings.Repeat("u", 100000)+"\"}\n"))
	if err == nil {
		_, err = Resolve(c)
	}
	if err == nil || len(err.Error()) > 2200 || !strings.Contains(err.Error(), "input.encoding") {
		t.Errorf("%v", err != nil && len(err.Error()) > 2200)
	}
}
