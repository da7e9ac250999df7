package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/readers"
)

// BenchmarkMicrodataHierarchy builds and checks the 100,000-record table of
// BenchmarkCheckMicrodata (region x industry x size) flat and with a
// three-level region hierarchy (50 regions in 10 groups in 2 parts), in the
// same run: the hierarchy adds 12 region levels (63 instead of 51, so 24%
// more cells) and the cost should grow about as the cells do.
func BenchmarkMicrodataHierarchy(b *testing.B) {
	path := genMicrodata(b, benchDir(), 100_000)
	var m []string
	for r := 0; r < 50; r++ {
		m = append(m, fmt.Sprintf("R%02d: G%d", r, r/5))
	}
	for g := 0; g < 10; g++ {
		m = append(m, fmt.Sprintf("G%d: P%d", g, g/5))
	}
	base := "microdata: {dims: [region, industry, size], value: turnover}\n"
	for _, v := range []struct{ name, cfg string }{
		{"flat", base},
		{"hierarchy", base + "suppression: {hierarchies: {region: {" + strings.Join(m, ", ") + "}}}\n"},
	} {
		b.Run(v.name, func(b *testing.B) {
			s := settings(b, v.cfg)
			cells := 0
			for b.Loop() {
				srcs, err := readers.Open(path, readers.Options{})
				if err != nil {
					b.Fatal(err)
				}
				t, err := AuditSource(context.Background(), srcs[0], s, 2)
				srcs[0].Close()
				if err != nil {
					b.Fatal(err)
				}
				cells = len(t.Cells)
			}
			b.ReportMetric(float64(cells), "cells")
		})
	}
}
