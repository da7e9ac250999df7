package configs

import (
	"fmt"
	"slices"
	"strings"
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
	return nil
}
