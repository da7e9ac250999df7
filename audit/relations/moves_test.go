package relations

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// circuits lists, by brute force over {−1, 0, 1}^codes of dimension d,
// the elementary balanced moves of d: the vectors w, not zero, with
// w(c) = Σ w(children of c) for every code c with children (each relation
// along d keeps its sum), whose support holds no other such vector's. It
// returns them by code k, those with w(k) = +1, each as moveKey.
func circuits(s *Structure, d int) map[int]map[string]bool {
	n := len(s.Codes[d])
	type vec struct {
		w    []int8
		mask uint64
	}
	var bal []vec
	w := make([]int8, n)
	var rec func(c int)
	rec = func(c int) {
		if c == n {
			var mask uint64
			for k, v := range w {
				if v != 0 {
					mask |= 1 << k
				}
			}
			if mask == 0 {
				return
			}
			for p := 0; p < n; p++ {
				ch := s.Children[d][p]
				if len(ch) == 0 {
					continue
				}
				sum := 0
				for _, x := range ch {
					sum += int(w[x])
				}
				if sum != int(w[p]) {
					return
				}
			}
			bal = append(bal, vec{slices.Clone(w), mask})
			return
		}
		for _, v := range []int8{-1, 0, 1} {
			w[c] = v
			rec(c + 1)
		}
	}
	rec(0)
	out := map[int]map[string]bool{}
	for _, a := range bal {
		minimal := true
		for _, b := range bal {
			if b.mask != a.mask && b.mask&a.mask == b.mask {
				minimal = false
				break
			}
		}
		if !minimal {
			continue
		}
		var codes []int
		for k, v := range a.w {
			if v != 0 {
				codes = append(codes, k)
			}
		}
		for _, k := range codes {
			if a.w[k] == 1 {
				if out[k] == nil {
					out[k] = map[string]bool{}
				}
				out[k][moveKey(codes, a.w, nil)] = true
			}
		}
	}
	return out
}

// moveKey is a move's codes with their weights, in code order; weight
// holds the weight of each listed code when w is nil.
func moveKey(codes []int, w []int8, weight []int8) string {
	type cw struct {
		c int
		w int8
	}
	var l []cw
	for a, c := range codes {
		if weight != nil {
			l = append(l, cw{c, weight[a]})
		} else {
			l = append(l, cw{c, w[c]})
		}
	}
	sort.Slice(l, func(a, b int) bool { return l[a].c < l[b].c })
	var b strings.Builder
	for _, x := range l {
		fmt.Fprintf(&b, "%d:%d,", x.c, x.w)
	}
	return b.String()
}

// TestMovesAreTheCircuits: the one-dimensional moves through code k
// (Moves1D) are exactly the elementary balanced moves of the dimension
// with k at weight +1, found by brute force (circuits), each once, on
// hierarchical and flat dimensions; EachMove1D yields the same moves in
// the same order and Count1D counts them. (It replaces a comparison with
// a copy of the code before EachMove1D, which proved only that the
// rewrite changed nothing.)
func TestMovesAreTheCircuits(t *testing.T) {
	type tc struct {
		tb  *audit.Table
		opt Options
	}
	var cases []tc
	for seed := uint64(1); seed <= 3; seed++ {
		tb, h := tabletest.HierTable(seed, 5+int(seed), 2+int(seed%2), []int{4}, 0.4)
		cases = append(cases, tc{tb, Options{Hierarchies: h}})
	}
	tb, h := tabletest.HierTable(4, 6, 2, []int{3, 5}, 0.5)
	cases = append(cases, tc{tb, Options{Hierarchies: h}})
	deep, moves := 0, 0
	for ci, c := range cases {
		s, err := New(c.tb, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Parent[0] {
			if p >= 0 && s.Parent[0][p] >= 0 {
				deep++ // a leaf under a group under the total
			}
		}
		for d := 0; d < s.NDim; d++ {
			want := circuits(s, d)
			for k := range s.Codes[d] {
				got := s.Moves1D(d, k)
				seen := map[string]bool{}
				for _, m := range got {
					key := moveKey(m.Codes, nil, m.W)
					if seen[key] {
						t.Fatalf("case %d dim %d code %d: move %s twice", ci, d, k, key)
					}
					seen[key] = true
				}
				if !reflect.DeepEqual(seen, want[k]) && !(len(seen) == 0 && len(want[k]) == 0) {
					t.Fatalf("case %d dim %d code %d: moves %v, want the circuits %v", ci, d, k, seen, want[k])
				}
				if n := s.Count1D(d, k); n != len(got) {
					t.Fatalf("case %d dim %d code %d: Count1D %d, Moves1D %d", ci, d, k, n, len(got))
				}
				var each []Move1
				var sc Move1
				s.EachMove1D(d, k, &sc, func(m Move1) bool {
					each = append(each, Move1{Codes: slices.Clone(m.Codes), W: slices.Clone(m.W)})
					return true
				})
				if !reflect.DeepEqual(each, got) {
					t.Fatalf("case %d dim %d code %d: EachMove1D %v, Moves1D %v", ci, d, k, each, got)
				}
				moves += len(got)
			}
		}
	}
	if deep == 0 {
		t.Error("no hierarchical dimension among the cases")
	}
	t.Logf("%d moves checked", moves)
}
