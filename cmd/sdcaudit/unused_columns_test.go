package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/writers"
)

// TestMicrodataUnusedColumns: the columns of record-level input that are
// neither a dimension, the value nor the holding were ignored without a
// word. They are listed by name (report.json structure.unused_columns, a
// table warning, summary.html and the workbook's Summary sheet), never
// with a value; the columns used are not.
func TestMicrodataUnusedColumns(t *testing.T) {
	text := "id,region,sex,income,enterprise,comment,region2\n" +
		"1,N,M,10,e1,secretA,x\n2,N,F,12,e2,secretB,x\n3,S,M,30,e3,secretC,y\n4,S,F,14,e4,secretD,y\n"
	_, _, rep, out := checkCSV(t, text, "--dims", "region,sex", "--value", "income", "--holding", "enterprise")
	st, _ := rep["structure"].(map[string]any)
	un, _ := st["unused_columns"].([]any)
	var names []string
	for _, u := range un {
		names = append(names, u.(string))
	}
	if strings.Join(names, ",") != "id,comment,region2" {
		t.Errorf("structure.unused_columns %q, want id, comment and region2 in input order", names)
	}
	if ws := reportWarnings(rep); !strings.Contains(ws, `3 columns of the input not used ("id", "comment", "region2")`) {
		t.Errorf("no warning names the columns not used:\n%s", ws)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.html"))
	if err != nil {
		t.Fatal(err)
	}
	if h := string(b); !strings.Contains(h, "columns not used") || !strings.Contains(h, "region2") || strings.Contains(h, "secret") {
		t.Errorf("summary.html does not name the columns not used, or shows a value")
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
	var listed []string
	for _, r := range rows {
		if len(r) >= 2 && r[0] == "unused column" {
			listed = append(listed, r[1])
		}
	}
	if strings.Join(listed, ",") != "id,comment,region2" {
		t.Errorf("Summary sheet lists %q as unused columns, want id, comment, region2", listed)
	}
	// every column used: no field, no warning
	_, _, rep, _ = checkCSV(t, "region,sex,income\nN,M,10\nN,F,12\nS,M,30\nS,F,14\n", "--dims", "region,sex", "--value", "income")
	if st, ok := rep["structure"]; ok {
		t.Errorf("every column used: structure %v, want none", st)
	}
	if ws := reportWarnings(rep); strings.Contains(ws, "not used") {
		t.Errorf("every column used, yet a warning:\n%s", ws)
	}
}
