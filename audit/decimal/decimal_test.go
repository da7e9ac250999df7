package decimal

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestParseDec(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"0", "0", false},
		{"12", "12", false},
		{"-3.250", "-3.25", false},
		{"+7.5", "7.5", false},
		{" 42 ", "42", false},
		{".5", "0.5", false},
		{"5.", "5", false},
		{"1e6", "1000000", false},
		{"1.5E-3", "0.0015", false},
		{"-2.5e2", "-250", false},
		{"123456789012345678901234567890", "123456789012345678901234567890", false},
		{"0.000000000000000001", "0.000000000000000001", false},
		{"9223372036854775807", "9223372036854775807", false},
		{"9223372036854775808", "9223372036854775808", false},
		{"", "", true},
		{"-", "", true},
		{".", "", true},
		{"abc", "", true},
		{"1.2.3", "", true},
		{"1,5", "", true},
		{"1e", "", true},
		{"1e99999", "", true},
		{"NaN", "", true},
		{"0.0000000000000000001", "", true}, // beyond MaxScale
	}
	for _, tt := range tests {
		d, err := Parse(tt.in)
		if tt.err {
			if err == nil || !errors.Is(err, ErrNotNumber) {
				t.Errorf("Parse(%q) = %v, %v; want ErrNotNumber", tt.in, d, err)
			}
			continue
		}
		if err != nil || d.String() != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %s", tt.in, d, err, tt.want)
		}
	}
}

func TestMulCmp(t *testing.T) {
	// 100 × (X − x1 − x2) < p × x1 with X=110000, x1=52000, x2=50000, p=10:
	// 800000 < 520000 is false.
	rest := Must("110000").Sub(Must("52000")).Sub(Must("50000"))
	if c := MulCmp(rest, 100, Must("52000"), 10); c != 1 {
		t.Fatalf("MulCmp = %d, want 1", c)
	}
	// values at the int64 edge go through 128-bit products
	big1 := Must("9223372036854775807")
	if c := MulCmp(big1, 3, big1, 2); c != 1 {
		t.Fatalf("MulCmp large = %d", c)
	}
	if c := MulCmp(big1.Neg(), 3, big1, 2); c != -1 {
		t.Fatalf("MulCmp negative = %d", c)
	}
	if c := MulCmp(Dec{}, 5, Dec{}, -5); c != 0 {
		t.Fatalf("MulCmp zero = %d", c)
	}
}

func genDec(t *rapid.T, label string) Dec {
	m := rapid.Int64().Draw(t, label+"m")
	s := rapid.IntRange(0, 6).Draw(t, label+"s")
	return Scaled(m, s)
}

func TestDecArithmeticMatchesRat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genDec(t, "a"), genDec(t, "b")
		p := rapid.Int64Range(-1e12, 1e12).Draw(t, "p")
		q := rapid.Int64Range(-1e12, 1e12).Draw(t, "q")
		ra, rb := a.Rat(), b.Rat()
		if got, want := a.Add(b).Rat(), new(big.Rat).Add(ra, rb); got.Cmp(want) != 0 {
			t.Fatalf("%v + %v = %v, want %v", a, b, got, want)
		}
		if got, want := a.Sub(b).Rat(), new(big.Rat).Sub(ra, rb); got.Cmp(want) != 0 {
			t.Fatalf("%v - %v = %v, want %v", a, b, got, want)
		}
		if got, want := a.Mul(b).Rat(), new(big.Rat).Mul(ra, rb); got.Cmp(want) != 0 {
			t.Fatalf("%v * %v = %v, want %v", a, b, got, want)
		}
		if got, want := a.Cmp(b), ra.Cmp(rb); got != want {
			t.Fatalf("Cmp(%v, %v) = %d, want %d", a, b, got, want)
		}
		l := new(big.Rat).Mul(ra, new(big.Rat).SetInt64(p))
		r := new(big.Rat).Mul(rb, new(big.Rat).SetInt64(q))
		if got, want := MulCmp(a, p, b, q), l.Cmp(r); got != want {
			t.Fatalf("MulCmp(%v,%d,%v,%d) = %d, want %d", a, p, b, q, got, want)
		}
		back, err := Parse(a.String())
		if err != nil || back.Cmp(a) != 0 {
			t.Fatalf("round trip %v -> %q -> %v, %v", a, a.String(), back, err)
		}
		if got := FromRat(ra); got.Cmp(a) != 0 {
			t.Fatalf("FromRat(%v) = %v", ra, got)
		}
	})
}

func TestRoundRatAndSqrt(t *testing.T) {
	tests := []struct {
		num, den int64
		dp       int
		want     string
	}{
		{9, 4, 1, "2.3"},      // 2.25 ties away from zero
		{-9, 4, 1, "-2.3"},    // and for negatives
		{1, 3, 3, "0.333"},    // plain
		{2, 3, 0, "1"},        // to integers
		{-1, 1000, 2, "0.00"}, // no negative zero
	}
	for _, tt := range tests {
		if got := RoundRat(big.NewRat(tt.num, tt.den), tt.dp); got != tt.want {
			t.Errorf("RoundRat(%d/%d, %d) = %s, want %s", tt.num, tt.den, tt.dp, got, tt.want)
		}
	}
	sq := []struct {
		num, den int64
		dp       int
		want     string
	}{
		{4, 1, 2, "2.00"},
		{2, 1, 3, "1.414"},
		{49, 1, 0, "7"},
		{25, 100, 1, "0.5"},
		{0, 1, 2, "0.00"},
		// 1.5625 = 1.25^2: exactly at the tie for 1 dp -> rounds up to 1.3
		{15625, 10000, 1, "1.3"},
	}
	for _, tt := range sq {
		if got := RoundSqrt(big.NewRat(tt.num, tt.den), tt.dp); got != tt.want {
			t.Errorf("RoundSqrt(%d/%d, %d) = %s, want %s", tt.num, tt.den, tt.dp, got, tt.want)
		}
	}
}

func TestFloat64IsNearest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := genDec(t, "d")
		want, _ := d.Rat().Float64()
		if got := d.Float64(); got != want {
			t.Fatalf("%v.Float64() = %v, want %v", d, got, want)
		}
	})
}

// TestParseDecLengthLimit: text up to MaxDecLen bytes parses exactly; longer
// text (here up to 10 MB of digits, which once took minutes) is refused as
// not a number, naming the limit.
func TestParseDecLengthLimit(t *testing.T) {
	at := "1" + strings.Repeat("0", MaxDecLen-1)
	d, err := Parse("  " + at + "  ")
	if err != nil {
		t.Fatalf("%d digits: %v", MaxDecLen, err)
	}
	want, _ := new(big.Int).SetString(at, 10)
	if d.Rat().Cmp(new(big.Rat).SetInt(want)) != 0 {
		t.Fatalf("%d digits parsed wrong", MaxDecLen)
	}
	for _, s := range []string{
		at + "0",
		"0." + strings.Repeat("0", MaxDecLen),
		"-" + at,
		strings.Repeat("7", 10<<20),
		strings.Repeat("1", 5<<20) + "." + strings.Repeat("0", 5<<20),
	} {
		_, err := Parse(s)
		if !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), "longer than 1000 characters") {
			t.Errorf("%d characters: err %v, want the length limit", len(s), err)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, s := range []string{"0", "-7.25", "12.5", "123456789012345678901234567890.125"} {
		d := Must(s)
		b, err := d.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var got Dec
		if err := got.UnmarshalJSON(b); err != nil || got.Cmp(d) != 0 || got.String() != d.String() {
			t.Fatalf("%s: got %v, %v", s, got, err)
		}
		if err := got.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil || got.Cmp(d) != 0 {
			t.Fatalf("%q: got %v, %v", s, got, err)
		}
	}
}
