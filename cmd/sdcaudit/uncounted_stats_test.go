package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStatisticsWithoutTheirCount: ASHE's medians and means of hours
// stand beside "Number of jobs (thousand)", a weighted estimate in
// thousands, no margin of anything: not the number of contributors the
// statistics were computed from. The statistics stay review (never
// judged with that figure) and a warning and a structure note say why,
// where every cell was review with no word of the cause. Beside a count
// confirmed by a margin (Workers = Employees + Self-employed) a statistic
// is judged with its line's count, and no such warning is given.
func TestStatisticsWithoutTheirCount(t *testing.T) {
	text := "\"Paid hours worked by area, 2014\"\nArea,Number of jobs (thousand),Median,Mean\n" +
		"North,120,37.5,36.2\nSouth,95,38.0,36.9\nEast,70,37.1,35.8\nTotal,285,37.6,36.3\n"
	_, _, rep, _ := checkCSV(t, text, "--value", "median")
	cs, _ := rep["cells"].([]any)
	stats := 0
	for _, c := range cs {
		m := c.(map[string]any)
		k, _ := m["key"].(map[string]any)
		if a, _ := k["across"].(string); a == "Median" || a == "Mean" {
			stats++
			if b, _ := json.Marshal(m); m["status"] != "review" || m["n"] != nil {
				t.Errorf("a statistic beside an estimated count: %s, want review with no count", b)
			}
		}
	}
	if stats != 8 {
		t.Fatalf("%d statistic cells, want 8 (the layout was not read as the test expects)", stats)
	}
	ws := reportWarnings(rep)
	if !strings.Contains(ws, `the statistics "Median", "Mean" have no number of contributors: "Number of jobs (thousand)" beside them is no margin`) {
		t.Errorf("no warning says why the statistics are review:\n%s", ws)
	}
	st, _ := rep["structure"].(map[string]any)
	if notes, _ := json.Marshal(st["notes"]); !strings.Contains(string(notes), "have no number of contributors") {
		t.Errorf("structure.notes %s lack the cause", notes)
	}
	// a count confirmed by a margin: the statistic is judged with it
	text = "Area,Workers,Employees,Self-employed,Median age\n" +
		"North,120,80,40,41\nSouth,95,70,25,38\nEast,70,50,20,44\nTotal,285,200,85,40\n"
	_, _, rep, _ = checkCSV(t, text, "--value", "count")
	for _, c := range rep["cells"].([]any) {
		m := c.(map[string]any)
		k, _ := m["key"].(map[string]any)
		if k["across"] == "Median age" && m["n"] == nil {
			t.Errorf("a median beside a confirmed count has no count: %v", k)
		}
	}
	if ws := reportWarnings(rep); strings.Contains(ws, "no number of contributors") {
		t.Errorf("a warning of statistics without their count beside a confirmed count:\n%s", ws)
	}
}
