package pipeline

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/writers"
)

// BenchmarkWriters writes each output of an audited table alone: the
// 23,001 cells of BenchmarkCheckMicrodata's table (1 M records, ACRO's
// rule set with secondary suppression and its audit), each output through
// writers.WriteAtomic into a directory as the run writes it. It reports
// cpu-s/op beside time and allocations, to compare writers A/B on a
// loaded machine.
func BenchmarkWriters(b *testing.B) {
	path := genMicrodata(b, benchDir(), 1_000_000)
	s := settings(b, "microdata: {dims: [region, industry, size], value: turnover}\nprofile: acro\n")
	res, err := Run(context.Background(), []Job{{Path: path, Settings: s}}, Options{Out: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	t := res.Tables[0]
	dir := b.TempDir()
	run := func(b *testing.B, write func() error) {
		b.ReportAllocs()
		var cpu time.Duration
		for b.Loop() {
			c0 := cpuTime()
			if err := write(); err != nil {
				b.Fatal(err)
			}
			cpu += cpuTime() - c0
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}
	for _, w := range tableWriters(s) {
		b.Run(strings.TrimPrefix(w.File(t), t.Name+"."), func(b *testing.B) {
			run(b, func() error { return writers.WriteTable(context.Background(), dir, w, t) })
		})
	}
	b.Run("summary.html", func(b *testing.B) {
		run(b, func() error {
			return writers.WriteAtomic(context.Background(), filepath.Join(dir, writers.HTMLFile), func(w io.Writer) error {
				return writers.SummaryHTML{}.WriteRunContext(context.Background(), w, &res.Summary, res.Tables)
			})
		})
	})
	b.Run("results.json", func(b *testing.B) {
		run(b, func() error {
			return writers.WriteAtomic(context.Background(), filepath.Join(dir, writers.ACROFile), func(w io.Writer) error {
				return writers.ACROResults{}.WriteRunContext(context.Background(), w, res.Tables)
			})
		})
	})
}
