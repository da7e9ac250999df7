package pipeline

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/audit"
)

// jointAttack is an intruder holding two releases of a table with
// margins in every dimension: each year's additivity, every published
// value, non-negativity, and, for each cell whose total did not change
// between the years, the two years' values tied together. It is built
// independently of the pipeline's audit (exact elimination of dependent
// equations, gonum's simplex).
type jointAttack struct {
	t     *testing.T
	vars  map[[2]string]int // (year, key) -> variable
	known map[[2]string]*big.Rat
	eqs   [][]*big.Rat // coefficients, then the right side
	n     int
}

func keyOf(c *audit.Cell) string { return strings.Join(c.Key, "/") }

func newJointAttack(t *testing.T, years ...*audit.Table) *jointAttack {
	j := &jointAttack{t: t, vars: map[[2]string]int{}, known: map[[2]string]*big.Rat{}}
	for y, tab := range years {
		for _, c := range tab.Cells {
			k := [2]string{string(rune('0' + y)), keyOf(c)}
			if statusOf(c) != audit.StatusOK {
				j.vars[k] = j.n
				j.n++
			} else {
				j.known[k] = c.Total.Rat()
			}
		}
	}
	for y, tab := range years {
		yk := string(rune('0' + y))
		byKey := map[string]*audit.Cell{}
		levels := make([][]string, len(tab.Dims))
		for _, c := range tab.Cells {
			byKey[keyOf(c)] = c
			for d, v := range c.Key {
				if v != tab.TotalLabel && !slices.Contains(levels[d], v) {
					levels[d] = append(levels[d], v)
				}
			}
		}
		// every relation: along dimension d, for each combination of the
		// other dimensions' levels (and totals), total = sum of parts
		for d := range tab.Dims {
			var combos [][]string
			var rec func(i int, cur []string)
			rec = func(i int, cur []string) {
				if i == len(tab.Dims) {
					combos = append(combos, slices.Clone(cur))
					return
				}
				if i == d {
					rec(i+1, append(cur, ""))
					return
				}
				for _, v := range append(slices.Clone(levels[i]), tab.TotalLabel) {
					rec(i+1, append(cur, v))
				}
			}
			rec(0, nil)
			for _, combo := range combos {
				row := j.row()
				ok := true
				add := func(key []string, coef int64) {
					k := [2]string{yk, strings.Join(key, "/")}
					if byKey[k[1]] == nil {
						ok = false
						return
					}
					j.term(row, k, coef)
				}
				for _, v := range levels[d] {
					combo[d] = v
					add(combo, 1)
				}
				combo[d] = tab.TotalLabel
				add(combo, -1)
				if ok {
					j.eqs = append(j.eqs, row)
				}
			}
		}
	}
	// cells whose total did not change: the same value in both years
	if len(years) == 2 {
		for _, c := range years[0].Cells {
			c2 := cellOf(years[1], keyOf(c))
			if c2 == nil || c.Total.Cmp(c2.Total) != 0 {
				continue
			}
			row := j.row()
			j.term(row, [2]string{"0", keyOf(c)}, 1)
			j.term(row, [2]string{"1", keyOf(c)}, -1)
			j.eqs = append(j.eqs, row)
		}
	}
	return j
}

func (j *jointAttack) row() []*big.Rat {
	row := make([]*big.Rat, j.n+1)
	for i := range row {
		row[i] = new(big.Rat)
	}
	return row
}

func (j *jointAttack) term(row []*big.Rat, k [2]string, coef int64) {
	if i, ok := j.vars[k]; ok {
		row[i].Add(row[i], big.NewRat(coef, 1))
		return
	}
	row[j.n].Sub(row[j.n], new(big.Rat).Mul(big.NewRat(coef, 1), j.known[k]))
}

// interval is the range of variable (year, key) over the intruder's
// polytope.
func (j *jointAttack) interval(year int, key string) (lo, hi float64) {
	t := j.t
	var basis [][]*big.Rat
	var pivots []int
	for _, e := range j.eqs {
		v := make([]*big.Rat, len(e))
		for i := range e {
			v[i] = new(big.Rat).Set(e[i])
		}
		for k, b := range basis {
			if f := new(big.Rat).Set(v[pivots[k]]); f.Sign() != 0 {
				for i := range v {
					v[i].Sub(v[i], new(big.Rat).Mul(f, b[i]))
				}
			}
		}
		piv := slices.IndexFunc(v[:j.n], func(x *big.Rat) bool { return x.Sign() != 0 })
		if piv < 0 {
			if v[j.n].Sign() != 0 {
				t.Fatalf("inconsistent joint system")
			}
			continue
		}
		inv := new(big.Rat).Inv(v[piv])
		for i := range v {
			v[i].Mul(v[i], inv)
		}
		for k, b := range basis {
			if f := new(big.Rat).Set(b[piv]); f.Sign() != 0 {
				for i := range b {
					b[i].Sub(b[i], new(big.Rat).Mul(f, v[i]))
				}
			}
			basis[k] = b
		}
		basis = append(basis, v)
		pivots = append(pivots, piv)
	}
	A := mat.NewDense(len(basis), j.n, nil)
	b := make([]float64, len(basis))
	for i, e := range basis {
		for c := range j.n {
			f, _ := e[c].Float64()
			A.Set(i, c, f)
		}
		b[i], _ = e[j.n].Float64()
	}
	x := j.vars[[2]string{string(rune('0' + year)), key}]
	obj := make([]float64, j.n)
	obj[x] = 1
	lo, _, err := lp.Simplex(obj, A, b, 1e-9, nil)
	if err != nil {
		t.Fatalf("min %s: %v", key, err)
	}
	obj[x] = -1
	neg, _, err := lp.Simplex(obj, A, b, 1e-9, nil)
	if err == lp.ErrUnbounded {
		return lo, math.Inf(1)
	}
	if err != nil {
		t.Fatalf("max %s: %v", key, err)
	}
	return lo, -neg
}

// TestPreviousJointAttack: an intruder holding both releases of a panel
// (the second made with --previous) and tying together the cells whose
// totals did not change recovers, for every primary cell of the second
// year that its own audit protects, no interval narrower than its
// protection levels.
func TestPreviousJointAttack(t *testing.T) {
	y1, y2 := panelYears(panelFirms, panelRegions, panelSectors, 2)
	first, kept := panelRuns(t, 2, y1, y2) // shared with TestPreviousKeepsPatternStable
	j := newJointAttack(t, first, kept)
	checked := 0
	for _, a := range kept.Audit.Cells {
		if a.Status != audit.StatusPrimary || !a.Protected {
			continue
		}
		c := cellOf(kept, strings.Join(a.Key, "/"))
		c1 := cellOf(first, strings.Join(a.Key, "/"))
		if c1 == nil || c1.Total.Cmp(c.Total) != 0 {
			continue // its value changed: the years are not tied there
		}
		lo, hi := j.interval(1, keyOf(c))
		x := c.Total.Float64()
		tol := 1e-6 * math.Max(1, x)
		if lo > x-a.Lower+tol || hi < x+a.Upper-tol {
			t.Errorf("cell %s (value %v, levels -%v/+%v): both releases together give [%v, %v]", keyOf(c), x, a.Lower, a.Upper, lo, hi)
		}
		checked++
	}
	t.Logf("%d primary cells with unchanged values checked against the joint attack", checked)
	if checked < 5 {
		t.Fatalf("only %d cells checked: the panel tests nothing", checked)
	}
}
