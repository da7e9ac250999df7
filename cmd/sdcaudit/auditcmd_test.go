package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/writers"
)

// A workbook crosstab (regions down the side, sectors across the top, a
// Total column) read as --dims region --total Total: its markers are in
// columns the audit does not read, so the audit refuses it (exit 3) and
// names file, sheet, row and column instead of passing an empty audit.
func TestAuditRefusesCrosstabWorkbook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cross.xlsx")
	f := excelize.NewFile()
	sheet := "Turnover"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{"region", "S1", "S2", "S3", "S4", "Total"},
		{"R1", 100, "x", "x", 40, 300},
		{"R2", "x", "x", 90, "x", 400},
		{"R3", "x", 150, "x", 60, 500},
		{"R4", 70, "x", 110, "x", 380},
		{"Total", 300, 410, 520, 350, 1580},
	}
	for r, row := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, r+1)
		if err := f.SetSheetRow(sheet, cell, &row); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"audit", path, "--dims", "region", "--total", "Total", "--json"}, &stdout, &stderr)
	if code != 3 {
		t.Fatalf("exit %d, want 3; stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"cross.xlsx", `sheet "Turnover"`, "row 2", `column "S2"`, "suppression marker"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}

// The audit prints intervals as people read them: separators, no exponent.
func TestPrintAuditReadable(t *testing.T) {
	tab := &audit.Table{Source: "t.csv", Dims: []string{"region"}}
	r := &audit.Intervals{Cells: []audit.Interval{
		{Key: []string{"North"}, Lo: 0, Hi: 2933340, Protected: true},
		{Key: []string{"South"}, Lo: 1250.5, Hi: math.Inf(1), Protected: true},
	}}
	var b bytes.Buffer
	printAudit(&b, tab, r)
	out := b.String()
	for _, want := range []string{"2 suppressed cells in t.csv", "[0, 2,933,340]", "[1,250.5, unbounded]"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "e+") || strings.Contains(out, "(s)") {
		t.Errorf("audit output not plain:\n%s", out)
	}
}

// The end of check points at summary.html and the annotated workbook of a
// flagged table first.
func TestSummaryPointsAtHumanOutputs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, writers.HTMLFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &writers.RunSummary{Tables: []writers.TableSummary{{Table: "grants",
		Outputs: []string{"grants.report.json", "grants.safe.csv", "grants.annotated.xlsx"}, Summary: audit.Summary{Cells: 2, Primary: 1}}}}
	s.NeedsPerson = true
	var b bytes.Buffer
	printSummary(&b, dir, s)
	out := b.String()
	html := strings.Index(out, "summary.html")
	xlsx := strings.Index(out, "grants.annotated.xlsx")
	if html < 0 || xlsx < html || strings.Contains(out, "report.json") {
		t.Errorf("summary does not point at summary.html, then the workbook:\n%s", out)
	}
}

// Every command's --help has examples; check, run and audit list the exit
// codes 0 to 4.
func TestHelpExamplesAndExitCodes(t *testing.T) {
	root := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() != "help" && c.Name() != "completion" && !c.Hidden {
			if c.Example == "" {
				t.Errorf("%s --help has no examples", c.CommandPath())
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for _, name := range []string{"check", "run", "audit"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range []string{"0 ", "1 ", "2 ", "3 ", "4 "} {
			if !strings.Contains(c.Long[strings.Index(c.Long, "Exit codes:"):], code) {
				t.Errorf("%s --help does not explain exit code %s", name, code)
			}
		}
	}
}
