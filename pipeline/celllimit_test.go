package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
)

// idRecords writes n records whose region and sector are each the
// record's own (two ids taken for dimensions).
func idRecords(n int) string {
	var b strings.Builder
	b.WriteString("region,sector,v\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "R%d,S%d,%d\n", i, i, i+1)
	}
	return b.String()
}

// TestImpliedCellsRefused: 1,000 records that each carry their own region
// and sector imply 1001 x 1001 = 1,002,001 cells; they are refused before
// any cell is built, with a configuration error naming each dimension, its
// level count and the keys that raise the limits; the keys do raise them
// (issue 23 item 7).
func TestImpliedCellsRefused(t *testing.T) {
	_, err := auditText(t, idRecords(1000), "microdata: {dims: [region, sector], value: v}")
	var ce *configs.Error
	if !errors.As(err, &ce) || !errors.Is(err, configs.ErrInvalid) {
		t.Fatalf("%v, want a configuration error", err)
	}
	for _, want := range []string{"in.csv: the dimensions imply 1002001 cells", "for 1000 records", "region has 1000 levels and the total", "sector has 1000 levels and the total", "1002 per record, more than input.max_cells_per_record (100)", "raise input.max_cells or input.max_cells_per_record"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message lacks %q: %v", want, err)
		}
	}
	// a cap on cells alone, with a hierarchy's parent codes as margins
	_, err = auditText(t, idRecords(60), "microdata: {dims: [region, sector], value: v}\ninput: {max_cells: 3000}\nsuppression: {hierarchies: {region: {R1: North, R2: North, R3: South}}}")
	if err == nil || !strings.Contains(err.Error(), "imply 3843 cells") || !strings.Contains(err.Error(), "region has 60 levels and 3 margins (the total and 2 parent codes)") || !strings.Contains(err.Error(), "more than input.max_cells (3000)") {
		t.Errorf("max_cells: %v", err)
	}
	// raised: the table is built
	tab, err := auditText(t, idRecords(320), "microdata: {dims: [region, sector], value: v}\ninput: {max_cells_per_record: 1000}\nrules: {dominance: {enabled: false}, p_percent: {enabled: false}}\nsuppression: {secondary: false}")
	if err != nil || len(tab.Cells) != 321*321 {
		t.Fatalf("raised limit: %v", err)
	}
}

// TestImpliedCellsOfASummary: a cell summary whose finest cells imply an
// explosion of empty cells is refused the same way.
func TestImpliedCellsOfASummary(t *testing.T) {
	meta := `"{""schema"":1,""table"":""t"",""dims"":[""region"",""sector""],""value"":""v"",""k"":2,""powers"":2,""scale"":0,""engine"":""postgres""}"`
	var b strings.Builder
	b.WriteString("region,sector,grouping_id,rows,n,missing,negative,total,min,max,top,scale,sum_pow_1,sum_pow_2,meta\n")
	const n = 400
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "R%d,S%d,0,1,1,0,0,1,1,1,1,0,1,1,%s\n", i, i, meta)
		fmt.Fprintf(&b, "R%d,,1,1,1,0,0,1,1,1,1,0,1,1,%s\n", i, meta)
		fmt.Fprintf(&b, ",S%d,2,1,1,0,0,1,1,1,1,0,1,1,%s\n", i, meta)
	}
	fmt.Fprintf(&b, ",,3,%d,%d,0,0,%d,1,1,1;1,0,%d,%d,%s\n", n, n, n, n, n, meta)
	_, err := cellsText(t, b.String(), "microdata: {dims: [region, sector], value: v}")
	if err == nil || !strings.Contains(err.Error(), "the dimensions imply 160801 cells") || !strings.Contains(err.Error(), "for 400 records") {
		t.Fatalf("%v, want the implied cells refused", err)
	}
}

// cellsText runs a cell summary given as CSV text through Run.
func cellsText(t *testing.T, text, y string) (*Result, error) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "cells.csv")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), []Job{{Path: p, Name: "t", Settings: settings(t, y), Cells: true}}, Options{Out: filepath.Join(dir, "out")})
}
