package readers

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tauRows(t *testing.T, src Source) ([][]string, []int) {
	t.Helper()
	var rows [][]string
	var lines []int
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range b.Rows {
			rows = append(rows, append([]string(nil), r...))
			lines = append(lines, b.Lines[i])
		}
	}
	return rows, lines
}

// TestTauArgusTab reads tau-argus's example table: no header, the
// metadata's names, quoted codes with leading spaces, decimal commas
// detected, rows numbered from 1.
func TestTauArgusTab(t *testing.T) {
	srcs, err := Open("../testdata/tauargus/pp.tab", Options{Format: "tauargus", Metadata: "../testdata/tauargus/pp.rda"})
	if err != nil {
		t.Fatal(err)
	}
	src := srcs[0]
	defer src.Close()
	if h := strings.Join(src.Header(), ","); h != "Size,Region,Var2,FreqVar,Var2_Shadow,Var2_Cost,Top1,Top2,StatusVar,LowerProtLevel,UpperProtLevel" {
		t.Fatalf("header %s", h)
	}
	rows, lines := tauRows(t, src)
	if len(rows) != 162 || lines[0] != 1 || lines[161] != 162 {
		t.Fatalf("%d rows, lines %d..%d", len(rows), lines[0], lines[len(lines)-1])
	}
	if rows[2][1] != " 1" || rows[0][2] != "16847646,84" || rows[19][8] != "U" {
		t.Fatalf("row 3 %q, row 1 %q, row 20 %q", rows[2], rows[0], rows[19])
	}
	if in := src.(Describer).Info(); in.Decimal != "," || in.Delimiter != ";" {
		t.Fatalf("info %+v", in)
	}
	// pp.rda names REGION.CDL; the file is region.cdl: found, no note
	if w := src.(Warner).Warnings(); len(w) != 1 || !strings.Contains(w[0], "DISTANCE not used") {
		t.Fatalf("warnings %q", w)
	}
}

// TestTauArgusErrors: a malformed metadata line and a short .tab row are
// named by line and row.
func TestTauArgusErrors(t *testing.T) {
	_, err := ParseRDA("x.rda", strings.NewReader("<SEPARATOR> \";\"\nA\n  <RECODEABLE>\nB\n  <NUMERC>\n"))
	if err == nil || !strings.Contains(err.Error(), "x.rda: tau-argus metadata: line 5: unknown keyword <NUMERC>") {
		t.Fatalf("err %v", err)
	}
	_, err = ParseRDA("x.rda", strings.NewReader("<SEPARATOR> \";\"\nA\n  <RECODEABLE>\nB\n"))
	if err == nil || !strings.Contains(err.Error(), "line 4: variable B has no role") {
		t.Fatalf("err %v", err)
	}
	_, err = ParseRDA("x.rda", strings.NewReader("A 1\n  <RECODEABLE>\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1: variable A: a fixed-width file needs its first position and length") {
		t.Fatalf("err %v", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.rda"), []byte("<SEPARATOR> \";\"\nA\n  <RECODEABLE>\nV\n  <NUMERIC>\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.tab"), []byte("\"a\";1\n\"b\"\n"), 0o644)
	srcs, err := Open(filepath.Join(dir, "t.tab"), Options{Format: "tauargus", Metadata: filepath.Join(dir, "t.rda")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = srcs[0].Next()
	var re *Error
	if !errors.As(err, &re) || re.Row != 2 || !errors.Is(err, ErrFieldCount) || !strings.Contains(err.Error(), "t.rda names 2 variables") {
		t.Fatalf("err %v, want row 2, field count naming the metadata", err)
	}
}

// TestTauArgusFixedWidth reads .asc microdata by position and length,
// a numeric missing code as missing, a weight and holding role.
func TestTauArgusFixedWidth(t *testing.T) {
	dir := t.TempDir()
	rda := "Year 1 2 99\n  <RECODEABLE>\n  <TOTCODE> \"All\"\nRegion 3 2 99\n  <RECODEABLE>\nWgt 5 3\n  <WEIGHT>\nVar1 8 5 99999\n  <NUMERIC>\n  <DECIMALS> 1\n"
	asc := "10 1  2 12,5\n11 2  399999\n11 3  1  7.5\n"
	os.WriteFile(filepath.Join(dir, "MICRO.RDA"), []byte(rda), 0o644)
	os.WriteFile(filepath.Join(dir, "micro.asc"), []byte(asc), 0o644)
	// the metadata found case-insensitively, its data file beside it
	rdaPath, ok := FindFile(filepath.Join(dir, "micro.rda"))
	if !ok || filepath.Base(rdaPath) != "MICRO.RDA" {
		t.Fatalf("FindFile: %q %v", rdaPath, ok)
	}
	data, err := TauDataFile(rdaPath)
	if err != nil || filepath.Base(data) != "micro.asc" {
		t.Fatalf("TauDataFile: %q %v", data, err)
	}
	m, err := LoadRDA(rdaPath)
	if err != nil {
		t.Fatal(err)
	}
	if m.Tabular() || m.Vars[2].Role != TauWeight || m.Vars[3].Decimals != 1 {
		t.Fatalf("metadata %+v", m)
	}
	srcs, err := Open(data, Options{Format: "tauargus", Metadata: rdaPath})
	if err != nil {
		t.Fatal(err)
	}
	rows, lines := tauRows(t, srcs[0])
	want := [][]string{{"10", "1", "2", "12,5"}, {"11", "2", "3", ""}, {"11", "3", "1", "7.5"}}
	if len(rows) != 3 || lines[2] != 3 {
		t.Fatalf("rows %q lines %v", rows, lines)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i+1, rows[i], want[i])
		}
	}
}
