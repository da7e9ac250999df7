package readers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// FuzzCSV checks that the CSV reader never panics, that every error is a
// positioned *Error, and that whatever it reads survives a round trip
// through encoding/csv.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n",
		"a;b\n\"x;y\";2\n",
		"\ufeffa\tb\nc\td\n",
		"a,b\n1\n",
		"a,a\n1,2\n",
		"a,\"b\n1,2\n",
		"region,n\nNorth,c\nSouth,1 234\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := NewCSV("fuzz.csv", bytes.NewReader(data), Options{BatchSize: 3})
		if err != nil {
			checkErr(t, err)
			return
		}
		header := src.Header()
		rows, err := drainText(src)
		if err != nil {
			checkErr(t, err)
			return
		}
		for _, h := range header {
			if strings.ContainsAny(h, "\r\ufeff") {
				return
			}
		}
		for _, r := range rows {
			if len(r) != len(header) {
				t.Fatalf("row of %d fields under a header of %d", len(r), len(header))
			}
			for _, v := range r {
				if strings.Contains(v, "\r") || (len(r) == 1 && v == "") {
					return
				}
			}
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(header)
		w.WriteAll(rows)
		src2, err := NewCSV("again.csv", &buf, Options{Delimiter: ','})
		if err != nil {
			t.Fatalf("re-reading %q: %v", buf.String(), err)
		}
		rows2, err := drainText(src2)
		if err != nil {
			t.Fatalf("re-reading: %v", err)
		}
		if !reflect.DeepEqual(src2.Header(), header) || !(len(rows) == 0 && len(rows2) == 0 || reflect.DeepEqual(rows, rows2)) {
			t.Fatalf("round trip:\n%q %q\n%q %q", header, rows, src2.Header(), rows2)
		}
	})
}

// drainText reads every row of a source.
func drainText(src Source) ([][]string, error) {
	defer src.Close()
	var rows [][]string
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		if len(b.Rows) != len(b.Lines) {
			return rows, errors.New("rows and lines differ in length")
		}
		rows = append(rows, b.Rows...)
	}
}

// checkErr fails unless err is a *Error naming the file.
func checkErr(t *testing.T, err error) {
	t.Helper()
	var re *Error
	if !errors.As(err, &re) || re.File == "" {
		t.Fatalf("error without position: %#v", err)
	}
}
