package configs

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// inputEncodings are the values input.encoding accepts (readers.Encodings).
var inputEncodings = []string{"auto", "utf-8", "utf-16", "latin-1", "windows-1252"}

// checkInput validates input.encoding and input.decimal.
func checkInput(in *Input) error {
	if in.Encoding != "" && !slices.Contains(inputEncodings, in.Encoding) {
		return &Error{Msg: fmt.Sprintf("input.encoding %q is not one of %s", in.Encoding, strings.Join(inputEncodings, ", "))}
	}
	if in.Rounded != nil && in.Rounded.Sign() < 0 {
		return &Error{Msg: fmt.Sprintf("input.rounded must be a rounding base >= 0 (e.g. 5), got %s", in.Rounded)}
	}
	switch in.Decimal {
	case "", ".", ",":
	default:
		return &Error{Msg: fmt.Sprintf(`input.decimal %q must be "." or ","`, in.Decimal)}
	}
	if err := checkDelimiter(in.Delimiter); err != nil {
		return err
	}
	for _, l := range []struct {
		key string
		v   int64
	}{{"max_record_bytes", in.MaxRecordBytes}, {"max_field_bytes", in.MaxFieldBytes}, {"max_cells", in.MaxCells}, {"max_cells_per_record", in.MaxCellsPerRecord}} {
		if l.v < 0 {
			return &Error{Msg: fmt.Sprintf("input.%s must be positive (leave it out for the default), got %d", l.key, l.v), Err: ErrInvalid}
		}
	}
	return nil
}

// checkDelimiter validates input.delimiter: one character ("tab" or "\t"
// for a tab) that can separate fields: not a quote, a line break or a
// space-only text that could not be told from padding.
func checkDelimiter(d string) error {
	switch d {
	case "", "tab", "\\t", "\t":
		return nil
	}
	r := []rune(d)
	if len(r) != 1 {
		return &Error{Msg: fmt.Sprintf("input.delimiter %q must be one character (such as , ; | or tab)", d), Err: ErrInvalid}
	}
	switch c := r[0]; {
	case c == '"' || c == '\r' || c == '\n' || c == utf8.RuneError || !unicode.IsPrint(c) && c != '\t':
		return &Error{Msg: fmt.Sprintf("input.delimiter %q cannot separate fields (a quote, a line break or an invisible character)", d), Err: ErrInvalid}
	}
	return nil
}
