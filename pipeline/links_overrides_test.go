package pipeline

import (
	"context"

	"fmt"
	"github.com/rs/zerolog"
	"path/filepath"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
)

// TestLinkedKeepsProtectedOverrides: a cell that an override protects
// (action protected) in one linked table is never chosen as a secondary
// cell on the cover table, its override records its final status, and the
// release still resists the joint attack.
func TestLinkedKeepsProtectedOverrides(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	tried := 0
	for seed := uint64(1); seed <= 3; seed++ {
		dir := t.TempDir()
		path, parent := firmRelease(t, dir, seed)
		shape := releaseShapes[0]
		res := runRelease(t, path, filepath.Join(dir, "out0"), shape, true)
		// A secondary cell of the first table, chosen on the cover.
		var key []string
		for _, c := range res.Tables[0].Cells {
			if c.Status == audit.StatusSecondary {
				key = c.Key
				break
			}
		}
		if key == nil {
			continue
		}
		tried++
		var jobs []Job
		for i, d := range shape {
			s := settings(t, fmt.Sprintf("microdata: {dims: [%s, %s], value: turnover}\n", d[0], d[1]))
			if i == 0 {
				s.Overrides = []configs.Override{{Cell: map[string]string{d[0]: key[0], d[1]: key[1]}, Action: configs.OverrideProtected, Reason: "published elsewhere", By: "test", Source: "test"}}
			}
			jobs = append(jobs, Job{Path: path, Name: d[0] + "_x_" + d[1], Settings: s})
		}
		res2 := runJobs(t, jobs, filepath.Join(dir, "out1"))
		tb := res2.Tables[0]
		for _, c := range tb.Cells {
			if fmt.Sprint(c.Key) == fmt.Sprint(key) && c.Status == audit.StatusSecondary {
				t.Errorf("seed %d: %v, protected by an override, is secondary", seed, key)
			}
		}
		if len(tb.Overrides) != 1 || tb.Overrides[0].Status == audit.StatusSecondary || tb.Overrides[0].Status == "" {
			t.Errorf("seed %d: overrides %+v", seed, tb.Overrides)
		}
		if ar := attack(t, res2.Tables, parent); ar.weak > 0 || len(ar.mismatch) > 0 {
			t.Errorf("seed %d: joint attack: %v %v", seed, ar.weakCells, ar.mismatch)
		}
	}
	if tried == 0 {
		t.Fatal("no secondary cell to protect")
	}
}

func runJobs(t testing.TB, jobs []Job, out string) *Result {
	t.Helper()
	// testJointWork, as runRelease: the override test judges the pattern
	// kept with its own attack
	res, err := Run(context.Background(), jobs, Options{Out: out, Workers: 4, Log: zerolog.Nop(), Link: LinkOn, JointWork: testJointWork()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
