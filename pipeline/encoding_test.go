package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
)

type wantCell struct {
	key         []string
	n           int64
	total, mean string
}

// The testdata/encodings files through a whole run: every cell's key and
// figures, the report's "input" field, and outputs that are valid UTF-8
// with the accented labels kept apart.
func TestEncodingsCheck(t *testing.T) {
	tests := []struct {
		file, cfg string
		dims      []string
		cells     []wantCell
		input     audit.InputInfo
	}{
		{file: "latin1.csv", cfg: "columns: {dims: [région, secteur], count: n, total: chiffre}\n", dims: []string{"région", "secteur"},
			cells: []wantCell{
				{key: []string{"Est-Île", "Agriculture"}, n: 12, total: "3400.5"}, {key: []string{"Est-Ìle", "Agriculture"}, n: 3, total: "120"},
				{key: []string{"Est-Île", "Industrie"}, n: 7, total: "990"}, {key: []string{"Est-Ìle", "Industrie"}, n: 25, total: "12000.25"},
				{key: []string{"Côte-d'Or", "Agriculture"}, n: 4, total: "88"}, {key: []string{"Côte-d'Or", "Industrie"}, n: 9, total: "1234.75"},
				{key: []string{"Zone €", "Agriculture"}, n: 6, total: "610"}, {key: []string{"Zone €", "Industrie"}, n: 11, total: "2045.5"}},
			input: audit.InputInfo{Encoding: "windows-1252", Delimiter: ",", Decimal: ".", Detected: []string{"encoding", "delimiter"}}},
		{file: "utf16le.txt", cfg: "columns: {dims: [region, sector], count: n, total: total}\n", dims: []string{"region", "sector"},
			cells: []wantCell{
				{key: []string{"Ærø", "Fishing"}, n: 5, total: "1250.5"}, {key: []string{"Ærø", "Tourism"}, n: 14, total: "8800"},
				{key: []string{"Łódź", "Fishing"}, n: 2, total: "75.25"}, {key: []string{"Łódź", "Tourism"}, n: 31, total: "20410"},
				{key: []string{"東京", "Fishing"}, n: 8, total: "3300"}, {key: []string{"東京", "Tourism"}, n: 19, total: "14999.75"}},
			input: audit.InputInfo{Encoding: "utf-16le", BOM: true, Delimiter: "tab", Decimal: ".", Detected: []string{"encoding", "delimiter"}}},
		{file: "semicolon.csv", cfg: "columns: {dims: [région, sexe], count: n, total: total, mean: moyenne}\n", dims: []string{"région", "sexe"},
			cells: []wantCell{
				{key: []string{"Nord", "F"}, n: 12, total: "1234.5", mean: "102.875"}, {key: []string{"Nord", "H"}, n: 3, total: "7039.5", mean: "2346.5"},
				{key: []string{"Sud", "F"}, n: 40, total: "1234567.25", mean: "30864.18"}, {key: []string{"Sud", "H"}, n: 7, total: "-12.75", mean: "-1.82"},
				{key: []string{"Total", "F"}, n: 52, total: "1235801.75", mean: "23765.42"}},
			input: audit.InputInfo{Encoding: "utf-8", Delimiter: ";", Decimal: ",", Detected: []string{"encoding", "delimiter", "decimal"}}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			name := strings.TrimSuffix(tc.file, filepath.Ext(tc.file))
			res, err := Run(context.Background(), []Job{{Path: "../testdata/encodings/" + tc.file, Settings: settings(t, tc.cfg)}}, Options{Out: dir, Workers: 2, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(dir, name+".report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Dims  []string         `json:"dims"`
				Input *audit.InputInfo `json:"input"`
				Cells []struct {
					Key   map[string]string `json:"key"`
					Row   int               `json:"row"`
					N     int64             `json:"n"`
					Total json.Number       `json:"total"`
				} `json:"cells"`
			}
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rep.Dims, tc.dims) {
				t.Fatalf("dims %q, want %q", rep.Dims, tc.dims)
			}
			if rep.Input == nil || !reflect.DeepEqual(*rep.Input, tc.input) {
				t.Fatalf("input %+v, want %+v", rep.Input, tc.input)
			}
			if len(rep.Cells) != len(tc.cells) {
				t.Fatalf("%d cells, want %d", len(rep.Cells), len(tc.cells))
			}
			tab := res.Tables[0]
			for i, w := range tc.cells {
				c := rep.Cells[i]
				for d, dim := range tc.dims {
					if c.Key[dim] != w.key[d] {
						t.Errorf("cell %d: key %q, want %q", i, c.Key, w.key)
					}
				}
				if c.Row != i+2 || c.N != w.n || decimal.Must(string(c.Total)).Cmp(decimal.Must(w.total)) != 0 {
					t.Errorf("cell %q: row %d n %d total %s, want row %d n %d total %s", w.key, c.Row, c.N, c.Total, i+2, w.n, w.total)
				}
				if w.mean != "" {
					if m := tab.Cells[i].Stats.Of("mean"); m.Value.Cmp(decimal.Must(w.mean)) != 0 {
						t.Errorf("cell %q: mean %s, want %s", w.key, m.Value, w.mean)
					}
				}
			}
			// every output is valid UTF-8; the labels are written as read
			files, _ := os.ReadDir(dir)
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(dir, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(f.Name(), ".json") || strings.HasSuffix(f.Name(), ".csv") || strings.HasSuffix(f.Name(), ".html") {
					if !utf8.Valid(b) {
						t.Errorf("%s is not valid UTF-8", f.Name())
					}
				}
			}
			safe, _ := os.ReadFile(filepath.Join(dir, name+".safe.csv"))
			for _, w := range tc.cells {
				if !strings.Contains(string(safe), w.key[0]) {
					t.Errorf("safe.csv lacks the label %q", w.key[0])
				}
			}
		})
	}
}

// Microdata in a semicolon-separated file with decimal commas, read by
// several shards: every finest cell's count and total equal exact sums
// computed here from the plain values.
func TestDecimalCommaMicrodata(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	regions := []string{"Est-Île", "Est-Ìle", "Nîmes", "Zürich", "Ærø"}
	sexes := []string{"F", "H", "X"}
	type acc struct {
		n   int64
		sum *big.Rat
	}
	want := map[[2]string]*acc{}
	var b strings.Builder
	b.WriteString("région;sexe;chiffre\n")
	const rows = 30000
	for i := 0; i < rows; i++ {
		r, s := regions[rng.IntN(len(regions))], sexes[rng.IntN(len(sexes))]
		whole := rng.Int64N(5_000_000)
		cents := rng.IntN(100)
		neg := rng.IntN(10) == 0
		plain := fmt.Sprintf("%d.%02d", whole, cents)
		ws := fmt.Sprint(whole)
		if rng.IntN(2) == 0 { // group thousands with a point or a space
			sep := []string{".", " "}[rng.IntN(2)]
			var g []string
			for len(ws) > 3 {
				g = append([]string{ws[len(ws)-3:]}, g...)
				ws = ws[:len(ws)-3]
			}
			ws = strings.Join(append([]string{ws}, g...), sep)
		}
		written := fmt.Sprintf("%s,%02d", ws, cents)
		if neg {
			plain, written = "-"+plain, "-"+written
		}
		fmt.Fprintf(&b, "%s;%s;%s\n", r, s, written)
		k := [2]string{r, s}
		if want[k] == nil {
			want[k] = &acc{sum: new(big.Rat)}
		}
		v, _ := new(big.Rat).SetString(plain)
		want[k].n++
		want[k].sum.Add(want[k].sum, v)
	}
	p := filepath.Join(t.TempDir(), "micro.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), []Job{{Path: p, Settings: settings(t, "microdata: {dims: [région, sexe], value: chiffre}\n")}}, Options{Out: t.TempDir(), Workers: 4, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	tab := res.Tables[0]
	if tab.Input == nil || tab.Input.Decimal != "," {
		t.Fatalf("input %+v, want a detected decimal comma", tab.Input)
	}
	seen := 0
	for _, c := range tab.Cells {
		if c.Key[0] == tab.TotalLabel || c.Key[1] == tab.TotalLabel {
			continue
		}
		w := want[[2]string{c.Key[0], c.Key[1]}]
		if w == nil {
			t.Fatalf("unexpected cell %q", c.Key)
		}
		seen++
		if c.N != w.n || c.Total.Rat().Cmp(w.sum) != 0 {
			t.Errorf("cell %q: n %d total %s, want n %d total %s", c.Key, c.N, c.Total, w.n, w.sum.FloatString(2))
		}
	}
	if seen != len(want) {
		t.Fatalf("%d finest cells, want %d", seen, len(want))
	}
}

// "n/a" is refused with the accepted forms and the missing-value texts.
func TestNotNumberHint(t *testing.T) {
	_, err := auditText(t, "g,v\na,1\nb,n/a\n", "microdata: {dims: [g], value: v}\n")
	var re *readers.Error
	if !errors.As(err, &re) || re.Row != 3 || re.Column != "v" || !errors.Is(err, readers.ErrNotNumber) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{"1,234.5", "NA", "null", `input.decimal: ","`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%v: does not mention %q", err, s)
		}
	}
	_, err = auditText(t, "g,n\na,1\nb,unknown\n", "columns: {dims: [g], count: n}\n")
	if !errors.Is(err, readers.ErrNotNumber) || !strings.Contains(err.Error(), "markers") {
		t.Fatalf("aggregate: err = %v, want the markers named", err)
	}
}

// Empty dimension values become the level "(empty)" with a warning naming
// the first rows, whichever shard reads them; a table that also has a
// literal "(empty)" level is refused at that row.
func TestEmptyLevels(t *testing.T) {
	micro := func(text string) (*audit.Table, error) {
		src, err := readers.NewCSV("in.csv", strings.NewReader(text), readers.Options{BatchSize: 7})
		if err != nil {
			t.Fatal(err)
		}
		return AuditSource(context.Background(), src, settings(t, "microdata: {dims: [g, h], value: v}\n"), 4)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	b.WriteString("g,h,v\n")
	var emptyRows []int
	nEmpty := int64(0)
	for row := 2; row < 2000; row++ {
		g := []string{"a", "b", "c"}[rng.IntN(3)]
		if rng.IntN(50) == 0 {
			g = []string{"", " "}[rng.IntN(2)]
			emptyRows = append(emptyRows, row)
			nEmpty++
		}
		fmt.Fprintf(&b, "%s,%s,%d\n", g, []string{"x", "y"}[rng.IntN(2)], rng.IntN(100))
	}
	var first []string
	for _, r := range emptyRows[:5] {
		first = append(first, fmt.Sprint(r))
	}
	wantWarn := fmt.Sprintf(`dimension "g" has %d empty values (rows %s, ...), shown as the level "(empty)"`, nEmpty, strings.Join(first, ", "))
	for range 3 {
		tab, err := micro(b.String())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range tab.Cells {
			if c.Key[0] == "" {
				t.Fatalf("a cell with an empty key: %q", c.Key)
			}
			if c.Key[0] == cells.EmptyLevel && c.Key[1] == tab.TotalLabel {
				found = c.N == nEmpty
			}
		}
		if !found {
			t.Fatalf("no (empty) margin with n=%d", nEmpty)
		}
		if !reflect.DeepEqual(tab.Warnings, []string{wantWarn}) {
			t.Fatalf("warnings %q,\nwant %q", tab.Warnings, wantWarn)
		}
	}
	// a literal "(empty)" level beside empty values
	text := b.String() + "(empty),x,1\n"
	literalRow := 2000
	_, err := micro(text)
	var re *readers.Error
	if !errors.As(err, &re) || re.Row != literalRow || re.Column != "g" || !strings.Contains(err.Error(), "empty values") {
		t.Fatalf("err = %v, want row %d column g", err, literalRow)
	}
	// aggregate tables
	tab, err := auditText(t, "g,n\na,3\n,4\n", "columns: {dims: [g], count: n}\n")
	if err != nil {
		t.Fatal(err)
	}
	tab.Warnings = slices.DeleteFunc(tab.Warnings, func(w string) bool { return w == noMargins }) // a table without margins
	if tab.Cells[1].Key[0] != cells.EmptyLevel || len(tab.Warnings) != 1 || !strings.Contains(tab.Warnings[0], `(row 3)`) {
		t.Fatalf("key %q warnings %q", tab.Cells[1].Key, tab.Warnings)
	}
	_, err = auditText(t, "g,n\n(empty),3\nb,1\n ,4\n", "columns: {dims: [g], count: n}\n")
	if !errors.As(err, &re) || re.Row != 2 || re.Column != "g" {
		t.Fatalf("aggregate collision: err = %v", err)
	}
}
