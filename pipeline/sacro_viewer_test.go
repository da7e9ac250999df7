package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/readers"
)

// sacroLoad opens an output directory as the SACRO viewer does
// (AI-SDC/SACRO-Viewer, sacro/models.py and sacro/versioning.py; the
// rules are reimplemented here from that source):
//
//   - find_acro_metadata: outputs.json if present, else the only *.json,
//     else the only *.json that is a valid ACRO file ("version" and
//     "results", every result with a non-empty "files" list of objects
//     with a "name");
//   - check_version: the version splits on "." into a major and minor
//     that parse as integers, compared as strings with the supported
//     "0.4.x": a lower one is refused;
//   - annotate: per listed file, checksums/NAME.txt read as text must
//     equal the hex SHA-256 of the file NAME beside the metadata, else
//     the file is shown unverified; sdc.cells positions [x, y] become
//     the cell index "x,y".
//
// It returns the metadata's path, its results, and per file name whether
// its checksum is valid.
func sacroLoad(t *testing.T, dir string) (string, map[string]sacroResult, map[string]bool) {
	t.Helper()
	path := filepath.Join(dir, "outputs.json")
	if _, err := os.Stat(path); err != nil {
		jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		var valid []string
		for _, j := range jsons {
			if _, ok := sacroParse(j); ok {
				valid = append(valid, j)
			}
		}
		if len(jsons) == 1 {
			valid = jsons
		}
		if len(valid) != 1 {
			t.Fatalf("the viewer finds %d ACRO files among %v (it needs exactly one)", len(valid), jsons)
		}
		path = valid[0]
	}
	doc, ok := sacroParse(path)
	if !ok {
		t.Fatalf("%s is not a valid ACRO json file", path)
	}
	// check_version against ACRO_SUPPORTED_VERSION = "0.4.x"
	parts := strings.Split(doc.Version, ".")
	if len(parts) < 2 {
		t.Fatalf("version %q: expected the format 1.2.3", doc.Version)
	}
	if _, err := strconv.Atoi(parts[0]); err != nil {
		t.Fatalf("version %q: major is not a number", doc.Version)
	}
	if _, err := strconv.Atoi(parts[1]); err != nil {
		t.Fatalf("version %q: minor is not a number", doc.Version)
	}
	if parts[0] < "0" || parts[0] == "0" && parts[1] < "4" {
		t.Fatalf("version %q is older than the supported 0.4.x", doc.Version)
	}
	valid := map[string]bool{}
	for _, r := range doc.Results {
		for _, f := range r.Files {
			sum, err := os.ReadFile(filepath.Join(filepath.Dir(path), "checksums", f.Name+".txt"))
			if err != nil {
				valid[f.Name] = false
				continue
			}
			data, err := os.ReadFile(filepath.Join(filepath.Dir(path), f.Name))
			if err != nil {
				t.Fatalf("listed file %s: %v", f.Name, err)
			}
			h := sha256.Sum256(data)
			valid[f.Name] = hex.EncodeToString(h[:]) == string(sum)
		}
	}
	return path, doc.Results, valid
}

type sacroResult struct {
	Files []struct {
		Name string `json:"name"`
		SDC  struct {
			Cells map[string][][2]int `json:"cells"`
		} `json:"sdc"`
	} `json:"files"`
}

type sacroDoc struct {
	Version string                 `json:"version"`
	Results map[string]sacroResult `json:"results"`
}

func sacroParse(path string) (sacroDoc, bool) {
	var raw map[string]json.RawMessage
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &raw) != nil {
		return sacroDoc{}, false
	}
	if _, ok := raw["version"]; !ok {
		return sacroDoc{}, false
	}
	if _, ok := raw["results"]; !ok {
		return sacroDoc{}, false
	}
	var doc sacroDoc
	if json.Unmarshal(b, &doc) != nil {
		return sacroDoc{}, false
	}
	for _, r := range doc.Results {
		if len(r.Files) == 0 {
			return sacroDoc{}, false
		}
		for _, f := range r.Files {
			if f.Name == "" {
				return sacroDoc{}, false
			}
		}
	}
	return doc, true
}

// TestSACROViewerVerifiesResults: the output of a run with results.json
// (tau-argus's two-dimensional example table and a one-dimensional
// table) loads in the SACRO viewer with every file's checksum valid, the
// results.json checksum written too, and every highlighted position
// [row, column] (one header row, one index column) a withheld value,
// every withheld value highlighted; two runs write the same bytes (not
// under the race detector: one run).
func TestSACROViewerVerifiesResults(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	acro := func() *configs.Config {
		c, err := configs.Parse("a.yaml", []byte("profile: acro\noutput: {acro: true}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tl, err := readers.TauArgusLayer(tauDir+"pp.tab", tauDir+"pp.rda")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := configs.Resolve(tl, acro())
	if err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(t.TempDir(), "regions.csv")
	var b strings.Builder
	b.WriteString("region,v\n")
	for i, r := range []string{"N", "S", "E", "W"} {
		for k := range 3 + i*5 {
			b.WriteString(r + "," + strconv.Itoa(10+k) + "\n")
		}
	}
	os.WriteFile(one, []byte(b.String()), 0o644)
	c1, _ := configs.Parse("m.yaml", []byte("microdata: {dims: [region], value: v}\n"))
	s1, err := configs.Resolve(acro(), c1)
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		out := t.TempDir()
		for _, s := range []*configs.Settings{s1, s2} {
			s.Suppression.TimeLimit = 0
		}
		// testJointWork: the viewer's checks hold for whatever pattern
		// the joint search's budget leaves (withheld values are counted)
		if _, err := Run(t.Context(), []Job{{Path: tauDir + "pp.tab", Settings: s2}, {Path: one, Settings: s1}}, Options{Out: out, JointWork: testJointWork()}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := run()
	path, results, valid := sacroLoad(t, out)
	if filepath.Base(path) != "results.json" {
		t.Fatalf("the viewer opened %s", path)
	}
	if len(valid) != 2 {
		t.Fatalf("files %v", valid)
	}
	for name, ok := range valid {
		if !ok {
			t.Errorf("%s: checksum not verified", name)
		}
	}
	rs, err := os.ReadFile(filepath.Join(out, "checksums", "results.json.txt"))
	res, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if h := sha256.Sum256(res); err != nil || string(rs) != hex.EncodeToString(h[:]) {
		t.Errorf("checksums/results.json.txt %q: want results.json's SHA-256 (%v)", rs, err)
	}
	for _, r := range results {
		f := r.Files[0]
		if !strings.HasSuffix(f.Name, ".sacro.csv") && !strings.HasSuffix(f.Name, ".safe.csv") {
			t.Errorf("listed file %s", f.Name)
		}
		data, _ := os.ReadFile(filepath.Join(out, f.Name))
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		lit := map[[2]int]bool{}
		for _, ps := range f.SDC.Cells {
			for _, p := range ps {
				lit[p] = true
				if p[0]+1 >= len(rows) || p[1]+1 >= len(rows[p[0]+1]) || rows[p[0]+1][p[1]+1] != "x" {
					t.Fatalf("%s: highlighted %v is not a withheld value", f.Name, p)
				}
			}
		}
		withheld := 0
		for i, row := range rows[1:] {
			for j, v := range row[1:] {
				if v == "x" {
					withheld++
					if !lit[[2]int{i, j}] {
						t.Errorf("%s: withheld value at [%d %d] not highlighted", f.Name, i, j)
					}
				}
			}
		}
		if withheld == 0 {
			t.Errorf("%s: nothing withheld: the test checks nothing", f.Name)
		}
	}
	if raceEnabled {
		// The second run only checks that the run repeats its bytes,
		// which the plain run checks; under the race detector a race
		// that would change them is reported by the detector itself.
		return
	}
	again := run()
	for _, f := range []string{"results.json", "checksums/results.json.txt", "checksums/pp.sacro.csv.txt", "pp.sacro.csv", "checksums/regions.safe.csv.txt"} {
		a, err1 := os.ReadFile(filepath.Join(out, f))
		b, err2 := os.ReadFile(filepath.Join(again, f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs (%v, %v)", f, err1, err2)
		}
	}
}
