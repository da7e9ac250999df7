package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/readers"
)

// TestNoDataRows: a table with a header and no records, in every format
// (CSV, XLSX, Arrow file and stream, Parquet), read as microdata, as an
// aggregate table or as a cell summary, is an input error "no data rows"
// naming the file (and the sheet), never an audit of zero cells that
// passes (issue 23 item 3).
func TestNoDataRows(t *testing.T) {
	dir := t.TempDir()
	cols := []column{{name: "region", typ: arrow.BinaryTypes.String}, {name: "sex", typ: arrow.BinaryTypes.String}, {name: "v", typ: arrow.PrimitiveTypes.Int64}}
	for _, y := range []string{"microdata: {dims: [region, sex], value: v}", "columns: {dims: [region, sex], count: v}"} {
		for _, p := range writeFormats(t, dir, "empty", cols) {
			srcs, err := readers.Open(p, readers.Options{})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			_, err = AuditSource(context.Background(), srcs[0], settings(t, y), 2)
			srcs[0].Close()
			var re *readers.Error
			if !errors.As(err, &re) || !errors.Is(err, readers.ErrNoRows) || re.File != p {
				t.Errorf("%s (%s): %v, want a *readers.Error wrapping ErrNoRows", filepath.Base(p), y, err)
				continue
			}
			if strings.HasSuffix(p, ".xlsx") && re.Sheet != "Sheet1" {
				t.Errorf("%s: the error names no sheet: %v", p, err)
			}
		}
	}
	// a CSV whose header is followed by empty lines only, and a cell
	// summary with a header only, through Run
	os.WriteFile(filepath.Join(dir, "blank.csv"), []byte("region,v\n\n\r\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "cells.csv"), []byte("region,grouping_id,rows,n,missing,negative,total,min,max,top,scale,sum_pow_1,sum_pow_2,meta\n"), 0o644)
	for _, j := range []Job{
		{Path: filepath.Join(dir, "blank.csv"), Settings: settings(t, "microdata: {dims: [region], value: v}")},
		{Path: filepath.Join(dir, "cells.csv"), Settings: settings(t, "microdata: {dims: [region], value: v}"), Cells: true},
	} {
		_, err := Run(context.Background(), []Job{j}, Options{Out: filepath.Join(dir, "out")})
		if !errors.Is(err, readers.ErrNoRows) || !strings.Contains(err.Error(), j.Path) {
			t.Errorf("%s: %v, want no data rows", j.Path, err)
		}
	}
}

// TestEveryValueMissing: records whose every value is missing are not "no
// data rows" (the file has records; each says its value is unknown): every
// cell is review by the missing rule and none is ok, so the run exits 1,
// not 0 and not 3 (docs/formats.md).
func TestEveryValueMissing(t *testing.T) {
	tab, err := auditText(t, "g,v\na,\nb,NA\nb,.\n", "microdata: {dims: [g], value: v}")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Cells) != 3 {
		t.Fatalf("%d cells, want 3", len(tab.Cells))
	}
	for _, c := range tab.Cells {
		if c.Status != audit.StatusReview {
			t.Errorf("cell %v is %s, want review", c.Key, c.Status)
		}
	}
}
