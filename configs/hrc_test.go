package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseHRC(t *testing.T) {
	in := "\ufeffN\r\n@N1\r\n@@N11\r\n@@N12\r\n\r\n@N2\r\n@@ N21 \r\nW\r\n"
	h, err := ParseHRC("d.hrc", strings.NewReader(in), '@', "Total")
	if err != nil {
		t.Fatal(err)
	}
	wantParent := map[string]string{"N1": "N", "N11": "N1", "N12": "N1", "N2": "N", "N21": "N2"}
	if !reflect.DeepEqual(h.Parent, wantParent) {
		t.Errorf("parents %v, want %v", h.Parent, wantParent)
	}
	if want := []string{"N", "N1", "N11", "N12", "N2", "N21", "W"}; !reflect.DeepEqual(h.Codes, want) {
		t.Errorf("codes %v, want %v", h.Codes, want)
	}
	wantLeaves := map[string]bool{"N11": true, "N12": true, "N21": true, "W": true}
	if !reflect.DeepEqual(h.Leaves, wantLeaves) {
		t.Errorf("leaves %v, want %v", h.Leaves, wantLeaves)
	}
	// Another indentation character.
	h, err = ParseHRC("d.hrc", strings.NewReader("A\n#A1\n##A11\n"), '#', "Total")
	if err != nil || h.Parent["A11"] != "A1" || h.Parent["A1"] != "A" || !h.Leaves["A11"] || len(h.Leaves) != 1 {
		t.Errorf("indent #: %+v, %v", h, err)
	}
}

func TestParseHRCErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"N\n@@N11\n", "d.hrc:2: code \"N11\" is 2 levels deep"},
		{"@N1\n", "d.hrc:1: code \"N1\" is indented, but the first code must be at the top level"},
		{"N\n@N1\nS\n@N1\n", "d.hrc:4: code \"N1\" is given twice (first on line 2)"},
		{"N\n@\n", "d.hrc:2: no code after the indentation"},
		{"N\n@ @N1\n", "d.hrc:2: code \"@N1\" starts with the indentation character"},
		{"Total\n@N\n", "d.hrc:1: code \"Total\" is the total label"},
		{"\n\n", "d.hrc: the hierarchy file lists no codes"},
		{"N\n@\xff\n", "d.hrc:2: the line is not UTF-8 text"},
		{"N\n" + strings.Repeat("x", maxHRCLine+1) + "\n", "d.hrc:2:"},
	} {
		_, err := ParseHRC("d.hrc", strings.NewReader(tc.in), '@', "Total")
		var ce *Error
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one starting %q", tc.in, err, tc.want)
		}
	}
}

// TestHierarchyFilesResolve: hierarchy_files are read relative to the
// config file into the child -> parent maps of suppression.hierarchies.
func TestHierarchyFilesResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("d.hrc", "N\n+N1\n++N11\nS\n")
	write("bad.hrc", "N\n@\n")
	cfg := write("c.yaml", "suppression:\n  hrc_indent: \"+\"\n  hierarchy_files: {district: d.hrc}\n  hierarchies: {sector: {A1: A}}\n")
	c, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{"district": {"N1": "N", "N11": "N1"}, "sector": {"A1": "A"}}
	if !reflect.DeepEqual(s.Suppression.Hierarchies, want) {
		t.Errorf("hierarchies %v, want %v", s.Suppression.Hierarchies, want)
	}
	if s.Suppression.HierarchyFiles["district"] != filepath.Join(dir, "d.hrc") || !s.Suppression.Leaves["district"]["N11"] || s.Suppression.Leaves["district"]["N1"] {
		t.Errorf("files %v leaves %v", s.Suppression.HierarchyFiles, s.Suppression.Leaves)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"suppression: {hierarchy_files: {district: missing.hrc}}\n", "missing.hrc: cannot read the hierarchy file"},
		{"suppression: {hierarchy_files: {district: d.hrc}, hierarchies: {district: {a: b}}}\n", `dimension "district" has both`},
		{"suppression: {hierarchy_files: {district: d.hrc}, hrc_indent: \"  \"}\n", "suppression.hrc_indent must be one character"},
		{"suppression: {hierarchy_files: {district: bad.hrc}}\n", `bad.hrc:2: no code after the indentation`},
	} {
		c, err := Load(write("e.yaml", tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Resolve(c)
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestHierarchyFilesRelease: in a release file, hierarchy files at the top
// and in a table are relative to the release file.
func TestHierarchyFilesRelease(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d.hrc"), []byte("N\n@N1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(dir, "release.yaml")
	y := "suppression: {hierarchy_files: {region: d.hrc}}\ntables:\n  - file: x.csv\n    suppression: {hierarchy_files: {district: d.hrc}}\n"
	if err := os.WriteFile(rel, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRelease(rel)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(r.Base(), r.Tables[0].Layer())
	if err != nil {
		t.Fatal(err)
	}
	if s.Suppression.Hierarchies["district"]["N1"] != "N" || s.Suppression.HierarchyFiles["district"] != filepath.Join(dir, "d.hrc") {
		t.Errorf("hierarchies %v, files %v", s.Suppression.Hierarchies, s.Suppression.HierarchyFiles)
	}
}

// FuzzParseHRC: no panic; on success the hierarchy is a forest over the
// codes listed, the leaves are the codes without children, and writing it
// back as a .hrc file reads back the same.
func FuzzParseHRC(f *testing.F) {
	for _, s := range []string{"N\n@N1\n@@N11\n@@N12\nS\n", "A\n@B\n@@C\n@D\nE\n", "@x\n", "a\n@@b\n", "a\r\n@ b \r\n\n", "Total\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		h, err := ParseHRC("f.hrc", strings.NewReader(in), '@', "Total")
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *configs.Error", err)
			}
			return
		}
		listed := map[string]int{}
		for i, c := range h.Codes {
			listed[c] = i
		}
		hasChild := map[string]bool{}
		depth := map[string]int{}
		for _, c := range h.Codes {
			if p, ok := h.Parent[c]; ok {
				pi, ok := listed[p]
				if !ok || pi >= listed[c] {
					t.Fatalf("parent %q of %q not listed before it", p, c)
				}
				hasChild[p] = true
				depth[c] = depth[p] + 1
			}
		}
		var b strings.Builder
		for _, c := range h.Codes {
			if h.Leaves[c] == hasChild[c] {
				t.Fatalf("code %q: leaf %v, has children %v", c, h.Leaves[c], hasChild[c])
			}
			b.WriteString(strings.Repeat("@", depth[c]) + c + "\n")
		}
		h2, err := ParseHRC("g.hrc", strings.NewReader(b.String()), '@', "Total")
		if err != nil || !reflect.DeepEqual(h2.Parent, h.Parent) || !reflect.DeepEqual(h2.Codes, h.Codes) || !reflect.DeepEqual(h2.Leaves, h.Leaves) {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", b.String(), h2, err, h)
		}
	})
}
