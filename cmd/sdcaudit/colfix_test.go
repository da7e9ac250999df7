package main

import (
	"slices"
	"strings"
	"testing"
)

// safeRow is the safe table's row whose first cell is label.
func safeRow(t *testing.T, rows [][]string, label string) []string {
	t.Helper()
	for _, r := range rows {
		if len(r) > 0 && r[0] == label {
			return r
		}
	}
	t.Fatalf("no row %q in the safe table %q", label, rows)
	return nil
}

// TestUnconfirmedStatisticsStayCategories: "Below average income" and
// "Above average income" beside "Income not known", with no total, are
// labelled as statistics but nothing shows them to be: they stay
// categories of the class rule (North's 15 with 0 and 0 beside it gives
// the class away and is withheld, as before statistic codes were read),
// and "Income not known" is no count of their line (main published
// North,15,0,0, judging 15 with n=0 and South's 11 and 13 with n=2).
func TestUnconfirmedStatisticsStayCategories(t *testing.T) {
	text := "Area,Below average income,Above average income,Income not known\nNorth,15,0,0\nSouth,11,13,2\nEast,20,30,4\n"
	_, rows, rep, _ := checkCSV(t, text, "--value", "count")
	if got := safeRow(t, rows, "North"); got[1] == "15" {
		t.Errorf("North: %q, want 15 withheld (all of North in one class)", got)
	}
	for _, r := range rows[1:] {
		for _, v := range r[1:] {
			if v == "x" || v == "" {
				continue
			}
			if !slices.Contains([]string{"0", "2", "4", "11", "13", "20", "30"}, v) {
				t.Errorf("unexpected value %q in %q", v, r)
			}
		}
	}
	for _, c := range reportCells(rep) {
		if c.key["Area"] == "North" && c.key["across"] == "Below average income" && !strings.Contains(c.findings, "group disclosure") {
			t.Errorf("North/Below average income: %s, want a class hit (all 15 of North)", c.findings)
		}
	}
	// South's 11 and 13 are not judged with Income not known's 2
	for _, c := range reportCells(rep) {
		if c.key["Area"] == "South" && c.key["across"] != "Income not known" && strings.Contains(c.findings, "only 2 contributors") {
			t.Errorf("South/%s judged with n=2, the count of a sibling category: %s", c.key["across"], c.findings)
		}
	}
}

type repCell struct {
	key      map[string]string
	status   string
	findings string
}

// reportCells are the cells of a report.json with their findings'
// messages joined.
func reportCells(rep map[string]any) []repCell {
	var out []repCell
	cs, _ := rep["cells"].([]any)
	for _, c := range cs {
		m, _ := c.(map[string]any)
		rc := repCell{key: map[string]string{}}
		if k, ok := m["key"].(map[string]any); ok {
			for d, v := range k {
				rc.key[d], _ = v.(string)
			}
		}
		rc.status, _ = m["status"].(string)
		fs, _ := m["findings"].([]any)
		for _, f := range fs {
			if fm, ok := f.(map[string]any); ok {
				msg, _ := fm["message"].(string)
				rc.findings += msg + "; "
			}
		}
		out = append(out, rc)
	}
	return out
}
