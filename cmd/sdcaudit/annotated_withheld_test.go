package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/writers"
)

// TestAnnotatedMarksWithheldOutsideTable: a number outside a wide
// workbook's table (a "Not stated" count below the notes) is withheld
// from the safe tables unaudited; the annotated copy of the workbook
// showed it like any other note, unmarked. It is filled like a cell to
// review, with a comment saying it lies outside the table, was not
// audited and is withheld, and how to publish it (columns.safe with its
// sheet-qualified reference), never quoting the value; the Summary
// sheet lists every such value.
func TestAnnotatedMarksWithheldOutsideTable(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.xlsx")
	f := excelize.NewFile()
	const sheet = "Injuries 2019"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{"Injuries by area"},
		{"Area", "Men", "Women", "Total"},
		{"North", 12, 8, 20},
		{"South", 11, 13, 24},
		{"Total", 23, 21, 44},
		{},
		{"Source: survey 2019"},
		{"Not known", nil, 2},
		{"Not stated", nil, nil, 3917},
	}
	for i, r := range rows {
		ref, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow(sheet, ref, &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SaveAs(in); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", in, "--out", out, "--value", "count", "--quiet"}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	a, err := excelize.OpenFile(filepath.Join(out, "t.annotated.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	comments, err := a.GetComments(sheet)
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, c := range comments {
		var b strings.Builder
		for _, p := range c.Paragraph {
			b.WriteString(p.Text)
		}
		text[c.Cell] = b.String() + c.Text
	}
	for _, ref := range []string{"C8", "D9"} {
		id, err := a.GetCellStyle(sheet, ref)
		if err != nil {
			t.Fatal(err)
		}
		st, err := a.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Fill.Color) == 0 || !strings.EqualFold(strings.TrimPrefix(st.Fill.Color[0], "#"), writers.Palette["review"]) {
			t.Errorf("%s: fill %v, want the review colour %s", ref, st.Fill.Color, writers.Palette["review"])
		}
		c := text[ref]
		for _, want := range []string{"outside the table", "not audited", "withheld", "columns: {safe: [\"'Injuries 2019'!" + ref + "\"]}"} {
			if !strings.Contains(c, want) {
				t.Errorf("%s: comment %q lacks %q", ref, c, want)
			}
		}
		if strings.Contains(c, "3917") {
			t.Errorf("%s: the comment quotes the withheld value: %q", ref, c)
		}
	}
	// the notes' texts are left as they were
	for _, ref := range []string{"A7", "A8", "A9"} {
		if _, ok := text[ref]; ok {
			t.Errorf("%s: commented, want only the withheld values and the flagged cells of the table", ref)
		}
	}
	sum, err := a.GetRows(writers.SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range sum {
		if len(r) >= 3 && r[0] == "withheld" {
			listed = append(listed, r[1])
			if strings.Contains(strings.Join(r, " "), "3917") {
				t.Errorf("Summary row %q quotes the withheld value", r)
			}
		}
	}
	if strings.Join(listed, "; ") != `C8 (row "Not known"); D9 (row "Not stated")` {
		t.Errorf("Summary sheet lists %q as withheld, want C8 and D9 with their row labels", listed)
	}
	if b, err := os.ReadFile(filepath.Join(out, "summary.html")); err != nil || strings.Contains(string(b), "3917") {
		t.Errorf("summary.html quotes the withheld value (or is missing: %v)", err)
	}
	// the comment's instruction works: declared safe, D9 is published
	// and no longer marked
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("columns: {safe: [\"'Injuries 2019'!D9\"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "out2")
	if code := run([]string{"check", in, "--out", out2, "--value", "count", "--quiet", "--config", cfg}, &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out2, "t.safe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Not stated,,,3917") {
		t.Errorf("declared safe by the comment's reference, D9 is not published:\n%s", b)
	}
	a2, err := excelize.OpenFile(filepath.Join(out2, "t.annotated.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	cs, _ := a2.GetComments(sheet)
	for _, c := range cs {
		if c.Cell == "D9" {
			t.Errorf("D9 declared safe is still commented as withheld")
		}
	}
}

// TestSummaryListsEveryWithheldValue: with more values outside a wide
// CSV table than the structure line names, the annotated workbook's
// Summary sheet lists every one (reference and row label), and
// summary.html says where the full list is.
func TestSummaryListsEveryWithheldValue(t *testing.T) {
	text := "Injuries by area\nArea,Men,Women,Total\nNorth,12,8,20\nSouth,11,13,24\nTotal,23,21,44\n\nSource: survey 2019\n"
	for _, l := range []string{"Not known", "Not stated", "Refused", "Other", "Abroad", "Unknown", "Missing", "Late"} {
		text += l + ",,,3\n"
	}
	_, _, rep, out := checkCSV(t, text, "--value", "count")
	st, _ := rep["structure"].(map[string]any)
	un, _ := st["unaudited"].([]any)
	if len(un) != 8 {
		t.Fatalf("structure.unaudited has %d values, want 8", len(un))
	}
	f, err := excelize.OpenFile(filepath.Join(out, "t.annotated.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(writers.SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if len(r) >= 2 && r[0] == "withheld" {
			if r[1] != un[n] {
				t.Errorf("Summary sheet withheld row %d: %q, want %q", n, r[1], un[n])
			}
			n++
		}
	}
	if n != 8 {
		t.Errorf("the Summary sheet lists %d withheld values, want 8", n)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "every one on the annotated workbook&#39;s Summary sheet") {
		t.Errorf("summary.html does not say where the full list of withheld values is")
	}
}
