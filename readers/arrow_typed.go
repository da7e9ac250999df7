package readers

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Typed columns. Arrow IPC and Parquet files store numbers as integers,
// decimals and floats; a caller that reads a column as numbers can take
// them as exact decimals (Batch.Numbers) instead of text it must parse
// back. Each value is the number its text would parse to: integers as
// they are, decimals with their scale, floats by their shortest decimal
// (0.1 is 0.1, not 0.1000000000000000055511151231257827). Values without
// such a fast exact form (NaN, which is a null; infinities; decimals with
// more than decimal.MaxScale places; integers beyond int64) keep their
// text, which the caller parses and reports as before.

// NumberField is the text, in Batch.Rows, of a value whose exact number is
// in Batch.Numbers. It is never the text of a value.
const NumberField = "\x00number"

// Typed is implemented by sources whose columns may hold typed numbers
// (Arrow IPC and Parquet files).
type Typed interface {
	// ReadNumbers asks for column c (0-based) as numbers, before the
	// first call to Next: when c is a numeric column, every later batch
	// has Numbers[c] set, and a row's field c is NumberField with the
	// number in Numbers[c][row], or the value's text (null "", NaN "",
	// Inf, a number beyond the fast forms). It reports whether c is
	// numeric.
	ReadNumbers(c int) bool
}

// floatDec returns the shortest decimal that reads back to v (as
// strconv.FormatFloat(v, 'f', -1, bits) writes it), exactly, or false when
// v is NaN or infinite or the decimal has more than decimal.MaxScale
// places or does not fit an int64 mantissa.
func floatDec(v float64, bits int) (decimal.Dec, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return decimal.Dec{}, false
	}
	if bits == 64 {
		if d, ok := fewDecimals(v); ok {
			return d, true
		}
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], v, 'e', -1, bits) // [-]d[.ddd]e±dd
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var m int64
	nd, k := 0, 0
	for ; k < len(b) && b[k] != 'e'; k++ {
		if b[k] == '.' {
			continue
		}
		m = m*10 + int64(b[k]-'0') // at most 17 digits
		nd++
	}
	if k+2 >= len(b) {
		return decimal.Dec{}, false
	}
	exp := 0
	for _, c := range b[k+2:] {
		exp = exp*10 + int(c-'0')
	}
	if b[k+1] == '-' {
		exp = -exp
	}
	scale := nd - 1 - exp
	if scale > decimal.MaxScale {
		return decimal.Dec{}, false
	}
	if scale < 0 {
		if -scale > 18 {
			return decimal.Dec{}, false
		}
		p := decimal.Pow10(-scale)
		if m > math.MaxInt64/p {
			return decimal.Dec{}, false
		}
		m *= p
		scale = 0
	}
	if neg {
		m = -m
	}
	return decimal.Scaled(m, scale), true
}

// fewDecimals is floatDec's fast path for doubles written with at most
// eight decimals and fifteen significant digits (amounts such as
// 12345.67): it finds an integer m and the smallest s <= 8 such that
// m/10^s, correctly rounded, is v. A decimal of at most 15 significant
// digits is the only one of that length or shorter that rounds to its
// double (DBL_DIG is 15), so it is the shortest decimal of v, which
// strconv.FormatFloat(v, 'f', -1, 64) writes.
func fewDecimals(v float64) (decimal.Dec, bool) {
	if a := math.Abs(v); a >= 1e15 || a < 1e-8 && a != 0 {
		return decimal.Dec{}, false
	}
	for s := 0; s <= 8; s++ {
		p := float64(decimal.Pow10(s))
		x := v * p
		if x != math.Trunc(x) || math.Abs(x) >= 1e15 {
			continue
		}
		m := int64(x)
		if float64(m)/p == v { // m and 10^s are exact doubles, the quotient correctly rounded
			return decimal.Scaled(m, s), true
		}
	}
	return decimal.Dec{}, false
}

// scaledDec returns m × 10^-scale when the scale is one a parsed decimal
// may have.
func scaledDec(m int64, scale int32) (decimal.Dec, bool) {
	if scale < 0 || scale > decimal.MaxScale {
		return decimal.Dec{}, false
	}
	return decimal.Scaled(m, int(scale)), true
}

// uintDec returns v when it fits an int64.
func uintDec(v uint64) (decimal.Dec, bool) {
	if v > math.MaxInt64 {
		return decimal.Dec{}, false
	}
	return decimal.FromInt(int64(v)), true
}

// numberOf returns a function giving element i of a as an exact number
// (false for a null or a value without a fast exact form, whose text then
// stands), or nil when a is not numeric.
func numberOf(a arrow.Array) func(int) (decimal.Dec, bool) {
	null := func(f func(int) (decimal.Dec, bool)) func(int) (decimal.Dec, bool) {
		if a.NullN() == 0 {
			return f
		}
		return func(i int) (decimal.Dec, bool) {
			if a.IsNull(i) {
				return decimal.Dec{}, false
			}
			return f(i)
		}
	}
	switch a := a.(type) {
	case *array.Int8:
		return null(func(i int) (decimal.Dec, bool) { return decimal.FromInt(int64(a.Value(i))), true })
	case *array.Int16:
		return null(func(i int) (decimal.Dec, bool) { return decimal.FromInt(int64(a.Value(i))), true })
	case *array.Int32:
		return null(func(i int) (decimal.Dec, bool) { return decimal.FromInt(int64(a.Value(i))), true })
	case *array.Int64:
		return null(func(i int) (decimal.Dec, bool) { return decimal.FromInt(a.Value(i)), true })
	case *array.Uint8:
		return null(func(i int) (decimal.Dec, bool) { return decimal.FromInt(int64(a.Value(i))), true })
	case *array.Uint16:
		return null(func(i int) (decimal.Dec, bool) { return decimal.FromInt(int64(a.Value(i))), true })
	case *array.Uint32:
		return null(func(i int) (decimal.Dec, bool) { return decimal.FromInt(int64(a.Value(i))), true })
	case *array.Uint64:
		return null(func(i int) (decimal.Dec, bool) { return uintDec(a.Value(i)) })
	case *array.Float16:
		return null(func(i int) (decimal.Dec, bool) { return floatDec(float64(a.Value(i).Float32()), 32) })
	case *array.Float32:
		return null(func(i int) (decimal.Dec, bool) { return floatDec(float64(a.Value(i)), 32) })
	case *array.Float64:
		return null(func(i int) (decimal.Dec, bool) { return floatDec(a.Value(i), 64) })
	case *array.Decimal32:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) (decimal.Dec, bool) { return scaledDec(int64(a.Value(i)), sc) })
	case *array.Decimal64:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) (decimal.Dec, bool) { return scaledDec(int64(a.Value(i)), sc) })
	case *array.Decimal128:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) (decimal.Dec, bool) {
			v := a.Value(i)
			lo, hi := v.LowBits(), v.HighBits()
			if hi != int64(lo)>>63 { // beyond int64
				return decimal.Dec{}, false
			}
			return scaledDec(int64(lo), sc)
		})
	case *array.Decimal256:
		sc := a.DataType().(arrow.DecimalType).GetScale()
		return null(func(i int) (decimal.Dec, bool) {
			w := a.Value(i).Array() // little-endian words
			ext := uint64(int64(w[0]) >> 63)
			if w[1] != ext || w[2] != ext || w[3] != ext {
				return decimal.Dec{}, false
			}
			return scaledDec(int64(w[0]), sc)
		})
	case *array.Dictionary:
		dict := numberOf(a.Dictionary())
		if dict == nil {
			return nil
		}
		return null(func(i int) (decimal.Dec, bool) { return dict(a.GetValueIndex(i)) })
	}
	return nil
}

// isNumeric reports whether numberOf gives numbers for arrays of type t.
func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	case arrow.DICTIONARY:
		return isNumeric(t.(*arrow.DictionaryType).ValueType)
	}
	return false
}
