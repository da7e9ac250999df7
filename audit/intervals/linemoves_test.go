package intervals

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/relations"
)

// drainMoves returns every move of dimension d through cell i in the
// order forMoves takes them: from the line lists when lc is set, else
// from the enumeration (scoreMoves' heap, the reference).
func drainMoves(s *structure, i, d int, sup []bool, lc *lineCache) ([]relations.Move1, bool) {
	ws := newWitnessScratch(s.NDim)
	ws.lines = lc
	if lc != nil {
		if !lc.start(d, i, s.Keys[i], ws.tuple, &ws.src[d]) {
			return nil, false
		}
		ws.fromLines[d] = true
	} else {
		s.scoreMoves(i, d, sup, ws)
	}
	for ws.nextMove(s, d) {
	}
	return ws.ms[d], true
}

// TestLineMovesAgainstEnumeration: the line lists (linemoves.go) give
// every cell at a leaf code exactly the one-dimensional moves of the
// enumeration, in the same order (score, then Moves1D's order), and
// forMoves visits the same moves with them as without: on flat and
// hierarchical tables with absent cells, unknown values, many ties
// (values of 0 to 3) and few to nearly all cells suppressed.
func TestLineMovesAgainstEnumeration(t *testing.T) {
	compared := 0
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		var tb *audit.Table
		var opt Options
		switch rapid.IntRange(0, 2).Draw(rt, "kind") {
		case 0:
			var h map[string]map[string]string
			flat := []int{rapid.IntRange(2, 6).Draw(rt, "flat")}
			tb, h = tabletest.HierTable(seed, rapid.IntRange(2, 12).Draw(rt, "leaves"), rapid.IntRange(1, 4).Draw(rt, "groups"), flat, 0.5)
			opt = Options{Hierarchies: h}
		case 1:
			tb = tabletest.ScaleTable(seed, []int{rapid.IntRange(2, 14).Draw(rt, "n0"), rapid.IntRange(1, 9).Draw(rt, "n1")}, 0.5)
		default:
			tb = tabletest.ScaleTable(seed, []int{rapid.IntRange(2, 5).Draw(rt, "n0"), rapid.IntRange(2, 5).Draw(rt, "n1"), rapid.IntRange(1, 4).Draw(rt, "n2")}, 0.5)
		}
		rng := rand.New(rand.NewPCG(seed, 5))
		tabletest.DropCells(tb, rng, rapid.IntRange(0, 10).Draw(rt, "drop")) // absent cells
		s, err := newStructure(tb, opt)
		if err != nil {
			rt.Fatal(err)
		}
		share := rapid.IntRange(10, 100).Draw(rt, "share")
		sup := make([]bool, len(tb.Cells))
		for j := range sup {
			sup[j] = rng.IntN(100) < share
			s.Val[j] = float64(rng.IntN(4)) // ties
			if rng.IntN(10) == 0 {
				s.Known[j] = false
			}
		}
		lc := newLineCache(s, sup)
		if lc == nil {
			rt.Fatal("no line cache")
		}
		for i := range tb.Cells {
			if !sup[i] {
				continue
			}
			for d := 0; d < s.NDim; d++ {
				got, ok := drainMoves(s, i, d, sup, lc)
				if !ok {
					continue
				}
				want, _ := drainMoves(s, i, d, sup, nil)
				if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
					rt.Fatalf("cell %v dimension %d: line moves %v, want %v", tb.Cells[i].Key, d, got, want)
				}
				compared += len(got)
			}
			// forMoves with and without the lists
			budget := 1 + rng.IntN(40)
			floorUp, floorDown := float64(rng.IntN(3)), float64(rng.IntN(3))
			visits := func(lines *lineCache) []string {
				ws := newWitnessScratch(s.NDim)
				ws.lines = lines
				ws.floorUp, ws.floorDown = floorUp, floorDown
				var out []string
				s.forMoves(i, sup, budget, ws, func(u, d float64) bool {
					out = append(out, fmt.Sprint(u, d, ws.cells, ws.w))
					return false
				})
				return out
			}
			if got, want := visits(lc), visits(nil); !reflect.DeepEqual(got, want) {
				rt.Fatalf("cell %v: forMoves visits %v with the line lists, %v without", tb.Cells[i].Key, got, want)
			}
		}
	})
	if compared == 0 {
		t.Fatal("no move compared")
	}
	t.Logf("%d moves compared", compared)
}
