// Package decimal is the exact decimal number (Dec) that every value read
// from an input is kept as, so that no verdict depends on floating-point
// rounding: parsing, exact sums, products and comparisons (int64 while the
// mantissa fits, math/big beyond), and rationals rounded half away from
// zero for publication (RoundRat, RoundSqrt).
//
// Open it to change how numbers are parsed, compared or printed; readers,
// configs and rules all use this one copy.
package decimal
