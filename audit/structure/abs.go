package structure

import (
	"fmt"
	"strings"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// The Australian Bureau of Statistics names each series of a time-series
// spreadsheet by a description of ' ; '-separated parts ending in ';':
// "Quarterly hours worked in all jobs ;" is the data item's total,
// "Quarterly hours worked in all jobs ;  Market ;" a part of it, and
// "Quarterly hours worked in all jobs ;  > Agriculture, Forestry and
// Fishing ;" a part of the series above it (each leading '>' one level
// deeper). The hierarchy is read from the descriptions and kept where the
// figures confirm it (confirmTree).

// absHow says how an ABS hierarchy was found.
const absHow = "ABS series descriptions"

// absParts splits an ABS series description into its parts and its
// level: the number of parts after the first plus the '>' before the
// last. ok is false for a code that is not one.
func absParts(code string) (parts []string, level int, ok bool) {
	if strings.Contains(code, "\x1f") {
		return nil, 0, false
	}
	s := strings.TrimSpace(code)
	if !strings.HasSuffix(s, ";") {
		return nil, 0, false
	}
	for _, p := range strings.Split(strings.TrimSuffix(s, ";"), ";") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, 0, false
		}
		parts = append(parts, p)
	}
	last := parts[len(parts)-1]
	depth := 0
	for strings.HasPrefix(last, ">") {
		depth++
		last = strings.TrimSpace(last[1:])
	}
	if last == "" {
		return nil, 0, false
	}
	parts[len(parts)-1] = last
	return parts, len(parts) - 1 + depth, true
}

// absTree returns the parent of each code by its ABS series description:
// the nearest code above it of the same data item (first part) at a
// coarser level whose parts, but its last, begin the code's own (its last
// too when it has fewer parts). It is nil unless every code is an ABS
// description and some code has a parent.
func absTree(codes []string) map[string]string {
	if len(codes) < 3 {
		return nil
	}
	parts := make([][]string, len(codes))
	levels := make([]int, len(codes))
	for i, c := range codes {
		p, l, ok := absParts(c)
		if !ok {
			return nil
		}
		parts[i], levels[i] = p, l
	}
	begins := func(prefix, p []string) bool {
		if len(prefix) > len(p) {
			return false
		}
		for i := range prefix {
			if prefix[i] != p[i] {
				return false
			}
		}
		return true
	}
	parent := map[string]string{}
	for i, c := range codes {
		for j := i - 1; j >= 0; j-- {
			if parts[j][0] != parts[i][0] {
				break // another data item
			}
			if levels[j] >= levels[i] {
				continue
			}
			q := parts[j]
			if len(q) < len(parts[i]) && begins(q, parts[i]) || len(q) == len(parts[i]) && begins(q[:len(q)-1], parts[i]) {
				parent[c] = codes[j]
			}
			break
		}
	}
	if len(parent) == 0 {
		return nil
	}
	return parent
}

// absRounding proposes input.rounded where a series above others by its
// ABS description misses their sum: the finest unit of a decimal place,
// no coarser than the coarsest place the relation's figures are published
// to, within whose rounding the relation holds on every line ((n+1)/2
// units; "" when none, or input.rounded is set).
func (in *axisInference) absRounding(total string, parts []string) string {
	if in.opt.Rounded.Sign() > 0 {
		return ""
	}
	var worst decimal.Dec
	coarse, fine := -1, -1
	for l := range in.cells {
		if _, ok := in.cells[l][total]; !ok {
			continue
		}
		figs := []figure{in.value(l, total)}
		for _, p := range parts {
			figs = append(figs, in.value(l, p))
		}
		var sum decimal.Dec
		complete := true
		for k, f := range figs {
			if !f.known {
				complete = false
				break
			}
			if coarse < 0 || f.v.Scale() < coarse {
				coarse = f.v.Scale()
			}
			fine = max(fine, f.v.Scale())
			if k > 0 {
				sum = sum.Add(f.v)
			}
		}
		if !complete {
			continue
		}
		if d := figs[0].v.Sub(sum).Abs(); d.Cmp(worst) > 0 {
			worst = d
		}
	}
	for k := fine; k >= coarse && k >= 0; k-- {
		unit := decimal.Scaled(1, k)
		// |diff|·2 <= (n+1)·unit on every line
		if worst.Add(worst).Cmp(unit.Mul(decimal.FromInt(int64(len(parts)+1)))) <= 0 {
			return fmt.Sprintf("; within the rounding of figures published to %s on every line: if the values are rounded so, say so with input.rounded: %s", unit, unit)
		}
	}
	return ""
}
