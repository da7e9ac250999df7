package writers

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

// zipOf writes entries (name, content) through a ctxZip in writes of
// random sizes and returns the archive.
func zipOf(t *testing.T, r *rand.Rand, names []string, contents [][]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	z := &ctxZip{ctx: context.Background(), zw: zip.NewWriter(&out)}
	for i, name := range names {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		for p := contents[i]; len(p) > 0; {
			k := min(len(p), 1+r.IntN(3*deflateBlock/2))
			if _, err := w.Write(p[:k]); err != nil {
				t.Fatal(err)
			}
			p = p[k:]
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// An entry deflated in blocks on several goroutines is one deflate stream
// that gives the entry back, and the archive's bytes depend neither on the
// sizes of the writes nor on GOMAXPROCS: entries of no bytes, of less than
// a block, of exactly one and two blocks, and of several blocks and a part.
func TestCtxZipBlocksAreOneStream(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	sizes := []int{0, 100, deflateBlock - 1, deflateBlock, deflateBlock + 1, 2 * deflateBlock, 3*deflateBlock + 12345}
	var names []string
	var contents [][]byte
	for i, n := range sizes {
		var b bytes.Buffer
		for b.Len() < n { // sheet-like XML: repetitive, with numbers
			fmt.Fprintf(&b, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>North %d</t></is></c><c r="B%d"><v>%d</v></c></row>`, r.IntN(1e6), r.IntN(1e6), r.IntN(50), r.IntN(1e6), r.Int64N(1e12))
		}
		names = append(names, fmt.Sprintf("xl/worksheets/sheet%d.xml", i))
		contents = append(contents, b.Bytes()[:n])
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	one := zipOf(t, r, names, contents)
	runtime.GOMAXPROCS(4)
	four := zipOf(t, r, names, contents)
	if !bytes.Equal(one, four) {
		t.Fatal("the archive differs between GOMAXPROCS 1 and 4 (and other write sizes)")
	}
	zr, err := zip.NewReader(bytes.NewReader(four), int64(len(four)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(names) {
		t.Fatalf("%d entries, want %d", len(zr.File), len(names))
	}
	want := map[string][]byte{}
	for i, n := range names {
		want[n] = contents[i]
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc) // checks the CRC and the size too
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !bytes.Equal(got, want[f.Name]) {
			t.Fatalf("%s: %d bytes back, want %d", f.Name, len(got), len(want[f.Name]))
		}
	}
}
