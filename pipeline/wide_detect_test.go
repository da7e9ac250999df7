package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/writers"
)

// detectRun runs check on one file and returns its table.
func detectRun(t *testing.T, path, y string) *audit.Table {
	t.Helper()
	res, err := Run(context.Background(), []Job{{Path: path, Settings: settings(t, y)}}, Options{Out: filepath.Join(t.TempDir(), "out"), Workers: 2})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res.Tables[0]
}

// cellLines are the cells of a table by their levels (the dimension
// names aside): status, figures, published statistics, each rule's
// outcome.
func cellLines(tab *audit.Table) []string {
	var out []string
	for _, c := range tab.Cells {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s n=%d total=%s", strings.Join(c.Key, "|"), c.Status, c.N, c.Total)
		stats := make([]string, 0, c.Stats.Len())
		for k, v := range c.Stats.All() {
			stats = append(stats, k+"="+v.Text)
		}
		sort.Strings(stats)
		b.WriteString(" " + strings.Join(stats, ","))
		for _, f := range c.AllFindings() {
			fmt.Fprintf(&b, " %s:%s", f.Rule, f.Outcome)
		}
		out = append(out, b.String())
	}
	return out
}

// TestWideDetected: every crosstab of testdata/wide read without
// columns.dims and columns.across gives the same cells as with the
// explicit configuration, and the report says what was detected. The
// workbooks say "Number of enterprises" (counts); the CSV has no such
// title, so it is given columns.value only.
func TestWideDetected(t *testing.T) {
	for _, tc := range []struct {
		file, cfg, detectCfg string
		dims, across         []string
		detected             []string
	}{
		{"region_sector.xlsx", wideConfig1, "", []string{"Region"}, []string{"across"}, []string{"columns.dims", "columns.across", "columns.value"}},
		{"region_sector_size.xlsx", wideConfig2, "", []string{"Region"}, []string{"across1", "across2"}, []string{"columns.dims", "columns.across", "columns.value"}},
		{"region_sector.csv", wideConfig1, "columns: {value: count}\n", []string{"Region"}, []string{"across"}, []string{"encoding", "delimiter", "columns.dims", "columns.across"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want := detectRun(t, wideDir+tc.file, tc.cfg)
			got := detectRun(t, wideDir+tc.file, tc.detectCfg)
			if w, g := cellLines(want), cellLines(got); !slices.Equal(w, g) {
				t.Fatalf("detected layout: cells differ from the configured layout's:\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
			}
			if len(got.Cells) < 20 {
				t.Fatalf("%d cells", len(got.Cells))
			}
			wantDims := append(append([]string{}, tc.dims...), tc.across...)
			if !slices.Equal(got.Dims, wantDims) {
				t.Errorf("dims %v, want %v", got.Dims, wantDims)
			}
			in := got.Input
			if in == nil || in.Layout == nil {
				t.Fatalf("report.json input has no layout: %+v", in)
			}
			if !slices.Equal(in.Layout.Dims, tc.dims) || !slices.Equal(in.Layout.Across, tc.across) || in.Layout.Value != "count" {
				t.Errorf("input.layout %+v", *in.Layout)
			}
			if !slices.Equal(in.Detected, tc.detected) {
				t.Errorf("input.detected %v, want %v", in.Detected, tc.detected)
			}
			if len(got.Warnings) == 0 || !strings.HasPrefix(got.Warnings[0], "layout detected") {
				t.Errorf("warnings %q: the detection comes first", got.Warnings)
			}
			if want.Input != nil && want.Input.Layout != nil {
				t.Errorf("the configured layout is reported as detected")
			}
			// the report says it
			var rep bytes.Buffer
			if err := (writers.Report{}).Write(&rep, got); err != nil {
				t.Fatal(err)
			}
			var r struct {
				Input struct {
					Layout struct {
						Across []string `json:"across"`
						Note   string   `json:"note"`
					} `json:"layout"`
				} `json:"input"`
			}
			if err := json.Unmarshal(rep.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Input.Layout.Across, tc.across) || !strings.Contains(r.Input.Layout.Note, "columns.dims [Region] from the header cells of column A") {
				t.Errorf("report.json input.layout %+v", r.Input.Layout)
			}
			// audit reads it the same way
			_, wantIv, err := AuditFile(context.Background(), wideDir+tc.file, settings(t, tc.cfg), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, gotIv, err := AuditFile(context.Background(), wideDir+tc.file, settings(t, tc.detectCfg), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(wantIv.Cells) == 0 || len(gotIv.Cells) != len(wantIv.Cells) {
				t.Fatalf("audit: %d intervals detected, %d configured", len(gotIv.Cells), len(wantIv.Cells))
			}
			for i := range wantIv.Cells {
				w, g := wantIv.Cells[i], gotIv.Cells[i]
				if !slices.Equal(w.Key, g.Key) || w.Lo != g.Lo || w.Hi != g.Hi || w.Exact != g.Exact || w.Protected != g.Protected {
					t.Errorf("audit interval %d: detected %+v, configured %+v", i, g, w)
				}
			}
		})
	}
}

// TestWideDetectRefuses: a layout that cannot be detected is a
// configuration error (exit 2) naming the keys to set and where.
func TestWideDetectRefuses(t *testing.T) {
	title := []string{"Number of enterprises"}
	for _, tc := range []struct {
		name string
		rows [][]string
		want string
	}{
		{"a header of numbers", [][]string{title, {}, {"Region", "2023", "2024"}, {"A", "3", "4"}, {"B", "5", "6"}},
			`row 3: crosstab layout not detected: row 3 reads as the table's first body row, with no header row above it (a header of numbers, such as years, cannot be told from the body): set columns.dims`},
		{"numbers as row labels", [][]string{title, {}, {"Year", "Mining", "Trade"}, {"2023", "3", "4"}, {"2024", "5", "6"}},
			`no row of numbers below a header found: set columns.dims (the row dimensions, one label column each), columns.across (the column dimensions, one header row each) and columns.value`},
		{"row labels differ", [][]string{title, {}, {"Region", "Mining", "Trade"}, {"A", "3", "4"}, {"B", "x1", "5", "6"}},
			`row 5, column "B": crosstab layout not detected: row 5 has 2 row label(s), row 4 has 1`},
		{"no count title", [][]string{{"Turnover"}, {}, {"Region", "Mining", "Trade"}, {"A", "3", "4"}},
			`cannot tell what the body holds (no title says "number of" or "count"): set columns.value`},
		{"not whole numbers", [][]string{title, {}, {"Region", "Mining", "Trade"}, {"A", "3", "4.5"}},
			`row 4, column "C": crosstab layout not detected: A1 says "Number of enterprises", but "4.5" is not a whole number of at least 0: set columns.value`},
		{"a blank header cell", [][]string{title, {}, {"Region", "Mining", "", "Total"}, {"A", "3", "4", "7"}},
			`row 3, column "C": blank header cell`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := wideSheet(t, tc.rows)
			_, err := Run(context.Background(), []Job{{Path: path, Settings: settings(t, "")}}, Options{Out: filepath.Join(t.TempDir(), "out")})
			var ce *configs.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `sheet "Sheet1"`) {
				t.Fatalf("error %v, want a configuration error containing %q", err, tc.want)
			}
			if _, err := LoadFile(context.Background(), path, settings(t, "")); !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadFile: %v", err)
			}
		})
	}
	// the CSV of testdata/wide has no title saying counts
	_, err := Run(context.Background(), []Job{{Path: wideDir + "region_sector.csv", Settings: settings(t, "")}}, Options{Out: filepath.Join(t.TempDir(), "out")})
	if err == nil || !strings.Contains(err.Error(), "region_sector.csv, row 3: crosstab layout not detected: cannot tell what the body holds") {
		t.Fatalf("region_sector.csv without columns.value: %v", err)
	}
}
