package structure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// findSigned marks the codes whose cells may be negative (Axis.Signed),
// so that secondary suppression and the audit give a suppressed cell the
// lower bound 0 only where the quantity cannot be negative. Nothing is
// marked in a table without a negative published value. Otherwise, axes
// with fewer codes first:
//   - a code that holds a negative value and is the difference of two
//     other codes of its axis on every line where the three are published
//     (within the rounding of the table's finest decimal place): a
//     balance or net row, Balance = Exports − Imports;
//   - a code that holds a negative value and is labelled as a difference
//     (balance, net, change, surplus, deficit);
//   - negative values not covered by those: along the axis where they
//     fall in the fewest codes, those codes ("negative published values").
func findSigned(t *audit.Table, figs []figure, st *audit.Structure, opt Options, shared *axisLines) ([]string, []difference) {
	uncovered := map[int]bool{}
	for i, f := range figs {
		if f.known && f.v.Sign() < 0 {
			uncovered[i] = true
		}
	}
	if len(uncovered) == 0 {
		return nil, nil
	}
	var diffs []difference
	order := make([]int, len(st.Axes))
	for a := range order {
		order[a] = a
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(st.Axes[a].Codes) - len(st.Axes[b].Codes) })
	var notes []string
	mark := func(ax *audit.Axis, code, how string) {
		if ax.Signed == nil {
			ax.Signed = map[string]string{}
		}
		ax.Signed[code] = how
		for i := range uncovered {
			if ax.AxisCode(t.Cells[i].Key) == code {
				delete(uncovered, i)
			}
		}
		notes = append(notes, fmt.Sprintf("%s: %q may be negative (%s): a suppressed cell of it has no lower bound 0", ax.Name(), audit.CodeText(code), how))
	}
	for _, a := range order {
		if len(uncovered) == 0 {
			break
		}
		ax := &st.Axes[a]
		in := &axisInference{t: t, opt: opt, ax: ax, figs: figs, axes: st.Axes, shared: shared, a: a}
		in.lines()
		for _, d := range ax.Codes {
			if !in.holdsUncovered(d, uncovered) {
				continue
			}
			if x, y, ok, exact := in.difference(d); ok {
				mark(ax, d, fmt.Sprintf("%s - %s by arithmetic", audit.CodeText(x), audit.CodeText(y)))
				if exact || opt.Rounded.Sign() > 0 {
					diffs = append(diffs, difference{axis: a, d: d, x: x, y: y})
				} else {
					// only within the rounding, none confirmed: not a
					// relation, and the audit cannot confirm protection
					st.Unconfirmed = append(st.Unconfirmed, fmt.Sprintf("%s=%s (%s = %s - %s)", ax.Name(), audit.CodeText(x), audit.CodeText(d), audit.CodeText(x), audit.CodeText(y)))
				}
				continue
			}
			if derivedLabel(d) {
				mark(ax, d, "labelled as a difference, negative values")
			}
		}
	}
	for len(uncovered) > 0 {
		best, bestCodes := -1, []string(nil)
		for _, a := range order {
			ax := &st.Axes[a]
			var codes []string
			for i := range uncovered {
				c := ax.AxisCode(t.Cells[i].Key)
				if !slices.Contains(codes, c) {
					codes = append(codes, c)
				}
			}
			if best < 0 || len(codes) < len(bestCodes) {
				best, bestCodes = a, codes
			}
		}
		ax := &st.Axes[best]
		// in the axis's code order, for the same notes at every run
		for _, c := range ax.Codes {
			if slices.Contains(bestCodes, c) {
				mark(ax, c, "negative published values")
			}
		}
	}
	return notes, diffs
}

// difference is a code d of an axis found to be x − y.
type difference struct {
	axis    int
	d, x, y string
}

// applyDifferences adds, after the margins are found, each difference
// d = x − y as the relation x = y + d (x the margin of y and d, d signed),
// unless one of the three already adds up into a code or is a margin.
func applyDifferences(st *audit.Structure, diffs []difference) []string {
	var notes []string
	for _, df := range diffs {
		ax := &st.Axes[df.axis]
		_, py := ax.Parent[df.y]
		_, pd := ax.Parent[df.d]
		_, px := ax.Parent[df.x]
		if py || pd || px || ax.IsMarginCode(df.x) || ax.IsMarginCode(df.y) || ax.IsMarginCode(df.d) {
			continue
		}
		x, y, d := audit.CodeText(df.x), audit.CodeText(df.y), audit.CodeText(df.d)
		ax.Parent[df.y], ax.Parent[df.d] = df.x, df.x
		ax.Found[df.x] = fmt.Sprintf("difference: %s = %s - %s (arithmetic)", d, x, y)
		st.Margins = true
		notes = append(notes, fmt.Sprintf("%s: %q = %q - %q on every line: the relation %s = %s + %s", ax.Name(), d, x, y, x, y, d))
	}
	return notes
}

// derivedLabel reports whether a code is labelled as a difference.
func derivedLabel(code string) bool {
	for _, p := range label(code) {
		for _, w := range strings.Fields(normal(p)) {
			if slices.Contains(derivedWords, w) {
				return true
			}
		}
	}
	return false
}

// holdsUncovered reports whether code holds one of the uncovered
// negative cells.
func (in *axisInference) holdsUncovered(code string, uncovered map[int]bool) bool {
	for l := range in.cells {
		if i, ok := in.cells[l][code]; ok && uncovered[i] {
			return true
		}
	}
	return false
}

// difference finds two other codes x, y of the axis with d = x − y on
// every line where the three are published (at least one such line with
// x and y not zero), within the rounding of three published figures.
func (in *axisInference) difference(d string) (x, y string, ok, exact bool) {
	scale := 0
	for _, f := range in.figs {
		if f.known {
			scale = max(scale, f.v.Scale())
		}
	}
	lim := decimal.Scaled(15, scale+1) // 1.5 units of the finest place
	for _, x := range in.ax.Codes {
		if x == d {
			continue
		}
		for _, y := range in.ax.Codes {
			if y == d || y == x {
				continue
			}
			holds, checked, exact := true, 0, true
			for l := range in.cells {
				dv, xv, yv := in.value(l, d), in.value(l, x), in.value(l, y)
				if !dv.known || !xv.known || !yv.known {
					continue
				}
				if xv.v.IsZero() && yv.v.IsZero() {
					continue
				}
				diff := xv.v.Sub(yv.v).Sub(dv.v)
				if diff.Abs().Cmp(lim) > 0 {
					holds = false
					break
				}
				exact = exact && diff.IsZero()
				checked++
			}
			if holds && checked > 0 {
				return x, y, true, exact
			}
		}
	}
	return "", "", false, false
}
