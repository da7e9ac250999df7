package audit

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// MarshalJSON writes a finding with its values in sorted key order, as
// encoding/json would, but without reflection for the common value types
// (reports hold millions of findings).
func (f Finding) MarshalJSON() ([]byte, error) {
	return f.AppendJSON(make([]byte, 0, 128+32*len(f.Values)))
}

// AppendJSON appends the finding's JSON to b.
func (f Finding) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"rule":`...)
	b = appendString(b, f.Rule)
	b = append(b, `,"status":`...)
	b = appendString(b, string(f.Status))
	b = append(b, `,"message":`...)
	b = appendString(b, f.Message)
	if len(f.Values) > 0 {
		b = append(b, `,"values":{`...)
		keys := make([]string, 0, len(f.Values))
		for k := range f.Values {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, f.Values[k]); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case decimal.Dec:
		return x.Append(b), nil
	case string:
		return appendString(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendString(b, strconv.FormatFloat(x, 'g', -1, 64)), nil
		}
		return appendFloat(b, x), nil
	case []float64:
		b = append(b, '[')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, f); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case []any:
		return appendSlice(b, len(x), func(i int) any { return x[i] })
	case []map[string]any:
		return appendSlice(b, len(x), func(i int) any { return x[i] })
	case map[string]any:
		if x == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

func appendSlice(b []byte, n int, at func(int) any) ([]byte, error) {
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, at(i)); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendFloat formats a finite float64 as encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hex = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, escaped as encoding/json
// does with HTML escaping off.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// appendString appends s as a JSON string (no HTML escaping, invalid UTF-8
// replaced), matching encoding/json with SetEscapeHTML(false).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
