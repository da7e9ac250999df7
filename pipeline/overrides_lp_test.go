package pipeline

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/audit"
)

// bigOverrideData is a 36x36 frequency table (1,369 cells with margins,
// more than one chunk of the concurrent rule evaluation) with a few small
// cells; r is rows, c columns.
func bigOverrideData() string {
	var b strings.Builder
	b.WriteString("r,c\n")
	for i := range 36 {
		for j := range 36 {
			n := 12 + (i*7+j*3)%5
			if (i*36+j)%97 == 5 {
				n = 2 + (i+j)%3
			}
			for range n {
				fmt.Fprintf(&b, "R%02d,C%02d\n", i, j)
			}
		}
	}
	return b.String()
}

// lpInterval computes, independently of the pipeline's audit (gonum's
// simplex on the table's additivity, with the dependent equations
// dropped in exact arithmetic), the interval an intruder derives for the
// suppressed cell p of a two-dimensional table with margins.
func lpInterval(t *testing.T, tab *audit.Table, p *audit.Cell) (lo, hi float64) {
	t.Helper()
	sup := map[*audit.Cell]int{}
	var vars []*audit.Cell
	for _, c := range tab.Cells {
		if c.Status == audit.StatusPrimary || c.Status == audit.StatusSecondary {
			sup[c] = len(vars)
			vars = append(vars, c)
		}
	}
	byKey := map[string]*audit.Cell{}
	var rows, cols []string
	for _, c := range tab.Cells {
		byKey[c.Key[0]+"/"+c.Key[1]] = c
		if c.Key[0] != "Total" && !slices.Contains(rows, c.Key[0]) {
			rows = append(rows, c.Key[0])
		}
		if c.Key[1] != "Total" && !slices.Contains(cols, c.Key[1]) {
			cols = append(cols, c.Key[1])
		}
	}
	// every relation: total = sum of its parts, as sum(parts) - total = 0
	var eqs [][]*big.Rat
	relation := func(total string, parts []string) {
		row := make([]*big.Rat, len(vars)+1)
		for i := range row {
			row[i] = new(big.Rat)
		}
		add := func(key string, coef int64) {
			c := byKey[key]
			if i, ok := sup[c]; ok {
				row[i].Add(row[i], big.NewRat(coef, 1))
			} else {
				row[len(vars)].Sub(row[len(vars)], big.NewRat(coef*c.N, 1)) // known: to the right side
			}
		}
		for _, k := range parts {
			add(k, 1)
		}
		add(total, -1)
		eqs = append(eqs, row)
	}
	for _, r := range append(rows, "Total") {
		var parts []string
		for _, c := range cols {
			parts = append(parts, r+"/"+c)
		}
		relation(r+"/Total", parts)
	}
	for _, c := range cols {
		var parts []string
		for _, r := range rows {
			parts = append(parts, r+"/"+c)
		}
		relation("Total/"+c, parts)
	}
	// drop dependent equations (exact Gaussian elimination)
	var basis [][]*big.Rat
	var pivots []int
	for _, e := range eqs {
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
		piv := slices.IndexFunc(v[:len(vars)], func(x *big.Rat) bool { return x.Sign() != 0 })
		if piv < 0 {
			if v[len(vars)].Sign() != 0 {
				t.Fatalf("inconsistent table")
			}
			continue
		}
		inv := new(big.Rat).Inv(v[piv])
		for i := range v {
			v[i].Mul(v[i], inv)
		}
		for k, b := range basis { // keep the basis reduced
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
	A := mat.NewDense(len(basis), len(vars), nil)
	b := make([]float64, len(basis))
	for i, e := range basis {
		for j := range vars {
			f, _ := e[j].Float64()
			A.Set(i, j, f)
		}
		b[i], _ = e[len(vars)].Float64()
	}
	obj := make([]float64, len(vars))
	obj[sup[p]] = 1
	lo, _, err := lp.Simplex(obj, A, b, 1e-9, nil)
	if err != nil {
		t.Fatalf("min: %v", err)
	}
	obj[sup[p]] = -1
	neg, _, err := lp.Simplex(obj, A, b, 1e-9, nil)
	if err == lp.ErrUnbounded {
		return lo, math.Inf(1)
	}
	if err != nil {
		t.Fatalf("max: %v", err)
	}
	return lo, -neg
}

// Protecting the cells the pipeline chose as secondaries forces another
// pattern; an independent LP confirms the intervals the pipeline's audit
// reports for every suppressed cell, and that no primary cell is given
// exactly.
func TestProtectedOverrideAgreesWithIndependentLP(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	data := bigOverrideData()
	// testJointWork: the overrides are checked on whatever pattern the
	// joint search's budget leaves, every audited interval against an
	// independent LP
	base, err := auditTextWork(t, data, "microdata: {dims: [r, c]}\n", testJointWork())
	if err != nil {
		t.Fatal(err)
	}
	prim := withStatus(base, audit.StatusPrimary)
	sec := withStatus(base, audit.StatusSecondary)
	if len(prim) < 5 || len(sec) == 0 {
		t.Fatalf("baseline: %d primary, %d secondary", len(prim), len(sec))
	}
	var ovs strings.Builder
	ovs.WriteString("microdata: {dims: [r, c]}\noverrides:\n")
	var kept []string
	for i, k := range sec {
		if i%2 == 0 {
			rc := strings.SplitN(k, "/", 2)
			fmt.Fprintf(&ovs, "  - {cell: {r: %s, c: %s}, action: protected, reason: key figure, by: M. Roe}\n", rc[0], rc[1])
			kept = append(kept, k)
		}
	}
	tab, err := auditTextWork(t, data, ovs.String(), testJointWork())
	if err != nil {
		t.Fatal(err)
	}
	now := withStatus(tab, audit.StatusSecondary)
	for _, k := range kept {
		if slices.Contains(now, k) {
			t.Errorf("protected cell %s suppressed as secondary", k)
		}
	}
	if tab.Audit == nil || len(tab.Audit.Cells) == 0 {
		t.Fatal("no interval audit")
	}
	t.Logf("%d cells, %d primary, %d secondary before, %d protected by override, %d secondary after, %d audited",
		len(tab.Cells), len(prim), len(sec), len(kept), len(now), len(tab.Audit.Cells))
	for _, r := range tab.Audit.Cells {
		c := cellOf(tab, strings.Join(r.Key, "/"))
		lo, hi := lpInterval(t, tab, c)
		if math.Abs(lo-r.Lo) > 1e-6 || (math.IsInf(hi, 1) != math.IsInf(r.Hi, 1)) || (!math.IsInf(hi, 1) && math.Abs(hi-r.Hi) > 1e-6) {
			t.Errorf("%s: pipeline [%v, %v], independent LP [%v, %v]", strings.Join(r.Key, "/"), r.Lo, r.Hi, lo, hi)
		}
		if c.Status == audit.StatusPrimary && r.Protected && hi-lo < 1e-9 {
			t.Errorf("%s: reported protected but given exactly", strings.Join(r.Key, "/"))
		}
	}
}
