package suppress

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// BenchmarkMoveSearch protects a 200 x 200 table with margins (40,401
// cells) whose interior cells are 80% primary with the hypercube method:
// one bestMove (two pruned dimensions of 200 moves) per primary, the move
// search of the million-cell table at a size that runs in seconds
// (docs/performance.md, "A million cells"). SDCAUDIT_BENCH_MOVESEARCH_LEVELS=n
// protects an n x n table instead (300: 90,601 cells; 1000: the million
// cells). cpu-s/op is the process's CPU time (the machine may be loaded).
func BenchmarkMoveSearch(b *testing.B) {
	levels := 200
	if v := os.Getenv("SDCAUDIT_BENCH_MOVESEARCH_LEVELS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > 1000 {
			b.Fatalf("SDCAUDIT_BENCH_MOVESEARCH_LEVELS=%q: want a number of levels from 2 to 1000", v)
		}
		levels = n
	}
	cpu := 0.0
	for b.Loop() {
		b.StopTimer()
		tb := tabletest.ScaleTable(1, []int{levels, levels}, 0.8)
		b.StartTimer()
		c0 := tabletest.CPUSeconds()
		if _, err := Protect(context.Background(), tb, Options{Method: "hypercube"}); err != nil {
			b.Fatal(err)
		}
		cpu += tabletest.CPUSeconds() - c0
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
}
