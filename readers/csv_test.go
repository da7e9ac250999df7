package readers

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCSV(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		opt     Options
		header  []string
		rows    [][]string
		lines   []int
		errRow  int
		errIs   error
		errText string
	}{
		{name: "comma", in: "a,b\n1,2\n3,4\n", header: []string{"a", "b"}, rows: [][]string{{"1", "2"}, {"3", "4"}}, lines: []int{2, 3}},
		{name: "bom", in: "\ufeffa,b\n1,2\n", header: []string{"a", "b"}, rows: [][]string{{"1", "2"}}, lines: []int{2}},
		{name: "semicolon", in: "a;b;c\n1,5;2;x\n", header: []string{"a", "b", "c"}, rows: [][]string{{"1,5", "2", "x"}}, lines: []int{2}},
		{name: "tab", in: "a\tb\n1\t2\n", header: []string{"a", "b"}, rows: [][]string{{"1", "2"}}, lines: []int{2}},
		{name: "forced tab", in: "a,b\tc\n1,2\t3\n", opt: Options{Delimiter: '\t'}, header: []string{"a,b", "c"}, rows: [][]string{{"1,2", "3"}}, lines: []int{2}},
		{name: "quoted", in: "name,v\n\"Smith, J\",\"1\"\n\"multi\nline\",2\nx,3\n", header: []string{"name", "v"}, rows: [][]string{{"Smith, J", "1"}, {"multi\nline", "2"}, {"x", "3"}}, lines: []int{2, 3, 5}},
		{name: "quoted delimiter in header", in: "\"a;b\",c\n1,2\n", header: []string{"a;b", "c"}, rows: [][]string{{"1", "2"}}, lines: []int{2}},
		{name: "crlf", in: "a,b\r\n1,2\r\n", header: []string{"a", "b"}, rows: [][]string{{"1", "2"}}, lines: []int{2}},
		{name: "header only", in: "a,b\n", header: []string{"a", "b"}},
		{name: "ragged", in: "a,b\n1,2\n3\n", errRow: 3, errIs: ErrFieldCount},
		{name: "too many", in: "a,b\n1,2,3\n", errRow: 2, errIs: ErrFieldCount},
		{name: "empty", in: "", errRow: 1, errIs: ErrNoHeader},
		{name: "bare quote", in: "a,b\n1,x\"y\n", errRow: 2, errText: "bare \""},
		{name: "duplicate header", in: "a,a\n1,2\n", errRow: 1, errText: "duplicate column"},
		{name: "empty header name", in: "a,,c\n1,2,3\n", errRow: 1, errText: "empty column name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.BatchSize = 2
			src, err := NewCSV("in.csv", strings.NewReader(tt.in), tt.opt)
			var rows [][]string
			var lines []int
			if err == nil {
				if !reflect.DeepEqual(src.Header(), tt.header) && tt.header != nil {
					t.Fatalf("header = %q, want %q", src.Header(), tt.header)
				}
				rows, lines, err = collect(t, src)
			}
			if tt.errRow > 0 {
				var re *Error
				if !errors.As(err, &re) {
					t.Fatalf("err = %v, want *Error", err)
				}
				if re.Row != tt.errRow || re.File != "in.csv" {
					t.Fatalf("err at %s row %d, want in.csv row %d: %v", re.File, re.Row, tt.errRow, err)
				}
				if tt.errIs != nil && !errors.Is(err, tt.errIs) {
					t.Fatalf("err = %v, want %v", err, tt.errIs)
				}
				if tt.errText != "" && !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(tt.rows) || (len(rows) > 0 && !reflect.DeepEqual(rows, tt.rows)) {
				t.Fatalf("rows = %q, want %q", rows, tt.rows)
			}
			if len(lines) > 0 && !reflect.DeepEqual(lines, tt.lines) {
				t.Fatalf("lines = %v, want %v", lines, tt.lines)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.tsv")
	os.WriteFile(p, []byte("a\tb\n1\t2\n"), 0o644)
	srcs, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	if srcs[0].Name() != "t" || len(srcs[0].Header()) != 2 {
		t.Fatalf("name %q header %q", srcs[0].Name(), srcs[0].Header())
	}
	if _, err := Open(filepath.Join(dir, "missing.csv"), Options{}); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "x.dat"), Options{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("unknown format: %v", err)
	}
}
