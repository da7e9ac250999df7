package pipeline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
)

// panelYears generates firms of a region x sector x size table in two
// years: the second changes 10% of the values and moves 3% of the firms
// to another sector.
func panelYears(firms, nreg, nsec int, seed uint64) (y1, y2 string) {
	r := rand.New(rand.NewPCG(seed, 2))
	regions := []string{"N", "E", "S", "W", "C", "NE", "NW", "SE"}[:nreg]
	sectors := []string{"A", "B", "C", "D", "F", "G", "H", "I", "J", "K"}[:nsec]
	sizes := []string{"s", "m", "l"}
	var b1, b2 strings.Builder
	b1.WriteString("firm,region,sector,size,turnover\n")
	b2.WriteString("firm,region,sector,size,turnover\n")
	for i := range firms {
		// skewed cells: some combinations have few firms
		reg := regions[min(int(r.ExpFloat64()*1.2), len(regions)-1)]
		sec := sectors[r.IntN(len(sectors))]
		siz := sizes[min(int(r.ExpFloat64()*0.8), 2)]
		v := int(math.Exp(r.NormFloat64()*1.3+6)) + 1
		fmt.Fprintf(&b1, "f%d,%s,%s,%s,%d\n", i, reg, sec, siz, v)
		if r.Float64() < 0.10 {
			v = int(float64(v) * (0.5 + r.Float64()))
		}
		if r.Float64() < 0.03 {
			sec = sectors[r.IntN(len(sectors))]
		}
		fmt.Fprintf(&b2, "f%d,%s,%s,%s,%d\n", i, reg, sec, siz, v)
	}
	return b1.String(), b2.String()
}

func runPanel(t *testing.T, data, name, previous string) (*audit.Table, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".csv")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := configs.Parse("p.yaml", []byte("microdata: {dims: [region, sector, size], value: turnover, holding: firm}\nsuppression: {secondary: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(c, &configs.Config{Previous: previous})
	if err != nil {
		t.Fatal(err)
	}
	s.Suppression.TimeLimit = 0
	out := t.TempDir()
	// testJointWork: the panels' tests judge the patterns kept (their
	// flips, the audit, an independent joint attack), whatever the joint
	// search's budget; the numbers of panelSeeds are those of each budget
	res, err := Run(context.Background(), []Job{{Path: p, Name: "panel", Settings: s}}, Options{Out: out, JointWork: testJointWork()})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tables[0], out
}

// The panels: their size keeps each panel's three runs within seconds
// (the secondary suppression of a table with many primary cells is
// slow); three seeds, since one panel flips only a few cells.
var panelFirms, panelRegions, panelSectors = 4000, 6, 6

// panelSeeds are the seeds of TestPreviousKeepsPatternStable: 1, 2 and 7
// (their independent runs flip 2, 11 and 5 cells, --previous 0, 4 and
// 0). Under the race detector seed 1 is left out, the panel that flips
// least: seeds 2 and 7 alone still flip 16 cells independently and 4
// with --previous, so both of the test's bounds (at least 10; at most a
// third) still decide.
func panelSeeds() []uint64 {
	if raceEnabled {
		return []uint64{2, 7}
	}
	return []uint64{1, 2, 7}
}

// panelPair is a panel's first year run alone and its second year run
// with --previous of the first.
type panelPair struct{ first, kept *audit.Table }

// panelShared holds a pair computed by one of TestPreviousJointAttack and
// TestPreviousKeepsPatternStable (both use seed 2) until the other takes
// it: the pair's two secondary suppressions run once per pass of the
// two tests, not twice (go test -count=2 still runs them once per pass).
var panelShared struct {
	sync.Mutex
	m map[uint64]panelPair
}

// panelRuns returns seed's pair: the one the other test left, taken so
// that it is used once, or computed here and left for the other test.
// Sharing is sound because a run's output depends on its input only
// (same input, same bytes); the tables are only read.
func panelRuns(t *testing.T, seed uint64, y1, y2 string) (first, kept *audit.Table) {
	t.Helper()
	panelShared.Lock()
	p, ok := panelShared.m[seed]
	delete(panelShared.m, seed)
	panelShared.Unlock()
	if ok {
		return p.first, p.kept
	}
	first, dir1 := runPanel(t, y1, "y1", "")
	kept, _ = runPanel(t, y2, "y2", dir1)
	panelShared.Lock()
	if panelShared.m == nil {
		panelShared.m = map[uint64]panelPair{}
	}
	panelShared.m[seed] = panelPair{first, kept}
	panelShared.Unlock()
	return first, kept
}

// TestPreviousKeepsPatternStable: on a generated two-year panel, the
// cells that are primary in neither year and flip between published and
// withheld are at most a third with --previous of what two independent
// runs give; every change is listed with why.
func TestPreviousKeepsPatternStable(t *testing.T) {
	fi, fk := 0, 0
	for _, seed := range panelSeeds() {
		i, k := panelFlips(t, seed)
		t.Logf("seed %d: cells primary in neither year that flip: independent %d, with --previous %d", seed, i, k)
		fi, fk = fi+i, fk+k
	}
	if fi < 10 {
		t.Fatalf("the independent runs flip %d cells: the panels do not test anything", fi)
	}
	if 3*fk > fi {
		t.Errorf("with --previous %d cells flip, more than a third of the independent runs' %d", fk, fi)
	}
}

// panelFlips runs a panel's two years independently and with --previous,
// checks the changes listed and the audit, and returns the flips.
func panelFlips(t *testing.T, seed uint64) (indepFlips, keptFlips int) {
	t.Helper()
	y1, y2 := panelYears(panelFirms, panelRegions, panelSectors, seed)
	first, kept := panelRuns(t, seed, y1, y2)
	indep, _ := runPanel(t, y2, "y2", "")
	flips := func(a, b *audit.Table) int {
		sa, sb := statusMap(a), statusMap(b)
		n := 0
		for k, s := range sa {
			s2, ok := sb[k]
			if !ok || s == audit.StatusPrimary || s2 == audit.StatusPrimary {
				continue
			}
			if (s == audit.StatusOK) != (s2 == audit.StatusOK) {
				n++
			}
		}
		return n
	}
	// every status change is listed, with why
	sa, sk := statusMap(first), statusMap(kept)
	changed := 0
	for k, s := range sa {
		if s2, ok := sk[k]; ok && s2 != s {
			changed++
		}
	}
	if len(kept.Changes) != changed {
		t.Fatalf("seed %d: %d changes listed, %d cells changed status", seed, len(kept.Changes), changed)
	}
	for _, c := range kept.Changes {
		if c.Why == "" || c.Given == string(c.Status) {
			t.Errorf("change %+v", c)
		}
	}
	// the interval audit still protects every primary cell
	if kept.Audit == nil || kept.Audit.ExactlyDisclosed+kept.Audit.UnderProtected != 0 {
		t.Errorf("seed %d: audit with --previous: %+v", seed, kept.Audit)
	}
	return flips(first, indep), flips(first, kept)
}
