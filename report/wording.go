package report

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// This file renders figures for people: thousands separators, rounded
// percentages, plain words instead of Go values. Reports meant for
// machines (report.json) keep the exact figures.

// Thousands inserts a comma every three digits of the integer part of a
// plain decimal number ("-1234567.25" -> "-1,234,567.25"). Text that is
// not a plain decimal number is returned as it is.
func Thousands(s string) string {
	i, j, ok := thousandsSpan(s)
	if !ok {
		return s
	}
	return string(appendGrouped(make([]byte, 0, len(s)+(j-i)/3), s, i, j))
}

// thousandsSpan finds the integer digits s[i:j] of a plain decimal
// number; ok is false when s is not one or has no more than 3 of them
// (Thousands leaves it as it is).
func thousandsSpan[S ~string | ~[]byte](s S) (i, j int, ok bool) {
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	j = i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || (j < len(s) && s[j] != '.') {
		return i, j, false
	}
	for k := j + 1; j < len(s) && k < len(s); k++ {
		if s[k] < '0' || s[k] > '9' {
			return i, j, false
		}
	}
	return i, j, j-i > 3
}

// appendGrouped appends s with a comma every three digits of s[i:j].
func appendGrouped[S ~string | ~[]byte](b []byte, s S, i, j int) []byte {
	b = append(b, s[:i]...)
	first := (j - i) % 3
	if first == 0 {
		first = 3
	}
	b = append(b, s[i:i+first]...)
	for k := i + first; k < j; k += 3 {
		b = append(b, ',')
		b = append(b, s[k:k+3]...)
	}
	return append(b, s[j:]...)
}

// DecText formats d with thousands separators, exactly as it is.
func DecText(d decimal.Dec) string { return Thousands(d.String()) }

// AppendDecText appends DecText(d) (d with thousands separators) to b.
func AppendDecText(b []byte, d decimal.Dec) []byte {
	start := len(b)
	b = d.Append(b)
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	n := j - i
	if n <= 3 {
		return b
	}
	commas := (n - 1) / 3
	end := len(b)
	b = append(b, make([]byte, commas)...)
	copy(b[j+commas:], b[j:end])
	// Move the integer digits right, a comma before every third from the
	// units.
	w := j + commas
	for k, d := j-1, 0; k >= i; k, d = k-1, d+1 {
		if d > 0 && d%3 == 0 {
			w--
			b[w] = ','
		}
		w--
		b[w] = b[k]
	}
	return b
}

// Rounded formats d rounded half away from zero to dp decimals (when it
// has more), with thousands separators.
func Rounded(d decimal.Dec, dp int) string {
	if d.Scale() <= dp {
		return DecText(d)
	}
	return Thousands(decimal.RoundRat(d.Rat(), dp))
}

// PercentText formats a percentage for a sentence comparing it with a
// limit: one decimal, or as many more (up to the exact value) as it takes
// for the rounded figure not to read as the limit when it is not.
func PercentText(share, limit decimal.Dec) string {
	for dp := 1; dp < share.Scale(); dp++ {
		s := decimal.RoundRat(share.Rat(), dp)
		r, err := decimal.Parse(s)
		if err == nil && (r.Cmp(limit) == 0) == (share.Cmp(limit) == 0) && (r.Cmp(limit) > 0) == (share.Cmp(limit) > 0) {
			return Thousands(s) + "%"
		}
	}
	return DecText(share) + "%"
}

// Plural returns "1 contribution" or "3 contributions".
func Plural(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return "1 " + one
	}
	return Thousands(strconv.FormatInt(n, 10)) + " " + many
}

// Label is the name of a figure in words, for comments and pages.
func Label(name string) string {
	if l, ok := figureLabels[name]; ok {
		return l
	}
	return strings.ReplaceAll(name, "_", " ")
}

var figureLabels = map[string]string{
	"X":             "total (X)",
	"N":             "contributors (N)",
	"k":             "limit k (%)",
	"p":             "precision p (%)",
	"q":             "prior precision q (%)",
	"x1":            "largest contribution (x1)",
	"x2":            "second largest contribution (x2)",
	"top_sum":       "sum of the n largest",
	"top_share_pct": "share of the n largest (%)",
	"k/100*X":       "k% of the total",
	"p/100*x1":      "p% of the largest",
	"p/q*x1":        "p/q of the largest",
	"x1_upper":      "upper estimate of x1",
	"dominated":     "dominated",
	"sets":          "rule set",
	"min":           "minimum",
	"negative":      "negative contributions",
	"threshold":     "minimum contributors",
	"solutions":     "samples that fit",
	"capped":        "count stopped at its cap",
	"verdict":       "verdict",
	"max_range":     "the largest value lies in",
	"min_range":     "the smallest value lies in",
	"forced":        "forced value",
	"group":         "group all at one value",
	"value":         "value",
	"min_count":     "at least this many",
	"lo":            "lowest",
	"hi":            "highest",
	"exact":         "given exactly",
	"protected":     "protected",
	"upper_level":   "upper protection level",
	"lower_level":   "lower protection level",
	"protects":      "protects",
	// the ranges of an already-rounded table (input.rounded)
	"rounding_base": "rounding base",
	"n_published":   "published count",
	"n_low":         "lowest count it stands for",
	"n_high":        "highest count it stands for",
	"X_published":   "published total",
	"X_low":         "lowest total it stands for",
	"X_high":        "highest total it stands for",
	"outcome_a":     "outcome at the first value",
	"n_a":           "count at the first value",
	"X_a":           "total at the first value",
	"outcome_b":     "outcome at the second value",
	"n_b":           "count at the second value",
	"X_b":           "total at the second value",
	"zero_high":     "most contributors a published 0 stands for",
}

// Readable renders a figure for a person: decimals and integers with
// thousands separators, floats with up to 6 significant digits, truth
// values as yes/no, lists and groups as "a, b" and "name value; ...".
func Readable(g audit.Figure) string {
	switch g.Kind {
	case audit.KindNull:
		return "none"
	case audit.KindDec:
		return DecText(g.Dec)
	case audit.KindInt:
		return Thousands(strconv.FormatInt(g.Int, 10))
	case audit.KindUint:
		return Thousands(strconv.FormatUint(uint64(g.Int), 10))
	case audit.KindBool:
		if g.Bool() {
			return "yes"
		}
		return "no"
	case audit.KindFloat:
		return FloatText(g.Float())
	case audit.KindText:
		return g.Text
	case audit.KindList:
		if strings.HasSuffix(g.Name, "_range") && len(g.Items) == 2 {
			return Readable(g.Items[0]) + " to " + Readable(g.Items[1])
		}
		parts := make([]string, len(g.Items))
		for i, it := range g.Items {
			parts[i] = Readable(it)
		}
		return strings.Join(parts, ", ")
	case audit.KindGroup:
		v, okV := g.Get("value")
		n, okN := g.Get("min_count")
		if okV && okN && len(g.Items) == 2 {
			return "the value " + Readable(v) + " at least " + Plural(n.Int, "time", "times")
		}
		parts := make([]string, len(g.Items))
		for i, it := range g.Items {
			parts[i] = Label(it.Name) + " " + Readable(it)
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// FloatText formats an estimate with up to 6 significant digits and
// thousands separators, never in exponent notation for ordinary sizes.
func FloatText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	if a != 0 && (a >= 1e15 || a < 1e-6) {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	dp := 0
	if a != 0 {
		dp = max(0, 5-int(math.Floor(math.Log10(a))))
	}
	s := strconv.FormatFloat(v, 'f', dp, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return Thousands(s)
}

// RatText formats an exact rational with dp decimals and separators.
func RatText(r *big.Rat, dp int) string { return Thousands(decimal.RoundRat(r, dp)) }

// AppendReadable appends Readable(g) to b, without the intermediate
// strings of its numbers (comments and explanation columns render every
// figure of every flagged cell).
func AppendReadable(b []byte, g audit.Figure) []byte {
	var tmp [48]byte
	switch g.Kind {
	case audit.KindDec:
		return appendThousands(b, g.Dec.Append(tmp[:0]))
	case audit.KindInt:
		return appendThousands(b, strconv.AppendInt(tmp[:0], g.Int, 10))
	case audit.KindUint:
		return appendThousands(b, strconv.AppendUint(tmp[:0], uint64(g.Int), 10))
	case audit.KindList:
		if strings.HasSuffix(g.Name, "_range") && len(g.Items) == 2 {
			b = AppendReadable(b, g.Items[0])
			b = append(b, " to "...)
			return AppendReadable(b, g.Items[1])
		}
		for i, it := range g.Items {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendReadable(b, it)
		}
		return b
	case audit.KindGroup:
		_, okV := g.Get("value")
		_, okN := g.Get("min_count")
		if okV && okN && len(g.Items) == 2 {
			return append(b, Readable(g)...)
		}
		for i, it := range g.Items {
			if i > 0 {
				b = append(b, "; "...)
			}
			b = append(b, Label(it.Name)...)
			b = append(b, ' ')
			b = AppendReadable(b, it)
		}
		return b
	}
	return append(b, Readable(g)...)
}

// appendThousands appends Thousands(string(s)) to b.
func appendThousands(b, s []byte) []byte {
	i, j, ok := thousandsSpan(s)
	if !ok {
		return append(b, s...)
	}
	return appendGrouped(b, s, i, j)
}
