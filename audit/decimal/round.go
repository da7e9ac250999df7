package decimal

import (
	"math/big"
	"strings"
)

// RoundRat formats r with dp decimal places, rounding half away from zero
// (the convention of spreadsheet and statistics packages when printing).
func RoundRat(r *big.Rat, dp int) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dp)), nil)
	v := new(big.Rat).Mul(new(big.Rat).Abs(r), new(big.Rat).SetInt(scale))
	q, rem := new(big.Int).QuoRem(v.Num(), v.Denom(), new(big.Int))
	if new(big.Int).Mul(rem, big.NewInt(2)).Cmp(v.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return fixed(q, dp, r.Sign() < 0)
}

// RoundSqrt formats the square root of r >= 0 with dp decimal places,
// rounding half away from zero, exactly.
func RoundSqrt(r *big.Rat, dp int) string {
	if r.Sign() <= 0 {
		return fixed(new(big.Int), dp, false)
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2*dp)), nil)
	v := new(big.Rat).Mul(r, new(big.Rat).SetInt(scale)) // want round(sqrt(v))
	// k = floor(sqrt(floor(v))) is floor(sqrt(v)) for v >= 0
	fl := new(big.Int).Quo(v.Num(), v.Denom())
	k := new(big.Int).Sqrt(fl)
	// round up when v >= (k + 1/2)^2 = k^2 + k + 1/4
	half := new(big.Rat).SetFrac(new(big.Int).Add(new(big.Int).Mul(big.NewInt(4), new(big.Int).Add(new(big.Int).Mul(k, k), k)), big.NewInt(1)), big.NewInt(4))
	if v.Cmp(half) >= 0 {
		k.Add(k, big.NewInt(1))
	}
	return fixed(k, dp, false)
}

func fixed(q *big.Int, dp int, neg bool) string {
	s := q.String()
	if dp > 0 {
		if len(s) <= dp {
			s = strings.Repeat("0", dp-len(s)+1) + s
		}
		s = s[:len(s)-dp] + "." + s[len(s)-dp:]
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}
