package suppress

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// BenchmarkMoveSearch protects a 200 x 200 table with margins (40,401
// cells) whose interior cells are 80% primary with the hypercube method:
// one bestMove (two pruned dimensions of 200 moves) per primary, the move
// search of the million-cell table at a size that runs in seconds
// (docs/performance.md, "A million cells"). cpu-s/op is the process's
// CPU time (the machine may be loaded).
func BenchmarkMoveSearch(b *testing.B) {
	cpu := 0.0
	for b.Loop() {
		b.StopTimer()
		tb := tabletest.ScaleTable(1, []int{200, 200}, 0.8)
		b.StartTimer()
		c0 := tabletest.CPUSeconds()
		if _, err := Protect(context.Background(), tb, Options{Method: "hypercube"}); err != nil {
			b.Fatal(err)
		}
		cpu += tabletest.CPUSeconds() - c0
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}
