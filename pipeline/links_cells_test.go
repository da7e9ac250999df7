package pipeline

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
)

// aggregateTable writes the aggregate table over dims of the firm
// microdata at micro (every cell and margin: count, total and the two
// largest turnovers) as CSV and returns its path.
func aggregateTable(t testing.TB, micro, dir string, dims []string) string {
	t.Helper()
	f, err := os.Open(micro)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	type agg struct {
		n, total int64
		top      []int64
	}
	cells := map[string]*agg{}
	for _, r := range recs[1:] {
		v, _ := strconv.ParseInt(r[col["turnover"]], 10, 64)
		// every combination of the record's codes and Total
		for mask := 0; mask < 1<<len(dims); mask++ {
			key := make([]string, len(dims))
			for d, dim := range dims {
				key[d] = "Total"
				if mask&(1<<d) != 0 {
					key[d] = r[col[dim]]
				}
			}
			k := strings.Join(key, ",")
			a := cells[k]
			if a == nil {
				a = &agg{}
				cells[k] = a
			}
			a.n++
			a.total += v
			a.top = append(a.top, v)
		}
	}
	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(strings.Join(dims, ",") + ",n,total,top1,top2\n")
	for _, k := range keys {
		a := cells[k]
		slices.SortFunc(a.top, func(x, y int64) int { return int(y - x) })
		top2 := ""
		if len(a.top) > 1 {
			top2 = fmt.Sprint(a.top[1])
		}
		fmt.Fprintf(&b, "%s,%d,%d,%d,%s\n", k, a.n, a.total, a.top[0], top2)
	}
	p := filepath.Join(dir, strings.Join(dims, "_x_")+".csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// aggregateJobs writes the aggregate tables of a release of the firm
// microdata at micro and returns their jobs.
func aggregateJobs(t testing.TB, micro, dir string, shape [][]string) []Job {
	t.Helper()
	var jobs []Job
	for _, dims := range shape {
		p := aggregateTable(t, micro, dir, dims)
		s := settings(t, fmt.Sprintf("columns: {dims: [%s], count: n, total: total, top: [top1, top2]}\n", strings.Join(dims, ", ")))
		jobs = append(jobs, Job{Path: p, Name: strings.Join(dims, "_x_"), Settings: s})
	}
	return jobs
}

func jobNames(jobs []Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Name)
	}
	return out
}

var aggregateShapes = [][][]string{
	{{"region", "sector"}, {"region", "size"}},
	{{"region", "sector"}, {"region", "size"}, {"size"}},
}

// TestLinksAggregateResistJointAttack: releases of two and three
// aggregate tables (received as CSV, no records) linked by links: are
// protected together on a cover built from their cells: gonum's LP over
// all tables of a release narrows no primary below its levels, every
// shared cell has one status, and the group is exact.
func TestLinksAggregateResistJointAttack(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	prim, shared, secondary := 0, 0, 0
	for seed := uint64(1); seed <= linkSeeds; seed++ {
		for _, shape := range aggregateShapes {
			dir := t.TempDir()
			micro, _ := firmRelease(t, dir, seed)
			jobs := aggregateJobs(t, micro, dir, shape)
			// testJointWork: the attack below (gonum's LP) judges the
			// pattern kept, whatever the joint search's budget
			res, err := Run(context.Background(), jobs, Options{Out: filepath.Join(dir, "out"), Workers: 4, Log: zerolog.Nop(), Link: LinkOn, Links: [][]string{jobNames(jobs)}, JointWork: testJointWork()})
			if err != nil {
				t.Fatal(err)
			}
			ar := attack(t, res.Tables, nil)
			if len(ar.mismatch) > 0 {
				t.Errorf("seed %d, %d tables: shared cells with different statuses: %v", seed, len(shape), ar.mismatch)
			}
			if ar.weak > 0 {
				t.Errorf("seed %d, %d tables: %d primary cells narrowed by the joint attack: %v", seed, len(shape), ar.weak, ar.weakCells)
			}
			for _, tb := range res.Tables {
				if tb.Link == nil || !tb.Link.Linked || !tb.Link.Exact || len(tb.Link.Tables) != len(shape)-1 {
					t.Fatalf("seed %d: table %s: link %+v", seed, tb.Name, tb.Link)
				}
				for _, c := range tb.Cells {
					if c.Status == audit.StatusSecondary {
						secondary++
					}
				}
			}
			if g := res.Summary.LinkGroups; len(g) != 1 || len(g[0].Tables) != len(shape) || !g[0].Exact || !strings.Contains(g[0].Reason, "links:") {
				t.Fatalf("link groups %+v", g)
			}
			prim += ar.primaries
			shared += ar.shared
		}
	}
	if prim < 30 || shared < 30 || secondary == 0 {
		t.Fatalf("the releases test too little: %d primaries, %d shared cells, %d secondary cells", prim, shared, secondary)
	}
	t.Logf("%d primary cells, %d shared cell copies, %d secondary cells", prim, shared, secondary)
}

// TestLinksAggregateUnlinkedIdentical: aggregate tables that links: does
// not name are in no group: linked and unlinked runs give byte-identical
// outputs.
func TestLinksAggregateUnlinkedIdentical(t *testing.T) {
	dir := t.TempDir()
	micro, _ := firmRelease(t, dir, 3)
	jobs := aggregateJobs(t, micro, dir, aggregateShapes[0])
	outs := map[bool]string{}
	for _, linked := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint("out", linked))
		res, err := Run(context.Background(), jobs, Options{Out: out, Workers: 2, Log: zerolog.Nop(), Link: linkIf(linked), Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Summary.LinkGroups) != 0 {
			t.Fatalf("link groups %+v", res.Summary.LinkGroups)
		}
		outs[linked] = out
	}
	sameOutputs(t, outs[false], outs[true])
}

// TestLinksAggregateMismatchAndUnknown: a shared cell with different
// figures in two linked tables protects them apart, naming both tables and
// the cell, and every primary goes to review; a links: name that is no
// table of the run is a configuration error naming it.
func TestLinksAggregateMismatchAndUnknown(t *testing.T) {
	dir := t.TempDir()
	micro, _ := firmRelease(t, dir, 2)
	jobs := aggregateJobs(t, micro, dir, aggregateShapes[0])
	// Change the grand total of the second table.
	data, err := os.ReadFile(jobs[1].Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Total,Total,") {
			f := strings.Split(l, ",")
			v, _ := strconv.Atoi(f[3])
			f[3] = strconv.Itoa(v + 1)
			lines[i] = strings.Join(f, ",")
		}
	}
	if err := os.WriteFile(jobs[1].Path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), jobs, Options{Out: filepath.Join(dir, "out"), Workers: 2, Log: zerolog.Nop(), Link: LinkOn, Links: [][]string{jobNames(jobs)}})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Summary.LinkGroups
	if len(g) != 1 || g[0].Exact || !strings.Contains(g[0].Reason, "cell region=Total, size=Total is ") || !strings.Contains(g[0].Reason, "region_x_sector") || !strings.Contains(g[0].Reason, "region_x_size") {
		t.Fatalf("groups %+v", g)
	}
	prim := 0
	for _, tb := range res.Tables {
		for _, c := range tb.Cells {
			if c.Status != audit.StatusPrimary {
				continue
			}
			prim++
			if !slices.ContainsFunc(c.AllFindings(), func(f audit.Finding) bool { return f.Rule == "linked" && f.Outcome == audit.Review }) {
				t.Errorf("%s %v: primary without a linked review finding", tb.Name, c.Key)
			}
		}
	}
	if prim == 0 {
		t.Fatal("no primary cells")
	}
	_, err = Run(context.Background(), jobs, Options{Out: filepath.Join(dir, "out2"), Workers: 2, Log: zerolog.Nop(), Link: LinkOn, Links: [][]string{{"region_x_sector", "region_x_sise"}}})
	var ce *configs.Error
	if !errors.As(err, &ce) || !errors.Is(err, configs.ErrInvalid) || !strings.Contains(err.Error(), `"region_x_sise" is not a table`) || !strings.Contains(err.Error(), "did you mean region_x_size") {
		t.Fatalf("unknown table in links: %v", err)
	}
}
