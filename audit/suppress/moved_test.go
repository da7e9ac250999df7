package suppress

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/report"
)

// With secondary suppression A/female keeps an interval, not a point.
func TestSuppressMicrodata1(t *testing.T) {
	tb := tabletest.Microdata1(t)
	tabletest.MarkPrimary(tabletest.CellAt(t, tb, "A", "female"))
	if _, err := Protect(context.Background(), tb, Options{}); err != nil {
		t.Fatal(err)
	}
	var sec []string
	for _, c := range tb.Cells {
		if c.Status == audit.StatusSecondary {
			sec = append(sec, tb.KeyString(c.Key)+": "+c.Findings[len(c.Findings)-1].Message())
		}
	}
	if len(sec) == 0 {
		t.Fatal("no secondary suppression")
	}
	t.Logf("secondary cells:\n%s", strings.Join(sec, "\n"))
	res, err := Audit(context.Background(), tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tabletest.ResultFor(t, res, "A", "female")
	if r.Exact || r.Lo >= r.Hi || !r.Protected {
		t.Fatalf("A/female = %+v, want a protected interval", r)
	}
	if r.Lo > 20*0.9 || r.Hi < 20*1.1 {
		t.Fatalf("A/female interval [%v, %v] misses the 10%% protection of 20", r.Lo, r.Hi)
	}
	if res.ExactlyDisclosed != 0 || res.UnderProtected != 0 {
		t.Fatalf("counts: %+v", res)
	}
	out := report.IntervalsJSON(res)
	if !strings.Contains(string(out), `{"key":{"region":"A","gender":"female"},"lo":`) {
		t.Errorf("JSON: %s", out)
	}
}

// A tiny time limit leaves cells undetermined: no error, the counts say
// so, NeedsPerson is true and the JSON marks them.
func TestAuditTimeLimit(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	// A 21 x 16 x 5 table, 80% of its interior primary: its ~960
	// suppressed cells form components above intervals' LargeComponent
	// (400), so the limit is met on the sparse, chunked path with the
	// default workers, as on the 50 x 40 x 10 table this test used before
	// (whose unlimited audit, the control below, took most of this
	// package's race-detector time).
	limitTable := func() *audit.Table { return scaleTable(3, []int{20, 15, 4}, 0.8) }
	tb := limitTable()
	res, err := Audit(context.Background(), tb, Options{TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Undetermined == 0 || !res.NeedsPerson() {
		t.Fatalf("undetermined %d, needs person %v", res.Undetermined, res.NeedsPerson())
	}
	// The report says the hard stop fired (issue 23 item 4).
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "time limit of 1ns (a hard stop) ran out") {
		t.Errorf("warnings %q: want the hard stop named first", res.Warnings)
	}
	n := 0
	for _, r := range res.Cells {
		if !r.Undetermined {
			continue
		}
		n++
		if r.Protected || r.Exact || r.Approximate {
			t.Fatalf("%v: undetermined yet %+v", r.Key, r)
		}
		if r.Lo > r.Value || r.Hi < r.Value {
			t.Fatalf("%v: [%v, %v] misses %v", r.Key, r.Lo, r.Hi, r.Value)
		}
	}
	if n != res.Undetermined || res.ExactlyDisclosed+res.UnderProtected+res.Undetermined > len(res.Cells) {
		t.Fatalf("counts: %d undetermined cells, result %+v", n, res.Undetermined)
	}
	out := report.IntervalsJSON(res)
	if !strings.Contains(string(out), `"undetermined":true`) || !strings.Contains(string(out), `"undetermined":`+itoa(res.Undetermined)) {
		t.Errorf("JSON lacks undetermined: %.300s", out)
	}
	// Without a limit the same table is settled (with the exact bounds'
	// smaller budgets: this control needs verdicts, not every interval
	// exact).
	full, err := Audit(context.Background(), tb, Options{AuditTuning: verdictTuning()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("limit 1ns: %d undetermined; no limit: %d undetermined, %d exact, %d under-protected of %d",
		res.Undetermined, full.Undetermined, full.ExactlyDisclosed, full.UnderProtected, len(full.Cells))
	if full.Undetermined != 0 {
		t.Errorf("no limit: %d undetermined", full.Undetermined)
	}
	// Protect honours the limit too: a warning, not an error.
	tb2 := limitTable()
	if _, err := Protect(context.Background(), tb2, Options{TimeLimit: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	if len(tb2.Warnings) == 0 || !strings.Contains(tb2.Warnings[len(tb2.Warnings)-1], "time limit") {
		t.Errorf("warnings: %v", tb2.Warnings)
	}
	// Cancellation is still an error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Audit(ctx, tb, Options{TimeLimit: time.Hour}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
