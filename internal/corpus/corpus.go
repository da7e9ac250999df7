// Package corpus writes the workbooks of testdata/corpus from their
// committed text transcriptions (*.cells), so that tests read the real
// published tables without committing the published binary files.
//
// A .cells file is UTF-8 text, one record a line, fields separated by a
// tab, `\t`, `\n`, `\r` and `\\` escaped in values:
//
//	sheet	NAME          starts a sheet (sheets are written in file order)
//	merge	A1:C1         a merged range of the current sheet
//	CELL	n	VALUE     a number cell (VALUE as stored in the file)
//	CELL	s	VALUE     a text cell
//	CELL	b	VALUE     a boolean cell (0 or 1)
package corpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Cell is one non-empty cell of a transcribed sheet.
type Cell struct {
	Ref   string // A1-style reference
	Kind  byte   // 'n' number, 's' text, 'b' boolean
	Value string // the value as stored in the published file
}

// Sheet is one transcribed sheet.
type Sheet struct {
	Name   string
	Merges []string // "A1:C1"
	Cells  []Cell
}

// Workbook is a transcribed workbook.
type Workbook struct {
	Sheets []Sheet
}

// Value returns the transcribed value of a cell of a sheet ("" when the
// cell is empty) and its kind.
func (w *Workbook) Value(sheet, ref string) (string, byte) {
	for _, s := range w.Sheets {
		if s.Name != sheet {
			continue
		}
		for _, c := range s.Cells {
			if c.Ref == ref {
				return c.Value, c.Kind
			}
		}
	}
	return "", 0
}

// Sheet returns the named sheet, or nil.
func (w *Workbook) Sheet(name string) *Sheet {
	for i := range w.Sheets {
		if w.Sheets[i].Name == name {
			return &w.Sheets[i]
		}
	}
	return nil
}

var unescaper = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")

// Load reads a .cells transcription.
func Load(path string) (*Workbook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := &Workbook{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.SplitN(sc.Text(), "\t", 3)
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s", path, line, why) }
		switch {
		case len(fields) == 2 && fields[0] == "sheet":
			w.Sheets = append(w.Sheets, Sheet{Name: unescaper.Replace(fields[1])})
		case len(fields) == 2 && fields[0] == "merge":
			if len(w.Sheets) == 0 {
				return nil, bad("merge before any sheet")
			}
			s := &w.Sheets[len(w.Sheets)-1]
			s.Merges = append(s.Merges, fields[1])
		case len(fields) == 3 && len(fields[1]) == 1:
			if len(w.Sheets) == 0 {
				return nil, bad("cell before any sheet")
			}
			if _, _, err := excelize.CellNameToCoordinates(fields[0]); err != nil {
				return nil, bad(err.Error())
			}
			k := fields[1][0]
			v := unescaper.Replace(fields[2])
			switch k {
			case 'n':
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					return nil, bad("number cell " + fields[0] + " holds " + strconv.Quote(v))
				}
			case 's', 'b':
			default:
				return nil, bad("unknown cell kind " + fields[1])
			}
			s := &w.Sheets[len(w.Sheets)-1]
			s.Cells = append(s.Cells, Cell{Ref: fields[0], Kind: k, Value: v})
		default:
			return nil, bad("unreadable record")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(w.Sheets) == 0 {
		return nil, fmt.Errorf("%s: no sheets", path)
	}
	return w, nil
}

// WriteXLSX writes the workbook as an xlsx file: the same sheets in the
// same order, each cell with its value and type, the merged ranges.
func (w *Workbook) WriteXLSX(path string) error {
	f := excelize.NewFile()
	defer f.Close()
	for i, s := range w.Sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", s.Name); err != nil {
				return err
			}
		} else if _, err := f.NewSheet(s.Name); err != nil {
			return err
		}
		for _, c := range s.Cells {
			var err error
			switch c.Kind {
			case 'n':
				err = f.SetCellValue(s.Name, c.Ref, number(c.Value))
			case 'b':
				err = f.SetCellBool(s.Name, c.Ref, c.Value == "1" || strings.EqualFold(c.Value, "true"))
			default:
				err = f.SetCellStr(s.Name, c.Ref, c.Value)
			}
			if err != nil {
				return fmt.Errorf("%s!%s: %w", s.Name, c.Ref, err)
			}
		}
		for _, m := range s.Merges {
			a, b, ok := strings.Cut(m, ":")
			if !ok {
				return fmt.Errorf("%s: merge %q", s.Name, m)
			}
			if err := f.MergeCell(s.Name, a, b); err != nil {
				return err
			}
		}
	}
	return f.SaveAs(path)
}

// number keeps a number cell's stored text exactly: excelize writes a
// float64 with its shortest representation, which round-trips the
// decimal text the published file stored.
func number(v string) any {
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return i
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// Build writes testdata/corpus/NAME.cells as DIR/NAME.xlsx and returns
// the path written.
func Build(cellsPath, dir string) (string, error) {
	w, err := Load(cellsPath)
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(cellsPath), ".cells") + ".xlsx"
	out := filepath.Join(dir, name)
	return out, w.WriteXLSX(out)
}
