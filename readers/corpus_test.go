package readers

import (
	"errors"
	"io"
	"math/big"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/internal/corpus"
)

const corpusDir = "../testdata/corpus"

// buildCorpus writes every workbook of the corpus once per test.
func buildCorpus(t *testing.T) (tables []corpus.Table, paths map[string]string, books map[string]*corpus.Workbook) {
	t.Helper()
	tables, err := corpus.Manifest(filepath.Join(corpusDir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, books = map[string]string{}, map[string]*corpus.Workbook{}
	for _, tb := range tables {
		if _, ok := paths[tb.File]; ok {
			continue
		}
		cells := filepath.Join(corpusDir, tb.File)
		p, err := corpus.Build(cells, dir)
		if err != nil {
			t.Fatal(err)
		}
		w, err := corpus.Load(cells)
		if err != nil {
			t.Fatal(err)
		}
		paths[tb.File], books[tb.File] = p, w
	}
	return tables, paths, books
}

func colIndex(t *testing.T, letters string) int {
	t.Helper()
	c, err := excelize.ColumnNameToNumber(letters)
	if err != nil {
		t.Fatal(err)
	}
	return c - 1
}

func ref(r, c int) string {
	n, _ := excelize.CoordinatesToCellName(c+1, r)
	return n
}

// sameNumber compares a value read with the published cell's stored
// number exactly (as decimals).
func sameNumber(read, stored string) bool {
	a, ok1 := new(big.Rat).SetString(strings.ReplaceAll(read, ",", ""))
	b, ok2 := new(big.Rat).SetString(stored)
	return ok1 && ok2 && a.Cmp(b) == 0
}

// TestCorpusTablesRead: every readable table of the corpus is read as
// `sdcaudit check FILE --sheet S --value KIND` reads it (the layout
// detected, then read with the keys detected), and every cell read is
// compared with the published file: each body cell's value (a number
// exactly as stored, a marker as the marker), its row labels (blank
// labels carried down from the group's first row) and its column labels
// (merged header cells over their columns); every non-empty cell of the
// body the manifest gives is read exactly once; the header rows, the
// label columns and the body are those a person sees (manifest.yaml).
func TestCorpusTablesRead(t *testing.T) {
	tables, paths, books := buildCorpus(t)
	markers := markerSet(nil)
	read := 0
	for _, tb := range tables {
		if tb.Refuse != "" && tb.Range == "" {
			continue
		}
		if tb.Refuse == "" {
			read++
		}
		t.Run(tb.ID, func(t *testing.T) {
			path, book := paths[tb.File], books[tb.File]
			sheet := book.Sheet(tb.Sheet)
			value := tb.Value
			if value == "" {
				value = "total"
			}
			// a refused table with a range: read within the range
			d, err := DetectWide(path, Options{Sheet: tb.Sheet, Range: tb.Range, Wide: &WideOptions{Value: value, TotalLabel: "Total"}})
			if err != nil {
				t.Fatalf("detect: %v", err)
			}
			srcs, err := Open(path, Options{Sheet: tb.Sheet, Range: tb.Range, Wide: &WideOptions{Dims: d.Dims, Across: d.Across, Value: d.Value, TotalLabel: "Total"}})
			if err != nil {
				t.Fatalf("read with the keys detected (%s): %v", d.Note, err)
			}
			if len(srcs) != 1 {
				t.Fatalf("%d sources", len(srcs))
			}
			ws, _ := As[WideSource](srcs[0])
			lay := ws.Layout()
			// the parts a person sees
			if !slices.Equal(lay.Header, tb.Header) {
				t.Errorf("header rows %v, want %v", lay.Header, tb.Header)
			}
			if got := []int{lay.Body[0], lay.Body[len(lay.Body)-1]}; !slices.Equal(got, tb.Body.Rows) {
				t.Errorf("body rows %v, want %v", got, tb.Body.Rows)
			}
			var labelCols []int
			for _, l := range tb.Labels {
				labelCols = append(labelCols, colIndex(t, l.Column))
			}
			gotLabels := append([]int(nil), lay.Labels...)
			for c := range lay.Aliases {
				gotLabels = append(gotLabels, c)
			}
			sort.Ints(gotLabels)
			if !slices.Equal(gotLabels, labelCols) {
				t.Errorf("label columns %v, want %v", gotLabels, labelCols)
			}
			rowDims, colDims := 0, 0
			if ds, ok := tb.Structure["dimensions"].([]any); ok {
				for _, x := range ds {
					if m, ok := x.(map[string]any); ok {
						switch m["in"] {
						case "rows":
							rowDims++
						case "columns":
							colDims++
						}
					}
				}
			}
			if len(d.Across) != colDims || len(d.Dims) != rowDims {
				t.Errorf("%d row and %d column dimensions (%v; %v), a person sees %d and %d", len(d.Dims), len(d.Across), d.Dims, d.Across, rowDims, colDims)
			}
			c0, c1 := colIndex(t, tb.Body.Columns[0]), colIndex(t, tb.Body.Columns[1])
			if lay.Columns[0] != c0 || lay.Columns[len(lay.Columns)-1] != c1 {
				t.Errorf("body columns %s-%s, want %s-%s", colName(lay.Columns[0]), colName(lay.Columns[len(lay.Columns)-1]), tb.Body.Columns[0], tb.Body.Columns[1])
			}
			// every cell read, against the published file
			b, err := srcs[0].Next()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := srcs[0].Next(); err != io.EOF {
				t.Fatalf("second batch: %v", err)
			}
			nKeys := len(d.Dims) + len(d.Across)
			seen := map[string]bool{}
			// the column labels the file gives to more than one body column
			repeated, inCols := map[string]bool{}, map[string]int{}
			for _, c := range lay.Columns {
				var parts []string
				for _, hr := range lay.Header {
					if v := configs.StripNotes(strings.TrimSpace(mergedValue(book, sheet, hr, c))); v != "" && (len(parts) == 0 || parts[len(parts)-1] != v) {
						parts = append(parts, v)
					}
				}
				l := strings.Join(parts, " ")
				inCols[l]++
				repeated[l] = inCols[l] > 1
			}
			for i, row := range b.Rows {
				pos := lay.Pos[i]
				at := ref(pos.Row, pos.Col)
				seen[at] = true
				v, kind := book.Value(tb.Sheet, at)
				got := row[nKeys]
				switch {
				case kind == 'n':
					if !sameNumber(got, v) {
						t.Fatalf("%s: read %q, the file holds %s", at, got, v)
					}
				case markers[v]:
					if got != v {
						t.Fatalf("%s: read %q, the file holds the marker %q", at, got, v)
					}
				default:
					if got != v {
						t.Fatalf("%s: read %q, the file holds %q", at, got, v)
					}
				}
				// the section: the label of the nearest section row above
				off := 0
				if len(lay.Sections) > 0 {
					off = 1
					want := ""
					for _, sr := range lay.Sections {
						if sr < pos.Row {
							want, _ = book.Value(tb.Sheet, ref(sr, lay.Labels[0]))
						}
					}
					if row[0] != strings.TrimSpace(want) {
						t.Fatalf("%s: section %q, the file has %q", at, row[0], want)
					}
				}
				// row labels: the cell's own, or the nearest above in the body
				for k, c := range lay.Labels {
					want := ""
					for r := pos.Row; r >= lay.Body[0] && want == ""; r-- {
						want, _ = book.Value(tb.Sheet, ref(r, c))
					}
					if dates := labelDates(tb, c); dates != "" {
						want = periodOf(t, want, dates)
					}
					if got := row[off+k]; got != configs.StripNotes(want) {
						t.Fatalf("%s: row label %q, the file has %q in column %s", at, got, want, colName(c))
					}
				}
				// column labels: the header cells, or the merged ranges over
				// them, read down (two rows joined into one dimension)
				var parts []string
				for _, hr := range lay.Header {
					if v := configs.StripNotes(strings.TrimSpace(mergedValue(book, sheet, hr, pos.Col))); v != "" && (len(parts) == 0 || parts[len(parts)-1] != v) {
						parts = append(parts, v)
					}
				}
				// a header cell merged down over several header rows is
				// the label of each of their dimensions: read once
				var down []string
				for _, v := range row[off+len(lay.Labels) : nKeys] {
					if len(down) == 0 || down[len(down)-1] != v {
						down = append(down, v)
					}
				}
				labels := strings.Join(down, " ")
				if l, ok := strings.CutSuffix(labels, " (column "+colName(pos.Col)+")"); ok {
					// a label repeated in other columns is told apart by its
					// column: the file must repeat it
					labels = l
					if !repeated[l] {
						t.Fatalf("%s: column labels %q carry the column, but no other column has %q", at, row[off+len(lay.Labels):nKeys], l)
					}
				}
				if labels != strings.Join(parts, " ") {
					t.Fatalf("%s: column labels %q, the file has %q in rows %v", at, labels, parts, lay.Header)
				}
			}
			// completeness: every non-empty body cell was read
			for r := tb.Body.Rows[0]; r <= tb.Body.Rows[1]; r++ {
				for c := c0; c <= c1; c++ {
					if v, _ := book.Value(tb.Sheet, ref(r, c)); v != "" && strings.TrimSpace(v) != "" && !seen[ref(r, c)] {
						t.Fatalf("%s (%q) is in the body but was not read", ref(r, c), v)
					}
				}
			}
			for _, l := range tb.Labels {
				if l.CarriedDown && len(lay.Carried) == 0 {
					t.Errorf("column %s is carried down, but no label was", l.Column)
				}
			}
			t.Logf("%s; %s", d.Note, srcs[0].(Warner).Warnings()[0])
		})
	}
	if read < 8 {
		t.Fatalf("%d corpus tables read, want at least 8", read)
	}
}

// mergedValue is the value of a cell of a transcribed sheet, or of the
// merged range over it.
func mergedValue(book *corpus.Workbook, sheet *corpus.Sheet, r, c int) string {
	if v, _ := book.Value(sheet.Name, ref(r, c)); v != "" {
		return v
	}
	for _, m := range sheet.Merges {
		a, b, _ := strings.Cut(m, ":")
		c1, r1, _ := excelize.CellNameToCoordinates(a)
		c2, r2, _ := excelize.CellNameToCoordinates(b)
		if r >= r1 && r <= r2 && c+1 >= c1 && c+1 <= c2 {
			v, _ := book.Value(sheet.Name, a)
			return v
		}
	}
	return ""
}

// TestCorpusRefusals: a corpus table laid out ambiguously is refused,
// naming the sheet, the row and the key that resolves it.
func TestCorpusRefusals(t *testing.T) {
	tables, paths, _ := buildCorpus(t)
	n := 0
	for _, tb := range tables {
		if tb.Refuse == "" {
			continue
		}
		n++
		_, err := DetectWide(paths[tb.File], Options{Sheet: tb.Sheet, Wide: &WideOptions{Value: "total", TotalLabel: "Total"}})
		var re *Error
		if err == nil || !errors.As(err, &re) || re.Sheet != tb.Sheet || re.Row == 0 || !(strings.Contains(err.Error(), "input.range") || strings.Contains(err.Error(), "set columns.dims")) {
			t.Errorf("%s: %v, want a refusal naming the sheet, the row and the keys to set", tb.ID, err)
		}
	}
	if n == 0 {
		t.Fatal("no corpus table to refuse")
	}
}

// labelDates is how the manifest says label column c holds dates ("" when
// it does not).
func labelDates(tb corpus.Table, c int) string {
	for _, l := range tb.Labels {
		if n, err := excelize.ColumnNameToNumber(l.Column); err == nil && n-1 == c {
			return l.Dates
		}
	}
	return ""
}

// periodOf is the period an Excel date serial number of a label column
// is (excelize's conversion, not the reader's): "month" 2021-09, "day"
// 2021-09-01.
func periodOf(t *testing.T, serial, dates string) string {
	t.Helper()
	f, err := strconv.ParseFloat(serial, 64)
	if err != nil {
		t.Fatalf("a date label %q is not a number", serial)
	}
	tm, err := excelize.ExcelDateToTime(f, false)
	if err != nil {
		t.Fatal(err)
	}
	if dates == "month" {
		return tm.Format("2006-01")
	}
	return tm.Format("2006-01-02")
}
