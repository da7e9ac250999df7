package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestFindingsStayWithTheirCell: Evaluate gives the cells of a chunk one
// slab of findings. On a table of two chunks, without and with secondary
// suppression (which appends a finding to the cells it suppresses), every
// cell holds exactly its own findings: one per rule in the rule set's
// order, then the table's later ones, each finding that refers to a cell
// referring to this cell; and appending a finding to every cell leaves
// every cell's earlier findings as they were.
func TestFindingsStayWithTheirCell(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	// 40 x 40 finest cells (1,681 with margins: two chunks), each with
	// twelve records of spread values but every 37th with one, which the
	// threshold rule fails and secondary suppression must protect
	path := filepath.Join(t.TempDir(), "cells.csv")
	var b strings.Builder
	b.WriteString("id,a,b,turnover\n")
	id := 0
	for i := range 40 {
		for j := range 40 {
			n := 12
			if (i*40+j)%37 == 0 {
				n = 1
			}
			for k := range n {
				id++
				fmt.Fprintf(&b, "%d,A%02d,B%02d,%d\n", id, i, j, 100+10*k+i+j)
			}
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, secondary := range []bool{false, true} {
		s := settings(t, fmt.Sprintf("microdata: {dims: [a, b], value: turnover}\nsuppression: {secondary: %v}\n", secondary))
		// the joint search's budget (testJointWork) only changes which
		// cells are secondary: this test is about the findings every
		// cell holds, and still needs some secondary cells (appended)
		res, err := Run(context.Background(), []Job{{Path: path, Settings: s}}, Options{Out: t.TempDir(), JointWork: testJointWork()})
		if err != nil {
			t.Fatal(err)
		}
		checkOwnFindings(t, res.Tables[0], secondary)
	}
}

func checkOwnFindings(t *testing.T, tab *audit.Table, secondary bool) {
	t.Helper()
	if len(tab.Cells) <= 1024 {
		t.Fatalf("%d cells, want more than one chunk", len(tab.Cells))
	}
	var rules []string // the rules' findings of an ok cell
	for _, c := range tab.Cells {
		if c.Status == audit.StatusOK {
			for _, f := range c.AllFindings() {
				rules = append(rules, f.Rule)
			}
			break
		}
	}
	appended := 0
	for i, c := range tab.Cells {
		if len(c.AllFindings()) < len(rules) {
			t.Fatalf("cell %d: %d findings, want at least %d", i, len(c.AllFindings()), len(rules))
		}
		for j, f := range c.AllFindings() {
			if j < len(rules) && f.Rule != rules[j] {
				t.Fatalf("cell %d: finding %d is %s, want %s", i, j, f.Rule, rules[j])
			}
			if j >= len(rules) && f.Rule == "secondary" {
				appended++
			}
			if f.Cell != nil && f.Cell != c {
				t.Fatalf("cell %d: finding %d (%s) refers to another cell", i, j, f.Rule)
			}
		}
	}
	if secondary && appended == 0 {
		t.Fatal("no secondary suppression: the appends this test is about did not happen")
	}
	// append to every cell; no cell's findings change
	before := make([][]audit.Finding, len(tab.Cells))
	for i, c := range tab.Cells {
		before[i] = append([]audit.Finding(nil), c.AllFindings()...)
	}
	for _, c := range tab.Cells {
		c.Findings = append(c.Findings, audit.Said("extra", audit.Review, "appended", nil))
	}
	for i, c := range tab.Cells {
		for j, f := range before[i] {
			if g := c.AllFindings()[j]; g.Rule != f.Rule || g.Outcome != f.Outcome || g.Message() != f.Message() || g.Cell != f.Cell {
				t.Fatalf("appending to the cells changed cell %d's finding %d: %s, was %s", i, j, g.Rule, f.Rule)
			}
		}
	}
}
