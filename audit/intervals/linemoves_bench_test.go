package intervals

import (
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// BenchmarkWitnessLines runs the witness search of every suppressed cell
// of a 300 x 300 table with margins (90,601 cells, 80% of the interior
// suppressed) with the line lists (lines) and, as the baseline in the same
// run, with the enumeration of every move (enumerate).
func BenchmarkWitnessLines(b *testing.B) {
	tb := tabletest.ScaleTable(1, []int{300, 300}, 0.8)
	s, err := newStructure(tb, Options{})
	if err != nil {
		b.Fatal(err)
	}
	sup := make([]bool, len(tb.Cells))
	for i := range sup {
		sup[i] = s.IsSuppressed(i)
	}
	for _, lines := range []bool{true, false} {
		name := "enumerate"
		if lines {
			name = "lines"
		}
		b.Run(name, func(b *testing.B) {
			cpu := 0.0
			for b.Loop() {
				c0 := tabletest.CPUSeconds()
				ws := newWitnessScratch(s.NDim)
				if lines {
					ws.lines = newLineCache(s, sup)
				}
				for i := range sup {
					if !sup[i] {
						continue
					}
					up, down := 0.1*s.Val[i], 0.1*s.Val[i]
					s.witness(i, sup, up, down, func(u, d float64) bool { return u >= up && d >= down && u+d > 0 }, witnessBudget, ws)
				}
				cpu += tabletest.CPUSeconds() - c0
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
		})
	}
}
