package intervals

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// visitRec is one move forMoves visits: its caps, cells and weights.
type visitRec struct {
	up, down float64
	cells    []int
	w        []int8
}

// expectedVisits is what forMoves' documentation promises for cell i:
// the tensor products of one one-dimensional move per dimension (Moves1D
// of i's code) whose cells on i's line are all present and suppressed,
// each dimension's moves taken highest score first (score: the smallest
// value at the point, i excluded, of the move's cells on i's line; ties
// in Moves1D's order), combined last dimension fastest, the first budget
// combinations only; a combination is visited when all its cells are
// present and suppressed, it keeps every relation of the table (checked
// here relation by relation) and it beats the floors; its caps are the
// smallest values on its negative and positive sides.
func expectedVisits(s *structure, i int, sup []bool, budget int, ws *witnessScratch) []visitRec {
	nd := s.NDim
	val := func(j int) float64 { return s.pointValue(j, ws) }
	lists := make([][]relations.Move1, nd)
	for d := range nd {
		tuple := slices.Clone(s.Keys[i])
		var ms []relations.Move1
		var score []float64
		for _, m := range s.Moves1D(d, s.Keys[i][d]) {
			sc, ok := math.Inf(1), true
			for _, c := range m.Codes {
				tuple[d] = c
				j := s.Lookup(tuple)
				if j < 0 || !sup[j] {
					ok = false
					break
				}
				if j != i {
					sc = math.Min(sc, val(j))
				}
			}
			if ok {
				ms, score = append(ms, m), append(score, sc)
			}
		}
		if len(ms) == 0 {
			return nil
		}
		order := make([]int, len(ms))
		for a := range order {
			order[a] = a
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case score[a] > score[b]:
				return -1
			case score[a] < score[b]:
				return 1
			}
			return 0
		})
		for _, a := range order {
			lists[d] = append(lists[d], ms[a])
		}
	}
	var out []visitRec
	idx := make([]int, nd)
	for tried := 0; tried < budget; tried++ {
		// the combination's cells: every choice of one code per dimension
		cells := map[int]int8{}
		ok := true
		var rec func(d int, key []int, w int8)
		rec = func(d int, key []int, w int8) {
			if !ok {
				return
			}
			if d == nd {
				j := s.Lookup(key)
				if j < 0 || !sup[j] {
					ok = false
					return
				}
				cells[j] = w
				return
			}
			m := lists[d][idx[d]]
			for a, c := range m.Codes {
				key[d] = c
				rec(d+1, key, w*m.W[a])
			}
		}
		rec(0, make([]int, nd), 1)
		if ok {
			for _, r := range s.Rels {
				sum := int(cells[r.Total])
				for _, p := range r.Parts {
					sum -= int(cells[p])
				}
				if sum != 0 {
					ok = false
					break
				}
			}
		}
		if ok {
			upCap, downCap := math.Inf(1), math.Inf(1)
			for j, w := range cells {
				if w < 0 {
					upCap = math.Min(upCap, val(j))
				} else {
					downCap = math.Min(downCap, val(j))
				}
			}
			if upCap > ws.floorUp || downCap > ws.floorDown {
				v := visitRec{up: upCap, down: downCap}
				for j := range cells {
					v.cells = append(v.cells, j)
				}
				slices.Sort(v.cells)
				for _, j := range v.cells {
					v.w = append(v.w, cells[j])
				}
				out = append(out, v)
			}
		}
		d := nd - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < len(lists[d]) {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			break
		}
	}
	return out
}

// TestForMovesVisitsItsMoves: forMoves visits exactly the moves its
// documentation promises (expectedVisits: balanced tensor-product moves
// through suppressed cells, best first, within the budget, above the
// floors, with their caps), with cell i at weight +1, each a feasible
// direction of change at the point: on flat and hierarchical tables, with
// random suppressed cells, budgets, floors and shifted points. (It
// replaces a comparison with a copy of the code before the heap.)
func TestForMovesVisitsItsMoves(t *testing.T) {
	var tables []*audit.Table
	var opts []Options
	for seed := uint64(1); seed <= 3; seed++ {
		tb, h := tabletest.HierTable(seed, 14, 3, []int{9}, 0.7)
		tables, opts = append(tables, tb), append(opts, Options{Hierarchies: h})
		tb, h = tabletest.HierTable(seed, 7, 2, []int{4, 3}, 0.7)
		tables, opts = append(tables, tb), append(opts, Options{Hierarchies: h})
		tables, opts = append(tables, tabletest.ScaleTable(seed, []int{30, 25}, 0.8)), append(opts, Options{})
	}
	visits := 0
	for ci, tb := range tables {
		s, err := newStructure(tb, opts[ci])
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 9))
		sup := make([]bool, len(tb.Cells))
		for i := range sup {
			sup[i] = rng.IntN(4) != 0
		}
		ws := newWitnessScratch(s.NDim)
		trials := 60
		if tabletest.RaceEnabled {
			trials = 15 // the simplex-free enumeration is still several times slower
		}
		for trial := 0; trial < trials; trial++ {
			i := rng.IntN(len(tb.Cells))
			if !sup[i] {
				continue
			}
			budget := 1 + rng.IntN(600)
			ws.floorUp, ws.floorDown = float64(rng.IntN(30)), float64(rng.IntN(30))
			clear(ws.delta)
			if trial%4 == 0 {
				for k := 0; k < 5; k++ {
					ws.delta[rng.IntN(len(tb.Cells))] = float64(rng.IntN(9))
				}
			}
			want := expectedVisits(s, i, sup, budget, ws)
			var got []visitRec
			s.forMoves(i, sup, budget, ws, func(u, d float64) bool {
				v := visitRec{up: u, down: d}
				order := make([]int, len(ws.cells))
				for a := range order {
					order[a] = a
				}
				slices.SortFunc(order, func(a, b int) int { return ws.cells[a] - ws.cells[b] })
				for _, a := range order {
					v.cells, v.w = append(v.cells, ws.cells[a]), append(v.w, ws.w[a])
				}
				got = append(got, v)
				return false
			})
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("table %d cell %d budget %d: visits %v, want %v", ci, i, budget, got, want)
			}
			for _, v := range got {
				k := slices.Index(v.cells, i)
				if k < 0 || v.w[k] != 1 {
					t.Fatalf("table %d cell %d: a move without the cell at +1: %v", ci, i, v)
				}
			}
			visits += len(got)
		}
	}
	if visits == 0 {
		t.Fatal("no move visited")
	}
	t.Logf("%d moves visited", visits)
}
