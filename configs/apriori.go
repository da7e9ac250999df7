package configs

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// AprioriCell is one line of a tau-argus a-priori file (.hst): a cell,
// named by its codes in the order of the table's explanatory variables
// (its dimensions), and what the file says about it: an a-priori status
// (s safe, u unsafe, p protected), a cost for secondary suppression, or
// protection levels. The same record carries the status, cost and
// protection-level columns of a tau-argus table (readers/tauargus.go).
type AprioriCell struct {
	// Codes name the cell, one per dimension, in dimension order; the
	// total is the table's total label (or tau-argus's TOTCODE, or empty).
	Codes []string
	// Status is "s", "u", "p", "e" (empty, from a status column only) or
	// "" when the line gives a cost or protection levels instead.
	Status string
	// Cost, when set, replaces the cell's cost in secondary suppression.
	Cost *decimal.Dec
	// Lower and Upper, when set, are the cell's protection levels.
	Lower, Upper *decimal.Dec
	// Source is where it was written ("apriori.hst:12", "pp.tab row 3").
	Source string
}

// A-priori statuses.
const (
	AprioriSafe      = "s"
	AprioriUnsafe    = "u"
	AprioriProtected = "p"
	AprioriEmpty     = "e"
)

// maxHSTLine bounds one line of an a-priori file.
const maxHSTLine = 64 << 10

// ParseHST reads a tau-argus a-priori file: one cell per line, its codes
// (one per explanatory variable, quoted or not) separated by ";" or ","
// (the first separator of the first line that has one decides), then
// either a status (s safe, u unsafe, p protected; any case), or "c"
// and a cost, or "pl" and one protection level (lower and upper) or two
// (lower, then upper). Empty lines are skipped. Numbers may use a decimal
// comma when the separator is ";". A malformed line is an error naming
// the file, line and field.
func ParseHST(name string, r io.Reader) ([]AprioriCell, error) {
	fail := func(line, field int, format string, a ...any) error {
		return &Error{File: name, Line: line, Column: field, Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxHSTLine)
	var out []AprioriCell
	var sep rune
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if !utf8.Valid(text) {
			return nil, fail(line, 0, "the line is not UTF-8 text")
		}
		s := strings.TrimRight(string(text), " \t\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		if sep == 0 {
			sep = hstSeparator(s)
		}
		if len(out) >= maxOverrides {
			return nil, fail(line, 0, "more than %d a-priori cells", maxOverrides)
		}
		cr := csv.NewReader(strings.NewReader(s))
		cr.Comma = sep
		cr.TrimLeadingSpace = true
		f, err := cr.Read()
		if err != nil {
			return nil, fail(line, 0, "%v", err)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		c, err := hstCell(f, sep)
		if err != nil {
			return nil, fail(line, len(f), "%v (want the cell's codes, then s, u or p, or c and a cost, or pl and one or two protection levels)", err)
		}
		c.Source = fmt.Sprintf("%s:%d", filepath.Base(name), line)
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fail(line+1, 0, "%v", err)
	}
	return out, nil
}

// hstSeparator is ";" when the line has a semicolon outside quotes, else ",".
func hstSeparator(s string) rune {
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ';' && !quoted:
			return ';'
		}
	}
	return ','
}

// hstCell reads the fields of one a-priori line from the right: the
// status or the cost or protection levels, then the codes.
func hstCell(f []string, sep rune) (AprioriCell, error) {
	num := func(s string) (decimal.Dec, bool) {
		if sep == ';' && strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
			s = strings.Replace(s, ",", ".", 1)
		}
		d, err := decimal.Parse(s)
		return d, err == nil
	}
	n := len(f)
	var c AprioriCell
	switch last := strings.ToLower(f[n-1]); {
	case n >= 2 && (last == AprioriSafe || last == AprioriUnsafe || last == AprioriProtected):
		c.Status, c.Codes = last, f[:n-1]
	case n >= 3 && strings.EqualFold(f[n-2], "c"):
		d, ok := num(f[n-1])
		if !ok {
			return c, fmt.Errorf("cost %q is not a number", f[n-1])
		}
		if d.Sign() < 0 {
			return c, fmt.Errorf("cost %s is negative", f[n-1])
		}
		c.Cost, c.Codes = &d, f[:n-2]
	case n >= 3 && strings.EqualFold(f[n-2], "pl"):
		d, ok := num(f[n-1])
		if !ok {
			return c, fmt.Errorf("protection level %q is not a number", f[n-1])
		}
		c.Lower, c.Upper, c.Codes = &d, &d, f[:n-2]
	case n >= 4 && strings.EqualFold(f[n-3], "pl"):
		lo, ok1 := num(f[n-2])
		hi, ok2 := num(f[n-1])
		if !ok1 || !ok2 {
			return c, fmt.Errorf("protection levels %q and %q are not both numbers", f[n-2], f[n-1])
		}
		c.Lower, c.Upper, c.Codes = &lo, &hi, f[:n-3]
	default:
		return c, fmt.Errorf("the line ends in %q", f[n-1])
	}
	for _, l := range []*decimal.Dec{c.Lower, c.Upper} {
		if l != nil && l.Sign() < 0 {
			return c, fmt.Errorf("protection level %s is negative", l)
		}
	}
	return c, nil
}

// LoadHST reads an a-priori file from disk (see ParseHST).
func LoadHST(path string) ([]AprioriCell, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read the a-priori file", Err: err}
	}
	defer f.Close()
	return ParseHST(path, f)
}

// IsHST reports whether path names a tau-argus a-priori file (.hst);
// any other a-priori file is read as an overrides CSV.
func IsHST(path string) bool { return strings.EqualFold(filepath.Ext(path), ".hst") }

// resolveApriori reads the a-priori file of every layer (apriori:,
// --apriori): a .hst file into s.Apriori, an overrides CSV into
// s.Overrides; and takes the last layer's previous: directory.
func resolveApriori(layers []*Config, s *Settings) error {
	for _, l := range layers {
		if l == nil {
			continue
		}
		if l.Previous != "" {
			s.Previous = l.Previous
		}
		if l.Apriori == "" {
			continue
		}
		if IsHST(l.Apriori) {
			cells, err := LoadHST(l.Apriori)
			if err != nil {
				return err
			}
			s.Apriori = append(s.Apriori, cells...)
			continue
		}
		ovs, err := LoadOverrides(l.Apriori)
		if err != nil {
			return err
		}
		s.Overrides = append(s.Overrides, ovs...)
	}
	return nil
}
