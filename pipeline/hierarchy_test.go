package pipeline

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/suppress"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
)

const hierDir = "../testdata/hierarchy/"

// hierParent is the district hierarchy of testdata/hierarchy, written out
// here independently of districts.hrc and map.yaml.
var hierParent = map[string]string{
	"N11": "N1", "N12": "N1", "N21": "N2", "N1": "N", "N2": "N",
	"S11": "S1", "S21": "S2", "S22": "S2", "S23": "S2", "S1": "S", "S2": "S",
	"N": "Total", "S": "Total", "W": "Total",
}

// hierRecord is one record of records.csv.
type hierRecord struct {
	district, sector string
	turnover         *big.Rat
}

func readHierRecords(t *testing.T) []hierRecord {
	t.Helper()
	f, err := os.Open(hierDir + "records.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []hierRecord
	for _, r := range rows[1:] {
		v, ok := new(big.Rat).SetString(r[3])
		if !ok {
			t.Fatalf("bad turnover %q", r[3])
		}
		out = append(out, hierRecord{r[0], r[1], v})
	}
	return out
}

// under reports whether district code c lies below (or is) level.
func under(c, level string) bool {
	for {
		if c == level {
			return true
		}
		p, ok := hierParent[c]
		if !ok {
			return false
		}
		c = p
	}
}

// settingsFile resolves the config file path, with the layers extra over
// it, as a run does.
func settingsFile(t *testing.T, path string, extra ...*configs.Config) *configs.Settings {
	t.Helper()
	c, err := configs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(append([]*configs.Config{c}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loadHierData audits the hierarchy test data file data with the config
// file cfg (and the layers extra over it).
func loadHierData(t *testing.T, cfg, data string, extra ...*configs.Config) (*audit.Table, *configs.Settings) {
	t.Helper()
	return loadHierDataWork(t, 0, cfg, data, extra...)
}

// loadHierDataWork is loadHierData with the joint search's work budget
// jointWork (Options.JointWork; 0: the default).
func loadHierDataWork(t *testing.T, jointWork float64, cfg, data string, extra ...*configs.Config) (*audit.Table, *configs.Settings) {
	t.Helper()
	s := settingsFile(t, hierDir+cfg, extra...)
	srcs, err := readers.Open(hierDir+data, readers.Options{BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	tab, err := auditSource(context.Background(), srcs[0], s, 2, jointWork)
	if err != nil {
		t.Fatal(err)
	}
	return tab, s
}

// TestMicrodataHierarchyCells checks every cell of the district x sector
// table built from microdata with a three-level district hierarchy, read
// from the .hrc file, from the YAML child -> parent map and from parent
// columns of the records (microdata.parents): the cells are
// every level of the hierarchy (leaves, provinces, regions, Total) crossed
// with every sector and Total, and each cell's count and total equal the
// sums over the records below it, computed here from the records.
// Secondary suppression and the interval audit are off: they set
// statuses, never a cell's count or total, and TestHierarchySuppressionAudit
// checks them on the same tables (with them on, each table's joint
// search took 10 s, 60 s under the race detector).
func TestMicrodataHierarchyCells(t *testing.T) {
	noSup, err := configs.Parse("nosup.yaml", []byte("suppression: {secondary: false, audit: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	recs := readHierRecords(t)
	districts := []string{"Total"}
	for c := range hierParent {
		districts = append(districts, c)
	}
	sectors := []string{"A", "B", "C", "Total"}
	for _, tc := range []struct{ cfg, data string }{{"hrc.yaml", "records.csv"}, {"map.yaml", "records.csv"}, {"parents.yaml", "records_parents.csv"}} {
		t.Run(tc.cfg, func(t *testing.T) {
			tab, _ := loadHierData(t, tc.cfg, tc.data, noSup)
			if tab.Audit != nil {
				t.Fatalf("an interval audit with suppression off")
			}
			got := map[string]*audit.Cell{}
			for _, c := range tab.Cells {
				k := strings.Join(c.Key, "|")
				if got[k] != nil {
					t.Fatalf("cell %s twice", k)
				}
				got[k] = c
			}
			if len(got) != len(districts)*len(sectors) {
				t.Errorf("%d cells, want %d", len(got), len(districts)*len(sectors))
			}
			for _, d := range districts {
				for _, s := range sectors {
					k := d + "|" + s
					c := got[k]
					if c == nil {
						t.Errorf("no cell %s", k)
						continue
					}
					var n int64
					sum := new(big.Rat)
					for _, r := range recs {
						if under(r.district, d) && (s == "Total" || r.sector == s) {
							n++
							sum.Add(sum, r.turnover)
						}
					}
					if c.N != n || c.Total.Rat().Cmp(sum) != 0 {
						t.Errorf("cell %s: n=%d total=%s, want n=%d total=%s", k, c.N, c.Total, n, sum.FloatString(2))
					}
				}
			}
		})
	}
}

// TestHierarchyInputErrors: a record whose code the .hrc file does not list,
// or that carries a parent code, is an input error naming the row, column
// and code; never a level of its own.
func TestHierarchyInputErrors(t *testing.T) {
	s := settingsFile(t, hierDir+"hrc.yaml")
	for _, tc := range []struct{ data, want string }{
		{"district,sector,enterprise,turnover\nN11,A,e1,5\nN13,A,e2,7\n", `row 3, column "district": code "N13" is not in the hierarchy file`},
		{"district,sector,enterprise,turnover\nN11,A,e1,5\nN11,B,e2,5\nN1,A,e3,7\n", `row 4, column "district": code "N1" is a parent code in`},
	} {
		src, err := readers.NewCSV("in.csv", strings.NewReader(tc.data), readers.Options{BatchSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = AuditSource(context.Background(), src, s, 2)
		var re *readers.Error
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want a readers.Error containing %q", err, tc.want)
		}
	}
}

// TestParentColumnErrors: parent columns that contradict each other, or a
// record whose code is another record's parent code, are input errors
// naming the row and column.
func TestParentColumnErrors(t *testing.T) {
	s := settingsFile(t, hierDir+"parents.yaml")
	const head = "region,province,district,sector,enterprise,turnover\n"
	for _, tc := range []struct{ data, want string }{
		{head + "N,N1,N11,A,e1,5\nN,N1,N12,A,e2,5\nS,N1,N11,B,e3,7\nN,N2,N11,A,e4,7\n", `row 4, column "region": code "N1" has parent "S" here but "N" on row 2`},
		{head + "N,N1,N11,A,e1,5\nN,N1,N12,A,e2,5\nN,N2,N11,B,e3,7\n", `row 4, column "province": code "N11" has parent "N2" here but "N1" on row 2`},
		{head + "N,N1,N11,A,e1,5\n,N,N1,A,e2,5\n", `row 2, column "province": parent code "N1" is also a code of district`},
	} {
		for _, bs := range []int{1, 100} {
			src, err := readers.NewCSV("in.csv", strings.NewReader(tc.data), readers.Options{BatchSize: bs})
			if err != nil {
				t.Fatal(err)
			}
			_, err = AuditSource(context.Background(), src, s, 2)
			var re *readers.Error
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("batch %d: error %v, want a readers.Error containing %q", bs, err, tc.want)
			}
		}
	}
}

// TestHierarchySuppressionAudit runs secondary suppression and the interval
// audit over the hierarchical table and checks every audited interval with
// an independent LP (gonum's simplex over the relations written out here
// from hierParent): each published cell fixed, every parent cell the sum of
// its children in each dimension, values non-negative. Every primary cell
// the audit calls protected must reach its protection levels in the
// independent intervals too.
//
// Under the race detector only hrc.yaml: parents.yaml has the same records
// and hierarchy, which reach secondary suppression the same way (the
// table's Hierarchies, whose cells TestMicrodataHierarchyCells checks for
// both), so its run repeats the same suppression and LP.
func TestHierarchySuppressionAudit(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	cases := []struct{ cfg, data string }{{"hrc.yaml", "records.csv"}, {"parents.yaml", "records_parents.csv"}}
	if raceEnabled {
		cases = cases[:1]
	}
	for _, tc := range cases {
		t.Run(tc.cfg, func(t *testing.T) { checkHierAudit(t, tc.cfg, tc.data) })
	}
}

func checkHierAudit(t *testing.T, cfg, data string) {
	sec, err := configs.Parse("sec.yaml", []byte("suppression: {secondary: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	// testJointWork: every audited interval is checked against an
	// independent LP and every protected primary against it, whatever
	// pattern the joint search's budget leaves
	tab, _ := loadHierDataWork(t, testJointWork(), cfg, data, sec)
	if tab.Audit == nil {
		t.Fatalf("no audit; warnings %v", tab.Warnings)
	}
	idx := map[string]int{}
	for i, c := range tab.Cells {
		idx[strings.Join(c.Key, "|")] = i
	}
	unknown := map[int]int{} // cell -> LP variable
	var cells []int
	for _, r := range tab.Audit.Cells {
		i, ok := idx[strings.Join(r.Key, "|")]
		if !ok {
			t.Fatalf("audited cell %v not in the table", r.Key)
		}
		unknown[i] = len(cells)
		cells = append(cells, i)
	}
	primaries, secondaries := 0, 0
	for i, c := range tab.Cells {
		switch c.Status {
		case audit.StatusPrimary, audit.StatusSecondary:
			if _, ok := unknown[i]; !ok {
				t.Errorf("suppressed cell %v not audited", c.Key)
			}
			if c.Status == audit.StatusPrimary {
				primaries++
			} else {
				secondaries++
			}
		}
	}
	t.Logf("%d cells, %d primary, %d secondary, %d audited", len(tab.Cells), primaries, secondaries, len(cells))
	if primaries == 0 || secondaries == 0 {
		t.Fatalf("%d primary and %d secondary cells: the test data must need secondary suppression", primaries, secondaries)
	}
	// Relations: parent = sum of children, per dimension.
	children := map[string][]string{}
	for c, p := range hierParent {
		children[p] = append(children[p], c)
	}
	sectors := []string{"A", "B", "C"}
	var rels [][]string // total key first, then parts
	for p, ch := range children {
		for _, s := range append(sectors, "Total") {
			r := []string{p + "|" + s}
			for _, c := range ch {
				r = append(r, c+"|"+s)
			}
			rels = append(rels, r)
		}
	}
	for c := range hierParent {
		rels = append(rels, []string{c + "|Total", c + "|A", c + "|B", c + "|C"})
	}
	rels = append(rels, []string{"Total|Total", "Total|A", "Total|B", "Total|C"})
	// The published cells are known; the audited ones are the unknowns.
	known := map[string]*big.Rat{}
	for _, r := range rels {
		for _, k := range r {
			i, ok := idx[k]
			if !ok {
				t.Fatalf("relation cell %s missing", k)
			}
			if _, ok := unknown[i]; !ok {
				known[k] = tab.Cells[i].Total.Rat()
			}
		}
	}
	iv := lpAttackExact(t, rels, known)
	for v, i := range cells {
		r := tab.Audit.Cells[v]
		lo, hi := 0.0, math.Inf(1) // a cell in no relation is free
		if b, ok := iv[strings.Join(tab.Cells[i].Key, "|")]; ok {
			lo, hi = b[0], b[1]
		}
		tol := 1e-6 * (1 + math.Abs(lo) + math.Abs(r.Lo))
		if math.Abs(lo-r.Lo) > tol || (math.IsInf(hi, 1) != math.IsInf(r.Hi, 1)) || (!math.IsInf(hi, 1) && math.Abs(hi-r.Hi) > 1e-6*(1+math.Abs(hi))) {
			t.Errorf("cell %v: audit [%g, %g], independent LP [%g, %g]", tab.Cells[i].Key, r.Lo, r.Hi, lo, hi)
		}
		if r.Protected && tab.Cells[i].Status == audit.StatusPrimary {
			x, _ := tab.Cells[i].Total.Rat().Float64()
			if lo > x-r.Lower+1e-6*(1+x) || hi < x+r.Upper-1e-6*(1+x) {
				t.Errorf("primary %v (%g) called protected, but the independent interval [%g, %g] misses [%g, %g]", tab.Cells[i].Key, x, lo, hi, x-r.Lower, x+r.Upper)
			}
		}
	}
}

// appendIndependent adds row (= b) to the system when it is linearly
// independent of the rows kept, by exact elimination.
func appendIndependent(rows [][]*big.Rat, rhs []*big.Rat, row []*big.Rat, b *big.Rat) ([][]*big.Rat, []*big.Rat) {
	red := make([]*big.Rat, len(row))
	for j, v := range row {
		red[j] = new(big.Rat).Set(v)
	}
	// Reduce against an echelon copy of the kept rows.
	ech := make([][]*big.Rat, 0, len(rows))
	for _, r := range rows {
		e := make([]*big.Rat, len(r))
		for j, v := range r {
			e[j] = new(big.Rat).Set(v)
		}
		for _, p := range ech {
			eliminate(e, p)
		}
		if pivot(e) >= 0 {
			ech = append(ech, e)
		}
	}
	for _, p := range ech {
		eliminate(red, p)
	}
	if pivot(red) < 0 {
		return rows, rhs
	}
	return append(rows, row), append(rhs, b)
}

func pivot(r []*big.Rat) int {
	for j, v := range r {
		if v.Sign() != 0 {
			return j
		}
	}
	return -1
}

// eliminate removes from r the pivot column of p.
func eliminate(r, p []*big.Rat) {
	j := pivot(p)
	if j < 0 || r[j].Sign() == 0 {
		return
	}
	f := new(big.Rat).Quo(r[j], p[j])
	for k := range r {
		r[k].Sub(r[k], new(big.Rat).Mul(f, p[k]))
	}
}

// TestAggregateTableHRC: an aggregate table whose codes include the parents
// takes its hierarchy from a .hrc file too: the relations of the table are
// those of the file (N1 = N11 + N12, N = N1, Total = N + S).
func TestAggregateTableHRC(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/d.hrc", []byte("N\n@N1\n@@N11\n@@N12\nS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := dir + "/c.yaml"
	if err := os.WriteFile(cfg, []byte("columns: {dims: [district], count: n, total: x}\nsuppression: {hierarchy_files: {district: d.hrc}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := settingsFile(t, cfg)
	data := "district,n,x\nN11,12,100\nN12,15,50\nN1,27,150\nN,27,150\nS,11,20\nTotal,38,170\n"
	src, err := readers.NewCSV("in.csv", strings.NewReader(data), readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := AuditSource(context.Background(), src, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	rels, err := suppress.Relations(tab)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		parts := []string{}
		for _, p := range r.Parts {
			parts = append(parts, tab.Cells[p].Key[0])
		}
		sort.Strings(parts)
		got = append(got, tab.Cells[r.Total].Key[0]+"="+strings.Join(parts, "+"))
	}
	sort.Strings(got)
	want := []string{"N1=N11+N12", "N=N1", "Total=N+S"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("relations %v, want %v", got, want)
	}
}

// TestHierarchyCellsRandom: random hierarchies on two dimensions (YAML
// maps) and random records; every cell equals the brute-force sum over the
// records below its codes, and the cells are exactly every level (leaves
// seen, their ancestors, Total) of one dimension crossed with every level of
// the other.
func TestHierarchyCellsRandom(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		type dimH struct {
			parent map[string]string
			leaves []string
		}
		mk := func(name string) dimH {
			h := dimH{parent: map[string]string{}}
			// a random forest: node i's parent is a random earlier node or none
			n := 3 + rng.IntN(8)
			hasChild := map[string]bool{}
			for i := 0; i < n; i++ {
				c := fmt.Sprintf("%s%d", name, i)
				if i > 0 && rng.IntN(4) > 0 {
					p := fmt.Sprintf("%s%d", name, rng.IntN(i))
					h.parent[c] = p
					hasChild[p] = true
				}
			}
			for i := 0; i < n; i++ {
				if c := fmt.Sprintf("%s%d", name, i); !hasChild[c] {
					h.leaves = append(h.leaves, c)
				}
			}
			return h
		}
		ha, hb := mk("a"), mk("b")
		yamlMap := func(m map[string]string) string {
			var parts []string
			for c, p := range m {
				parts = append(parts, c+": "+p)
			}
			sort.Strings(parts)
			return "{" + strings.Join(parts, ", ") + "}"
		}
		cfg := fmt.Sprintf("microdata: {dims: [a, b], value: v}\nsuppression: {hierarchies: {a: %s, b: %s}}\n", yamlMap(ha.parent), yamlMap(hb.parent))
		type rec struct {
			a, b string
			v    int64
		}
		var recs []rec
		var sb strings.Builder
		sb.WriteString("a,b,v\n")
		for i := 0; i < 50+rng.IntN(300); i++ {
			r := rec{ha.leaves[rng.IntN(len(ha.leaves))], hb.leaves[rng.IntN(len(hb.leaves))], int64(rng.IntN(1000))}
			recs = append(recs, r)
			fmt.Fprintf(&sb, "%s,%s,%d\n", r.a, r.b, r.v)
		}
		below := func(m map[string]string, c, level string) bool {
			if level == "Total" {
				return true
			}
			for ; c != ""; c = m[c] {
				if c == level {
					return true
				}
			}
			return false
		}
		levels := func(m map[string]string, leaf func(string) bool) map[string]bool {
			out := map[string]bool{"Total": true}
			for _, r := range recs {
				for c := range map[string]bool{r.a: true, r.b: true} {
					if leaf(c) {
						for ; c != ""; c = m[c] {
							out[c] = true
						}
					}
				}
			}
			return out
		}
		la := levels(ha.parent, func(c string) bool { return strings.HasPrefix(c, "a") })
		lb := levels(hb.parent, func(c string) bool { return strings.HasPrefix(c, "b") })
		tab, err := auditText(t, sb.String(), cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(tab.Cells) != len(la)*len(lb) {
			t.Errorf("seed %d: %d cells, want %d x %d", seed, len(tab.Cells), len(la), len(lb))
		}
		for _, c := range tab.Cells {
			if !la[c.Key[0]] || !lb[c.Key[1]] {
				t.Errorf("seed %d: unexpected cell %v", seed, c.Key)
				continue
			}
			var n, sum int64
			for _, r := range recs {
				if below(ha.parent, r.a, c.Key[0]) && below(hb.parent, r.b, c.Key[1]) {
					n++
					sum += r.v
				}
			}
			if c.N != n || c.Total.Rat().Cmp(big.NewRat(sum, 1)) != 0 {
				t.Errorf("seed %d: cell %v: n=%d total=%s, want %d, %d", seed, c.Key, c.N, c.Total, n, sum)
			}
		}
	}
}

// TestParentColumnsEmptyCode: a record with an empty district is the level
// (empty) and still adds up to the parent its parent column gives.
func TestParentColumnsEmptyCode(t *testing.T) {
	cfg := "microdata: {dims: [district], value: v, parents: {district: province}}\n"
	tab, err := auditText(t, "province,district,v\nN1,N11,5\nN1,,7\nS,S1,1\n", cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range tab.Cells {
		got[c.Key[0]] = c.Total.String()
	}
	want := map[string]string{"N11": "5", cells.EmptyLevel: "7", "S1": "1", "N1": "12", "S": "1", "Total": "13"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}

// TestHierarchyConfigErrors: cycles, parent columns that are dimensions or
// name nothing, and two hierarchies for one dimension are configuration
// errors; a parent column missing from the header is an input error.
func TestHierarchyConfigErrors(t *testing.T) {
	data := "region,province,district,v\nN,N1,N11,5\n"
	for _, tc := range []struct {
		cfg, want string
		input     bool
	}{
		{"microdata: {dims: [district], value: v}\nsuppression: {hierarchies: {district: {N11: N1, N1: N11}}}\n", "has a cycle", false},
		{"microdata: {dims: [district, region], value: v, parents: {district: region}}\n", `the parent column "region" of "district" is also a dimension`, false},
		{"microdata: {dims: [district], value: v, parents: {district: province, sector: x}}\n", `"sector" is neither a dimension nor a parent column`, false},
		{"microdata: {dims: [district], value: v, parents: {district: province, province: region, region: province}}\n", "form a cycle", false},
		{"microdata: {dims: [district], value: v, parents: {district: province}}\nsuppression: {hierarchies: {district: {N11: N1}}}\n", "has both microdata.parents and a hierarchy", false},
		{"microdata: {dims: [district], value: v, parents: {district: county}}\n", `row 1, column "county": no such column`, true},
	} {
		_, err := auditText(t, data, tc.cfg)
		var ce *configs.Error
		var re *readers.Error
		ok := errors.As(err, &ce)
		if tc.input {
			ok = errors.As(err, &re)
		}
		if !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want a %s error containing %q", tc.cfg, err, map[bool]string{true: "input", false: "configuration"}[tc.input], tc.want)
		}
	}
}
