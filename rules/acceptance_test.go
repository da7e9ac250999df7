package rules_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
)

// shared is the reference data (sdcTable's and ACRO's examples), kept in
// the repository so that a test never skips for want of it.
const shared = "../testdata/reference/"

func needShared(t *testing.T, name string) string {
	t.Helper()
	p := shared + name
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("reference data %s missing", p)
	}
	return p
}

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func resolve(t tb, y string) *configs.Settings {
	t.Helper()
	c, err := configs.Parse("test.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func auditPath(t tb, path, y string) *audit.Table {
	t.Helper()
	srcs, err := readers.Open(path, readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srcs[0].Close()
	tab, err := pipeline.AuditSource(context.Background(), srcs[0], resolve(t, y), 1)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func auditCSV(t tb, csv, y string) *audit.Table {
	t.Helper()
	src, err := readers.NewCSV("in.csv", strings.NewReader(csv), readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := pipeline.AuditSource(context.Background(), src, resolve(t, y), 1)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// failing lists the cells (key joined by /) on which the rule failed.
func failing(tab *audit.Table, rule string) []string {
	var out []string
	for _, c := range tab.Cells {
		for _, f := range c.AllFindings() {
			if f.Rule == rule && f.Outcome == audit.Fail {
				out = append(out, strings.Join(c.Key, "/"))
			}
		}
	}
	return out
}

func primaries(tab *audit.Table) []string {
	var out []string
	for _, c := range tab.Cells {
		if c.Status == audit.StatusPrimary {
			out = append(out, strings.Join(c.Key, "/"))
		}
	}
	return out
}

// DOMAIN acceptance: sdctable_microdata1 (region x gender with margins).
func TestMicrodata1(t *testing.T) {
	p := needShared(t, "sdctable_microdata1.csv")
	only := func(rule, params string) string {
		y := "microdata: {dims: [region, gender], value: val}\nrules:\n"
		for _, r := range []string{"threshold", "dominance", "p_percent", "pq", "interval", "class", "zeros", "negative", "missing"} {
			if r != rule {
				y += fmt.Sprintf("  %s: {enabled: false}\n", r)
			}
		}
		return y + fmt.Sprintf("  %s: {enabled: true, %s}\n", rule, params)
	}
	tests := []struct {
		rule, params string
		want         []string
	}{
		{"threshold", "min: 3", []string{"A/female"}},
		{"dominance", "sets: [{n: 2, k: 75}]", []string{"A/female", "D/male"}},
		{"p_percent", "p: 70", []string{"A/female", "D/male"}},
		{"pq", "p: 60, q: 80", []string{"A/female", "D/male"}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			tab := auditPath(t, p, only(tc.rule, tc.params))
			if len(tab.Cells) != 15 {
				t.Fatalf("%d cells, want 15", len(tab.Cells))
			}
			if got := failing(tab, tc.rule); !slices.Equal(got, tc.want) {
				t.Errorf("%s fails %v, want %v", tc.rule, got, tc.want)
			}
			if got := primaries(tab); !slices.Equal(got, tc.want) {
				t.Errorf("primary %v, want %v", got, tc.want)
			}
		})
	}
	// The whole default profile with threshold 3 still marks only A/female
	// for threshold, and no rule sends a cell to review.
	tab := auditPath(t, p, "microdata: {dims: [region, gender], value: val}\nrules: {threshold: {min: 3}}\n")
	if got := failing(tab, "threshold"); !slices.Equal(got, []string{"A/female"}) {
		t.Errorf("threshold fails %v", got)
	}
	for _, c := range tab.Cells {
		if c.Status == audit.StatusReview {
			t.Errorf("%v: review %+v", c.Key, c.AllFindings())
		}
	}
}

// DOMAIN acceptance: the acro_charities frequency table year x grant_type.
func TestAcroCharitiesFrequency(t *testing.T) {
	p := needShared(t, "acro_charities.csv")
	tab := auditPath(t, p, "microdata: {dims: [year, grant_type]}\nrules: {threshold: {min: 10}}\n")
	var want []string
	for y := 2010; y <= 2015; y++ {
		want = append(want, fmt.Sprintf("%d/R/G", y))
	}
	if got := failing(tab, "threshold"); !slices.Equal(got, want) {
		t.Errorf("threshold fails %v, want %v", got, want)
	}
	if got := primaries(tab); !slices.Equal(got, want) {
		t.Errorf("primary %v, want %v", got, want)
	}
	for _, c := range tab.Cells {
		for _, f := range c.AllFindings() {
			switch f.Rule {
			case "dominance", "p_percent":
				if f.Outcome != audit.NotApplicable {
					t.Errorf("%v: %s on a frequency table says %s", c.Key, f.Rule, f.Outcome)
				}
			}
		}
	}
	// Missing values are not contributors: 2010/N has 5 of 59 with inc_grants.
	tab = auditPath(t, p, "microdata: {dims: [year, grant_type], value: inc_grants}\nrules: {threshold: {min: 10}}\n")
	for _, c := range tab.Cells {
		if strings.Join(c.Key, "/") == "2010/N" {
			if c.N != 5 {
				t.Errorf("2010/N has n = %d, want 5", c.N)
			}
			if !slices.Contains(failing(tab, "threshold"), "2010/N") {
				t.Errorf("2010/N with 5 contributors passes threshold 10")
			}
		}
	}
}

// Negative balances: review by default, assessed on absolute values by the
// abs profile.
func TestAcroCharitiesNegative(t *testing.T) {
	p := needShared(t, "acro_charities.csv")
	def := auditPath(t, p, "microdata: {dims: [year, grant_type], value: balance}\n")
	abs := auditPath(t, p, "profile: abs\nmicrodata: {dims: [year, grant_type], value: balance}\n")
	negCells := 0
	for i, c := range def.Cells {
		if c.Negative == 0 {
			continue
		}
		negCells++
		for _, f := range c.AllFindings() {
			if (f.Rule == "dominance" || f.Rule == "p_percent" || f.Rule == "negative") && f.Outcome != audit.Review {
				t.Errorf("default %v: %s says %s with negatives", c.Key, f.Rule, f.Outcome)
			}
		}
		for _, f := range abs.Cells[i].AllFindings() {
			if f.Rule == "dominance" && (f.Outcome == audit.Review || f.Values()["absolute"] != true) {
				t.Errorf("abs %v: dominance %s %v", c.Key, f.Outcome, f.Values())
			}
			if f.Rule == "negative" && f.Outcome != audit.Pass {
				t.Errorf("abs %v: negative says %s", c.Key, f.Outcome)
			}
		}
	}
	if negCells == 0 {
		t.Fatal("no cell with negative balances")
	}
}

func TestProfiles(t *testing.T) {
	for _, name := range []string{"default", "acro", "abs", "tau-argus"} {
		s := resolve(t, "profile: "+name+"\n")
		if _, err := pipeline.BuildRules(s); err != nil {
			t.Errorf("profile %s: %v", name, err)
		}
	}
	csv := "g,h,v\na,x,100\na,x,1\na,y,5\nb,x,3\nb,y,4\nb,y,6\n"
	acro := auditCSV(t, "g,h\na,x\na,x\nb,y\n", "profile: acro\nmicrodata: {dims: [g, h]}\n")
	if got := failing(acro, "zeros"); !slices.Equal(got, []string{"a/y", "b/x"}) {
		t.Errorf("acro zeros fail %v", got)
	}
	tau := auditCSV(t, csv, "profile: tau-argus\nmicrodata: {dims: [g, h], value: v}\n")
	if got := failing(tau, "threshold"); !slices.Equal(got, []string{"a/x", "a/y", "b/x", "b/y"}) {
		t.Errorf("tau-argus threshold fails %v", got)
	}
	// a/Total: 100, 5, 1 -> X-x1-x2 = 1 < 15 unsafe under p% 15.
	if got := failing(tau, "p_percent"); !slices.Contains(got, "a/Total") {
		t.Errorf("tau-argus p%% fails %v", got)
	}
}

// Group disclosure in a frequency table: region A has only women, so the
// line region=A along gender has its whole count in A/female; every man is
// in region B, so the line gender=male along region has its whole count in
// B/male.
func TestClassDisclosure(t *testing.T) {
	csv := "region,gender\nA,female\nA,female\nA,female\nB,female\nB,male\nB,male\n"
	tab := auditCSV(t, csv, "microdata: {dims: [region, gender]}\nrules: {threshold: {enabled: false}}\n")
	if got := failing(tab, "class"); !slices.Equal(got, []string{"A/female", "B/male"}) {
		t.Fatalf("class fails %v", got)
	}
	for _, c := range tab.Cells {
		for _, f := range c.AllFindings() {
			if f.Rule == "class" && f.Outcome == audit.Fail && !strings.Contains(f.Message(), "all ") {
				t.Errorf("message %q", f.Message())
			}
		}
	}
	// Whole-table line: everyone is female -> Total/female (a margin) and
	// every cell of the only nonzero column.
	tab = auditCSV(t, "region,gender,x\nA,female,1\nB,female,1\nB,male,\n", "microdata: {dims: [region, gender], value: x}\nrules: {class: {magnitude: true}, threshold: {enabled: false}}\n")
	if got := failing(tab, "class"); !slices.Equal(got, []string{"A/female", "B/female", "Total/female"}) {
		t.Errorf("class fails %v", got)
	}
	// magnitude tables are skipped unless asked.
	tab = auditCSV(t, "region,gender,x\nA,female,1\nB,female,1\nB,male,\n", "microdata: {dims: [region, gender], value: x}\n")
	if got := failing(tab, "class"); len(got) != 0 {
		t.Errorf("class on a magnitude table: %v", got)
	}
	// A dimension with one category discloses nothing.
	tab = auditCSV(t, "region,gender\nA,female\nB,female\nB,female\n", "microdata: {dims: [region, gender]}\n")
	if got := failing(tab, "class"); len(got) != 0 {
		t.Errorf("single-category dimension: %v", got)
	}
	// A balanced table has no group disclosure.
	tab = auditCSV(t, "region,gender\nA,female\nA,male\nB,female\nB,male\n", "microdata: {dims: [region, gender]}\n")
	if got := failing(tab, "class"); len(got) != 0 {
		t.Errorf("balanced table: %v", got)
	}
}

// Aggregate table with top columns, a marker and a missing count.
func TestAggregateTable(t *testing.T) {
	csv := "r,n,total,top1,top2\nA,3,100,90,6\nB,5,100,40,30\nC,,50,,\nD,2,x,,\nE,4,80,,\n"
	tab := auditCSV(t, csv, "columns: {dims: [r], count: n, total: total, top: [top1, top2]}\n")
	status := map[string]map[string]audit.Outcome{}
	for _, c := range tab.Cells {
		status[c.Key[0]] = map[string]audit.Outcome{}
		for _, f := range c.AllFindings() {
			status[c.Key[0]][f.Rule] = f.Outcome
		}
	}
	want := map[string]map[string]audit.Outcome{
		"A": {"p_percent": audit.Fail, "dominance": audit.Fail, "missing": audit.Pass},
		"B": {"p_percent": audit.Pass, "dominance": audit.Pass},
		"C": {"threshold": audit.Review, "missing": audit.Review, "p_percent": audit.NotApplicable},
		"D": {"p_percent": audit.NotApplicable, "missing": audit.Pass},
		"E": {"p_percent": audit.NotApplicable, "dominance": audit.NotApplicable},
	}
	for k, rs := range want {
		for r, w := range rs {
			if got := status[k][r]; got != w {
				t.Errorf("%s %s: %s, want %s", k, r, got, w)
			}
		}
	}
}

// Permuting the input rows never changes any verdict.
func TestPermutationInvariance(t *testing.T) {
	y := "microdata: {dims: [g, h], value: v}\nrules: {threshold: {min: 3}, pq: {enabled: true}, interval: {enabled: true}, dominance: {sets: [{n: 1, k: 60}, {n: 2, k: 85}]}, class: {magnitude: true}}\n"
	rapid.Check(t, func(rt *rapid.T) {
		rows := rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) string {
			g := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "g")
			h := rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "h")
			v := rapid.SampledFrom([]string{"", "0", "1", "2.5", "7", "40", "100", "-3"}).Draw(rt, "v")
			return g + "," + h + "," + v
		}), 1, 25).Draw(rt, "rows")
		seed := rapid.Uint64().Draw(rt, "seed")
		perm := slices.Clone(rows)
		r := rand.New(rand.NewPCG(seed, 1))
		r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		a := auditCSV(rt, "g,h,v\n"+strings.Join(rows, "\n")+"\n", y)
		b := auditCSV(rt, "g,h,v\n"+strings.Join(perm, "\n")+"\n", y)
		if len(a.Cells) != len(b.Cells) {
			rt.Fatalf("%d cells vs %d", len(a.Cells), len(b.Cells))
		}
		for i := range a.Cells {
			ca, cb := a.Cells[i], b.Cells[i]
			if !slices.Equal(ca.Key, cb.Key) || ca.Status != cb.Status || len(ca.AllFindings()) != len(cb.AllFindings()) {
				rt.Fatalf("cell %v: %s vs %v: %s", ca.Key, ca.Status, cb.Key, cb.Status)
			}
			for j := range ca.AllFindings() {
				if ca.AllFindings()[j].Outcome != cb.AllFindings()[j].Outcome || ca.AllFindings()[j].Message() != cb.AllFindings()[j].Message() {
					rt.Fatalf("cell %v: %+v vs %+v", ca.Key, ca.AllFindings()[j], cb.AllFindings()[j])
				}
			}
		}
	})
}

// Raising p (p%, pq), raising s (interval) or lowering k (dominance) never
// un-flags a cell.
func TestMonotone(t *testing.T) {
	genCell := func(rt *rapid.T) *audit.Cell {
		vals := rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) string {
			return decimal.Scaled(rapid.Int64Range(0, 100000).Draw(rt, "v"), rapid.IntRange(0, 2).Draw(rt, "dp")).String()
		}), 1, 8).Draw(rt, "vals")
		return cell(vals...)
	}
	pctGen := func(rt *rapid.T, name string) decimal.Dec {
		return decimal.Scaled(rapid.Int64Range(1, 10000).Draw(rt, name), 2)
	}
	sens := func(rt *rapid.T, name, y string, c *audit.Cell) bool {
		r, err := rules.New(name, params(name, y))
		if err != nil {
			rt.Fatalf("%s %s: %v", name, y, err)
		}
		s, app := r.(rules.Sensitiver).Sensitive(magTable, c)
		if !app {
			rt.Fatalf("%s not applicable", name)
		}
		return s
	}
	rapid.Check(t, func(rt *rapid.T) {
		c := genCell(rt)
		a, b := pctGen(rt, "a"), pctGen(rt, "b")
		if a.Cmp(b) > 0 {
			a, b = b, a
		}
		// a <= b
		if sens(rt, "p_percent", "p: "+a.String(), c) && !sens(rt, "p_percent", "p: "+b.String(), c) {
			rt.Fatalf("p%% %s flags, %s does not", a, b)
		}
		if sens(rt, "interval", "s: "+a.String(), c) && !sens(rt, "interval", "s: "+b.String(), c) {
			rt.Fatalf("interval %s flags, %s does not", a, b)
		}
		n := rapid.IntRange(1, 4).Draw(rt, "n")
		if sens(rt, "dominance", fmt.Sprintf("sets: [{n: %d, k: %s}]", n, b), c) && !sens(rt, "dominance", fmt.Sprintf("sets: [{n: %d, k: %s}]", n, a), c) {
			rt.Fatalf("dominance k %s flags, %s does not", b, a)
		}
		if b.Cmp(decimal.FromInt(100)) < 0 && a.Cmp(b) < 0 {
			q := decimal.FromInt(100)
			if sens(rt, "pq", fmt.Sprintf("p: %s, q: %s", a, q), c) && !sens(rt, "pq", fmt.Sprintf("p: %s, q: %s", b, q), c) {
				rt.Fatalf("pq p %s flags, %s does not", a, b)
			}
			// raising q (others know less precisely... here: smaller p/q) never flags more
			if sens(rt, "pq", fmt.Sprintf("p: %s, q: 100", a), c) && !sens(rt, "pq", fmt.Sprintf("p: %s, q: %s", a, b), c) {
				rt.Fatalf("pq q 100 flags, q %s does not", b)
			}
		}
	})
}
