package corpus

import (
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestCorpusWorkbooksRoundTrip writes every transcription of
// testdata/corpus and reads the workbook back: the same sheets in the
// same order, every transcribed cell with its value and type, no other
// cell, the same merged ranges.
func TestCorpusWorkbooksRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/*.cells")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("testdata/corpus holds %d transcriptions, want at least 3", len(files))
	}
	for _, cells := range files {
		t.Run(filepath.Base(cells), func(t *testing.T) {
			w, err := Load(cells)
			if err != nil {
				t.Fatal(err)
			}
			path, err := Build(cells, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			f, err := excelize.OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var names []string
			for _, s := range w.Sheets {
				names = append(names, s.Name)
			}
			if got := f.GetSheetList(); !equal(got, names) {
				t.Fatalf("sheets %q, want %q", got, names)
			}
			for _, s := range w.Sheets {
				want := map[string]Cell{}
				for _, c := range s.Cells {
					want[c.Ref] = c
				}
				rows, err := f.GetRows(s.Name, excelize.Options{RawCellValue: true})
				if err != nil {
					t.Fatal(err)
				}
				seen := 0
				for i, r := range rows {
					for j, v := range r {
						if v == "" {
							continue
						}
						ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
						c, ok := want[ref]
						if !ok {
							t.Fatalf("%s!%s = %q, not in the transcription", s.Name, ref, v)
						}
						seen++
						if c.Kind == 'n' {
							a, _ := strconv.ParseFloat(v, 64)
							b, _ := strconv.ParseFloat(c.Value, 64)
							if a != b {
								t.Fatalf("%s!%s = %q, want %q", s.Name, ref, v, c.Value)
							}
						} else if v != c.Value {
							t.Fatalf("%s!%s = %q, want %q", s.Name, ref, v, c.Value)
						}
						typ, _ := f.GetCellType(s.Name, ref)
						isText := typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString
						if isText != (c.Kind == 's') {
							t.Fatalf("%s!%s: cell type %v, transcribed kind %c", s.Name, ref, typ, c.Kind)
						}
					}
				}
				if seen != len(s.Cells) {
					t.Fatalf("%s: %d cells read, %d transcribed", s.Name, seen, len(s.Cells))
				}
				mc, err := f.GetMergeCells(s.Name)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, m := range mc {
					got = append(got, m.GetStartAxis()+":"+m.GetEndAxis())
				}
				wantM := append([]string(nil), s.Merges...)
				sort.Strings(got)
				sort.Strings(wantM)
				if !equal(got, wantM) {
					t.Fatalf("%s: merges %q, want %q", s.Name, got, wantM)
				}
			}
		})
	}
}

// TestCorpusLoadRefusesBadRecords: a transcription that cannot be read
// exactly is an error naming the line, never a workbook with a cell
// missing.
func TestCorpusLoadRefusesBadRecords(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"nosheet": "A1\ts\tx\n",
		"number":  "sheet\tS\nA1\tn\tabc\n",
		"kind":    "sheet\tS\nA1\tq\tabc\n",
		"ref":     "sheet\tS\nZZZZZ1\ts\tabc\n",
		"empty":   "",
	} {
		p := filepath.Join(dir, name+".cells")
		if err := writeFile(p, text); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCorpusManifest: every table of the manifest names a transcribed
// sheet, and a readable table's body lies on it, with the value kind and
// flags that read it.
func TestCorpusManifest(t *testing.T) {
	tables, err := Manifest("../../testdata/corpus/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	readable := 0
	for _, tb := range tables {
		w, err := Load(filepath.Join("../../testdata/corpus", tb.File))
		if err != nil {
			t.Fatalf("%s: %v", tb.ID, err)
		}
		sh := w.Sheet(tb.Sheet)
		if sh == nil {
			t.Fatalf("%s: no sheet %q in %s", tb.ID, tb.Sheet, tb.File)
		}
		if tb.Refuse != "" {
			continue
		}
		readable++
		if tb.Value == "" || len(tb.Body.Rows) != 2 || len(tb.Body.Columns) != 2 || len(tb.Flags) > 4 {
			t.Fatalf("%s: incomplete entry %+v", tb.ID, tb)
		}
		c0, _, err0 := excelize.CellNameToCoordinates(tb.Body.Columns[0] + "1")
		c1, _, err1 := excelize.CellNameToCoordinates(tb.Body.Columns[1] + "1")
		if err0 != nil || err1 != nil || c1 < c0 {
			t.Fatalf("%s: body columns %q", tb.ID, tb.Body.Columns)
		}
		for _, r := range []int{tb.Body.Rows[0] + 1, tb.Body.Rows[1]} {
			found := false
			for c := c0; c <= c1 && !found; c++ {
				ref, _ := excelize.CoordinatesToCellName(c, r)
				v, _ := w.Value(tb.Sheet, ref)
				found = v != ""
			}
			if !found {
				t.Errorf("%s: body row %d holds nothing in columns %s-%s", tb.ID, r, tb.Body.Columns[0], tb.Body.Columns[1])
			}
		}
	}
	if readable < 8 {
		t.Fatalf("%d readable corpus tables, want at least 8", readable)
	}
}
