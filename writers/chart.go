package writers

import "math"

// Axis helpers shared by the SVG charts: round upper ends and tick steps.

// niceCeil rounds v up to a round number: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5,
// 6 or 8 times a power of ten.
func niceCeil(v float64) float64 { return roundUp(v, 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8) }

// niceTicks returns about six round tick values from lo to hi.
func niceTicks(lo, hi float64) []float64 {
	step := niceStep((hi - lo) / 6)
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// niceStep rounds v up to 1, 2 or 5 times a power of ten.
func niceStep(v float64) float64 { return roundUp(v, 1, 2, 5) }

// roundUp rounds v up to the smallest of ms (ascending, in [1, 10)) or 10
// times a power of ten that is at least v.
func roundUp(v float64, ms ...float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range ms {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

// sep separates the points of an SVG list: nothing before the first.
func sep(i int) string {
	if i == 0 {
		return ""
	}
	return " "
}
