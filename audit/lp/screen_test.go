package lp

import (
	"context"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// drawFloat draws a positive float64 of mantissa and decimal exponent
// drawn (exponents from lo to hi).
func drawFloat(rt *rapid.T, name string, lo, hi int) float64 {
	m := rapid.Float64Range(1, 10).Draw(rt, name+"m")
	e := rapid.IntRange(lo, hi).Draw(rt, name+"e")
	return m * math.Pow(10, float64(e))
}

// near returns v moved by k units in the last place.
func near(v float64, k int) float64 {
	for ; k > 0; k-- {
		v = math.Nextafter(v, math.Inf(1))
	}
	for ; k < 0; k++ {
		v = math.Nextafter(v, 0)
	}
	return v
}

// When screened reports a comparison false, the comparison computed with
// its divisions (as devex does) is false: the weight update
// (a/apq)²·γ_q > γ_j and the score dj²/γ_j > best, on values drawn over
// many magnitudes and on ties and near-ties to the last place (where a
// screen without margin fails).
func TestScreenedNeverHidesAWinner(t *testing.T) {
	screens := 0
	rapid.Check(t, func(rt *rapid.T) {
		// Mostly magnitudes where the weight is near γ_j ≥ 1 (ties
		// possible); sometimes anything.
		a := drawFloat(rt, "a", -2, 6)
		if rapid.IntRange(0, 4).Draw(rt, "wide") == 0 {
			a = drawFloat(rt, "awide", -160, 160)
		}
		if rapid.Bool().Draw(rt, "aneg") {
			a = -a
		}
		apq := drawFloat(rt, "apq", -7, 3)
		gq := drawFloat(rt, "gq", 0, 12)
		g := (a / apq) * (a / apq) * gq
		gamma := math.Max(1, g)
		if rapid.IntRange(0, 3).Draw(rt, "tie") > 0 && !math.IsInf(g, 1) {
			gamma = math.Max(1, near(g, rapid.IntRange(-4, 4).Draw(rt, "ulps")))
		} else if rapid.Bool().Draw(rt, "free") {
			gamma = drawFloat(rt, "gamma", 0, 60)
		}
		if screened(a*a, gq/(apq*apq), gamma*(1-screenMargin)) {
			screens++
			if (a/apq)*(a/apq)*gq > gamma {
				rt.Fatalf("weight: screened, but (%v/%v)²·%v = %v > γ %v", a, apq, gq, g, gamma)
			}
		}
		dj := drawFloat(rt, "dj", -8, 40)
		sc := dj * dj / gamma
		best := sc
		if rapid.IntRange(0, 3).Draw(rt, "btie") > 0 {
			best = near(sc, rapid.IntRange(-4, 4).Draw(rt, "bulps"))
		} else {
			best = drawFloat(rt, "best", -300, 300)
		}
		if screened(dj*dj, 1, screenBelow(best)*gamma) {
			screens++
			if sc > best {
				rt.Fatalf("score: screened, but %v²/%v = %v > best %v", dj, gamma, sc, best)
			}
		}
	})
	if screens == 0 {
		t.Fatal("nothing screened: the test tests nothing")
	}
}

// The screened devex (the default) takes the same pivots as devex with
// every division done (plain) and reaches the same points bit for bit,
// on the systems of small 3-D tables, through a sequence of objectives
// and through clones taken before the parent refactorises (the clones'
// eta files are their own: the parent's arena is reused).
func TestScreenedSameAsPlain(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		big := 7
		if raceEnabled {
			big = 5 // smaller systems under -race
		}
		k := [3]int{rapid.IntRange(3, big).Draw(rt, "k0"), rapid.IntRange(3, big-1).Draw(rt, "k1"), rapid.IntRange(2, 4).Draw(rt, "k2")}
		rows, x0 := gridRows(rapid.Uint64().Draw(rt, "seed"), k, rapid.Float64Range(0.3, 0.6).Draw(rt, "share"))
		n := len(x0)
		if n < 2 || len(rows) == 0 {
			return
		}
		var sv [2]*Sparse
		for v := range sv {
			s, err := NewSparseAt(ctx, n, rows, x0)
			if err != nil {
				rt.Fatal(err)
			}
			s.plain = v == 0
			sv[v] = s
		}
		same := func(what string, a, b *Sparse) {
			if a.Pivots != b.Pivots || a.Iters != b.Iters {
				rt.Fatalf("%s: pivots %d, %d; iterations %d, %d", what, a.Pivots, b.Pivots, a.Iters, b.Iters)
			}
			for j := 0; j < n; j++ {
				if math.Float64bits(a.Value(j)) != math.Float64bits(b.Value(j)) {
					rt.Fatalf("%s: x%d = %v plain, %v screened", what, j, a.Value(j), b.Value(j))
				}
			}
		}
		objective := func(s *Sparse, o int) {
			if o%3 == 0 {
				idx := make([]int, 0, n)
				coef := make([]float64, 0, n)
				for j := o % 2; j < n; j += 2 {
					idx, coef = append(idx, j), append(coef, -1/(x0[j]+1+float64(o)))
				}
				if _, err := s.MinimizeSum(ctx, idx, coef); err != nil {
					rt.Fatal(err)
				}
				return
			}
			if _, err := s.Optimize(ctx, (o*7919)%n, o%2 == 0); err != nil {
				rt.Fatal(err)
			}
		}
		nobj := rapid.IntRange(2, 12).Draw(rt, "objectives")
		for o := 0; o < nobj; o++ {
			for _, s := range sv {
				objective(s, o)
			}
			same("parents", sv[0], sv[1])
		}
		// Clones: one run at once, one after the parent has refactorised
		// and pivoted on (its eta arena reused): the same run.
		early, late := sv[1].Clone(), sv[1].Clone()
		objective(early, nobj)
		if err := sv[1].refactor(ctx); err != nil {
			rt.Fatal(err)
		}
		for o := nobj + 1; o < nobj+6; o++ {
			objective(sv[1], o)
		}
		objective(late, nobj)
		same("clones", early, late)
		checkPoint(rt, late, n, rows, 1e-6*200*float64(k[0]*k[1]*k[2]))
	})
}
