package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseHST reads the forms of tau-argus a-priori lines: a status,
// a cost, one or two protection levels; ";" or "," separators, quoted
// codes, a decimal comma with ";".
func TestParseHST(t *testing.T) {
	cells, err := ParseHST("a.hst", strings.NewReader("\"01\";\" 2\";U\r\n\n01;3;c;12,5\n\"Total\";2;pl;10\nA;B;PL;1;2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 {
		t.Fatalf("%d cells", len(cells))
	}
	if c := cells[0]; c.Status != "u" || strings.Join(c.Codes, "|") != "01|2" || c.Source != "a.hst:1" {
		t.Errorf("line 1: %+v", c)
	}
	if c := cells[1]; c.Cost == nil || c.Cost.String() != "12.5" || c.Source != "a.hst:3" {
		t.Errorf("line 3: %+v", c)
	}
	if c := cells[2]; c.Lower == nil || c.Lower.String() != "10" || c.Upper.String() != "10" {
		t.Errorf("line 4: %+v", c)
	}
	if c := cells[3]; c.Lower.String() != "1" || c.Upper.String() != "2" || strings.Join(c.Codes, "|") != "A|B" {
		t.Errorf("line 5: %+v", c)
	}
	// rtauargus writes "," separated lines
	cells, err = ParseHST("r.hst", strings.NewReader("A,tr1,07,u\nB,tr3,01,c,5\n"))
	if err != nil || len(cells) != 2 || cells[0].Status != "u" || cells[1].Cost.String() != "5" {
		t.Fatalf("rtauargus form: %+v %v", cells, err)
	}
	for _, bad := range []struct{ text, want string }{
		{"A;B;x\n", "a.hst:1:3: the line ends in \"x\""},
		{"A;u\nA;B;c;-1\n", "a.hst:2:4: cost -1 is negative"},
		{"A;B;pl;q\n", "a.hst:1:4: protection level \"q\" is not a number"},
	} {
		_, err := ParseHST("a.hst", strings.NewReader(bad.text))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err %v, want %q", bad.text, err, bad.want)
		}
	}
}

// TestAprioriKey: apriori: reads a .hst into the settings' a-priori
// cells and a CSV into the overrides, relative to the config file.
func TestAprioriKey(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.hst"), []byte("A;x;u\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "o.csv"), []byte("r,s,action,reason,by\nA,x,safe,checked,ana\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "c.yaml"), []byte("apriori: a.hst\nprevious: last\n"), 0o644)
	c, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(c, &Config{Apriori: filepath.Join(dir, "o.csv")})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Apriori) != 1 || s.Apriori[0].Status != "u" || len(s.Overrides) != 1 || s.Previous != filepath.Join(dir, "last") {
		t.Fatalf("apriori %+v overrides %+v previous %q", s.Apriori, s.Overrides, s.Previous)
	}
}
