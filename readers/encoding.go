package readers

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Text encodings of delimited files. With encoding auto (the default):
//
//   - a byte-order mark decides: UTF-8, UTF-16 LE or UTF-16 BE (the mark
//     is dropped);
//   - otherwise the first SniffSize bytes decide: valid UTF-8 means UTF-8,
//     anything else Windows-1252 (Latin-1 when those bytes use one of the
//     five byte values Windows-1252 leaves undefined).
//
// The decision is taken on that bounded prefix so that files are read as
// a stream. A later byte sequence that is not valid UTF-8 in a file taken
// as UTF-8 is an error naming the row and column and suggesting
// input.encoding; it is never replaced silently. Latin-1 and Windows-1252
// map every byte to its own character (Windows-1252's undefined bytes to
// the Latin-1 control characters, as web browsers do), so labels that
// differ in one accented letter stay different. Text handed on is always
// valid UTF-8.

// SniffSize is the length of the prefix the encoding and the decimal mark
// are detected on.
const SniffSize = 64 << 10

// Encodings lists the values input.encoding accepts.
var Encodings = []string{"auto", "utf-8", "utf-16", "latin-1", "windows-1252"}

// CheckEncoding validates an input.encoding value ("" means auto).
func CheckEncoding(name string) error {
	if name == "" {
		return nil
	}
	for _, e := range Encodings {
		if name == e {
			return nil
		}
	}
	return fmt.Errorf("input.encoding %q is not one of %s", name, strings.Join(Encodings, ", "))
}

// CheckDecimal validates an input.decimal value ("" means detect).
func CheckDecimal(mark string) error {
	switch mark {
	case "", ".", ",":
		return nil
	}
	return fmt.Errorf(`input.decimal %q must be "." or ","`, mark)
}

// Info says how a delimited file was read, for the checker's report.
type Info struct {
	Encoding  string // utf-8, utf-16le, utf-16be, latin-1, windows-1252
	BOM       bool   // the file starts with a byte-order mark
	Delimiter string // the field separator ("tab" for a tab)
	Decimal   string // "." or ","
	// Detected lists what was detected rather than set: "encoding",
	// "delimiter", "decimal".
	Detected []string
}

// Describer is implemented by sources that can say how they were decoded.
type Describer interface {
	Info() Info
}

// decodeText returns a reader of UTF-8 text for the raw bytes of br and how
// they were decoded. utf8 reports that the bytes are passed through as
// they are, so that the caller must check that they are valid UTF-8.
func decodeText(br *bufio.Reader, enc string, info *Info) (r io.Reader, utf8Text bool, err error) {
	bom, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(bom, []byte{0xEF, 0xBB, 0xBF}) && (enc == "" || enc == "auto" || enc == "utf-8"):
		br.Discard(3)
		info.Encoding, info.BOM = "utf-8", true
	case bytes.HasPrefix(bom, []byte{0xFF, 0xFE}) && (enc == "" || enc == "auto" || enc == "utf-16"):
		info.Encoding, info.BOM = "utf-16le", true
	case bytes.HasPrefix(bom, []byte{0xFE, 0xFF}) && (enc == "" || enc == "auto" || enc == "utf-16"):
		info.Encoding, info.BOM = "utf-16be", true
	case enc == "" || enc == "auto":
		info.Encoding = sniffEncoding(br)
	case enc == "utf-16":
		info.Encoding = "utf-16le" // no mark: little-endian, as Windows writes it
	default:
		info.Encoding = enc
	}
	if enc == "" || enc == "auto" {
		info.Detected = append(info.Detected, "encoding")
	}
	switch info.Encoding {
	case "utf-8":
		return br, true, nil
	case "utf-16le", "utf-16be":
		order := unicode.LittleEndian
		if info.Encoding == "utf-16be" {
			order = unicode.BigEndian
		}
		// with the mark, ExpectBOM drops it
		policy := unicode.IgnoreBOM
		if info.BOM {
			policy = unicode.ExpectBOM
		}
		return transform.NewReader(br, unicode.UTF16(order, policy).NewDecoder()), false, nil
	case "latin-1":
		return &byteDecoder{r: br, table: latin1Table()}, false, nil
	case "windows-1252":
		return &byteDecoder{r: br, table: windows1252Table()}, false, nil
	}
	return nil, false, fmt.Errorf("unknown encoding %q", info.Encoding)
}

// sniffEncoding decides between UTF-8 and the single-byte encodings on the
// first SniffSize bytes.
func sniffEncoding(br *bufio.Reader) string {
	b, _ := br.Peek(SniffSize)
	if len(b) == SniffSize {
		// do not hold a character cut at the end of the prefix against it
		for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
			if utf8.RuneStart(b[len(b)-k]) {
				if !utf8.FullRune(b[len(b)-k:]) {
					b = b[:len(b)-k]
				}
				break
			}
		}
	}
	if utf8.Valid(b) {
		return "utf-8"
	}
	for _, c := range b {
		if _, undefined := cp1252Undefined[c]; undefined {
			return "latin-1"
		}
	}
	return "windows-1252"
}

// cp1252Undefined are the bytes Windows-1252 assigns no character.
var cp1252Undefined = map[byte]struct{}{0x81: {}, 0x8D: {}, 0x8F: {}, 0x90: {}, 0x9D: {}}

func latin1Table() *[256]rune {
	var t [256]rune
	for i := range t {
		t[i] = rune(i)
	}
	return &t
}

func windows1252Table() *[256]rune {
	var t [256]rune
	for i := range t {
		r := charmap.Windows1252.DecodeByte(byte(i))
		if r == utf8.RuneError {
			r = rune(i) // undefined: the Latin-1 control character
		}
		t[i] = r
	}
	return &t
}

// byteDecoder decodes a single-byte encoding into UTF-8, one byte to one
// character.
type byteDecoder struct {
	r     io.Reader
	table *[256]rune
	in    []byte
	out   []byte // decoded text; out[pos:] is not yet returned
	pos   int
}

func (d *byteDecoder) Read(p []byte) (int, error) {
	for d.pos == len(d.out) {
		if d.in == nil {
			d.in = make([]byte, 16<<10)
		}
		d.out, d.pos = d.out[:0], 0
		n, err := d.r.Read(d.in)
		for _, c := range d.in[:n] {
			if c < utf8.RuneSelf {
				d.out = append(d.out, c)
			} else {
				d.out = utf8.AppendRune(d.out, d.table[c])
			}
		}
		if n == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, d.out[d.pos:])
	d.pos += n
	return n, nil
}
