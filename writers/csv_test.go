package writers

import (
	"bytes"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

func TestEscapeFormula(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"North", "North"},
		{"=1+2", "'=1+2"},
		{"+44 20 7946 0000", "'+44 20 7946 0000"},
		{"-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"-5", "-5"},     // a number stays a number
		{"+2.5", "+2.5"}, // likewise
		{"-1e3", "-1e3"}, // likewise
		{"a=b", "a=b"},   // only a leading sign matters
	}
	for _, tt := range tests {
		if got := EscapeFormula(tt.in); got != tt.want {
			t.Errorf("EscapeFormula(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSafeCSVMasksAndEscapes(t *testing.T) {
	tab := &audit.Table{Name: "t", Dims: []string{"=region"}, Columns: []string{"count", "total"}, ColumnLabels: []string{"n", "@total"},
		Cells: []*audit.Cell{
			{Key: []string{"=HYPERLINK(\"x\")"}, Status: audit.StatusOK, Stats: audit.StatsOf(map[string]audit.Stat{"count": {Text: "12"}, "total": {Text: "-40"}})},
			{Key: []string{"b"}, Status: audit.StatusPrimary, Stats: audit.StatsOf(map[string]audit.Stat{"count": {Text: "2"}, "total": {Text: "7"}})},
			{Key: []string{"c"}, Status: audit.StatusReview, Stats: audit.StatsOf(map[string]audit.Stat{"count": {Text: "30"}, "total": {Text: "99"}})},
		}}
	var b bytes.Buffer
	if err := (SafeCSV{Options{Marker: "x"}}).Write(&b, tab); err != nil {
		t.Fatal(err)
	}
	want := "'=region,n,'@total\n\"'=HYPERLINK(\"\"x\"\")\",12,-40\nb,x,x\nc,x,x\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"table1", true}, {"Région 2024", true}, {"a.b", true}, {"x_Sheet 1", true},
		{"", false}, {".", false}, {"..", false}, {"../x", false}, {"../../x", false}, {"a/b", false},
		{`a\b`, false}, {"/abs", false}, {".hidden", false}, {".x.report.json.tmp1", false},
		{"a\nb", false}, {"a\x00b", false}, {"a\x7fb", false}, {"a\u0085b", false},
	} {
		if err := CheckName(c.name); (err == nil) != c.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", c.name, err, c.ok)
		}
	}
}
