package pipeline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
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
	res, err := Run(context.Background(), []Job{{Path: p, Name: "panel", Settings: s}}, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tables[0], out
}

// The panels: their size keeps each panel's three runs within seconds
// (the secondary suppression of a table with many primary cells is
// slow); three seeds, since one panel flips only a few cells.
var panelFirms, panelRegions, panelSectors, panelSeeds = 4000, 6, 6, []uint64{1, 2, 7}

// TestPreviousKeepsPatternStable: on a generated two-year panel, the
// cells that are primary in neither year and flip between published and
// withheld are at most a third with --previous of what two independent
// runs give; every change is listed with why.
func TestPreviousKeepsPatternStable(t *testing.T) {
	fi, fk := 0, 0
	for _, seed := range panelSeeds {
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
	first, dir1 := runPanel(t, y1, "y1", "")
	indep, _ := runPanel(t, y2, "y2", "")
	kept, _ := runPanel(t, y2, "y2", dir1)
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
