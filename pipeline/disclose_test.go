package pipeline

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/writers"
)

// Cells that disclose though every ratio rule passes (DOMAIN.md, issue 10
// item 6): each case must change the cell's status under the profiles'
// defaults.

func cellByKey(t *testing.T, tab *audit.Table, key string) *audit.Cell {
	t.Helper()
	for _, c := range tab.Cells {
		if strings.Join(c.Key, "/") == key {
			return c
		}
	}
	t.Fatalf("no cell %s", key)
	return nil
}

func findingOf(c *audit.Cell, rule string) (audit.Finding, bool) {
	for _, f := range c.AllFindings() {
		if f.Rule == rule {
			return f, true
		}
	}
	return audit.Finding{}, false
}

// dispersed writes n contributors of group g whose values pass threshold,
// dominance and p%: 100, 101, ..., 100+n-1.
func dispersed(b *strings.Builder, g string, n int) {
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, "%s,%d\n", g, 100+i)
	}
}

// A magnitude cell whose contributions are all zero discloses every
// contributor's value: primary under the default and the acro profile.
func TestAllZeroCellIsPrimary(t *testing.T) {
	var b strings.Builder
	b.WriteString("g,v\n")
	dispersed(&b, "a", 12)
	for i := 0; i < 12; i++ {
		b.WriteString("z,0\n")
	}
	for _, profile := range []string{"default", "acro"} {
		t.Run(profile, func(t *testing.T) {
			tab, err := auditText(t, b.String(), "profile: "+profile+"\nmicrodata: {dims: [g], value: v}\nsuppression: {secondary: false}\n")
			if err != nil {
				t.Fatal(err)
			}
			z := cellByKey(t, tab, "z")
			if z.Status != audit.StatusPrimary {
				t.Fatalf("all-zero cell z: status %s, want primary; findings %+v", z.Status, z.AllFindings())
			}
			if f, ok := findingOf(z, "all_zero"); !ok || f.Outcome != audit.Fail {
				t.Fatalf("all-zero cell z: all_zero finding %+v", f)
			}
			if a := cellByKey(t, tab, "a"); a.Status != audit.StatusOK {
				t.Fatalf("dispersed cell a: status %s, want ok; findings %+v", a.Status, a.AllFindings())
			}
		})
	}
	// configurable off
	tab, err := auditText(t, b.String(), "microdata: {dims: [g], value: v}\nsuppression: {secondary: false}\nrules: {all_zero: {enabled: false}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if z := cellByKey(t, tab, "z"); z.Status != audit.StatusOK {
		t.Fatalf("all_zero disabled: z is %s", z.Status)
	}
	// an aggregate table: count 12, total 0
	tab, err = auditText(t, "g,n,total\na,12,1266\nz,12,0\n", "columns: {dims: [g], count: n, total: total}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	if z := cellByKey(t, tab, "z"); z.Status != audit.StatusPrimary {
		t.Fatalf("aggregate all-zero cell: status %s; findings %+v", z.Status, z.AllFindings())
	}
}

// Publishing min or max shows one contributor's exact value: primary by
// default, and the default safe table never shows a min or max.
func TestMinMaxPrimaryByDefault(t *testing.T) {
	var b strings.Builder
	b.WriteString("g,v\n")
	dispersed(&b, "a", 20)
	dispersed(&b, "b", 15)
	in := b.String()
	cfg := "microdata: {dims: [g], value: v}\npublish: [count, total, min, max]\nsuppression: {secondary: false}\n"
	tab, err := auditText(t, in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := writers.SafeRows(tab, "x")
	if strings.Join(rows[0], ",") != "g,count,total,min,max" {
		t.Fatalf("header %v", rows[0])
	}
	for _, r := range rows[1:] {
		if r[3] != "x" || r[4] != "x" {
			t.Errorf("the safe table shows min %q and max %q of %s", r[3], r[4], r[0])
		}
	}
	for _, c := range tab.Cells {
		f, ok := findingOf(c, "minmax")
		if c.Status != audit.StatusPrimary || !ok || f.Outcome != audit.Fail || !strings.Contains(f.Message(), "exact value") {
			t.Errorf("cell %v: status %s, minmax finding %+v", c.Key, c.Status, f)
		}
	}
	// configured off: the cells are ok again and min/max are published
	tab, err = auditText(t, in, cfg+"rules: {minmax: {enabled: false}}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Cells {
		if c.Status != audit.StatusOK {
			t.Errorf("minmax disabled: %v is %s", c.Key, c.Status)
		}
	}
	// an aggregate table with a max column
	tab, err = auditText(t, "g,n,total,max\na,20,2190,119\n", "columns: {dims: [g], count: n, total: total, max: max}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Cells[0]; c.Status != audit.StatusPrimary {
		t.Fatalf("aggregate max: status %s; findings %+v", c.Status, c.AllFindings())
	}
}

// A cell whose records all have a missing value has a missing statistic:
// review, not a published zero. An empty combination (no records) stays an
// empty cell.
func TestAllMissingCellIsReview(t *testing.T) {
	var b strings.Builder
	b.WriteString("g,h,v\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "a,p,%d\n", 100+i)
		fmt.Fprintf(&b, "b,p,%d\n", 100+i)
		b.WriteString("a,q,NA\n")
	}
	tab, err := auditText(t, b.String(), "microdata: {dims: [g, h], value: v}\nsuppression: {secondary: false}\n")
	if err != nil {
		t.Fatal(err)
	}
	aq := cellByKey(t, tab, "a/q")
	if aq.Status != audit.StatusReview {
		t.Fatalf("all-missing cell a/q: status %s, want review; findings %+v", aq.Status, aq.AllFindings())
	}
	if f, ok := findingOf(aq, "missing"); !ok || f.Outcome != audit.Review || !strings.Contains(f.Message(), "missing") {
		t.Fatalf("a/q missing finding %+v", f)
	}
	// b/q has no records at all: an empty cell, not a missing one
	if bq := cellByKey(t, tab, "b/q"); bq.Status != audit.StatusOK || bq.N != 0 {
		t.Fatalf("empty cell b/q: status %s n %d", bq.Status, bq.N)
	}
	// the margin Total/q holds only missing values too
	if tq := cellByKey(t, tab, "Total/q"); tq.Status != audit.StatusReview {
		t.Fatalf("all-missing margin Total/q: status %s", tq.Status)
	}
	if !tab.Summarize().NeedsPerson() {
		t.Fatal("a table with an all-missing cell must need a person (exit 1)")
	}
}

// An aggregate table whose margins do not add up, or with a total for no
// contributors, cannot be audited: the cells involved are review.
func TestAggregateMarginsMustAddUp(t *testing.T) {
	cfg := "columns: {dims: [year, grant_type], count: n, total: total}\nrules: {threshold: {min: 1}, dominance: {enabled: false}, p_percent: {enabled: false}, class: {enabled: false}}\nsuppression: {secondary: false}\n"
	// 2014: G 1000 + N 1000, Total 5000; 2015 adds up.
	in := "year,grant_type,n,total\n" +
		"2014,G,20,1000\n2014,N,20,1000\n2014,Total,40,5000\n" +
		"2015,G,20,700\n2015,N,20,300\n2015,Total,40,1000\n" +
		"Total,G,40,1700\nTotal,N,40,1300\nTotal,Total,80,6000\n"
	tab, err := auditText(t, in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Bad relations: the row 2014 (G + N = 2000, not 5000) and the row
	// Total (1700 + 1300 = 3000, not 6000). Every column adds up, and so
	// does the row 2015.
	review := map[string]bool{"2014/G": true, "2014/N": true, "2014/Total": true,
		"Total/G": true, "Total/N": true, "Total/Total": true}
	for _, c := range tab.Cells {
		k := strings.Join(c.Key, "/")
		f, ok := findingOf(c, "consistency")
		if !ok {
			t.Fatalf("%s: no consistency finding", k)
		}
		if review[k] {
			if c.Status != audit.StatusReview || f.Outcome != audit.Review || !strings.Contains(f.Message(), "difference") {
				t.Errorf("%s: status %s, finding %+v; want review with the difference", k, c.Status, f)
			}
		} else if c.Status != audit.StatusOK || f.Outcome != audit.Pass {
			t.Errorf("%s: status %s, finding %+v; want ok", k, c.Status, f)
		}
	}
	f, _ := findingOf(cellByKey(t, tab, "2014/Total"), "consistency")
	if !strings.Contains(f.Message(), "3000") {
		t.Errorf("2014/Total: %q does not give the difference 3000", f.Message())
	}
	// counts are checked too
	bad := strings.Replace(in, "2015,Total,40,1000", "2015,Total,41,1000", 1)
	tab, err = auditText(t, bad, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := cellByKey(t, tab, "2015/G"); c.Status != audit.StatusReview {
		t.Errorf("count margin off by one: 2015/G is %s", c.Status)
	}
	// n = 0 with a total
	tab, err = auditText(t, "g,n,total\na,0,5\nb,3,7\n", strings.Replace(cfg, "dims: [year, grant_type]", "dims: [g]", 1))
	if err != nil {
		t.Fatal(err)
	}
	if c := cellByKey(t, tab, "a"); c.Status != audit.StatusReview {
		t.Errorf("n = 0, total 5: status %s; findings %+v", c.Status, c.AllFindings())
	}
	if c := cellByKey(t, tab, "b"); c.Status != audit.StatusOK {
		t.Errorf("b: status %s; findings %+v", c.Status, c.AllFindings())
	}
}

// Declared hierarchies are margin relations: a parent code is the sum of
// its children, not a sibling of them under the total.
func TestAggregateHierarchyAddsUp(t *testing.T) {
	cfg := "columns: {dims: [area], count: n, total: total}\nrules: {threshold: {min: 1}, dominance: {enabled: false}, p_percent: {enabled: false}, class: {enabled: false}}\n" +
		"suppression: {secondary: false, hierarchies: {area: {d1: North, d2: North, d3: South}}}\n"
	in := "area,n,total\nd1,2,10\nd2,3,20\nd3,4,40\nNorth,5,30\nSouth,4,40\nTotal,9,70\n"
	tab, err := auditText(t, in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tab.Cells {
		if c.Status != audit.StatusOK {
			t.Errorf("%v: %s %+v", c.Key, c.Status, c.AllFindings())
		}
	}
	tab, err = auditText(t, strings.Replace(in, "North,5,30", "North,5,31", 1), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"d1", "d2", "North", "South", "Total"} {
		if c := cellByKey(t, tab, k); c.Status != audit.StatusReview {
			t.Errorf("North off by one: %s is %s", k, c.Status)
		}
	}
	if c := cellByKey(t, tab, "d3"); c.Status != audit.StatusOK {
		t.Errorf("d3 is %s", c.Status)
	}
}

// The consistency verdicts agree with an independent check of every
// margin (exact rationals on the input texts) on random three-dimensional
// aggregate tables large enough for concurrent cell evaluation, with
// perturbed figures, missing figures and absent cells.
func TestConsistencyOracle(t *testing.T) {
	dims := []int{12, 10, 8} // 13 x 11 x 9 = 1287 cells with margins
	for seed := uint64(1); seed <= 3; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		type fig struct{ n, cents int64 }
		leaves := map[[3]int]fig{}
		for a := 0; a < dims[0]; a++ {
			for b := 0; b < dims[1]; b++ {
				for c := 0; c < dims[2]; c++ {
					n := int64(r.IntN(30))
					var cents int64
					if n > 0 {
						cents = r.Int64N(10_000_000)
					}
					leaves[[3]int{a, b, c}] = fig{n, cents}
				}
			}
		}
		// every cell, margins (index -1) included, computed from the leaves
		cells := map[[3]int]fig{}
		for k, f := range leaves {
			for mask := 0; mask < 8; mask++ {
				m := k
				for d := 0; d < 3; d++ {
					if mask&(1<<d) != 0 {
						m[d] = -1
					}
				}
				g := cells[m]
				g.n += f.n
				g.cents += f.cents
				cells[m] = g
			}
		}
		keys := make([][3]int, 0, len(cells))
		for k := range cells {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			for d := 0; d < 3; d++ {
				if keys[i][d] != keys[j][d] {
					return keys[i][d] < keys[j][d]
				}
			}
			return false
		})
		name := func(d, v int) string {
			if v < 0 {
				return "Total"
			}
			return fmt.Sprintf("%c%d", 'a'+d, v)
		}
		countText := map[[3]int]string{}
		totalText := map[[3]int]string{}
		for _, k := range keys {
			f := cells[k]
			countText[k] = strconv.FormatInt(f.n, 10)
			totalText[k] = fmt.Sprintf("%d.%02d", f.cents/100, f.cents%100)
		}
		// perturb: totals, counts, a total for no contributors, missing
		// figures, absent cells
		for i := 0; i < 4; i++ {
			k := keys[r.IntN(len(keys))]
			totalText[k] = fmt.Sprintf("%d.%02d", cells[k].cents/100+int64(r.IntN(5)+1), r.IntN(100))
		}
		for i := 0; i < 3; i++ {
			k := keys[r.IntN(len(keys))]
			countText[k] = strconv.FormatInt(cells[k].n+1, 10)
		}
		for _, k := range keys {
			if cells[k].n == 0 && k[0] >= 0 && k[1] >= 0 && k[2] >= 0 {
				totalText[k] = "5"
				break
			}
		}
		for i := 0; i < 6; i++ {
			k := keys[r.IntN(len(keys))]
			if i%2 == 0 {
				totalText[k] = ""
			} else {
				countText[k] = "x"
			}
		}
		absent := map[[3]int]bool{}
		for i := 0; i < 3; i++ {
			k := keys[r.IntN(len(keys))]
			if k[0] >= 0 && k[1] >= 0 && k[2] >= 0 {
				absent[k] = true
			}
		}
		var b strings.Builder
		b.WriteString("a,b,c,n,total\n")
		for _, k := range keys {
			if !absent[k] {
				fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", name(0, k[0]), name(1, k[1]), name(2, k[2]), countText[k], totalText[k])
			}
		}
		// the oracle
		rat := func(s string) (*big.Rat, bool) {
			if s == "" || s == "x" {
				return nil, false
			}
			q, ok := new(big.Rat).SetString(s)
			return q, ok
		}
		want := map[string]bool{}
		keyName := func(k [3]int) string { return name(0, k[0]) + "/" + name(1, k[1]) + "/" + name(2, k[2]) }
		for _, k := range keys {
			if absent[k] {
				continue
			}
			if n, ok := rat(countText[k]); ok && n.Sign() == 0 {
				if x, ok := rat(totalText[k]); ok && x.Sign() != 0 {
					want[keyName(k)] = true
				}
			}
			for d := 0; d < 3; d++ {
				if k[d] >= 0 {
					continue
				}
				for _, texts := range []map[[3]int]string{countText, totalText} {
					m, ok := rat(texts[k])
					if !ok {
						continue
					}
					sum := new(big.Rat)
					var parts [][3]int
					for l := 0; l < dims[d] && ok; l++ {
						p := k
						p[d] = l
						if absent[p] {
							continue
						}
						var v *big.Rat
						if v, ok = rat(texts[p]); ok {
							sum.Add(sum, v)
							parts = append(parts, p)
						}
					}
					if ok && sum.Cmp(m) != 0 {
						want[keyName(k)] = true
						for _, p := range parts {
							want[keyName(p)] = true
						}
					}
				}
			}
		}
		tab, err := auditText(t, b.String(), "columns: {dims: [a, b, c], count: n, total: total}\nsuppression: {secondary: false}\n")
		if err != nil {
			t.Fatal(err)
		}
		if len(tab.Cells) != len(keys)-len(absent) {
			t.Fatalf("%d cells, want %d", len(tab.Cells), len(keys)-len(absent))
		}
		got := map[string]bool{}
		for _, c := range tab.Cells {
			f, ok := findingOf(c, "consistency")
			if !ok {
				t.Fatalf("%v: no consistency finding", c.Key)
			}
			if f.Outcome == audit.Review {
				got[strings.Join(c.Key, "/")] = true
				if c.Status == audit.StatusOK {
					t.Errorf("%v: consistency review but status ok", c.Key)
				}
			}
		}
		if len(want) == 0 {
			t.Fatalf("seed %d: the perturbations made no inconsistency", seed)
		}
		for k := range want {
			if !got[k] {
				t.Errorf("seed %d: %s is inconsistent but not review", seed, k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("seed %d: %s is consistent but review", seed, k)
			}
		}
	}
}

// all_zero, the all-missing review and minmax agree with a brute-force
// reading of random records (every cell and margin of a table large enough
// for concurrent evaluation), and the safe table never shows a min or max.
func TestMicrodataDisclosureOracle(t *testing.T) {
	const levels = 10 // 11^3 = 1331 cells with margins
	for seed := uint64(1); seed <= 3; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		type rec struct {
			key [3]int
			v   string
		}
		var recs []rec
		for a := 0; a < levels; a++ {
			for b := 0; b < levels; b++ {
				for c := 0; c < levels; c++ {
					k := [3]int{a, b, c}
					kind := r.IntN(6)
					for i := r.IntN(4); i >= 0; i-- {
						var v string
						switch kind {
						case 0: // no records
							continue
						case 1:
							v = "0"
						case 2:
							v = []string{"NA", "", "."}[r.IntN(3)]
						case 3:
							v = []string{"0", "NA", "0.00"}[r.IntN(3)]
						case 4:
							v = []string{"5", "-5", "0"}[i%3]
						default:
							v = strconv.Itoa(r.IntN(1000))
						}
						recs = append(recs, rec{k, v})
					}
				}
			}
		}
		var b strings.Builder
		b.WriteString("a,b,c,v\n")
		for _, x := range recs {
			fmt.Fprintf(&b, "a%d,b%d,c%d,%s\n", x.key[0], x.key[1], x.key[2], x.v)
		}
		tab, err := auditText(t, b.String(), "microdata: {dims: [a, b, c], value: v}\npublish: [count, total, min, max]\nsuppression: {secondary: false}\n")
		if err != nil {
			t.Fatal(err)
		}
		// brute force: every record goes into its cell and the seven margins
		// above it
		type agg struct {
			rows int
			vals []*big.Rat
		}
		byCell := map[string]*agg{}
		for _, x := range recs {
			var q *big.Rat
			if x.v != "NA" && x.v != "" && x.v != "." {
				q, _ = new(big.Rat).SetString(x.v)
			}
			for mask := 0; mask < 8; mask++ {
				var parts [3]string
				for d := 0; d < 3; d++ {
					parts[d] = fmt.Sprintf("%c%d", 'a'+d, x.key[d])
					if mask&(1<<d) != 0 {
						parts[d] = "Total"
					}
				}
				k := strings.Join(parts[:], "/")
				g := byCell[k]
				if g == nil {
					g = &agg{}
					byCell[k] = g
				}
				g.rows++
				if q != nil {
					g.vals = append(g.vals, q)
				}
			}
		}
		var zeros, allMissing, shown int
		for _, c := range tab.Cells {
			var rows int
			var vals []*big.Rat
			if g := byCell[strings.Join(c.Key, "/")]; g != nil {
				rows, vals = g.rows, g.vals
			}
			allZero := len(vals) > 0
			for _, q := range vals {
				if q.Sign() != 0 {
					allZero = false
				}
			}
			missing := rows > 0 && len(vals) == 0
			fz, _ := findingOf(c, "all_zero")
			fm, _ := findingOf(c, "missing")
			fx, _ := findingOf(c, "minmax")
			if (fz.Outcome == audit.Fail) != allZero {
				t.Errorf("%v: all_zero %s, brute force all zero = %v", c.Key, fz.Outcome, allZero)
			}
			if (fm.Outcome == audit.Review) != missing {
				t.Errorf("%v: missing %s, brute force all missing = %v", c.Key, fm.Outcome, missing)
			}
			if (fx.Outcome == audit.Fail) != (len(vals) > 0) {
				t.Errorf("%v: minmax %s with %d values", c.Key, fx.Outcome, len(vals))
			}
			if (c.Status == audit.StatusOK) != (len(vals) == 0 && rows == 0) {
				t.Errorf("%v: status %s with %d records, %d values", c.Key, c.Status, rows, len(vals))
			}
			if allZero {
				zeros++
			}
			if missing {
				allMissing++
			}
			if len(vals) > 0 {
				shown++
			}
		}
		if zeros == 0 || allMissing == 0 || shown == 0 {
			t.Fatalf("seed %d: cases not reached: %d all zero, %d all missing, %d with values", seed, zeros, allMissing, shown)
		}
		for _, row := range writers.SafeRows(tab, "x")[1:] {
			if (row[5] != "x" && row[5] != "") || (row[6] != "x" && row[6] != "") {
				t.Fatalf("the safe table shows min/max: %v", row)
			}
		}
	}
}
