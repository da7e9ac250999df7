package readers

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestWideIndents: the levels of indentation of the row labels, by the
// long key's dimension then label: leading spaces in CSV and in a
// workbook's text, and a workbook cell's indent style (Alignment >
// Indent), which ranks first; a label at two levels leaves its column
// without indentation. Before, a workbook's indent style was not read.
func TestWideIndents(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(csvPath, []byte("Industry,Men,Women\nAll,10,12\n  Food,4,5\n  Other,6,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clash := filepath.Join(dir, "clash.csv")
	if err := os.WriteFile(clash, []byte("Region,Area,Men,Women\nNorth,All,10,12\nNorth,  Food,4,5\nSouth,  All,10,12\nSouth,Food,4,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := excelize.NewFile()
	rows := [][]any{{"Industry", "Men", "Women"}, {"All", 10, 12}, {"Food", 4, 5}, {"Other", 6, 7}, {"  Spaced", 1, 1}}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Sheet1", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	id, err := f.NewStyle(&excelize.Style{Alignment: &excelize.Alignment{Indent: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellStyle("Sheet1", "A3", "A4", id); err != nil {
		t.Fatal(err)
	}
	xlsxPath := filepath.Join(dir, "t.xlsx")
	if err := f.SaveAs(xlsxPath); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want map[int]map[string]int
	}{
		{csvPath, map[int]map[string]int{0: {"Food": 2, "Other": 2}}},
		{xlsxPath, map[int]map[string]int{0: {"Food": 2 * 1024, "Other": 2 * 1024, "Spaced": 2}}},
		{clash, map[int]map[string]int{}},
	} {
		_, lay, _, _ := readDetected(t, tc.path, "", "count")
		got := lay.Indents()
		if len(got) != len(tc.want) {
			t.Errorf("%s: indents %v, want %v", filepath.Base(tc.path), got, tc.want)
			continue
		}
		for d, w := range tc.want {
			if !maps.Equal(got[d], w) {
				t.Errorf("%s: indents %v, want %v", filepath.Base(tc.path), got, tc.want)
			}
		}
	}
}

// TestWideIndentTabs: labels indented by tabs have one level per tab;
// a column whose labels mix tabs and spaces in their indentation (or a
// label led by both) has no indentation, so the other finders decide.
// Before, a leading tab counted as no indentation: a tab-indented block
// under a space-indented parent read as siblings of its parent (review
// finding F4: Retail given back from the safe table).
func TestWideIndentTabs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		want       map[int]map[string]int
	}{
		{"tabs", "Industry,Men,Women\nAll,10,12\n\tFood,4,5\n\t\tBread,2,2\n\t\tMeat,2,3\n\tOther,6,7\n", map[int]map[string]int{0: {"Food": 1, "Bread": 2, "Meat": 2, "Other": 1}}},
		{"mixed", "Industry,Men,Women\nAll,10,12\n  Food,4,5\n\tBread,2,2\n\tMeat,2,3\n  Other,6,7\n", map[int]map[string]int{}},
		{"both in one label", "Industry,Men,Women\nAll,10,12\n  Food,4,5\n  \tBread,2,2\n  \tMeat,2,3\n  Other,6,7\n", map[int]map[string]int{}},
	} {
		path := filepath.Join(dir, "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, lay, _, _ := readDetected(t, path, "", "count")
		got := lay.Indents()
		if len(got) != len(tc.want) {
			t.Errorf("%s: indents %v, want %v", tc.name, got, tc.want)
			continue
		}
		for d, w := range tc.want {
			if !maps.Equal(got[d], w) {
				t.Errorf("%s: indents %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}
