package pipeline

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/readers"
)

// TestHeaderErrorNamesItsRow: a column the header of a long table lacks is
// reported at the row the header is on (row 8 under a title and notes),
// not row 1 (issue 23 item 12).
func TestHeaderErrorNamesItsRow(t *testing.T) {
	f := excelize.NewFile()
	f.SetCellValue("Sheet1", "A1", "Table 3. Enterprises by region")
	f.SetCellValue("Sheet1", "A3", "Source: business register")
	rows := [][]any{{"region", "sector", "turnover"}, {"North", "A", 10}, {"North", "B", 12}, {"South", "A", 7}, {"South", "B", 9}}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, 8+i)
		f.SetSheetRow("Sheet1", cell, &r)
	}
	p := filepath.Join(t.TempDir(), "t.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	for _, y := range []string{"microdata: {dims: [region, sektor], value: turnover}", "columns: {dims: [region, sector], total: turnoverx}"} {
		srcs, err := readers.Open(p, readers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = AuditSource(context.Background(), srcs[0], settings(t, y), 1)
		srcs[0].Close()
		var re *readers.Error
		if !errors.As(err, &re) || !errors.Is(err, readers.ErrColumn) || re.Row != 8 {
			t.Errorf("%s: %v, want a missing column at row 8", y, err)
		}
	}
}
