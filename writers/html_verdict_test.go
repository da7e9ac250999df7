package writers_test

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/writers"
)

var (
	reBanner = regexp.MustCompile(`<p class="verdict [a-z]+" id="verdict">([^<]*)</p>`)
	reStep   = regexp.MustCompile(`<li>([^<]*)</li>`)
	reNext   = regexp.MustCompile(`(?s)<div id="next">.*?</div>`)
)

// verdictOf renders the page of tab with the given outputs and returns
// its banner and its steps, unescaped.
func verdictOf(t *testing.T, tab *audit.Table, outputs []string) (string, []string, string) {
	t.Helper()
	var r writers.RunSummary
	r.Add(writers.TableSummary{Table: tab.Name, Source: tab.Source, Mode: tab.Mode, Summary: tab.Summarize(), Outputs: outputs})
	var page bytes.Buffer
	if err := (writers.SummaryHTML{}).WriteRun(&page, &r, []*audit.Table{tab}); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	m := reBanner.FindStringSubmatch(p)
	if m == nil {
		t.Fatal("no verdict")
	}
	var steps []string
	for _, s := range reStep.FindAllStringSubmatch(reNext.FindString(p), -1) {
		steps = append(steps, html.UnescapeString(s[1]))
	}
	return html.UnescapeString(m[1]), steps, p
}

// summary.html says each count for what it is, names only the files the
// run wrote and explains review only when some cell needs it (issue 29,
// items 1 and 2).
func TestSummaryHTMLSaysWhatHappened(t *testing.T) {
	tab := sampleTable() // one primary, one secondary, one review
	all := []string{"grants.report.json", "grants.safe.csv", "grants.safe.xlsx", "grants.annotated.xlsx"}
	banner, steps, _ := verdictOf(t, tab, all)
	if want := "Release blocked: 1 cell failed a rule; 1 cell is suppressed to protect them; 1 cell needs review."; banner != want {
		t.Errorf("banner %q, want %q", banner, want)
	}
	if len(steps) != 3 || !strings.Contains(steps[0], "grants.annotated.xlsx") ||
		!strings.Contains(steps[1], "grants.safe.csv and grants.safe.xlsx") || !strings.Contains(steps[2], "review") {
		t.Errorf("steps %q", steps)
	}

	// no review cell, no safe.xlsx and no workbook written
	tab.Cells[3].Status = audit.StatusOK
	tab.Cells[3].Findings = nil
	banner, steps, page := verdictOf(t, tab, []string{"grants.report.json", "grants.safe.csv"})
	if want := "Release blocked: 1 cell failed a rule; 1 cell is suppressed to protect them."; banner != want {
		t.Errorf("banner %q, want %q", banner, want)
	}
	if len(steps) != 2 || !strings.Contains(steps[0], "grants.report.json") || !strings.Contains(steps[1], "grants.safe.csv;") {
		t.Errorf("steps %q", steps)
	}
	for _, absent := range []string{"safe.xlsx", "annotated.xlsx", "review could not"} {
		if strings.Contains(page, absent) {
			t.Errorf("the page names %q, which the run did not write or does not need", absent)
		}
	}

	// everything ok
	for _, c := range tab.Cells {
		c.Status = audit.StatusOK
		c.Findings = nil
	}
	banner, steps, _ = verdictOf(t, tab, []string{"grants.report.json", "grants.safe.csv"})
	if want := "Nothing needs a person: every cell passed. Publish grants.safe.csv."; banner != want || len(steps) != 0 {
		t.Errorf("banner %q steps %q", banner, steps)
	}
}

// The table's warnings (how it was read, margins, columns left out)
// appear on the page, per table, before its cells (issue 29, item 3).
func TestSummaryHTMLShowsTableWarnings(t *testing.T) {
	tab := sampleTable()
	tab.Warnings = []string{"no margins found: secondary suppression was not applied", "column <rate> not audited & left out"}
	_, _, page := verdictOf(t, tab, nil)
	w := strings.Index(page, `id="warnings-grants"`)
	cells := strings.Index(page, `<table class="cells">`)
	if w < 0 || cells < 0 || w > cells {
		t.Fatalf("warnings at %d, cells at %d: want the warnings before the cells", w, cells)
	}
	for _, s := range tab.Warnings {
		if !strings.Contains(page, "<li>"+html.EscapeString(s)+"</li>") && !strings.Contains(page, "<li>"+strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(s)+"</li>") {
			t.Errorf("warning %q not on the page", s)
		}
	}
}

// A warning that quotes how far a total is from the sum of its parts
// keeps that figure out of the page (with the published cells it could
// give the sum of the suppressed ones): the page says where to find it.
func TestSummaryHTMLWarningsWithoutDifferences(t *testing.T) {
	tab := sampleTable()
	tab.Warnings = []string{`sex: "All" reads as a total but is not the sum of the other 2 codes (difference -1,234.5 in row 7): it is not used as a margin`,
		`age: the declared total "Total" is not the sum of the other 3 codes (difference 17); it is kept as a margin`}
	_, _, page := verdictOf(t, tab, nil)
	for _, bad := range []string{"1,234.5", "difference 17", "difference -"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page quotes %q", bad)
		}
	}
	if strings.Count(page, "difference in the checker&#39;s report") != 2 {
		t.Errorf("the page does not say where the differences are")
	}
}
