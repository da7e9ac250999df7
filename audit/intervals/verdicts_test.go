package intervals

import (
	"context"
	"reflect"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"

	"pgregory.net/rapid"
)

// AuditVerdicts gives every cell the verdict Audit gives it (exact,
// protected, undetermined, the counts), intervals inside Audit's, and,
// where it says full, Audit's result itself: on random heavily suppressed
// tables with every component large (the sparse LP's verdicts-only path)
// and with the defaults (small components: always full).
func TestAuditVerdictsAgreesWithAudit(t *testing.T) {
	var partial, full int
	defer func() { t.Logf("%d results full, %d partial", full, partial) }()
	rapid.Check(t, func(rt *rapid.T) {
		tb := heavyTable(rt)
		ctx := context.Background()
		for _, tune := range []*Tuning{nil, allLarge(DefaultTuning().NbhdRounds, true)} {
			opt := Options{Tuning: tune}
			want, err := Audit(ctx, tb, opt)
			if err != nil {
				rt.Fatal(err)
			}
			got, isFull, err := AuditVerdicts(ctx, tb, opt)
			if err != nil {
				rt.Fatal(err)
			}
			if tune == nil && !isFull {
				rt.Fatalf("default tuning on a small table: not full")
			}
			if isFull {
				full++
				if !reflect.DeepEqual(got, want) {
					rt.Fatalf("full, yet differs from Audit:\n%+v\n%+v", got, want)
				}
				continue
			}
			partial++
			if len(got.Cells) != len(want.Cells) {
				rt.Fatalf("%d cells, Audit %d", len(got.Cells), len(want.Cells))
			}
			approx := 0
			for k, r := range got.Cells {
				w := want.Cells[k]
				if tabletest.JoinKey(r.Key) != tabletest.JoinKey(w.Key) {
					rt.Fatalf("cell %d: %v, Audit %v", k, r.Key, w.Key)
				}
				if r.Exact != w.Exact || r.Protected != w.Protected || r.Undetermined != w.Undetermined {
					rt.Fatalf("%v: exact %v protected %v undetermined %v; Audit %v %v %v", r.Key, r.Exact, r.Protected, r.Undetermined, w.Exact, w.Protected, w.Undetermined)
				}
				if r.Lo < w.Lo-1e-6 || r.Hi > w.Hi+1e-6 {
					rt.Fatalf("%v: [%v, %v] outside Audit's [%v, %v]", r.Key, r.Lo, r.Hi, w.Lo, w.Hi)
				}
				if r.Approximate {
					approx++
				}
			}
			if got.ExactlyDisclosed != want.ExactlyDisclosed || got.UnderProtected != want.UnderProtected || got.Undetermined != want.Undetermined {
				rt.Fatalf("counts %d/%d/%d, Audit %d/%d/%d", got.ExactlyDisclosed, got.UnderProtected, got.Undetermined, want.ExactlyDisclosed, want.UnderProtected, want.Undetermined)
			}
			if approx == 0 && want.Approximate == 0 && !reflect.DeepEqual(got, want) {
				// partial means some cell kept inexact bounds
				rt.Fatalf("partial, yet no cell approximate and results differ")
			}
		}
	})
	if partial == 0 {
		t.Fatal("no table reached the verdicts-only path")
	}
}
