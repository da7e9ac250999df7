package pipeline

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// Rule problems are blamed on the config (file:line:column), with the rule
// meant, all at once.
func TestRuleErrorsAllAtOnce(t *testing.T) {
	c, err := configs.Parse("r.yaml", []byte("rules:\n  treshold: {enabled: true}\n  p_percent: {p: 500}\n  dominance: {sets: [{n: 0, k: 90}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildRules(s)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`r.yaml:2:3: unknown rule "treshold" in rules; did you mean threshold?`,
		`r.yaml:3:15: rule p_percent: parameter p: must satisfy 0 < p <= 100, got 500`,
		`r.yaml:4:15: rule dominance: parameter sets[0].n: must be at least 1`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d:\n got %s\nwant %s...", i+1, lines[i], w)
		}
	}
}

func TestMissingColumnSuggests(t *testing.T) {
	_, err := auditText(t, "year,sector,v\n2024,A,1\n", "microdata: {dims: [year, sektor], value: v}\n")
	if err == nil || !strings.Contains(err.Error(), `column "sektor": no such column`) || !strings.Contains(err.Error(), "did you mean sector?") {
		t.Errorf("err %v", err)
	}
}

// Every missing column is reported at once (exit 3 still: the input).
func TestMissingColumnsAllAtOnce(t *testing.T) {
	_, err := auditText(t, "year,sector,v\n2024,A,1\n", "microdata: {dims: [yaer, sektor], value: vv}\n")
	var re *readers.Error
	if !errors.As(err, &re) {
		t.Fatalf("err %v (%T), want a readers.Error", err, err)
	}
	for _, want := range []string{`column "yaer"`, "did you mean year?", `column "sektor"`, "did you mean sector?", `column "vv"`, "did you mean v?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// Column names carry note references in published tables ("Deaths [note
// 4]"): a configured name matches without them, and "did you mean"
// suggests the header's own spelling. Before, the name had to include
// "[note 4]" exactly.
func TestColumnNotesIgnored(t *testing.T) {
	tab, err := auditText(t, "Area [note 1],Deaths [Note 4]\nNorth,12\nSouth,15\n", "columns: {dims: [Area], count: Deaths}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(tab.Cells))
	}
	_, err = auditText(t, "Area [note 1],Deaths [Note 4]\nNorth,12\n", "columns: {dims: [Area], count: Deths}\n")
	if err == nil || !strings.Contains(err.Error(), `did you mean Deaths [Note 4]?`) {
		t.Errorf("err %v, want the header's own spelling suggested", err)
	}
	// two columns that match only without their notes: refused, both named
	_, err = auditText(t, "Area,Deaths [note 1],Deaths [note 2]\nNorth,12,13\n", "columns: {dims: [Area], count: Deaths}\n")
	if err == nil || !strings.Contains(err.Error(), `matches 2 columns`) || !strings.Contains(err.Error(), `"Deaths [note 2]"`) {
		t.Errorf("err %v, want the ambiguity named", err)
	}
}

// A missing column in a table of many columns lists a few of them, once:
// one error used to list 124 column names twice.
func TestMissingColumnListsFew(t *testing.T) {
	var h, r []string
	for i := range 124 {
		h = append(h, fmt.Sprintf("col%03d", i))
		r = append(r, "1")
	}
	text := strings.Join(h, ",") + "\n" + strings.Join(r, ",") + "\n"
	_, err := auditText(t, text, "columns: {dims: [region], count: number}\n")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if strings.Count(msg, "col000") != 1 || strings.Count(msg, "and 118 more") != 1 || strings.Contains(msg, "col123") || len(msg) > 600 {
		t.Errorf("message lists the header more than once or in full (%d bytes):\n%s", len(msg), msg)
	}
	if !strings.Contains(msg, "124 columns") {
		t.Errorf("message does not say how many columns there are:\n%s", msg)
	}
}
