package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/intervals"
)

// firmRelease writes generated firm microdata (region, district within
// region, sector, size, turnover) to dir and returns its path and the
// district -> region map.
func firmRelease(t testing.TB, dir string, seed uint64) (string, map[string]string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 17))
	regions := 3 + r.IntN(2)
	sectors := 4 + r.IntN(2)
	n := 150 + r.IntN(200)
	parent := map[string]string{}
	var b strings.Builder
	b.WriteString("firm,region,district,sector,size,turnover\n")
	for i := 0; i < n; i++ {
		reg := r.IntN(regions)
		dist := fmt.Sprintf("D%d%d", reg, r.IntN(2))
		parent[dist] = fmt.Sprintf("R%d", reg)
		sec := r.IntN(sectors)
		if r.IntN(4) == 0 {
			sec = reg % sectors // some concentration
		}
		size := []string{"small", "medium", "large"}[min(2, int(r.ExpFloat64()))]
		v := 10 + int(math.Exp(2+2*r.NormFloat64()))
		if size == "large" {
			v *= 20
		}
		fmt.Fprintf(&b, "f%d,R%d,%s,S%d,%s,%d\n", i, reg, dist, sec, size, v)
	}
	p := filepath.Join(dir, "firms.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, parent
}

// runRelease audits tables of one microdata file (dims per table).
// linkIf is LinkOn when on, else LinkNone.
func linkIf(on bool) LinkMode {
	if on {
		return LinkOn
	}
	return LinkNone
}

// runRelease audits the microdata of path as one table per entry of dims
// into out, the tables protected together when linked.
func runRelease(t testing.TB, path, out string, dims [][]string, linked bool) *Result {
	t.Helper()
	// testJointWork: the releases' tests judge the pattern kept with
	// their own attack (an independent LP over every table), whatever
	// the joint search's budget
	return runReleaseWith(t, path, dims, Options{Out: out, Workers: 4, Log: zerolog.Nop(), Link: linkIf(linked), JointWork: testJointWork()})
}

// runReleaseWith is runRelease under the run options opt.
func runReleaseWith(t testing.TB, path string, dims [][]string, opt Options) *Result {
	t.Helper()
	var jobs []Job
	for _, d := range dims {
		s := settings(t, fmt.Sprintf("microdata: {dims: [%s], value: turnover}\n", strings.Join(d, ", ")))
		noClock(s, "")
		jobs = append(jobs, Job{Path: path, Name: strings.Join(d, "_x_"), Settings: s})
	}
	res, err := Run(context.Background(), jobs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameOutputs checks that the unlinked run's outputs (at least four files)
// in dir unlinked are those of the linked run in dir linked, byte for byte.
func sameOutputs(t *testing.T, unlinked, linked string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(unlinked, "*"))
	if len(files) < 4 {
		t.Fatalf("outputs %v", files)
	}
	for _, f := range files {
		x, _ := os.ReadFile(f)
		y, err := os.ReadFile(filepath.Join(linked, filepath.Base(f)))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between linked and unlinked runs (%v)", filepath.Base(f), err)
		}
	}
}

// globalKey identifies a cell across tables: its non-total codes by
// dimension name.
func globalKey(t *audit.Table, c *audit.Cell) string {
	var parts []string
	for d, v := range c.Key {
		if v != t.TotalLabel {
			parts = append(parts, t.Dims[d]+"="+v)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

type attackResult struct {
	primaries, shared, weak int
	mismatch                []string
	weakCells               []string
}

// attack builds the intruder's system over every table of a release
// (independently of audit/suppress): each table's margin relations over
// its own cells, shared cells identified by key, and the district-in-region
// relations; then it minimises and maximises every primary cell with
// gonum's simplex and checks the 10% protection levels.
func attack(t testing.TB, tables []*audit.Table, parent map[string]string) attackResult {
	t.Helper()
	var ar attackResult
	val := map[string]*big.Rat{}
	hidden := map[string]bool{}
	status := map[string]audit.Status{}
	primary := map[string]bool{}
	var rels [][]string // total first, then parts
	for _, tb := range tables {
		for _, c := range tb.Cells {
			g := globalKey(tb, c)
			st := c.Status
			if st == audit.StatusReview {
				st = audit.StatusOK // published
			}
			if prev, ok := status[g]; ok {
				ar.shared++
				if prev != st {
					ar.mismatch = append(ar.mismatch, fmt.Sprintf("%s: %s in one table, %s in %s", g, prev, st, tb.Name))
				}
			}
			status[g] = st
			val[g] = c.Total.Rat()
			if st == audit.StatusPrimary || st == audit.StatusSecondary {
				hidden[g] = true
			}
			if st == audit.StatusPrimary {
				primary[g] = true
			}
		}
		byKey := map[string]*audit.Cell{}
		for _, c := range tb.Cells {
			byKey[strings.Join(c.Key, "\x00")] = c
		}
		for _, c := range tb.Cells {
			for d := range tb.Dims {
				if c.Key[d] != tb.TotalLabel {
					continue
				}
				rel := []string{globalKey(tb, c)}
				for _, p := range tb.Cells {
					if p.Key[d] == tb.TotalLabel {
						continue
					}
					same := true
					for e := range tb.Dims {
						if e != d && p.Key[e] != c.Key[e] {
							same = false
						}
					}
					if same {
						rel = append(rel, globalKey(tb, p))
					}
				}
				rels = append(rels, rel)
			}
		}
	}
	// Nesting known to the intruder: a region cell is the sum of its
	// districts' cells (the other codes equal).
	for g := range val {
		var reg string
		var rest []string
		for _, part := range strings.Split(g, ",") {
			if strings.HasPrefix(part, "region=") {
				reg = strings.TrimPrefix(part, "region=")
			} else if part != "" {
				rest = append(rest, part)
			}
		}
		if reg == "" {
			continue
		}
		rel := []string{g}
		for d, p := range parent {
			if p != reg {
				continue
			}
			k := append([]string{"district=" + d}, rest...)
			sort.Strings(k)
			if _, ok := val[strings.Join(k, ",")]; ok {
				rel = append(rel, strings.Join(k, ","))
			}
		}
		if len(rel) > 1 && len(rel)-1 == countDistricts(parent, reg) {
			rels = append(rels, rel)
		}
	}
	var vars []string
	for g := range hidden {
		vars = append(vars, g)
	}
	sort.Strings(vars)
	ar.primaries = len(primary)
	if len(vars) == 0 {
		return ar
	}
	local := map[string]int{}
	for i, g := range vars {
		local[g] = i
	}
	n := len(vars)
	// Equalities in exact rationals, reduced to independent rows.
	var rows [][]*big.Rat
	for _, rel := range rels {
		row := make([]*big.Rat, n+1)
		for i := range row {
			row[i] = new(big.Rat)
		}
		anyVar := false
		for k, g := range rel {
			sign := int64(-1)
			if k == 0 {
				sign = 1
			}
			if l, ok := local[g]; ok {
				row[l].Add(row[l], big.NewRat(sign, 1))
				anyVar = true
			} else {
				row[n].Sub(row[n], new(big.Rat).Mul(big.NewRat(sign, 1), val[g]))
			}
		}
		if anyVar {
			rows = append(rows, row)
		}
	}
	rows = reduceRows(t, rows, n)
	bigV := 1.0
	for _, v := range val {
		f, _ := v.Float64()
		bigV = math.Max(bigV, f)
	}
	// Standard form for gonum, values scaled by 1/bigV: the reduced rows
	// (rhs made non-negative) with one artificial variable each. The
	// artificial variables are a feasible starting basis; a big-M cost
	// drives them out (checked below), so gonum needs no phase 1. Every
	// cell is non-negative; a maximum is unbounded only when no published
	// margin bounds the cell.
	r0 := len(rows)
	cols := n + r0
	A := mat.NewDense(r0, cols, nil)
	b := make([]float64, r0)
	basis := make([]int, 0, r0)
	for r, row := range rows {
		sign := 1.0
		if row[n].Sign() < 0 {
			sign = -1
		}
		for j := 0; j < n; j++ {
			f, _ := row[j].Float64()
			A.Set(r, j, sign*f)
		}
		f, _ := row[n].Float64()
		b[r] = sign * f / bigV
		A.Set(r, n+r, 1)
		basis = append(basis, n+r)
	}
	const bigM = 1e5
	tol := 1e-7 * (bigV + 1)
	for _, g := range vars {
		if !primary[g] {
			continue
		}
		x, _ := val[g].Float64()
		u := 0.1 * x
		lo, hi := 0.0, 0.0
		for _, maximise := range []bool{false, true} {
			c := make([]float64, cols)
			c[local[g]] = 1
			if maximise {
				c[local[g]] = -1
			}
			for r := 0; r < r0; r++ {
				c[n+r] = bigM
			}
			_, xs, err := lp.Simplex(c, A, b, 1e-10, basis)
			if maximise && errors.Is(err, lp.ErrUnbounded) {
				hi = math.Inf(1)
				continue
			}
			if err != nil {
				t.Fatalf("gonum on %s: %v", g, err)
			}
			for r := 0; r < r0; r++ {
				if xs[n+r] > 1e-9 {
					t.Fatalf("gonum on %s: artificial variable %d at %g (big M too small)", g, r, xs[n+r])
				}
			}
			f := xs[local[g]] * bigV
			if maximise {
				f = -f
			}
			if maximise {
				hi = -f
			} else {
				lo = f
			}
		}
		if hi < x+u-tol || lo > x-math.Min(u, x)+tol {
			ar.weak++
			ar.weakCells = append(ar.weakCells, fmt.Sprintf("%s=%g in [%g, %g]", g, x, lo, hi))
		}
	}
	return ar
}

func countDistricts(parent map[string]string, reg string) int {
	k := 0
	for _, p := range parent {
		if p == reg {
			k++
		}
	}
	return k
}

// reduceRows returns independent rows spanning the same equalities (exact
// Gauss-Jordan); a row 0 = c with c != 0 is a contradiction.
func reduceRows(t testing.TB, rows [][]*big.Rat, n int) [][]*big.Rat {
	t.Helper()
	var out [][]*big.Rat
	col := 0
	for r := 0; r < len(rows) && col < n; col++ {
		piv := -1
		for i := r; i < len(rows); i++ {
			if rows[i][col].Sign() != 0 {
				piv = i
				break
			}
		}
		if piv < 0 {
			continue
		}
		rows[r], rows[piv] = rows[piv], rows[r]
		inv := new(big.Rat).Inv(rows[r][col])
		for j := range rows[r] {
			rows[r][j].Mul(rows[r][j], inv)
		}
		for i := range rows {
			if i == r || rows[i][col].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Set(rows[i][col])
			for j := range rows[i] {
				rows[i][j].Sub(rows[i][j], new(big.Rat).Mul(f, rows[r][j]))
			}
		}
		out = append(out, rows[r])
		r++
	}
	for _, row := range rows[len(out):] {
		if row[n].Sign() != 0 {
			t.Fatalf("the published cells contradict each other")
		}
	}
	return out
}

// linkSeeds is the number of generated microdata files per release shape.
const linkSeeds = 6

// linkedSeeds are the seeds of TestLinkedReleasesResistJointAttack and
// TestJointAttackBreaksApartProtection: 1 to linkSeeds, and under the race
// detector 2, 3 and 4. Those three still give 132 primary cells and 41
// shared cell copies linked (both bounds 30), seeds 3 and 4 the only
// ones with secondary margin cells (21: 4, then 4 and 13), and every
// three-table release of them is broken when protected apart (weak 4, 1,
// 4), the two-table ones never (as with every seed): each assertion
// still decides on them.
func linkedSeeds() []uint64 {
	if raceEnabled {
		return []uint64{2, 3, 4}
	}
	var s []uint64
	for seed := uint64(1); seed <= linkSeeds; seed++ {
		s = append(s, seed)
	}
	return s
}

var releaseShapes = [][][]string{
	{{"region", "sector"}, {"region", "size"}},
	{{"region", "sector"}, {"region", "size"}, {"district", "sector"}},
}

// TestLinkedReleasesResistJointAttack: releases of two and three tables
// from one microdata file (shared margins, one nested pair) protected
// together: an independent LP over all tables of a release narrows no
// primary cell below its levels, and every shared cell has one status.
func TestLinkedReleasesResistJointAttack(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	prim, shared, suppressedShared := 0, 0, 0
	var mu sync.Mutex // the counts, of the releases run in parallel
	// Each release is its own parallel subtest (the longest test of the
	// package, split so that both cores share it); the group returns when
	// every release is checked, and the counts below are those of all.
	t.Run("releases", func(t *testing.T) {
		for _, seed := range linkedSeeds() {
			for _, shape := range releaseShapes {
				t.Run(fmt.Sprintf("seed%d-%dtables", seed, len(shape)), func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					path, parent := firmRelease(t, dir, seed)
					res := runRelease(t, path, filepath.Join(dir, "out"), shape, true)
					ar := attack(t, res.Tables, parent)
					if len(ar.mismatch) > 0 {
						t.Errorf("seed %d, %d tables: shared cells with different statuses: %v", seed, len(shape), ar.mismatch)
					}
					if ar.weak > 0 {
						t.Errorf("seed %d, %d tables: %d primary cells narrowed by the joint attack: %v", seed, len(shape), ar.weak, ar.weakCells)
					}
					sec := 0
					for _, tb := range res.Tables {
						if tb.Link == nil || !tb.Link.Linked || !tb.Link.Exact || len(tb.Link.Tables) != len(shape)-1 {
							t.Fatalf("table %s: link %+v", tb.Name, tb.Link)
						}
						for _, c := range tb.Cells {
							if c.IsMargin(tb.TotalLabel) && c.Status == audit.StatusSecondary {
								sec++
							}
						}
					}
					if len(res.Summary.LinkGroups) != 1 || len(res.Summary.LinkGroups[0].Tables) != len(shape) {
						t.Fatalf("link groups %+v", res.Summary.LinkGroups)
					}
					mu.Lock()
					prim += ar.primaries
					shared += ar.shared
					suppressedShared += sec
					mu.Unlock()
				})
			}
		}
	})
	if t.Failed() {
		return // a release failed: its counts are missing
	}
	if prim < 30 || shared < 30 || suppressedShared == 0 {
		t.Fatalf("the releases test too little: %d primaries, %d shared cells, %d secondary margins", prim, shared, suppressedShared)
	}
	t.Logf("%d primary cells, %d shared cell copies, %d secondary margin cells", prim, shared, suppressedShared)
}

// TestJointAttackBreaksApartProtection: the same attack on the same
// releases protected table by table finds under-protected primaries or
// shared cells with different statuses (issue 17): it has the power to
// catch what linking prevents.
func TestJointAttackBreaksApartProtection(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	bad := 0
	for _, seed := range linkedSeeds() {
		for _, shape := range releaseShapes {
			dir := t.TempDir()
			path, parent := firmRelease(t, dir, seed)
			res := runRelease(t, path, filepath.Join(dir, "out"), shape, false)
			ar := attack(t, res.Tables, parent)
			if ar.weak > 0 || len(ar.mismatch) > 0 {
				bad++
			}
		}
	}
	if bad == 0 {
		t.Fatal("no release protected apart is broken by the joint attack")
	}
	t.Logf("%d of %d releases protected apart are broken", bad, len(linkedSeeds())*len(releaseShapes))
}

// TestLinkedNoSharedCellsIdentical: tables that share no cells (different
// files) give byte-identical outputs with and without linking.
func TestLinkedNoSharedCellsIdentical(t *testing.T) {
	dir := t.TempDir()
	a, _ := firmRelease(t, filepath.Join(dir), 3)
	bdir := filepath.Join(dir, "b")
	os.MkdirAll(bdir, 0o755)
	b, _ := firmRelease(t, bdir, 4)
	outs := map[bool]string{}
	for _, linked := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint("out", linked))
		jobs := []Job{
			{Path: a, Name: "a", Settings: settings(t, "microdata: {dims: [region, sector], value: turnover}\n")},
			{Path: b, Name: "b", Settings: settings(t, "microdata: {dims: [region, size], value: turnover}\n")},
		}
		if _, err := Run(context.Background(), jobs, Options{Out: out, Workers: 2, Log: zerolog.Nop(), Link: linkIf(linked), Version: "test"}); err != nil {
			t.Fatal(err)
		}
		outs[linked] = out
	}
	sameOutputs(t, outs[false], outs[true])
}

// TestLinkedTooLargeGoesToReview: a group whose cover table exceeds the
// limit is protected apart, says so, and its primary cells go to review.
func TestLinkedTooLargeGoesToReview(t *testing.T) {
	dir := t.TempDir()
	path, _ := firmRelease(t, dir, 5)
	out := filepath.Join(dir, "out")
	res := runReleaseWith(t, path, releaseShapes[0], Options{Out: out, Workers: 4, Log: zerolog.Nop(), Link: LinkOn, MaxCoverCells: 10})
	g := res.Summary.LinkGroups
	if len(g) != 1 || g[0].Exact || !strings.Contains(g[0].Reason, "more than the limit") {
		t.Fatalf("groups %+v", g)
	}
	prim := 0
	for _, tb := range res.Tables {
		for _, c := range tb.Cells {
			if c.Status != audit.StatusPrimary {
				continue
			}
			prim++
			found := false
			for _, f := range c.AllFindings() {
				found = found || f.Rule == "linked" && f.Outcome == audit.Review
			}
			if !found {
				t.Fatalf("%s %v: primary without a linked review finding", tb.Name, c.Key)
			}
		}
	}
	if prim == 0 {
		t.Fatal("no primary cells")
	}
	var rep struct {
		Link *audit.Link `json:"link"`
	}
	data, err := os.ReadFile(filepath.Join(out, "region_x_sector.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Link == nil || rep.Link.Exact || !rep.Link.Linked || len(rep.Link.Tables) != 1 || rep.Link.Tables[0] != "region_x_size" {
		t.Fatalf("report link %+v", rep.Link)
	}
}

// TestLinkedKeepsRunHooks: a group protected apart (its cover table over
// the limit) protects each member with the run's joint work budget
// (Options.JointWork) and interval audit tuning (Options.AuditTuning), as
// a table protected on its own: a budget of 0.001 units stops every
// member's joint search ("units spent of 0.001"), and an audit without
// its LPs for large components leaves approximate intervals. A group
// protected together audits its members with that tuning too. Before,
// the members were protected apart with the defaults (no stop, every
// interval exact), and audited together with the default tuning.
func TestLinkedKeepsRunHooks(t *testing.T) {
	dir := t.TempDir()
	path, _ := firmRelease(t, dir, 4)
	tune := intervals.Tuning{LargeComponent: 1}
	for _, apart := range []bool{true, false} {
		opt := Options{Out: filepath.Join(dir, fmt.Sprint("out", apart)), Workers: 2, Log: zerolog.Nop(), Link: LinkOn, JointWork: 0.001, AuditTuning: &tune}
		if apart {
			opt.MaxCoverCells = 10
		}
		res := runReleaseWith(t, path, releaseShapes[0], opt)
		if g := res.Summary.LinkGroups; len(g) != 1 || g[0].Exact == apart {
			t.Fatalf("apart %v: groups %+v", apart, g)
		}
		for _, tb := range res.Tables {
			a := tb.Audit
			if a == nil {
				t.Fatalf("apart %v: %s: no audit", apart, tb.Name)
			}
			if apart && (a.Suppression == nil || !strings.Contains(a.Suppression.Stopped, "units spent of 0.001)")) {
				t.Errorf("apart: %s: suppression %+v: the joint work budget did not reach the member", tb.Name, a.Suppression)
			}
			if len(a.Cells) == 0 || a.Approximate == 0 {
				t.Errorf("apart %v: %s: %d cells, none approximate: the audit tuning did not reach the member", apart, tb.Name, len(a.Cells))
			}
		}
	}
}
