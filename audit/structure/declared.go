package structure

import "github.com/sdcaudit/sdcaudit/audit"

// Declared is the structure the configuration declares for a table
// built from records (or given without a structure): one axis per
// dimension, a code's parent its nearest ancestor of hierarchies present
// in the table, else the total label when the table has it. Nothing is
// inferred from labels or numbers: the cells add up by construction.
func Declared(t *audit.Table, total string, hierarchies map[string]map[string]string) *audit.Structure {
	st := &audit.Structure{}
	for d, dim := range t.Dims {
		ax := audit.Axis{Dims: []int{d}, Names: []string{dim}, Parent: map[string]string{}, Found: map[string]string{}}
		present := map[string]bool{}
		for _, c := range t.Cells {
			if k := c.Key[d]; !present[k] {
				present[k] = true
				ax.Codes = append(ax.Codes, k)
			}
		}
		hier := hierarchies[dim]
		for _, code := range ax.Codes {
			if code == total {
				continue
			}
			p, ok := "", false
			for cur, guard := code, 0; guard < 64; guard++ {
				par, has := hier[cur]
				if !has {
					break
				}
				if present[par] {
					p, ok = par, true
					break
				}
				cur = par
			}
			if !ok && present[total] {
				p, ok = total, true
			}
			if ok {
				ax.Parent[code] = p
				ax.Found[p] = "configuration"
			}
		}
		if len(ax.Parent) > 0 {
			st.Margins = true
		}
		st.Axes = append(st.Axes, ax)
	}
	return st
}
