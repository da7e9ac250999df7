package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcaudit/sdcaudit/readers"
)

// TestReadColumn checks readColumn: the values, the missing count, and that every
// problem is a *readers.Error naming the row and column.
func TestReadColumn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.csv", "id,v\n1,2.5\n2,NA\n3,\n4,7\n")
	col, err := readColumn(context.Background(), ok, "v", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(col.Values) != 2 || col.Values[0].String() != "2.5" || col.Values[1].String() != "7" || col.Missing != 2 {
		t.Errorf("got %v, %d missing", col.Values, col.Missing)
	}
	for _, c := range []struct {
		name, path, column string
		row                int
		is                 error
	}{
		{"not a number", write("bad.csv", "id,v\n1,2\n2,x\n"), "v", 3, readers.ErrNotNumber},
		{"negative", write("neg.csv", "id,v\n1,-2\n"), "v", 2, nil},
		{"no column", ok, "w", 1, readers.ErrColumn},
		{"no values", write("empty.csv", "id,v\n1,NA\n"), "v", 0, nil},
	} {
		_, err := readColumn(context.Background(), c.path, c.column, true)
		var re *readers.Error
		if !errors.As(err, &re) || re.Row != c.row || re.Column != c.column || re.File != c.path {
			t.Errorf("%s: got %v (%#v)", c.name, err, re)
			continue
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: %v does not wrap %v", c.name, err, c.is)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readColumn(ctx, ok, "v", true); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	if _, err := readColumn(context.Background(), filepath.Join(dir, "missing.csv"), "v", true); !errors.As(err, new(*readers.Error)) {
		t.Errorf("missing file: got %v", err)
	}
}
