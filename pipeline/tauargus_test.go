package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

const tauDir = "../testdata/tauargus/"

// runTau audits a tau-argus input (data file and metadata) with the
// layers given after the metadata's, into a temporary directory.
func runTau(t *testing.T, data, rda string, layers ...*configs.Config) (*audit.Table, string) {
	t.Helper()
	tl, err := readers.TauArgusLayer(data, rda)
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(append([]*configs.Config{tl}, layers...)...)
	if err != nil {
		t.Fatal(err)
	}
	s.Suppression.TimeLimit = 0
	out := t.TempDir()
	res, err := Run(context.Background(), []Job{{Path: data, Settings: s}}, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tables[0], out
}

func statusMap(tab *audit.Table) map[string]audit.Status {
	m := map[string]audit.Status{}
	for _, c := range tab.Cells {
		m[strings.Join(c.Key, "/")] = statusOf(c)
	}
	return m
}

// TestTauArgusExampleTable reads tau-argus's own example table (pp.tab,
// without header, ";"-separated, decimal commas, quoted codes with
// leading spaces) through its metadata (pp.rda: TOTCODE, a .hrc
// hierarchy, a codelist named in upper case, FREQUENCY, SHADOW, COSTVAR,
// two MAXSCOREs, STATUS, LOWERPL, UPPERPL) with one call, and uses its
// status column: the nine cells it marks U are primary.
func TestTauArgusExampleTable(t *testing.T) {
	data, rda, ok, err := readers.TauArgusInput(tauDir+"pp.rda", "")
	if err != nil || !ok || filepath.Base(data) != "pp.tab" {
		t.Fatalf("readers.TauArgusInput(pp.rda) = %q, %q, %v, %v", data, rda, ok, err)
	}
	tab, _ := runTau(t, data, rda)
	if len(tab.Cells) != 162 {
		t.Fatalf("%d cells, want 162 (9 sizes x 18 regions)", len(tab.Cells))
	}
	if !slices.Equal(tab.Dims, []string{"Size", "Region"}) {
		t.Errorf("dims %v", tab.Dims)
	}
	// the hierarchy file was read: Nr is the parent of 1, 2 and 3 (codes
	// trimmed: " 1" in pp.tab, "@ 1" in region2.hrc)
	if h := tab.Hierarchies["Region"]; h["1"] != "Nr" || h["3"] != "Nr" || h["12"] != "Zd" {
		t.Errorf("Region hierarchy %v", h)
	}
	unsafe := []string{"2/Nr", "2/1", "2/4", "2/6", "4/Nr", "4/1", "4/Os", "4/6", "9/4"}
	st := statusMap(tab)
	for _, k := range unsafe {
		if st[k] != audit.StatusPrimary {
			t.Errorf("cell %s (status U in pp.tab) is %s, want primary", k, st[k])
		}
		c := cellOf(tab, k)
		if !slices.ContainsFunc(c.AllFindings(), func(f audit.Finding) bool { return f.Rule == aprioriRule && f.Outcome == audit.Fail }) {
			t.Errorf("cell %s has no apriori finding", k)
		}
	}
	// the differences are listed with why, naming the .tab row
	if len(tab.AprioriDiffs) == 0 {
		t.Fatal("no apriori_differences listed")
	}
	for _, d := range tab.AprioriDiffs {
		if d.Why == "" || !strings.HasPrefix(d.Source, "pp.tab row ") {
			t.Errorf("difference %+v: want a reason and the .tab row", d)
		}
		if st[strings.Join(d.Key, "/")] == audit.StatusOK {
			t.Errorf("difference %s listed for a published cell", d.Cell)
		}
	}
	// empty cells (status E) are never complements
	for _, c := range tab.Cells {
		if strings.HasSuffix(strings.Join(c.Key, "/"), "/99") && c.Status == audit.StatusSecondary {
			t.Errorf("empty cell %v chosen as a secondary", c.Key)
		}
	}
}

// TestTauArgusTabBesideRDA: a .tab with a .rda of the same name beside
// it is read with its metadata.
func TestTauArgusTabBesideRDA(t *testing.T) {
	data, rda, ok, err := readers.TauArgusInput(tauDir+"pp.tab", "")
	if err != nil || !ok || filepath.Base(rda) != "pp.rda" || data != tauDir+"pp.tab" {
		t.Fatalf("readers.TauArgusInput(pp.tab) = %q, %q, %v, %v", data, rda, ok, err)
	}
}

// costTable is a 3x2 table with margins whose primary A/x is protected by
// row B or row C; C is cheaper by value.
const costTable = `r;s;total;n;cost;upl
A;x;5;1;;
A;y;100;20;;
A;Total;105;21;;
B;x;300;20;;
B;y;400;20;;
B;Total;700;40;;
C;x;50;20;CCOST;
C;y;60;20;CCOST;
C;Total;110;40;;
Total;x;355;41;;
Total;y;560;60;;
Total;Total;915;101;;
`

func costConfig(t *testing.T, extra string) *configs.Config {
	c, err := configs.Parse("cost.yaml", []byte(`rules:
  dominance: {enabled: false}
  p_percent: {enabled: false}
columns: {dims: [r, s], total: total, count: n`+extra+`}
suppression: {secondary: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func runCSV(t *testing.T, text string, layers ...*configs.Config) *audit.Table {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tab.csv")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := configs.Resolve(layers...)
	if err != nil {
		t.Fatal(err)
	}
	s.Suppression.TimeLimit = 0
	res, err := Run(context.Background(), []Job{{Path: p, Settings: s}}, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tables[0]
}

// TestCostColumnSteersSecondary: without a cost column the cheaper row C
// protects A/x; a cost column that makes C's cells dear moves the
// complement to row B.
func TestCostColumnSteersSecondary(t *testing.T) {
	plain := strings.ReplaceAll(costTable, "CCOST", "")
	st := statusMap(runCSV(t, plain, costConfig(t, "")))
	if st["C/x"] != audit.StatusSecondary || st["B/x"] != audit.StatusOK {
		t.Fatalf("by value: C/x %s, B/x %s; want C/x secondary, B/x ok", st["C/x"], st["B/x"])
	}
	dear := strings.ReplaceAll(costTable, "CCOST", "1000000")
	st = statusMap(runCSV(t, dear, costConfig(t, ", cost: cost")))
	if st["B/x"] != audit.StatusSecondary || st["C/x"] != audit.StatusOK {
		t.Fatalf("with the cost column: C/x %s, B/x %s; want B/x secondary, C/x ok", st["C/x"], st["B/x"])
	}
}

// TestProtectionLevelColumns: an upper protection level of 100000 on A/x
// (its row total is 105) is used by secondary suppression and the
// interval audit: only suppressing the margins leaves A/x unbounded
// above, so they are suppressed, and the audit reports the level; with
// the default levels no margin is suppressed.
func TestProtectionLevelColumns(t *testing.T) {
	plain := strings.ReplaceAll(costTable, "CCOST", "")
	tab := runCSV(t, plain, costConfig(t, ", upper_pl: upl"))
	st := statusMap(tab)
	if tab.Audit == nil || tab.Audit.UnderProtected != 0 || st["A/Total"] != audit.StatusOK {
		t.Fatalf("default levels: A/Total %s, audit %+v; want A/Total published, nothing under-protected", st["A/Total"], tab.Audit)
	}
	big := strings.Replace(plain, "A;x;5;1;;", "A;x;5;1;;100000", 1)
	tab = runCSV(t, big, costConfig(t, ", upper_pl: upl"))
	st = statusMap(tab)
	if st["A/Total"] != audit.StatusSecondary || tab.Audit.UnderProtected != 0 {
		t.Fatalf("upper level 100000: A/Total %s, audit %+v; want A/Total suppressed and A/x protected", st["A/Total"], tab.Audit)
	}
	for _, c := range tab.Audit.Cells {
		if strings.Join(c.Key, "/") == "A/x" && (c.Upper != 100000 || !c.Protected) {
			t.Fatalf("audit of A/x: %+v, want upper level 100000, protected", c)
		}
	}
}

// TestHSTRoundTrip: the .hst a run writes (output: {apriori: true}), read
// by the next run, gives the same pattern.
func TestHSTRoundTrip(t *testing.T) {
	out := func() *configs.Config {
		c, err := configs.Parse("o.yaml", []byte("output: {apriori: true}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	first, dir := runTau(t, tauDir+"pp.tab", tauDir+"pp.rda", out())
	hst := filepath.Join(dir, "pp.hst")
	if _, err := os.Stat(hst); err != nil {
		t.Fatal(err)
	}
	second, _ := runTau(t, tauDir+"pp.tab", tauDir+"pp.rda", &configs.Config{Apriori: hst})
	a, b := statusMap(first), statusMap(second)
	for k, s := range a {
		if (s == audit.StatusOK) != (b[k] == audit.StatusOK) {
			t.Errorf("cell %s: %s in the first run, %s when read back", k, s, b[k])
		}
	}
}

// TestHSTUnsafeMakesPrimary: a .hst line marking a safe cell u makes it
// primary, and the difference is listed.
func TestHSTUnsafeMakesPrimary(t *testing.T) {
	plain := strings.ReplaceAll(costTable, "CCOST", "")
	base := statusMap(runCSV(t, plain, costConfig(t, "")))
	if base["B/y"] != audit.StatusOK {
		t.Fatalf("B/y is %s without the a-priori file", base["B/y"])
	}
	hst := filepath.Join(t.TempDir(), "a.hst")
	os.WriteFile(hst, []byte("\"B\";\"y\";u\n"), 0o644)
	tab := runCSV(t, plain, costConfig(t, ""), &configs.Config{Apriori: hst})
	st := statusMap(tab)
	if st["B/y"] != audit.StatusPrimary {
		t.Fatalf("B/y is %s with a.hst marking it u, want primary", st["B/y"])
	}
	if len(tab.AprioriDiffs) != 1 || tab.AprioriDiffs[0].Cell != "r=B, s=y" || tab.AprioriDiffs[0].Source != "a.hst:1" {
		t.Fatalf("differences %+v, want B/y from a.hst:1", tab.AprioriDiffs)
	}
	// a line naming no cell is an error naming the file and line
	os.WriteFile(hst, []byte("B;y;u\nB;w;s\n"), 0o644)
	s, _ := configs.Resolve(costConfig(t, ""), &configs.Config{Apriori: hst})
	p := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(p, []byte(plain), 0o644)
	_, err := Run(context.Background(), []Job{{Path: p, Settings: s}}, Options{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "a.hst:2") {
		t.Fatalf("err %v, want one naming a.hst:2", err)
	}
}

// TestTauArgusMicrodata reads tau-argus's cell-key example microdata
// (the first 60 records of its microdata.csv: no header, ";"-separated,
// described by microdata.rda: two dimensions with .hrc hierarchies, a
// weight, a record key and cell-key keywords) with one call; the
// response variable is chosen as --value would.
func TestTauArgusMicrodata(t *testing.T) {
	data, rda, ok, err := readers.TauArgusInput(tauDir+"cellkey/microdata.rda", "")
	if err != nil || !ok || filepath.Base(data) != "microdata.csv" {
		t.Fatalf("TauArgusInput = %q, %q, %v, %v", data, rda, ok, err)
	}
	tab, _ := runTau(t, data, rda, &configs.Config{Microdata: &configs.Microdata{Value: "Savings"}})
	if tab.Mode != audit.Microdata || !slices.Equal(tab.Dims, []string{"Sex", "Age"}) || tab.Value != "Savings" {
		t.Fatalf("mode %s dims %v value %q", tab.Mode, tab.Dims, tab.Value)
	}
	// Sex: male (2), female (1) and Total; Age: A1 (1), A2 (2), 3, 4, 5
	// present, and Total: every level of the hierarchies is a cell
	var n int64
	for _, c := range tab.Cells {
		if strings.Join(c.Key, "/") == "Total/Total" {
			n = c.N
		}
	}
	if n != 60 {
		t.Fatalf("Total/Total has %d contributors, want the 60 records", n)
	}
	if cellOf(tab, "male/A1") == nil || cellOf(tab, "2/1") == nil {
		t.Fatal("hierarchy levels male/A1 or leaves 2/1 missing")
	}
	w := strings.Join(tab.Warnings, "\n")
	for _, want := range []string{"Weigt is a sampling weight: not applied", "CKM not used", "RECORDKEY"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
}

// TestTauArgusHierLevels: a code hierarchy by digits (<HIERLEVELS> 1 1:
// 11 and 12 within 1) in fixed-width microdata gives a cell per level,
// and in a table it gives the relations (1 = 11 + 12).
func TestTauArgusHierLevels(t *testing.T) {
	dir := t.TempDir()
	rda := "Ind 1 2\n  <RECODEABLE>\n  <HIERARCHICAL>\n  <HIERLEVELS> 1 1\nV 4 3 999\n  <NUMERIC>\n"
	var asc strings.Builder
	for i := range 36 {
		asc.WriteString([]string{"11", "12", "21"}[i%3] + " " + fmt.Sprintf("%3d", 10+i) + "\n")
	}
	asc.WriteString("21 999\n") // a missing value
	os.WriteFile(filepath.Join(dir, "m.rda"), []byte(rda), 0o644)
	os.WriteFile(filepath.Join(dir, "m.asc"), []byte(asc.String()), 0o644)
	tab, _ := runTau(t, filepath.Join(dir, "m.asc"), filepath.Join(dir, "m.rda"))
	var keys []string
	for _, c := range tab.Cells {
		keys = append(keys, keyOf(c))
	}
	slices.Sort(keys)
	if strings.Join(keys, ",") != "1,11,12,2,21,Total" {
		t.Fatalf("cells %v, want every level", keys)
	}
	if c := cellOf(tab, "1"); c.N != 24 {
		t.Errorf("cell 1 has %d contributors, want 24 (11 and 12)", c.N)
	}
	if c := cellOf(tab, "21"); c.N != 12 {
		t.Errorf("cell 21 has %d contributors, want 12 (the missing value is none)", c.N)
	}

	trda := "<SEPARATOR> \";\"\nInd\n  <RECODEABLE>\n  <HIERLEVELS> 1 1\nV\n  <NUMERIC>\nN\n  <FREQUENCY>\n"
	ttab := "Total;60;30\n1;40;20\n11;15;10\n12;25;10\n2;20;10\n21;20;10\n"
	os.WriteFile(filepath.Join(dir, "t.rda"), []byte(trda), 0o644)
	os.WriteFile(filepath.Join(dir, "t.tab"), []byte(ttab), 0o644)
	tab, _ = runTau(t, filepath.Join(dir, "t.tab"), filepath.Join(dir, "t.rda"))
	if h := tab.Hierarchies["Ind"]; h["11"] != "1" || h["12"] != "1" || h["21"] != "2" || len(h) != 3 {
		t.Fatalf("hierarchy %v", h)
	}
	for _, c := range tab.Cells {
		if statusOf(c) == audit.StatusReview {
			t.Errorf("cell %s needs review: the relations do not hold", keyOf(c))
		}
	}
	// a code of no level's length names its row
	os.WriteFile(filepath.Join(dir, "t.tab"), []byte(ttab+"211;1;1\n"), 0o644)
	if _, err := readers.TauArgusLayer(filepath.Join(dir, "t.tab"), filepath.Join(dir, "t.rda")); err == nil || !strings.Contains(err.Error(), "row 7") {
		t.Fatalf("err %v, want one naming row 7", err)
	}
}
