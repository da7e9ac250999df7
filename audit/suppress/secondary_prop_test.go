package suppress

import (
	"context"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
	"github.com/sdcaudit/sdcaudit/audit/intervals"

	"pgregory.net/rapid"
)

// After secondary suppression no primary cell is exactly disclosed or
// under-protected, and every interval holds the true value.
func TestSuppressProperty(t *testing.T) {
	t.Parallel() // heavy and independent (main_test.go)
	rapid.Check(t, func(rt *rapid.T) {
		tb := tabletest.RandomTable(rt)
		opt := Options{Cost: rapid.SampledFrom([]string{"value", "count", "unity"}).Draw(rt, "cost")}
		if _, err := Protect(context.Background(), tb, opt); err != nil {
			rt.Fatal(err)
		}
		if len(tb.Warnings) > 0 {
			rt.Logf("warnings: %v", tb.Warnings)
		}
		res, err := Audit(context.Background(), tb, opt)
		if err != nil {
			rt.Fatal(err)
		}
		for _, r := range res.Cells {
			if r.Lo > r.Value+1e-9 || r.Hi < r.Value-1e-9 {
				rt.Fatalf("%v: [%v, %v] misses %v", r.Key, r.Lo, r.Hi, r.Value)
			}
			if r.Status == audit.StatusPrimary && (r.Exact || !r.Protected) {
				rt.Fatalf("primary %v value %v: [%v, %v], levels %v/%v", r.Key, r.Value, r.Lo, r.Hi, r.Lower, r.Upper)
			}
		}
		// Singletons: the single contributor of a suppressed cell knows it;
		// with that cell published, no primary may become a point.
		s, _ := newStructure(tb, opt)
		sup := make([]bool, len(tb.Cells))
		for i := range sup {
			sup[i] = s.IsSuppressed(i)
		}
		for si, c := range tb.Cells {
			if !sup[si] || !c.HasN || c.N != 1 {
				continue
			}
			sup[si] = false
			iv, err := intervals.Check(context.Background(), s.Structure, sup, intervals.Options{Workers: 1})
			sup[si] = true
			if err != nil {
				rt.Fatal(err)
			}
			for p, pc := range tb.Cells {
				if p != si && pc.Status == audit.StatusPrimary && !s.Covers(si, p) && iv.Exact(p) {
					rt.Fatalf("the contributor of singleton %v recovers primary %v", c.Key, pc.Key)
				}
			}
		}
	})
}
