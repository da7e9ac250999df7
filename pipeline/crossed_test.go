package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sdcaudit/sdcaudit/audit"
)

// crossedLong is two.csv of cmd/sdcaudit/testdata/crossed in long form:
// "All people" = Men + Women = three age bands; Aged 0-15 North (2) is
// below the threshold.
const crossedLong = `Group,region,n
All people,North,120
All people,South,200
All people,Total,320
Men,North,60
Men,South,98
Men,Total,158
Women,North,60
Women,South,102
Women,Total,162
Aged 0-15,North,2
Aged 0-15,South,50
Aged 0-15,Total,52
Aged 16-64,North,80
Aged 16-64,South,100
Aged 16-64,Total,180
Aged 65+,North,38
Aged 65+,South,50
Aged 65+,Total,88
`

// TestCrossedLinkedFallback: a table with two breakdowns of one total
// linked to a table whose cells do not add up to its own (the group not
// exact) is protected apart, through its cross (the age band withheld
// with another band in North), with the linked review finding on its
// primary: never called protected through relations it lacks. Before,
// the breakdowns were marked "not protected through them" (the total
// unconfirmed) even on this path, where the cross protects them. Alone,
// the same table is protected through the cross (no warning). The exact
// linked path: TestLinkedCrossedResistsAttack (cmd/sdcaudit).
func TestCrossedLinkedFallback(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.csv")
	other := filepath.Join(dir, "regions.csv")
	if err := os.WriteFile(two, []byte(crossedLong), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("region,n\nNorth,120\nSouth,200\nTotal,320\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "columns: {dims: [Group, region], count: n}\nsuppression: {time_limit: null}\n"
	jobs := []Job{
		{Path: two, Name: "two", Settings: settings(t, cfg)},
		{Path: other, Name: "regions", Settings: settings(t, "columns: {dims: [region], count: n}\nsuppression: {time_limit: null}\n")},
	}
	res, err := Run(context.Background(), jobs, Options{Out: filepath.Join(dir, "linked"), Workers: 2, Log: zerolog.Nop(), Link: LinkOn, Links: [][]string{jobNames(jobs)}})
	if err != nil {
		t.Fatal(err)
	}
	tb := res.Tables[slices.IndexFunc(res.Tables, func(x *audit.Table) bool { return x.Name == "two" })]
	if !slices.ContainsFunc(tb.Warnings, func(w string) bool {
		return strings.Contains(w, "not protected together with the linked tables regions")
	}) {
		t.Errorf("linked: not protected apart: %q", tb.Warnings)
	}
	if n := ageBandsWithheldNorth(tb); n < 2 {
		t.Errorf("linked: %d age bands withheld in North, want 2 or more", n)
	}
	for _, c := range tb.Cells {
		if c.Status != audit.StatusPrimary {
			continue
		}
		if !slices.ContainsFunc(c.Findings, func(f audit.Finding) bool { return f.Outcome == audit.Review }) {
			t.Errorf("linked: primary %v has no review finding", c.Key)
		}
	}

	res, err = Run(context.Background(), jobs[:1], Options{Out: filepath.Join(dir, "alone"), Workers: 2, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	tb = res.Tables[0]
	if slices.ContainsFunc(tb.Warnings, func(w string) bool { return strings.Contains(w, "not protected through them") }) || len(tb.Structure.Unconfirmed) > 0 {
		t.Errorf("alone: warnings %q, unconfirmed %q", tb.Warnings, tb.Structure.Unconfirmed)
	}
	if n := ageBandsWithheldNorth(tb); n < 2 {
		t.Errorf("alone: %d age bands withheld in North, want 2 or more", n)
	}
	if tb.Audit == nil || tb.Audit.ExactlyDisclosed > 0 || tb.Audit.UnderProtected > 0 {
		t.Errorf("alone: audit %+v", tb.Audit)
	}
}

// ageBandsWithheldNorth counts the age bands of crossedLong withheld in
// North.
func ageBandsWithheldNorth(tb *audit.Table) int {
	n := 0
	for _, c := range tb.Cells {
		if c.Key[1] == "North" && strings.HasPrefix(c.Key[0], "Aged") && c.Status != audit.StatusOK {
			n++
		}
	}
	return n
}

// TestCrossedIdenticalAtAnyWorkers: a table with three breakdowns of one
// total over 10 regions (a hidden Sex x Age x Birth cross generated from a
// seed, many cells below the threshold) is protected through the cross
// with byte-identical outputs at --workers 1, 2 and 3, each at a
// different GOMAXPROCS, without a time limit (no clock decides). Under the
// race detector the joint search gets a tenth of its budget
// (testJointWork): it still spends it all, so its stopping point is still
// compared across the runs.
func TestCrossedIdenticalAtAnyWorkers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cross.csv")
	bd := [][]string{{"Men", "Women"}, {"Aged 0-15", "Aged 16-64", "Aged 65+"}, {"UK born", "Born abroad"}}
	groups := []string{"All people"}
	for _, b := range bd {
		groups = append(groups, b...)
	}
	r := rand.New(rand.NewPCG(24, 3))
	val := map[[2]string]int{}
	var regions []string
	for k := range 10 {
		reg := fmt.Sprintf("R%02d", k)
		regions = append(regions, reg)
		for h := range 12 {
			v := r.IntN(6)
			codes := []string{"All people", bd[0][h%2], bd[1][(h/2)%3], bd[2][h/6]}
			for _, g := range codes {
				val[[2]string{g, reg}] += v
				val[[2]string{g, "Total"}] += v
			}
		}
	}
	var buf bytes.Buffer
	buf.WriteString("Group,region,n\n")
	for _, g := range groups {
		for _, reg := range append(regions, "Total") {
			fmt.Fprintf(&buf, "%s,%s,%d\n", g, reg, val[[2]string{g, reg}])
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	crossedIdentical(t, path, "columns: {dims: [Group, region], count: n}\nsuppression: {time_limit: 60m}\n", func(tb *audit.Table) {
		if ax, _ := tb.Structure.Crossed(); ax == nil {
			t.Fatalf("no breakdowns found: the test does not reach the crossed path (warnings %q)", tb.Warnings)
		}
	})
}

// crossedJointWork is the joint search's work budget in crossedIdentical:
// a tenth of the race runs' budget, so that the search stops at its
// budget (the point every run must reach alike) in a few CPU-seconds; the
// default budget's root cuts took 27 CPU-s a run without -race, most of
// the pipeline package's race time.
const crossedJointWork = raceJointWork / 10

// crossedIdentical runs the table at path (configuration cfg, whose
// time_limit no run may reach: 60m; "null" keeps the profile's 60s, which
// a -race run under load reached, and the runs then stopped at different
// points) at workers 1, 2, 3 and GOMAXPROCS 1, 4, 2, checks the first
// run's table (reached: the path the test means) and one secondary cell,
// and compares the outputs byte for byte.
func crossedIdentical(t *testing.T, path, cfg string, reached func(*audit.Table)) {
	t.Helper()
	dir := filepath.Dir(path)
	var first string
	for _, wp := range [][2]int{{1, 1}, {2, 4}, {3, 2}} {
		w, p := wp[0], wp[1]
		out := filepath.Join(dir, fmt.Sprintf("out-w%d-p%d", w, p))
		old := runtime.GOMAXPROCS(p)
		res, err := Run(context.Background(), []Job{{Path: path, Name: "cross", Settings: settings(t, cfg)}}, Options{Out: out, Workers: w, Log: zerolog.Nop(), Version: "test", JointWork: crossedJointWork})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = out
			tb := res.Tables[0]
			reached(tb)
			sec := 0
			for _, c := range tb.Cells {
				if c.Status == audit.StatusSecondary {
					sec++
				}
			}
			if sec == 0 {
				t.Fatalf("no secondary cell: the test does not reach secondary suppression (warnings %q)", tb.Warnings)
			}
			continue
		}
		sameOutputFiles(t, first, out, fmt.Sprintf("workers %d, GOMAXPROCS %d", w, p))
	}
}

// TestCrossedBandBothIdentical: a wide table with a band nested in the
// age breakdown (Aged 40+ above its bands) and breakdowns in both axes
// (Total = ten regions = Urban + Rural), protected in blocks through
// the cross, gives byte-identical outputs at any workers and GOMAXPROCS.
func TestCrossedBandBothIdentical(t *testing.T) {
	path := filepath.Join(t.TempDir(), "band.csv")
	writeBandBoth(t, path)
	crossedIdentical(t, path, "columns: {value: count}\nsuppression: {time_limit: 60m}\n", func(tb *audit.Table) {
		n := 0
		for _, ax := range tb.Structure.Axes {
			n += len(ax.Breakdowns)
		}
		if n != 2 || !slices.ContainsFunc(tb.Warnings, func(w string) bool { return strings.Contains(w, "protected in blocks") }) {
			t.Fatalf("%d breakdowns, not protected in blocks: the test does not reach the path (warnings %q)", n, tb.Warnings)
		}
	})
}

// writeBandBoth writes to path a wide table with breakdowns in both axes
// (sex and age bands, an "Aged 40+" band nested in the age breakdown; ten
// regions and urban/rural by column), its hidden counts from a seed.
func writeBandBoth(t *testing.T, path string) {
	t.Helper()
	r := rand.New(rand.NewPCG(24, 7))
	leaves := []string{"Aged 0-15", "Aged 16-39", "Aged 40-64", "Aged 65+"}
	// hidden counts sex x leaf x region x area
	var x [2][4][10][2]int
	for s := range x {
		for a := range x[s] {
			for g := range x[s][a] {
				for u := range x[s][a][g] {
					x[s][a][g][u] = r.IntN(3 * (a + 1))
				}
			}
		}
	}
	type line struct{ sex, leaf []int }
	rows := []string{"All people", "Men", "Women", "Aged 0-15", "Aged 16-39", "Aged 40+", "Aged 40-64", "Aged 65+"}
	sel := map[string]line{
		"All people": {[]int{0, 1}, []int{0, 1, 2, 3}}, "Men": {[]int{0}, []int{0, 1, 2, 3}}, "Women": {[]int{1}, []int{0, 1, 2, 3}},
		"Aged 40+": {[]int{0, 1}, []int{2, 3}},
	}
	for a, l := range leaves {
		sel[l] = line{[]int{0, 1}, []int{a}}
	}
	var buf bytes.Buffer
	buf.WriteString("Group")
	for g := range 10 {
		fmt.Fprintf(&buf, ",R%02d", g)
	}
	buf.WriteString(",Urban,Rural,Total\n")
	for _, name := range rows {
		buf.WriteString(name)
		sum := func(in func(g, u int) bool) int {
			v := 0
			for _, s := range sel[name].sex {
				for _, a := range sel[name].leaf {
					for g := range 10 {
						for u := range 2 {
							if in(g, u) {
								v += x[s][a][g][u]
							}
						}
					}
				}
			}
			return v
		}
		for g := range 10 {
			fmt.Fprintf(&buf, ",%d", sum(func(h, _ int) bool { return h == g }))
		}
		for u := range 2 {
			fmt.Fprintf(&buf, ",%d", sum(func(_, v int) bool { return v == u }))
		}
		fmt.Fprintf(&buf, ",%d\n", sum(func(int, int) bool { return true }))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCrossedSuppressionRun: on the crossed path report.json's
// audit.suppression says how secondary suppression ran, as on a table
// protected alone: the method, the cost model, the pattern's cost (the
// withheld secondaries' values, cost "value"), a lower bound no higher
// and the gap. It was not set (nil) on this path.
func TestCrossedSuppressionRun(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.csv")
	if err := os.WriteFile(two, []byte(crossedLong), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "columns: {dims: [Group, region], count: n}\nsuppression: {time_limit: 60m}\n"
	res, err := Run(context.Background(), []Job{{Path: two, Name: "two", Settings: settings(t, cfg)}}, Options{Out: filepath.Join(dir, "out"), Workers: 1, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	tb := res.Tables[0]
	if ax, _ := tb.Structure.Crossed(); ax == nil || len(tb.Structure.Unconfirmed) > 0 {
		t.Fatalf("not protected through the cross: warnings %q", tb.Warnings)
	}
	s := tb.Audit.Suppression
	if s == nil || s.Method == "" || s.Cost != "value" || s.PatternCost == nil || s.LowerBound == nil || s.Gap == nil {
		t.Fatalf("audit.suppression %+v: want method, cost, pattern cost, lower bound and gap", s)
	}
	var sum float64
	for _, c := range tb.Cells {
		if c.Status == audit.StatusSecondary {
			sum += float64(c.N)
		}
	}
	if sum == 0 || *s.PatternCost < sum-1e-6 || *s.PatternCost > sum+1e-3 || *s.LowerBound > *s.PatternCost+1e-6 {
		t.Errorf("pattern cost %v, lower bound %v; the secondaries' values add up to %v", *s.PatternCost, *s.LowerBound, sum)
	}
}

// TestCrossedBlocksTimeLimitKept: when the user's time limit fires while
// a block of a table with breakdowns in both axes is protected (a limit
// of 1ns fires at once in every block, whatever the clock), the split is
// kept with a warning naming the time limit and the primaries the
// pattern does not protect; before, the split was refused as if it could
// not protect them, the other split tried, and the table ended fully
// withheld, the time limit unsaid.
func TestCrossedBlocksTimeLimitKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "band.csv")
	writeBandBoth(t, path)
	res, err := Run(context.Background(), []Job{{Path: path, Name: "cross", Settings: settings(t, "columns: {value: count}\nsuppression: {time_limit: 1ns}\n")}}, Options{Out: filepath.Join(dir, "out"), Workers: 1, Log: zerolog.Nop(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	tb := res.Tables[0]
	if slices.ContainsFunc(tb.Warnings, func(w string) bool { return strings.Contains(w, "every cell is withheld") }) {
		t.Errorf("fully withheld: warnings %q", tb.Warnings)
	}
	if !slices.ContainsFunc(tb.Warnings, func(w string) bool {
		return strings.Contains(w, "time limit 1ns reached while the blocks by") && strings.Contains(w, "no other split tried")
	}) {
		t.Errorf("no warning of the time limit in the blocks: %q", tb.Warnings)
	}
	if !slices.ContainsFunc(tb.Warnings, func(w string) bool { return strings.Contains(w, "protected in blocks") }) {
		t.Errorf("not protected in blocks: %q", tb.Warnings)
	}
}
