package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/writers"
)

// printSummary prints the short human summary of a run.
func printSummary(w io.Writer, dir string, s *writers.RunSummary) {
	t := s.Totals
	fmt.Fprintf(w, "%d table(s), %d cells: %d ok, %d primary, %d secondary, %d review\n", len(s.Tables), t.Cells, t.OK, t.Primary, t.Secondary, t.Review)
	for _, ts := range s.Tables {
		x := ts.Summary
		var rules []string
		for _, r := range slices.Sorted(maps.Keys(x.ByRule)) {
			rules = append(rules, fmt.Sprintf("%s %d", r, x.ByRule[r]))
		}
		line := fmt.Sprintf("  %-24s %6d cells  %5d primary  %5d secondary  %5d review", ts.Table, x.Cells, x.Primary, x.Secondary, x.Review)
		if len(rules) > 0 {
			line += "  (" + strings.Join(rules, ", ") + ")"
		}
		fmt.Fprintln(w, line)
	}
	verdict := "nothing needs a person"
	if s.NeedsPerson {
		verdict = "some cells need a person"
	}
	fmt.Fprintf(w, "reports in %s/ — %s\n", dir, verdict)
	for _, line := range nextSteps(dir, s) {
		fmt.Fprintln(w, line)
	}
}

// nextSteps points at the outputs a person reads: summary.html first,
// then the annotated workbook of each table with flagged cells, then the
// publishable tables.
func nextSteps(dir string, s *writers.RunSummary) []string {
	var out []string
	if _, err := os.Stat(filepath.Join(dir, writers.HTMLFile)); err == nil {
		out = append(out, "  open "+filepath.Join(dir, writers.HTMLFile)+" first: what to do next, flagged cells first")
	}
	for _, ts := range s.Tables {
		if !ts.Summary.NeedsPerson() {
			continue
		}
		for _, o := range ts.Outputs {
			if strings.HasSuffix(o, ".annotated.xlsx") {
				out = append(out, "  "+filepath.Join(dir, o)+": each flagged cell explained in a comment")
			}
		}
	}
	for _, ts := range s.Tables {
		for _, o := range ts.Outputs {
			if strings.HasSuffix(o, ".safe.csv") || strings.HasSuffix(o, ".safe.xlsx") {
				out = append(out, "  "+filepath.Join(dir, o)+": publishable once the checker agrees")
			}
		}
	}
	return out
}
