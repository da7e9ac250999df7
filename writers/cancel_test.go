package writers_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/writers"
)

// countdown is a context that reports cancellation from its (left+1)th
// look on: a deterministic "Ctrl-C after K steps", whatever the machine's
// speed. It counts every look.
type countdown struct {
	context.Context
	left  atomic.Int64
	looks atomic.Int64
	first atomic.Int64 // the look that first saw the cancellation
}

func newCountdown(left int64) *countdown {
	c := &countdown{Context: context.Background()}
	c.left.Store(left)
	return c
}

func (c *countdown) Err() error {
	n := c.looks.Add(1)
	if c.left.Add(-1) < 0 {
		c.first.CompareAndSwap(0, n)
		return context.Canceled
	}
	return nil
}

// bigTable has n cells of every status, each flagged cell with findings
// and a note, as in a real audit.
func bigTable(n int) *audit.Table {
	t := &audit.Table{Name: "big", Source: "big.csv", Mode: audit.Aggregate, Dims: []string{"a", "b"}, TotalLabel: "Total", Columns: []string{"count", "total"}}
	statuses := []audit.Status{audit.StatusOK, audit.StatusPrimary, audit.StatusSecondary, audit.StatusReview}
	for i := range n {
		st := statuses[i%len(statuses)]
		c := &audit.Cell{Key: []string{fmt.Sprintf("A%d", i/100), fmt.Sprintf("B%d", i%100)}, Row: i + 2, Status: st,
			Stats: audit.StatsOf(map[string]audit.Stat{"count": {Text: fmt.Sprint(i % 50), Value: decimal.FromInt(int64(i % 50))}, "total": {Text: fmt.Sprint(1000 + i), Value: decimal.FromInt(int64(1000 + i))}})}
		outcome := audit.Pass
		if st == audit.StatusPrimary {
			outcome = audit.Fail
		}
		c.Findings = []audit.Finding{audit.Said("threshold", outcome, "contributors", []audit.Figure{audit.IntFig("n", int64(i%50))})}
		if st == audit.StatusSecondary {
			c.Notes = []string{"suppressed to protect another cell"}
		}
		t.Cells = append(t.Cells, c)
	}
	return t
}

// htmlWriter writes summary.html as a table output, to test it alike.
type htmlWriter struct{}

func (htmlWriter) File(*audit.Table) string { return writers.HTMLFile }
func (htmlWriter) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	var r writers.RunSummary
	r.Add(writers.TableSummary{Table: t.Name, Summary: t.Summarize()})
	return writers.SummaryHTML{}.WriteRunContext(ctx, w, &r, []*audit.Table{t})
}

func allWriters() []writers.TableWriter {
	o := writers.Options{Marker: "x"}
	return []writers.TableWriter{writers.Report{}, writers.SafeCSV{Options: o}, writers.SafeXLSX{Options: o}, writers.Annotated{},
		writers.FindingsParquet{}, writers.FindingsArrow{}, htmlWriter{}}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left in the output directory: %s", e.Name())
	}
}

// TestWritersHonourCancellation: every writer, cancelled before it starts
// or after K looks at its context, returns context.Canceled within a few
// more looks (it stops rather than finishing the table) and leaves no file
// behind, not even a temporary one.
func TestWritersHonourCancellation(t *testing.T) {
	tab := bigTable(6000)
	for _, w := range allWriters() {
		name := w.File(tab)
		t.Run(name, func(t *testing.T) {
			// A full write looks at its context many times: the
			// cancellations below really come half-way.
			full := newCountdown(1 << 40)
			dir := t.TempDir()
			if err := writers.WriteTable(full, dir, w, tab); err != nil {
				t.Fatal(err)
			}
			total := full.looks.Load()
			if want := int64(min(len(tab.Cells), 5000) / writers.CheckEvery); total < want {
				t.Fatalf("a full write looks at its context %d times; want at least %d (every %d cells)", total, want, writers.CheckEvery)
			}
			for _, k := range []int64{0, 1, 3, total / 2, total - 2} {
				ctx := newCountdown(k)
				dir := t.TempDir()
				err := writers.WriteTable(ctx, dir, w, tab)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled after %d looks: err = %v, want context.Canceled", k, err)
				}
				if extra := ctx.looks.Load() - ctx.first.Load(); extra > 3 {
					t.Errorf("cancelled after %d looks: %d more looks before returning", k, extra)
				}
				assertEmpty(t, dir)
			}
		})
	}
}
