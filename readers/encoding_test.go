package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// The files in testdata/encodings were written by Python's codecs (an
// independent encoder); the expected text here is UTF-8.
func TestEncodingFiles(t *testing.T) {
	tests := []struct {
		file   string
		opt    Options
		header []string
		rows   [][]string
		lines  []int
		info   Info
	}{
		{file: "latin1.csv", header: []string{"région", "secteur", "n", "chiffre"},
			rows: [][]string{
				{"Est-Île", "Agriculture", "12", "3400.5"}, {"Est-Ìle", "Agriculture", "3", "120"},
				{"Est-Île", "Industrie", "7", "990"}, {"Est-Ìle", "Industrie", "25", "12000.25"},
				{"Côte-d'Or", "Agriculture", "4", "88"}, {"Côte-d'Or", "Industrie", "9", "1234.75"},
				{"Zone €", "Agriculture", "6", "610"}, {"Zone €", "Industrie", "11", "2045.5"}},
			lines: []int{2, 3, 4, 5, 6, 7, 8, 9},
			info:  Info{Encoding: "windows-1252", Delimiter: ",", Decimal: ".", Detected: []string{"encoding", "delimiter"}}},
		{file: "latin1.csv", opt: Options{Encoding: "latin-1"}, header: []string{"région", "secteur", "n", "chiffre"},
			rows: [][]string{
				{"Est-Île", "Agriculture", "12", "3400.5"}, {"Est-Ìle", "Agriculture", "3", "120"},
				{"Est-Île", "Industrie", "7", "990"}, {"Est-Ìle", "Industrie", "25", "12000.25"},
				{"Côte-d'Or", "Agriculture", "4", "88"}, {"Côte-d'Or", "Industrie", "9", "1234.75"},
				{"Zone \u0080", "Agriculture", "6", "610"}, {"Zone \u0080", "Industrie", "11", "2045.5"}},
			lines: []int{2, 3, 4, 5, 6, 7, 8, 9},
			info:  Info{Encoding: "latin-1", Delimiter: ",", Decimal: ".", Detected: []string{"delimiter"}}},
		{file: "utf16le.txt", header: []string{"region", "sector", "n", "total"},
			rows: [][]string{
				{"Ærø", "Fishing", "5", "1250.5"}, {"Ærø", "Tourism", "14", "8800"},
				{"Łódź", "Fishing", "2", "75.25"}, {"Łódź", "Tourism", "31", "20410"},
				{"東京", "Fishing", "8", "3300"}, {"東京", "Tourism", "19", "14999.75"}},
			lines: []int{2, 3, 4, 5, 6, 7},
			info:  Info{Encoding: "utf-16le", BOM: true, Delimiter: "tab", Decimal: ".", Detected: []string{"encoding", "delimiter"}}},
		{file: "semicolon.csv", header: []string{"région", "sexe", "n", "total", "moyenne"},
			rows: [][]string{
				{"Nord", "F", "12", "1.234,5", "102,875"}, {"Nord", "H", "3", "7039,5", "2346,5"},
				{"Sud", "F", "40", "1 234 567,25", "30864,18"}, {"Sud", "H", "7", "-12,75", "-1,82"},
				{"Total", "F", "52", "1.235.801,75", "23765,42"}},
			lines: []int{2, 3, 4, 5, 6},
			info:  Info{Encoding: "utf-8", Delimiter: ";", Decimal: ",", Detected: []string{"encoding", "delimiter", "decimal"}}},
		{file: "semicolon.csv", opt: Options{Decimal: ".", Encoding: "utf-8"}, header: []string{"région", "sexe", "n", "total", "moyenne"},
			rows: [][]string{
				{"Nord", "F", "12", "1.234,5", "102,875"}, {"Nord", "H", "3", "7039,5", "2346,5"},
				{"Sud", "F", "40", "1 234 567,25", "30864,18"}, {"Sud", "H", "7", "-12,75", "-1,82"},
				{"Total", "F", "52", "1.235.801,75", "23765,42"}},
			lines: []int{2, 3, 4, 5, 6},
			info:  Info{Encoding: "utf-8", Delimiter: ";", Decimal: ".", Detected: []string{"delimiter"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.opt.Encoding, func(t *testing.T) {
			tt.opt.BatchSize = 3
			srcs, err := Open("../testdata/encodings/"+tt.file, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer srcs[0].Close()
			if h := srcs[0].Header(); !reflect.DeepEqual(h, tt.header) {
				t.Fatalf("header %q, want %q", h, tt.header)
			}
			rows, lines, err := collect(t, srcs[0])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rows, tt.rows) || !reflect.DeepEqual(lines, tt.lines) {
				t.Fatalf("rows %q lines %v,\nwant %q lines %v", rows, lines, tt.rows, tt.lines)
			}
			if info := srcs[0].(Describer).Info(); !reflect.DeepEqual(info, tt.info) {
				t.Fatalf("info %+v, want %+v", info, tt.info)
			}
		})
	}
}

func TestEncodingBOMsAndForced(t *testing.T) {
	utf16 := func(order unicode.Endianness, bom unicode.BOMPolicy, s string) string {
		b, err := unicode.UTF16(order, bom).NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const text = "pays;n\nÉire;1\nΑθήνα;2\n𝔸;3\n"
	want := [][]string{{"Éire", "1"}, {"Αθήνα", "2"}, {"𝔸", "3"}}
	tests := []struct {
		name, in string
		opt      Options
		enc      string
		bom      bool
	}{
		{"utf-8 bom", "\ufeff" + text, Options{}, "utf-8", true},
		{"utf-8", text, Options{}, "utf-8", false},
		{"utf-16le bom", utf16(unicode.LittleEndian, unicode.UseBOM, text), Options{}, "utf-16le", true},
		{"utf-16be bom", utf16(unicode.BigEndian, unicode.UseBOM, text), Options{}, "utf-16be", true},
		{"forced utf-16 no bom", utf16(unicode.LittleEndian, unicode.IgnoreBOM, text), Options{Encoding: "utf-16"}, "utf-16le", false},
		{"forced utf-16 bom be", utf16(unicode.BigEndian, unicode.UseBOM, text), Options{Encoding: "utf-16"}, "utf-16be", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.BatchSize = 2
			src, err := NewCSV("in.csv", iotest.HalfReader(strings.NewReader(tt.in)), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if h := src.Header(); !reflect.DeepEqual(h, []string{"pays", "n"}) {
				t.Fatalf("header %q", h)
			}
			rows, _, err := collect(t, src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rows, want) {
				t.Fatalf("rows %q, want %q", rows, want)
			}
			if info := src.(Describer).Info(); info.Encoding != tt.enc || info.BOM != tt.bom {
				t.Fatalf("info %+v, want %s bom %v", info, tt.enc, tt.bom)
			}
		})
	}
	for _, bad := range []string{"utf8", "UTF-8", "cp1252", "ascii"} {
		if _, err := NewCSV("in.csv", strings.NewReader(text), Options{Encoding: bad}); err == nil || !strings.Contains(err.Error(), "input.encoding") {
			t.Errorf("encoding %q: err = %v", bad, err)
		}
	}
	if _, err := NewCSV("in.csv", strings.NewReader(text), Options{Decimal: ";"}); err == nil || !strings.Contains(err.Error(), "input.decimal") {
		t.Errorf("decimal ;: err = %v", err)
	}
}

// A file that looks like UTF-8 on its first SniffSize bytes but has a
// Latin-1 byte later is refused at that row and column, with the setting
// that fixes it; forced utf-8 refuses it too. Nothing is replaced.
func TestInvalidUTF8AfterPrefix(t *testing.T) {
	var b strings.Builder
	b.WriteString("région,n\n")
	row := 1
	for b.Len() < SniffSize+1000 {
		row++
		fmt.Fprintf(&b, "Île-%d,%d\n", row, row)
	}
	row++
	fmt.Fprintf(&b, "\xcele-x,%d\n", row)
	fmt.Fprintf(&b, "ok,%d\n", row+1)
	for _, opt := range []Options{{}, {Encoding: "utf-8"}} {
		src, err := NewCSV("in.csv", strings.NewReader(b.String()), opt)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = collect(t, src)
		var re *Error
		if !errors.As(err, &re) || !errors.Is(err, ErrEncoding) || re.Row != row || re.Column != "région" {
			t.Fatalf("%+v: err = %v, want row %d column région", opt, err, row)
		}
		if !strings.Contains(err.Error(), "input.encoding") {
			t.Fatalf("no hint: %v", err)
		}
	}
	// the header is checked too
	if _, err := NewCSV("in.csv", strings.NewReader("r\xe9gion,n\n"), Options{Encoding: "utf-8"}); !errors.Is(err, ErrEncoding) {
		t.Fatalf("header: err = %v", err)
	}
}

// The single-byte decoders map the 256 bytes to 256 different characters
// (labels differing in one byte stay different) and agree with x/text's
// decoders wherever those define the byte; reading through short reads
// gives the same text.
func TestSingleByteDecoders(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table *[256]rune
		ref   *charmap.Charmap
	}{{"latin-1", latin1Table(), charmap.ISO8859_1}, {"windows-1252", windows1252Table(), charmap.Windows1252}} {
		seen := map[rune]bool{}
		for i, r := range tc.table {
			if seen[r] || r == utf8.RuneError {
				t.Fatalf("%s: byte %#x maps to %q twice or to the replacement character", tc.name, i, r)
			}
			seen[r] = true
			if ref := tc.ref.DecodeByte(byte(i)); ref != utf8.RuneError && ref != r {
				t.Fatalf("%s: byte %#x gives %q, x/text %q", tc.name, i, r, ref)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		in := make([]byte, 200_000)
		for i := range in {
			in[i] = byte(rng.IntN(256))
		}
		got, err := io.ReadAll(iotest.OneByteReader(&byteDecoder{r: iotest.HalfReader(bytes.NewReader(in)), table: tc.table}))
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, c := range in {
			want = utf8.AppendRune(want, tc.table[c])
		}
		if !bytes.Equal(got, want) || !utf8.Valid(got) {
			t.Fatalf("%s: streamed decoding differs", tc.name)
		}
	}
	// a byte Windows-1252 leaves undefined makes auto-detection pick Latin-1
	src, err := NewCSV("in.csv", strings.NewReader("a,b\n\x81x,\xe9\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := collect(t, src)
	if err != nil || !reflect.DeepEqual(rows, [][]string{{"\u0081x", "é"}}) || src.(Describer).Info().Encoding != "latin-1" {
		t.Fatalf("rows %q err %v info %+v", rows, err, src.(Describer).Info())
	}
}

func TestNumberFormat(t *testing.T) {
	dot, comma := NumberFormat{Missing: "NA means missing"}, NumberFormat{Comma: true}
	ok := []struct {
		f    NumberFormat
		in   string
		want string
	}{
		{dot, "1234.5", "1234.5"}, {dot, "-0.25", "-0.25"}, {dot, "1.5e3", "1500"},
		{dot, "1,234.5", "1234.5"}, {dot, "1 234 567.25", "1234567.25"}, {dot, "12\u00a0345", "12345"},
		{dot, "1'234", "1234"}, {dot, " 7 ", "7"}, {dot, "1,234,567", "1234567"},
		{comma, "7039,5", "7039.5"}, {comma, "1.234,5", "1234.5"}, {comma, "1 234,5", "1234.5"},
		{comma, "-12,75", "-12.75"}, {comma, "1.235.801,75", "1235801.75"}, {comma, "1.234", "1234"},
		{comma, "42", "42"}, {comma, "1e3", "1000"}, {comma, "1,5e3", "1500"}, {comma, "+0,001", "0.001"},
		{comma, "12\u202f345,5", "12345.5"}, {comma, " 3,5 ", "3.5"},
	}
	for _, tc := range ok {
		got, err := tc.f.Parse(tc.in)
		if err != nil || got.Cmp(decimal.Must(tc.want)) != 0 {
			t.Errorf("comma=%v %q = %v, %v; want %s", tc.f.Comma, tc.in, got, err, tc.want)
		}
	}
	bad := []struct {
		f    NumberFormat
		in   string
		hint string
	}{
		{dot, "7039,5", `input.decimal: ","`}, {dot, "1.234,5", `input.decimal: ","`}, {dot, "n/a", "NA means missing"},
		{dot, "1,234 567", "1,234.5"}, {dot, "1,23", "1234.5"},
		{comma, "12.5", `set it to "."`}, {comma, "1,2,3", "1.234,5"}, {comma, "1.234 567,5", "1 234,5"},
		{NumberFormat{Comma: true, Detected: true}, "12.5", "detected"},
		{comma, "1,5.5", "1234,5"}, {dot, "", "1234.5"},
	}
	for _, tc := range bad {
		_, err := tc.f.Parse(tc.in)
		if !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), tc.hint) {
			t.Errorf("comma=%v %q: err = %v, want ErrNotNumber mentioning %q", tc.f.Comma, tc.in, err, tc.hint)
		}
	}
	if _, err := dot.Parse(strings.Repeat("1", decimal.MaxDecLen+1)); !errors.Is(err, decimal.ErrNotNumber) {
		t.Errorf("long: %v", err)
	}
}

// Random numbers written with a decimal comma and grouped thousands parse
// to exactly the value big.Rat reads from the plain form.
func TestDecimalCommaExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		digits := 1 + rng.IntN(25)
		var whole strings.Builder
		whole.WriteByte(byte('1' + rng.IntN(9)))
		for j := 1; j < digits; j++ {
			whole.WriteByte(byte('0' + rng.IntN(10)))
		}
		frac := ""
		if rng.IntN(3) > 0 {
			for j := 0; j <= rng.IntN(8); j++ {
				frac += string(rune('0' + rng.IntN(10)))
			}
		}
		sign := []string{"", "-", "+"}[rng.IntN(3)]
		plain := sign + whole.String()
		if frac != "" {
			plain += "." + frac
		}
		sep := []string{"", ".", " ", "\u00a0", "'"}[rng.IntN(5)]
		w := whole.String()
		var g []string
		for len(w) > 3 && sep != "" {
			g = append([]string{w[len(w)-3:]}, g...)
			w = w[:len(w)-3]
		}
		written := sign + strings.Join(append([]string{w}, g...), sep)
		if frac != "" {
			written += "," + frac
		}
		want, _ := new(big.Rat).SetString(plain)
		got, err := NumberFormat{Comma: true}.Parse(written)
		if err != nil || got.Rat().Cmp(want) != 0 {
			t.Fatalf("%q = %v, %v; want %s", written, got, err, plain)
		}
	}
}

func TestSniffDecimalComma(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"a;b\nx;1,5\ny;2\n", true},
		{"a;b\nx;1.234,5\ny;-0,25\n", true},
		{"a;b\nx;1,5\ny;2.5\n", false},     // a decimal point somewhere
		{"a;b\nx;1,5\ny;1.234\n", true},    // 1.234 is a thousands-grouped integer here
		{"a;b\nx;1\ny;1.234\n", false},     // no decimal comma seen
		{"a;b,c\nx;1\ny;2\n", false},       // the header does not count
		{"a;b\n\"x;1,5\";7\n", false},      // quoted text is not a number
		{"a;b\nx; 12,75 \ny;3\n", true},    // spaces around a number
		{"a;b\nx;1,234.5\ny;3,5\n", false}, // 1,234.5 is a decimal-point number
	}
	for _, tc := range tests {
		if got := sniffDecimalComma([]byte(tc.in), ';', false); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
	// a cut prefix drops its partial last line: "2.5" cut to "2" is not a number
	if !sniffDecimalComma([]byte("a;b\nx;1,5\ny;2.5"), ';', true) {
		t.Error("cut prefix: the partial last line counted")
	}
	// detection only in semicolon-separated files; the option wins
	for _, tc := range []struct {
		in   string
		opt  Options
		want string
	}{{"a\tb\nx\t1,5\n", Options{}, "."}, {"a;b\nx;1,5\n", Options{Decimal: "."}, "."}, {"a;b\nx;1,5\n", Options{}, ","}, {"a,b\nx,1\n", Options{Decimal: ","}, ","}} {
		src, err := NewCSV("in.csv", strings.NewReader(tc.in), tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		info := src.(Describer).Info()
		if info.Decimal != tc.want || slices.Contains(info.Detected, "decimal") != (tc.opt.Decimal == "" && tc.want == ",") {
			t.Errorf("%q %+v: info %+v, want decimal %q", tc.in, tc.opt, info, tc.want)
		}
	}
}
