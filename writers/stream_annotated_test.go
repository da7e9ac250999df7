package writers_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/writers"
)

// TestAnnotatedExplanationColumn: a table with more flagged cells than
// the workbook explains in comments gets no comments but an explanation
// column holding, for each flagged row, exactly the text its comment has
// when the table is under the limit; the other columns are unchanged, two
// writes are byte-identical, and the Legend says where the explanations
// are.
func TestAnnotatedExplanationColumn(t *testing.T) {
	for _, mk := range []func(*testing.T) *audit.Table{func(*testing.T) *audit.Table { return sampleTable() }, readableTable} {
		tab := mk(t)
		small := openAnnotated(t, tab)
		comments, err := small.GetComments(writers.SheetCells)
		if err != nil {
			t.Fatal(err)
		}
		if len(comments) < 2 {
			t.Fatalf("setup: %d comments", len(comments))
		}
		byRow := map[int]string{}
		for _, c := range comments {
			_, r, err := excelize.CellNameToCoordinates(c.Cell)
			if err != nil {
				t.Fatal(err)
			}
			byRow[r] = commentText(c)
		}
		smallRows, err := small.GetRows(writers.SheetCells)
		if err != nil {
			t.Fatal(err)
		}

		data := render(t, writers.Annotated{Options: writers.Options{MaxComments: len(comments) - 1}}, tab)
		big, err := excelize.OpenReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer big.Close()
		if c, _ := big.GetComments(writers.SheetCells); len(c) != 0 {
			t.Errorf("%s: %d comments above the limit, want none", tab.Name, len(c))
		}
		rows, err := big.GetRows(writers.SheetCells)
		if err != nil {
			t.Fatal(err)
		}
		width := len(smallRows[0])
		if len(rows) != len(smallRows) || len(rows[0]) != width+1 || rows[0][width] != "explanation" {
			t.Fatalf("%s: header %q (%d rows), want %q and explanation", tab.Name, rows[0], len(rows), smallRows[0])
		}
		for r := range rows {
			got := rows[r]
			want := ""
			if r > 0 {
				want = byRow[r+1]
			}
			expl := ""
			if len(got) > width {
				expl = got[width]
			}
			if r > 0 && expl != want {
				t.Errorf("%s row %d: explanation %q, want the comment %q", tab.Name, r+1, expl, want)
			}
			if g, w := padTo(got, width), padTo(smallRows[r], width); strings.Join(g, "|") != strings.Join(w, "|") {
				t.Errorf("%s row %d: %q, want %q", tab.Name, r+1, g, w)
			}
		}
		legend, err := big.GetRows(writers.SheetLegend)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(joinRows(legend), "explanation column") {
			t.Errorf("%s: the legend does not point to the explanation column: %q", tab.Name, legend)
		}
	}
}

// TestAnnotatedCrosstabBounded: a table whose crosstab would hold more
// values than the limit gets a note on the Crosstab sheet instead.
func TestAnnotatedCrosstabBounded(t *testing.T) {
	tab := sampleTable()
	f := openAnnotated(t, tab)
	rows, _ := f.GetRows(writers.SheetCrosstab)
	if len(rows) < 3 {
		t.Fatalf("setup: the crosstab has %d rows", len(rows))
	}
	f = openAnnotatedWith(t, writers.Annotated{Options: writers.Options{MaxCrosstabValues: 1}}, tab)
	rows, _ = f.GetRows(writers.SheetCrosstab)
	if len(rows) != 1 || !strings.Contains(rows[0][0], "too large to show as a crosstab") {
		t.Errorf("crosstab above the limit: %q", rows)
	}
}

func commentText(c excelize.Comment) string {
	var b strings.Builder
	for _, p := range c.Paragraph {
		b.WriteString(p.Text)
	}
	return b.String()
}

func padTo(row []string, n int) []string {
	out := make([]string, n)
	copy(out, row[:min(len(row), n)])
	return out
}

func joinRows(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestAnnotatedExplanationHonoursCancellation: the annotated workbook
// with its explanation column (more flagged cells than comments), and its
// deflated entries, stops soon after its context is cancelled, at any
// point of the write, and leaves no file behind.
func TestAnnotatedExplanationHonoursCancellation(t *testing.T) {
	tab := bigTable(6000)
	w := writers.Annotated{Options: writers.Options{MaxComments: 10}}
	full := newCountdown(1 << 40)
	dir := t.TempDir()
	if err := writers.WriteTable(full, dir, w, tab); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, w.File(tab)))
	if err != nil {
		t.Fatal(err)
	}
	head, _ := f.GetRows(writers.SheetCells)
	f.Close()
	if len(head) == 0 || head[0][len(head[0])-1] != "explanation" {
		t.Fatalf("setup: the workbook has no explanation column")
	}
	total := full.looks.Load()
	for _, k := range []int64{0, 1, 3, total / 3, total / 2, total - 2, total - 1} {
		ctx := newCountdown(k)
		dir := t.TempDir()
		err := writers.WriteTable(ctx, dir, w, tab)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d of %d looks: err = %v, want context.Canceled", k, total, err)
		}
		if extra := ctx.looks.Load() - ctx.first.Load(); extra > 3 {
			t.Errorf("cancelled after %d looks: %d more looks before returning", k, extra)
		}
		assertEmpty(t, dir)
	}
}
