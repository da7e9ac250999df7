package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
)

// writeRecords writes a record-level CSV with count records per region.
func writeRecords(t *testing.T, path string, counts map[string]int) int {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,region\n")
	regions := make([]string, 0, len(counts))
	for r := range counts {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	n := 0
	for _, r := range regions {
		for range counts[r] {
			n++
			fmt.Fprintf(&b, "%d,%s\n", n, r)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

func fileSHA(t *testing.T, path string) (int64, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return int64(len(b)), hex.EncodeToString(s[:])
}

const acroConfig = `profile: acro
microdata: {dims: [region]}
output: {acro: true}
`

// acroRun audits a passing table (every region has 12 records) and a
// failing one (region B has 3: threshold 10) into out.
func acroRun(t *testing.T, in, out, timestamp string) (pass, fail string, rows map[string]int) {
	t.Helper()
	pass, fail = filepath.Join(in, "passing.csv"), filepath.Join(in, "failing.csv")
	rows = map[string]int{
		"passing": writeRecords(t, pass, map[string]int{"A": 12, "B": 12}),
		"failing": writeRecords(t, fail, map[string]int{"A": 12, "B": 3}),
	}
	s := settings(t, acroConfig)
	jobs := []Job{{Path: pass, Settings: s}, {Path: fail, Settings: s}}
	if _, err := Run(context.Background(), jobs, Options{Out: out, Workers: 2, Version: "test", Timestamp: timestamp}); err != nil {
		t.Fatal(err)
	}
	return pass, fail, rows
}

// decodeOrdered returns the keys of a JSON object in their order.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestACROResults checks results.json field by field against the shape
// ACRO writes (acro/record.py finalise_json, acro_tables.py get_table_sdc)
// and the SACRO viewer reads, for a passing and a failing table, and that
// a second run writes the same bytes.
func TestACROResults(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	acroRun(t, in, out, "")
	raw, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := objectKeys(t, raw); !slices.Equal(got, []string{"version", "results"}) {
		t.Fatalf("top-level keys %v", got)
	}
	var doc struct {
		Version string                     `json:"version"`
		Results map[string]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// SACRO: "major.minor.patch", numeric, at least 0.4.
	var major, minor, patch int
	if n, _ := fmt.Sscanf(doc.Version, "%d.%d.%d", &major, &minor, &patch); n != 3 || major != 0 || minor < 4 {
		t.Errorf("version %q", doc.Version)
	}
	if got := objectKeys(t, func() json.RawMessage {
		var r struct{ Results json.RawMessage }
		json.Unmarshal(raw, &r)
		return r.Results
	}()); !slices.Equal(got, []string{"passing", "failing"}) {
		t.Errorf("records %v, want the tables in run order", got)
	}
	acroSummaryKeys := []string{"suppressed", "negative", "missing", "threshold", "p-ratio", "nk-rule", "all-values-are-same"}
	for _, name := range []string{"passing", "failing"} {
		rec := doc.Results[name]
		wantKeys := []string{"uid", "status", "type", "properties", "files", "outcome", "command", "summary", "timestamp", "comments", "exception"}
		if got := objectKeys(t, rec); !slices.Equal(got, wantKeys) {
			t.Errorf("%s: keys %v, want %v", name, got, wantKeys)
		}
		var r struct {
			UID        string          `json:"uid"`
			Status     string          `json:"status"`
			Type       string          `json:"type"`
			Properties map[string]any  `json:"properties"`
			Outcome    json.RawMessage `json:"outcome"`
			Command    string          `json:"command"`
			Summary    string          `json:"summary"`
			Timestamp  *string         `json:"timestamp"`
			Comments   []string        `json:"comments"`
			Exception  *string         `json:"exception"`
			Files      []struct {
				Name string `json:"name"`
				SDC  struct {
					Summary json.RawMessage    `json:"summary"`
					Cells   map[string][][]int `json:"cells"`
				} `json:"sdc"`
			} `json:"files"`
		}
		dec := json.NewDecoder(bytes.NewReader(rec))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.UID != name || r.Type != "table" || r.Properties["method"] != "sdcaudit" {
			t.Errorf("%s: uid %q type %q properties %v", name, r.UID, r.Type, r.Properties)
		}
		if r.Timestamp == nil || *r.Timestamp != "" {
			t.Errorf("%s: timestamp %v, want \"\" without --timestamp", name, r.Timestamp)
		}
		if r.Comments == nil || len(r.Comments) != 0 || r.Exception == nil {
			t.Errorf("%s: comments %v exception %v", name, r.Comments, r.Exception)
		}
		if r.Command != "sdcaudit check "+name+".csv --profile acro" {
			t.Errorf("%s: command %q", name, r.Command)
		}
		if len(r.Files) != 1 || r.Files[0].Name != name+".safe.csv" {
			t.Fatalf("%s: files %+v", name, r.Files)
		}
		safe := readCSV(t, filepath.Join(out, r.Files[0].Name))
		if got := objectKeys(t, r.Files[0].SDC.Summary); len(got) < len(acroSummaryKeys) || !slices.Equal(got[:len(acroSummaryKeys)], acroSummaryKeys) {
			t.Errorf("%s: sdc summary keys %v", name, got)
		}
		var sum map[string]any
		json.Unmarshal(r.Files[0].SDC.Summary, &sum)
		if sum["suppressed"] != true {
			t.Errorf("%s: suppressed %v", name, sum["suppressed"])
		}
		for k, v := range sum {
			if k == "suppressed" {
				continue
			}
			n, ok := v.(float64)
			if !ok {
				t.Errorf("%s: sdc summary %s = %v, want a count", name, k, v)
				continue
			}
			cells, ok := r.Files[0].SDC.Cells[k]
			if !ok {
				t.Errorf("%s: sdc cells lacks %q", name, k)
			}
			flagged := map[int]bool{}
			for _, p := range cells {
				if len(p) != 2 || p[0] < 0 || p[0]+1 >= len(safe) || p[1] < 0 || 1+p[1] >= len(safe[0]) {
					t.Fatalf("%s: %s position %v outside the safe table", name, k, p)
				}
				// one dimension column (region), then the statistics
				if v := safe[p[0]+1][1+p[1]]; v != "x" {
					t.Errorf("%s: %s position %v holds %q in the safe table, want the marker", name, k, p, v)
				}
				flagged[p[0]] = true
			}
			if len(flagged) != int(n) {
				t.Errorf("%s: %s counts %v cells, positions name %d", name, k, n, len(flagged))
			}
		}
		var outcome map[string]map[string]string
		if err := json.Unmarshal(r.Outcome, &outcome); err != nil {
			t.Fatalf("%s: outcome: %v", name, err)
		}
		if got := objectKeys(t, r.Outcome); !slices.Equal(got, safe[0][1:]) {
			t.Errorf("%s: outcome columns %v, want the safe table's statistics %v", name, got, safe[0][1:])
		}
		for col, rows := range outcome {
			if len(rows) != len(safe)-1 {
				t.Errorf("%s: outcome %s has %d rows, safe table %d", name, col, len(rows), len(safe)-1)
			}
			for i := range len(safe) - 1 {
				o := rows[fmt.Sprint(i)]
				if (o == "ok") != (safe[i+1][1] != "x") {
					t.Errorf("%s: row %d outcome %q but safe value %q", name, i, o, safe[i+1][1])
				}
			}
		}
		switch name {
		case "passing":
			if r.Status != "pass" || r.Summary != "pass" || *r.Exception != "" {
				t.Errorf("passing: status %q summary %q exception %q", r.Status, r.Summary, *r.Exception)
			}
			for k, v := range sum {
				if k != "suppressed" && v.(float64) != 0 {
					t.Errorf("passing: %s = %v", k, v)
				}
			}
		case "failing":
			if r.Status != "review" || !strings.HasPrefix(r.Summary, "review; ") || !strings.Contains(r.Summary, "threshold: 1 cells suppressed; ") || *r.Exception == "" {
				t.Errorf("failing: status %q summary %q exception %q", r.Status, r.Summary, *r.Exception)
			}
			// region B (the second row) fails the threshold; A and the
			// total are suppressed to protect it.
			if got := r.Files[0].SDC.Cells["threshold"]; len(got) != 1 || got[0][0] != 1 {
				t.Errorf("failing: threshold cells %v, want row 1 (region B)", got)
			}
			if sum["secondary"] == nil || sum["secondary"].(float64) < 1 {
				t.Errorf("failing: secondary %v", sum["secondary"])
			}
		}
	}
	// A second run into another directory writes the same bytes.
	out2 := t.TempDir()
	acroRun(t, in, out2, "")
	for _, f := range []string{"results.json", "summary.json", "passing.report.json", "failing.report.json", "summary.html"} {
		a, _ := os.ReadFile(filepath.Join(out, f))
		b, _ := os.ReadFile(filepath.Join(out2, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}

type trailJSON struct {
	Sdcaudit  string `json:"sdcaudit"`
	Timestamp string `json:"timestamp"`
	Profile   string `json:"profile"`
	Rules     []struct {
		Name    string         `json:"name"`
		Enabled bool           `json:"enabled"`
		Params  map[string]any `json:"params"`
	} `json:"rules"`
	Suppression map[string]any `json:"suppression"`
	Inputs      []struct {
		Name     string `json:"name"`
		Size     int64  `json:"size"`
		SHA256   string `json:"sha256"`
		Rows     int64  `json:"rows"`
		Format   string `json:"format"`
		Sheet    string `json:"sheet"`
		Encoding string `json:"encoding"`
	} `json:"inputs"`
}

func checkRules(t *testing.T, where string, tr trailJSON) {
	t.Helper()
	byName := map[string]map[string]any{}
	for _, r := range tr.Rules {
		byName[r.Name] = r.Params
	}
	s := settings(t, acroConfig)
	if len(tr.Rules) != len(s.Rules) {
		t.Errorf("%s: %d rules, settings have %d", where, len(tr.Rules), len(s.Rules))
	}
	for _, r := range s.Rules {
		if _, ok := byName[r.Name]; !ok {
			t.Errorf("%s: rule %s missing", where, r.Name)
		}
	}
	// from the acro profile
	if byName["threshold"]["min"] != 10.0 || byName["zeros"]["disclosive"] != true {
		t.Errorf("%s: threshold %v zeros %v", where, byName["threshold"], byName["zeros"])
	}
	sets, _ := byName["dominance"]["sets"].([]any)
	if len(sets) != 1 || sets[0].(map[string]any)["n"] != 2.0 || sets[0].(map[string]any)["k"] != 90.0 {
		t.Errorf("%s: dominance %v", where, byName["dominance"])
	}
	// resolved: defaults the profile does not write
	if byName["meansd"]["sd_kind"] != "sample" || byName["p_percent"]["absolute"] != false {
		t.Errorf("%s: meansd %v p_percent %v", where, byName["meansd"], byName["p_percent"])
	}
	if tr.Suppression["secondary"] != true || tr.Suppression["cost"] != "value" || tr.Suppression["protection"] != 10.0 || tr.Suppression["time_limit"] != "1m0s" {
		t.Errorf("%s: suppression %v", where, tr.Suppression)
	}
}

// TestAuditTrail checks the run object of report.json and summary.json:
// version, profile, resolved rule parameters, suppression, and each input
// with its size, SHA-256 (computed here) and rows read; the same trail in
// summary.html and the workbook's summary sheet; --timestamp.
func TestAuditTrail(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	pass, fail, rows := acroRun(t, in, out, "2026-01-02T03:04:05Z")
	paths := map[string]string{"passing": pass, "failing": fail}
	for _, name := range []string{"passing", "failing"} {
		raw, err := os.ReadFile(filepath.Join(out, name+".report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Run *trailJSON `json:"run"`
		}
		if err := json.Unmarshal(raw, &rep); err != nil || rep.Run == nil {
			t.Fatalf("%s: report run %v (%v)", name, rep.Run, err)
		}
		r := *rep.Run
		if r.Sdcaudit != "test" || r.Profile != "acro" || r.Timestamp != "2026-01-02T03:04:05Z" {
			t.Errorf("%s: sdcaudit %q profile %q timestamp %q", name, r.Sdcaudit, r.Profile, r.Timestamp)
		}
		checkRules(t, name+".report.json", r)
		size, sum := fileSHA(t, paths[name])
		if len(r.Inputs) != 1 {
			t.Fatalf("%s: inputs %+v", name, r.Inputs)
		}
		got := r.Inputs[0]
		if got.Name != name+".csv" || got.Size != size || got.SHA256 != sum || got.Rows != int64(rows[name]) || got.Format != "csv" || got.Encoding != "utf-8" {
			t.Errorf("%s: input %+v, want size %d sha256 %s rows %d", name, got, size, sum, rows[name])
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sj struct {
		Run *trailJSON `json:"run"`
	}
	if err := json.Unmarshal(raw, &sj); err != nil || sj.Run == nil {
		t.Fatalf("summary run %v (%v)", sj.Run, err)
	}
	if sj.Run.Sdcaudit != "test" || sj.Run.Profile != "acro" || sj.Run.Timestamp != "2026-01-02T03:04:05Z" || len(sj.Run.Inputs) != 2 {
		t.Fatalf("summary run %+v", sj.Run)
	}
	checkRules(t, "summary.json", *sj.Run)
	for i, name := range []string{"passing", "failing"} {
		size, sum := fileSHA(t, paths[name])
		if in := sj.Run.Inputs[i]; in.Name != name+".csv" || in.Size != size || in.SHA256 != sum || in.Rows != int64(rows[name]) {
			t.Errorf("summary input %d: %+v", i, in)
		}
	}
	if run, _ := json.Marshal(sj.Run); strings.Contains(string(run), in) {
		t.Errorf("summary.json's run names the input directory %s: only base names", in)
	}
	var res struct {
		Results map[string]struct {
			Timestamp string `json:"timestamp"`
		} `json:"results"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	json.Unmarshal(b, &res)
	if res.Results["failing"].Timestamp != "2026-01-02T03:04:05Z" {
		t.Errorf("results.json timestamp %q", res.Results["failing"].Timestamp)
	}
	_, failSum := fileSHA(t, fail)
	html, _ := os.ReadFile(filepath.Join(out, "summary.html"))
	if !bytes.Contains(html, []byte("Audit trail")) || !bytes.Contains(html, []byte(failSum)) || !bytes.Contains(html, []byte(`{&#34;min&#34;:10}`)) {
		t.Errorf("summary.html lacks the trail")
	}
	f, err := excelize.OpenFile(filepath.Join(out, "failing.annotated.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet, err := f.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, row := range sheet {
		if len(row) >= 2 {
			found[row[0]] = row[1]
		}
	}
	if found["input sha256"] != failSum || found["profile"] != "acro" || found["rule threshold"] != `enabled {"min":10}` || found["sdcaudit"] != "test" {
		t.Errorf("workbook summary sheet: %v", found)
	}
	// Without --timestamp no time is written.
	out2 := t.TempDir()
	acroRun(t, t.TempDir(), out2, "")
	for _, file := range []string{"summary.json", "failing.report.json"} {
		b, _ := os.ReadFile(filepath.Join(out2, file))
		if bytes.Contains(b, []byte(`"timestamp"`)) {
			t.Errorf("%s has a timestamp without --timestamp", file)
		}
	}
}

// TestInputDigest checks both ways of hashing an input against a hash of
// the file computed here: a CSV through the reader's tee (read once), a
// workbook by a separate read.
func TestInputDigest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.csv")
	writeRecords(t, path, map[string]int{"A": 40000, "B": 30000}) // more than the reader's buffer
	for _, p := range []string{path, businessesXLSX} {
		s := settings(t, acroConfig)
		l := newInputLog([]Job{{Path: p, Settings: s}}, "test", "")
		srcs, err := readers.Open(p, l.options(0, cells.ReaderOptions(s)))
		if err != nil {
			t.Fatal(err)
		}
		src := l.count(srcs[0])
		var rows int64
		for {
			b, err := src.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rows += int64(len(b.Rows))
		}
		tr, err := l.table(context.Background(), 0, src)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		size, sum := fileSHA(t, p)
		if in := tr.Inputs[0]; in.Size != size || in.SHA256 != sum || in.Rows != rows {
			t.Errorf("%s: %+v, want size %d sha256 %s rows %d", p, in, size, sum, rows)
		}
		if tee := l.jobs[0].tee; (p == path) != (tee != nil && tee.n == size) {
			t.Errorf("%s: tee %v", p, tee)
		}
	}
}

// The tee's hash, taken in blocks on goroutines of their own, is the
// SHA-256 of the bytes written in order, whatever the sizes of the writes
// (empty, smaller than a block, spanning several blocks, ending on a
// block's end), and of nothing at all.
func TestCountingHashMatchesSHA256(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for iter := 0; iter < 12; iter++ {
		c := newCountingHash()
		var all []byte
		for w := r.IntN(40); w > 0; w-- {
			var n int
			switch r.IntN(4) {
			case 0:
				n = 0
			case 1:
				n = hashBlock - len(all)%hashBlock // to a block's end
			case 2:
				n = r.IntN(3 * hashBlock)
			default:
				n = r.IntN(5000)
			}
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			all = append(all, p...)
			if k, err := c.Write(p); k != n || err != nil {
				t.Fatalf("Write: %d, %v", k, err)
			}
			clear(p) // the tee's caller reuses its buffer
		}
		want := sha256.Sum256(all)
		if got := c.Sum(); !bytes.Equal(got, want[:]) || c.n != int64(len(all)) {
			t.Fatalf("iteration %d: %d bytes: sum %x n %d, want %x", iter, len(all), got, c.n, want)
		}
	}
}
