package readers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// Numbers in delimited text. With a decimal point (the default) a number
// is written 1234.5, -0.25, 1.5e3, or with thousands separators 1,234.5,
// 1 234.5 (space or no-break space) or 1'234.5. With a decimal comma
// (input.decimal: ",") it is written 1234,5, 1.234,5 or 1 234,5: a point
// is then only a thousands separator. Numbers are parsed exactly.

// NumberFormat parses the numbers of one table.
type NumberFormat struct {
	// Comma selects the decimal comma.
	Comma bool
	// Detected says the decimal comma was detected rather than set.
	Detected bool
	// Missing describes the texts that mean a missing value, for messages
	// (such as "empty, NA, NaN, null and . mean a missing value").
	Missing string
}

// grouped matches a number with groups of three digits separated by a
// comma, space, no-break space or apostrophe: 1,234 or 12 345.67.
var grouped = regexp.MustCompile(`^[-+]?\d{1,3}([, \x{00a0}\x{202f}']\d{3})+(\.\d+)?$`)

// commaGrouped matches decimal-comma numbers with thousands separators:
// 1.234,5 or 1 234,5.
var (
	commaGrouped = regexp.MustCompile(`^[-+]?\d{1,3}([. \x{00a0}\x{202f}']\d{3})+(,\d+)?$`)
)

// groupSeparators removes the thousands separators of the integer part.
var groupSeparators = strings.NewReplacer(",", "", ".", "", " ", "", "\u00a0", "", "\u202f", "", "'", "")

// Parse parses one number; surrounding spaces are ignored. Errors wrap
// ErrNotNumber and say which forms are accepted.
func (f NumberFormat) Parse(text string) (decimal.Dec, error) {
	text = strings.TrimSpace(text)
	if len(text) > decimal.MaxDecLen {
		return decimal.Parse(text) // the length error
	}
	if !f.Comma {
		d, err := decimal.Parse(text)
		if err == nil {
			return d, nil
		}
		if grouped.MatchString(text) && oneSeparator(text, ".") {
			whole, frac, dot := strings.Cut(text, ".")
			s := groupSeparators.Replace(whole)
			if dot {
				s += "." + frac
			}
			return decimal.Parse(s)
		}
		return decimal.Dec{}, f.notNumber(err)
	}
	if !strings.ContainsAny(text, ". '\u00a0\u202f") {
		if d, err := decimal.Parse(strings.Replace(text, ",", ".", 1)); err == nil {
			return d, nil
		}
	} else if commaGrouped.MatchString(text) && oneSeparator(text, ",") {
		whole, frac, _ := strings.Cut(text, ",")
		s := groupSeparators.Replace(whole)
		if frac != "" {
			s += "." + frac
		}
		return decimal.Parse(s)
	}
	_, err := decimal.Parse(text) // keep a specific reason, such as too many decimals
	if err == nil {
		err = decimal.ErrNotNumber
	}
	return decimal.Dec{}, f.notNumber(err)
}

// oneSeparator reports that a grouped number uses a single kind of
// thousands separator (1,234,567 or 1 234 567, not 1,234 567); dec is the
// decimal mark, which is not a separator.
func oneSeparator(text, dec string) bool {
	whole, _, _ := strings.Cut(text, dec)
	whole = strings.TrimLeft(whole, "+-")
	var sep rune = -1
	for _, r := range whole {
		if r >= '0' && r <= '9' {
			continue
		}
		if sep >= 0 && r != sep {
			return false
		}
		sep = r
	}
	return true
}

// notNumber builds the "not a number" error: the reason, the accepted
// forms, the missing-value texts and how to change the decimal mark.
func (f NumberFormat) notNumber(err error) error {
	reason := strings.TrimPrefix(err.Error(), decimal.ErrNotNumber.Error())
	var b strings.Builder
	if f.Comma {
		b.WriteString(`with a decimal comma numbers are written 1234,5, -0,25, 1.234,5 or 1 234,5`)
		if f.Detected {
			b.WriteString(` (the decimal comma was detected: this semicolon-separated file's first rows write every decimal number with one; set input.decimal: "." if it uses a decimal point)`)
		} else {
			b.WriteString(` (input.decimal is ","; set it to "." for a decimal point)`)
		}
	} else {
		b.WriteString(`numbers are written 1234.5, -0.25, 1.5e3, 1,234.5 or 1 234.5; a decimal comma (7039,5 or 1.234,5) needs input.decimal: ","`)
	}
	if f.Missing != "" {
		b.WriteString("; ")
		b.WriteString(f.Missing)
	}
	return fmt.Errorf("%w%s: %s", ErrNotNumber, reason, b.String())
}

// commaNumber matches decimal-comma numbers (1,5 or 1.234,5); pointNumber
// decimal-point numbers (1.5, 1,234.5, .5), of which thousandsPoint (1.234,
// 12.345.678) can be read either way and decides nothing.
var (
	commaNumber    = regexp.MustCompile(`^[-+]?(\d+|\d{1,3}(\.\d{3})+),\d+$`)
	pointNumber    = regexp.MustCompile(`^[-+]?(\d*\.\d+|\d{1,3}(,\d{3})+\.\d+)$`)
	thousandsPoint = regexp.MustCompile(`^[-+]?\d{1,3}(\.\d{3})+$`)
)

// sniffDecimalComma reports whether the rows in prefix (delimited text
// starting with the header line) write numbers with a decimal comma: at
// least one field is a decimal-comma number and none is a decimal-point
// number. full says the prefix was cut, so its last line is dropped.
func sniffDecimalComma(prefix []byte, delim rune, full bool) bool {
	if full {
		if k := bytes.LastIndexByte(prefix, '\n'); k >= 0 {
			prefix = prefix[:k+1]
		}
	}
	r := csv.NewReader(bytes.NewReader(prefix))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	comma := false
	for i := 0; ; i++ {
		rec, err := r.Read()
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				continue
			}
			break
		}
		if i == 0 {
			continue // the header
		}
		for _, f := range rec {
			f = strings.TrimSpace(f)
			if pointNumber.MatchString(f) && !thousandsPoint.MatchString(f) {
				return false
			}
			if commaNumber.MatchString(f) {
				comma = true
			}
		}
	}
	return comma
}
