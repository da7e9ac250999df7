package writers_test

import (
	"testing"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/writers"
)

// The workbook's Crosstab sheet (issue 29 item 4): every column is wide
// enough for what it shows (no label cut, no number as ###), and each
// flagged cell carries, in every statistic's block, the same comment as
// its status cell on the Cells sheet; ok cells carry none.
func TestCrosstabSheetWidthsAndComments(t *testing.T) {
	tab := sampleTable()
	f := openAnnotated(t, tab)
	// the Cells sheet's comments by cell key
	byKey := map[string]string{}
	cellsComments, err := f.GetComments(writers.SheetCells)
	if err != nil {
		t.Fatal(err)
	}
	cellsRows, _ := f.GetRows(writers.SheetCells)
	for _, c := range cellsComments {
		_, r, _ := excelize.CellNameToCoordinates(c.Cell)
		row := cellsRows[r-1]
		byKey[row[0]+"/"+row[1]] = commentText(c)
	}
	if len(byKey) == 0 {
		t.Fatal("setup: the Cells sheet has no comments")
	}
	xComments, err := f.GetComments(writers.SheetCrosstab)
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]string{}
	for _, c := range xComments {
		at[c.Cell] = commentText(c)
	}
	rows, _ := f.GetRows(writers.SheetCrosstab)
	// blocks: title, header (region, levels across...), body rows, blank
	want, seen := 0, 0
	for r := 0; r < len(rows); r++ {
		if len(rows[r]) == 0 || r+1 >= len(rows) || len(rows[r+1]) < 2 || rows[r+1][0] != "region" {
			continue
		}
		hdr := rows[r+1]
		for b := r + 2; b < len(rows) && len(rows[b]) > 0; b++ {
			for j := 1; j < len(hdr); j++ {
				ref, _ := excelize.CoordinatesToCellName(j+1, b+1)
				key := rows[b][0] + "/" + hdr[j]
				if w, flagged := byKey[key]; flagged {
					want++
					if at[ref] != w {
						t.Errorf("%s (%s): comment %q, want the Cells sheet's %q", ref, key, at[ref], w)
					} else {
						seen++
					}
				} else if at[ref] != "" {
					t.Errorf("%s (%s): an ok cell has the comment %q", ref, key, at[ref])
				}
			}
		}
	}
	if want == 0 || seen != len(xComments) {
		t.Errorf("%d flagged places, %d comments matched, %d comments on the sheet", want, seen, len(xComments))
	}
	// widths: each column at least as wide as its longest text plus room
	for _, row := range rows {
		for j, v := range row {
			if j == 0 && len(row) == 1 {
				continue // a block's title spans the row
			}
			col, _ := excelize.ColumnNumberToName(j + 1)
			w, err := f.GetColWidth(writers.SheetCrosstab, col)
			if err != nil {
				t.Fatal(err)
			}
			if n := utf8.RuneCountInString(v); w < float64(n)+1 {
				t.Errorf("column %s is %.1f wide for %q (%d characters)", col, w, v, n)
			}
		}
	}
}
