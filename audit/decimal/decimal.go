package decimal

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Dec is an exact decimal number m × 10^-scale. The zero value is 0.
//
// Values from input files are decimals, so sums, differences and
// comparisons of Decs are exact; arithmetic stays in int64 while it fits and
// moves to math/big when it would overflow. Dec is immutable: every
// operation returns a new value.
type Dec struct {
	m     int64
	b     *big.Int // non-nil when the mantissa does not fit int64
	scale int32
}

// MaxScale is the largest number of decimal places kept exactly.
const MaxScale = 18

// ErrNotNumber reports text that is not a decimal number.
var ErrNotNumber = errors.New("not a number")

// MaxDecLen is the longest number text Parse reads, in bytes after
// trimming spaces. Longer text is refused before parsing: exact parsing of
// very long digit strings takes super-linear time (100,000 digits took
// seconds), and no statistic needs more than a few dozen digits.
const MaxDecLen = 1000

// FromInt returns the integer v as a Dec.
func FromInt(v int64) Dec { return Dec{m: v} }

// Parse parses a decimal number such as "12", "-3.25", "1e6" or "1.5E-3".
// Leading and trailing spaces are ignored. Numbers with more than MaxScale
// decimal places are rejected rather than rounded.
func Parse(s string) (Dec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Dec{}, ErrNotNumber
	}
	if len(s) > MaxDecLen {
		return Dec{}, fmt.Errorf("%w: longer than %d characters", ErrNotNumber, MaxDecLen)
	}
	// Fast path: plain integers and decimals that fit int64.
	var m uint64
	neg := false
	i := 0
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i = 1
	}
	digits, scale := 0, int32(0)
	seenDot := false
	fast := true
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if m > (math.MaxInt64-9)/10 {
				fast = false
			} else {
				m = m*10 + uint64(c-'0')
			}
			digits++
			if seenDot {
				scale++
			}
		case c == '.' && !seenDot:
			seenDot = true
		default:
			fast = false
		}
		if !fast {
			break
		}
	}
	if fast {
		if digits == 0 {
			return Dec{}, ErrNotNumber
		}
		if scale > MaxScale {
			return Dec{}, fmt.Errorf("%w: more than %d decimal places", ErrNotNumber, MaxScale)
		}
		v := int64(m)
		if neg {
			v = -v
		}
		return Dec{m: v, scale: scale}.norm(), nil
	}
	return parseSlow(s)
}

func parseSlow(s string) (Dec, error) {
	mant, exp := s, int64(0)
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		mant = s[:k]
		var err error
		if _, err = fmt.Sscan(s[k+1:], &exp); err != nil || strings.ContainsAny(s[k+1:], " .") {
			return Dec{}, ErrNotNumber
		}
		if exp > 400 || exp < -400 {
			return Dec{}, ErrNotNumber
		}
	}
	neg := false
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return Dec{}, ErrNotNumber
	}
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return Dec{}, ErrNotNumber
		}
	}
	b, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return Dec{}, ErrNotNumber
	}
	if neg {
		b.Neg(b)
	}
	scale := int64(len(frac)) - exp
	if scale < 0 {
		b.Mul(b, pow10big(int32(-scale)))
		scale = 0
	}
	d := Dec{b: b, scale: int32(scale)}.norm()
	if d.scale > MaxScale {
		return Dec{}, fmt.Errorf("%w: more than %d decimal places", ErrNotNumber, MaxScale)
	}
	return d, nil
}

// Must parses s and panics on error; for constants in tests and tables.
func Must(s string) Dec {
	d, err := Parse(s)
	if err != nil {
		panic(fmt.Sprintf("Must(%q): %v", s, err))
	}
	return d
}

// Pow10 returns 10^k for 0 <= k <= 18.
func Pow10(k int) int64 { return pow10[k] }

var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < 19; i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

var pow10f = func() [23]float64 {
	var p [23]float64
	p[0] = 1
	for i := 1; i < 23; i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

func pow10big(n int32) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// norm strips trailing zero decimals and moves small big values back to int64.
func (d Dec) norm() Dec {
	if d.b != nil {
		if d.b.IsInt64() {
			d = Dec{m: d.b.Int64(), scale: d.scale}
		} else {
			ten := big.NewInt(10)
			q, r := new(big.Int), new(big.Int)
			for d.scale > 0 {
				q.QuoRem(d.b, ten, r)
				if r.Sign() != 0 {
					break
				}
				d.b = new(big.Int).Set(q)
				d.scale--
			}
			if d.b.IsInt64() {
				return Dec{m: d.b.Int64(), scale: d.scale}
			}
			return d
		}
	}
	for d.scale > 0 && d.m%10 == 0 {
		d.m /= 10
		d.scale--
	}
	if d.m == 0 {
		d.scale = 0
	}
	return d
}

func (d Dec) bigMant() *big.Int {
	if d.b != nil {
		return d.b
	}
	return big.NewInt(d.m)
}

// MantissaAt returns the mantissa of d at scale s >= d.Scale() (d = m ×
// 10^-s), and whether it fits int64.
func (d Dec) MantissaAt(s int) (int64, bool) { return d.mantAt(int32(s)) }

func (d Dec) mantAt(s int32) (int64, bool) {
	if d.b != nil {
		return 0, false
	}
	k := s - d.scale
	if k == 0 {
		return d.m, true
	}
	if k >= 19 {
		return 0, d.m == 0
	}
	hi, lo := bits.Mul64(uint64(abs64(d.m)), uint64(pow10[k]))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if d.m < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

func (d Dec) bigAt(s int32) *big.Int {
	b := new(big.Int).Set(d.bigMant())
	if k := s - d.scale; k > 0 {
		b.Mul(b, pow10big(k))
	}
	return b
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Add returns d + e exactly.
func (d Dec) Add(e Dec) Dec {
	s := max(d.scale, e.scale)
	if a, ok := d.mantAt(s); ok {
		if b, ok := e.mantAt(s); ok {
			if r := a + b; (r > a) == (b > 0) || b == 0 {
				return Dec{m: r, scale: s}.norm()
			}
		}
	}
	return Dec{b: new(big.Int).Add(d.bigAt(s), e.bigAt(s)), scale: s}.norm()
}

// Neg returns -d.
func (d Dec) Neg() Dec {
	if d.b != nil || d.m == math.MinInt64 {
		return Dec{b: new(big.Int).Neg(d.bigMant()), scale: d.scale}.norm()
	}
	return Dec{m: -d.m, scale: d.scale}
}

// Sub returns d - e exactly.
func (d Dec) Sub(e Dec) Dec { return d.Add(e.Neg()) }

// Mul returns d × e exactly.
func (d Dec) Mul(e Dec) Dec {
	if d.b == nil && e.b == nil {
		hi, lo := bits.Mul64(uint64(abs64(d.m)), uint64(abs64(e.m)))
		if hi == 0 && lo <= math.MaxInt64 && d.m != math.MinInt64 && e.m != math.MinInt64 {
			r := int64(lo)
			if (d.m < 0) != (e.m < 0) {
				r = -r
			}
			return Dec{m: r, scale: d.scale + e.scale}.norm()
		}
	}
	return Dec{b: new(big.Int).Mul(d.bigMant(), e.bigMant()), scale: d.scale + e.scale}.norm()
}

// Cmp compares d and e and returns -1, 0 or +1.
func (d Dec) Cmp(e Dec) int {
	s := max(d.scale, e.scale)
	if a, ok := d.mantAt(s); ok {
		if b, ok := e.mantAt(s); ok {
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		}
	}
	return d.bigAt(s).Cmp(e.bigAt(s))
}

// Sign returns -1, 0 or +1.
func (d Dec) Sign() int {
	if d.b != nil {
		return d.b.Sign()
	}
	switch {
	case d.m < 0:
		return -1
	case d.m > 0:
		return 1
	}
	return 0
}

// Abs returns |d|.
func (d Dec) Abs() Dec {
	if d.Sign() < 0 {
		return d.Neg()
	}
	return d
}

// IsZero reports whether d == 0.
func (d Dec) IsZero() bool { return d.Sign() == 0 }

// Scale is the number of decimal places of d (trailing zeros removed).
func (d Dec) Scale() int { return int(d.scale) }

// Rat returns d as an exact rational.
func (d Dec) Rat() *big.Rat {
	r := new(big.Rat).SetInt(d.bigMant())
	if d.scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10big(d.scale)))
	}
	return r
}

// Float64 returns the nearest float64 (for display and estimates only).
func (d Dec) Float64() float64 {
	if d.b == nil && d.scale == 0 {
		return float64(d.m)
	}
	// m and 10^scale are exact floats here, so one division is correctly
	// rounded.
	if d.b == nil && d.scale <= 22 && abs64(d.m) < 1<<53 {
		return float64(d.m) / pow10f[d.scale]
	}
	f, _ := d.Rat().Float64()
	return f
}

// Int64 returns d as an int64 when d is an integer that fits.
func (d Dec) Int64() (int64, bool) {
	if d.b == nil && d.scale == 0 {
		return d.m, true
	}
	return 0, false
}

// String formats d exactly in plain decimal notation.
func (d Dec) String() string {
	return string(d.Append(nil))
}

// Append appends the exact decimal text of d to b.
func (d Dec) Append(b []byte) []byte {
	if d.b == nil {
		if d.scale == 0 {
			return strconv.AppendInt(b, d.m, 10)
		}
		if d.m != math.MinInt64 {
			var tmp [24]byte
			digits := strconv.AppendUint(tmp[:0], uint64(abs64(d.m)), 10)
			if d.m < 0 {
				b = append(b, '-')
			}
			sc := int(d.scale)
			if len(digits) <= sc {
				b = append(b, '0', '.')
				for i := len(digits); i < sc; i++ {
					b = append(b, '0')
				}
				return append(b, digits...)
			}
			b = append(b, digits[:len(digits)-sc]...)
			b = append(b, '.')
			return append(b, digits[len(digits)-sc:]...)
		}
	}
	return append(b, d.bigString()...)
}

func (d Dec) bigString() string {
	neg := d.Sign() < 0
	digits := new(big.Int).Abs(d.bigMant()).String()
	if d.scale > 0 {
		if pad := int(d.scale) + 1 - len(digits); pad > 0 {
			digits = strings.Repeat("0", pad) + digits
		}
		k := len(digits) - int(d.scale)
		digits = digits[:k] + "." + digits[k:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// MarshalJSON writes d as a JSON number with its exact digits.
func (d Dec) MarshalJSON() ([]byte, error) { return d.Append(nil), nil }

// MulCmp compares d × p and e × q exactly for integers p, q and returns
// -1, 0 or +1. Rules use it to test inequalities such as
// 100 × (X − x1 − x2) < p × x1 without rounding.
func MulCmp(d Dec, p int64, e Dec, q int64) int {
	s := max(d.scale, e.scale)
	if a, ok := d.mantAt(s); ok {
		if b, ok := e.mantAt(s); ok {
			return MulCmpInt(a, p, b, q)
		}
	}
	l := new(big.Int).Mul(d.bigAt(s), big.NewInt(p))
	r := new(big.Int).Mul(e.bigAt(s), big.NewInt(q))
	return l.Cmp(r)
}

// MulCmpInt compares a × p with b × q exactly using 128-bit products and
// returns -1, 0 or +1.
func MulCmpInt(a, p, b, q int64) int {
	la, lneg := mul128(a, p)
	ra, rneg := mul128(b, q)
	switch {
	case lneg && !rneg:
		if la.zero() && ra.zero() {
			return 0
		}
		return -1
	case !lneg && rneg:
		if la.zero() && ra.zero() {
			return 0
		}
		return 1
	}
	c := la.cmp(ra)
	if lneg {
		return -c
	}
	return c
}

type u128 struct{ hi, lo uint64 }

func (x u128) zero() bool { return x.hi == 0 && x.lo == 0 }
func (x u128) cmp(y u128) int {
	switch {
	case x.hi < y.hi:
		return -1
	case x.hi > y.hi:
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}

// UAbs returns |v| as a uint64 (correct for math.MinInt64 too).
func UAbs(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

func mul128(a, b int64) (u128, bool) {
	hi, lo := bits.Mul64(UAbs(a), UAbs(b))
	neg := (a < 0) != (b < 0) && a != 0 && b != 0
	return u128{hi, lo}, neg
}

// UnmarshalText parses a decimal, so that Decs can be read from YAML and
// flags exactly.
func (d *Dec) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return fmt.Errorf("%q: %w", b, err)
	}
	*d = v
	return nil
}

// UnmarshalJSON reads a decimal written by MarshalJSON (a JSON number) or
// as a JSON string, exactly.
func (d *Dec) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	return d.UnmarshalText(b)
}

// Frac returns d as an integer fraction num/den with den a power of ten,
// when both fit int64.
func (d Dec) Frac() (num, den int64, ok bool) {
	if d.b != nil || d.scale > 18 {
		return 0, 0, false
	}
	return d.m, pow10[d.scale], true
}

// Mantissa returns the int64 mantissa of d (d = m × 10^-Scale()) when it fits.
func (d Dec) Mantissa() (int64, bool) {
	if d.b != nil {
		return 0, false
	}
	return d.m, true
}

// Scaled returns m × 10^-scale.
func Scaled(m int64, scale int) Dec { return Dec{m: m, scale: int32(scale)}.norm() }

// FromRat returns r as a Dec when its denominator is a power of ten
// (as for every sum of decimals), otherwise r rounded half-even to MaxScale
// places.
func FromRat(r *big.Rat) Dec {
	den := new(big.Int).Set(r.Denom())
	two, five, one := big.NewInt(2), big.NewInt(5), big.NewInt(1)
	q, m := new(big.Int), new(big.Int)
	n2, n5 := int32(0), int32(0)
	for n2 <= MaxScale {
		if q.QuoRem(den, two, m); m.Sign() != 0 {
			break
		}
		den.Set(q)
		n2++
	}
	for n5 <= MaxScale {
		if q.QuoRem(den, five, m); m.Sign() != 0 {
			break
		}
		den.Set(q)
		n5++
	}
	scale := max(n2, n5)
	if den.Cmp(one) != 0 || scale > MaxScale {
		scale = MaxScale
	}
	v := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10big(scale)))
	n := new(big.Int).Quo(v.Num(), v.Denom()) // exact when the loop found a power of ten
	if new(big.Rat).SetInt(n).Cmp(v) != 0 {
		// round half-even
		fl := new(big.Int)
		rem := new(big.Int)
		fl.DivMod(v.Num(), v.Denom(), rem)
		twice := new(big.Int).Mul(rem, big.NewInt(2))
		if c := twice.Cmp(v.Denom()); c > 0 || (c == 0 && fl.Bit(0) == 1) {
			fl.Add(fl, big.NewInt(1))
		}
		n = fl
	}
	return Dec{b: n, scale: scale}.norm()
}
