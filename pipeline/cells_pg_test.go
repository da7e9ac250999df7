package pipeline

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"

	"github.com/sdcaudit/sdcaudit/internal/pgtest"
	"github.com/sdcaudit/sdcaudit/sqlgen"
)

// cellsRecord is one microdata record of the property test; value "" is
// missing (NULL in the database).
type cellsRecord struct {
	dims           []string
	holding, value string
}

// randomCellsRecords draws microdata with ties, negatives, missing values,
// holdings spanning cells, mixed decimals and empty cells.
func randomCellsRecords(rng *rand.Rand, nd, nrec int) []cellsRecord {
	levels := [][]string{{"north", "south", "east"}, {"F", "M"}, {"a", "b", "c", "d"}}
	pool := []string{"12.5", "3.125", "0", "-7.25", "1000", "12.500", "99.999", "4", "4.0"}
	out := make([]cellsRecord, nrec)
	for i := range out {
		r := cellsRecord{dims: make([]string, nd), holding: fmt.Sprintf("h%d", rng.IntN(nrec/3+1))}
		for d := range nd {
			r.dims[d] = levels[d][rng.IntN(len(levels[d]))]
		}
		if nd > 1 && r.dims[0] == "east" {
			r.dims[1] = "F" // east×M stays empty
		}
		switch x := rng.IntN(10); {
		case x == 0:
			// missing
		case x < 5:
			r.value = pool[rng.IntN(len(pool))]
		default:
			sc := rng.IntN(4)
			m := rng.Int64N(2_000_000) - 200_000
			r.value = new(big.Rat).SetFrac(big.NewInt(m), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sc)), nil)).FloatString(sc)
		}
		out[i] = r
	}
	return out
}

// writeCellsCSV writes recs as the microdata file micro.csv in dir
// (columns dims, hold, value; a missing value empty) and returns its path.
func writeCellsCSV(t *testing.T, dir string, dims []string, recs []cellsRecord) string {
	t.Helper()
	var csv strings.Builder
	csv.WriteString(strings.Join(dims, ",") + ",hold,value\n")
	for _, r := range recs {
		fmt.Fprintf(&csv, "%s,%s,%s\n", strings.Join(r.dims, ","), r.holding, r.value)
	}
	micro := filepath.Join(dir, "micro.csv")
	if err := os.WriteFile(micro, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return micro
}

// cellsValues is the VALUES list of an INSERT of recs into a table of
// three dimension columns, hold and value: the dimensions a record lacks
// and a missing value are NULL.
func cellsValues(recs []cellsRecord) string {
	var rows []string
	for _, r := range recs {
		cols := []string{"NULL", "NULL", "NULL", "'" + r.holding + "'", "NULL"}
		for d, l := range r.dims {
			cols[d] = "'" + l + "'"
		}
		if r.value != "" {
			cols[4] = r.value
		}
		rows = append(rows, "("+strings.Join(cols, ", ")+")")
	}
	return strings.Join(rows, ",\n")
}

// runOne runs the job alone into out with workers workers.
func runOne(t *testing.T, job Job, out string, workers int) *Result {
	t.Helper()
	res, err := Run(context.Background(), []Job{job}, Options{Out: out, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// copyCells runs the cell-summary query q on conn and writes its
// result, as CSV with a header (COPY ... TO STDOUT), to cells.csv in
// dir; it returns the file's path, or the query's error.
func copyCells(ctx context.Context, t *testing.T, conn *pgx.Conn, q, dir string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY ("+q+") TO STDOUT WITH CSV HEADER"); err != nil {
		return "", err
	}
	cells := filepath.Join(dir, "cells.csv")
	if err := os.WriteFile(cells, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return cells, nil
}

// TestCellsMatchMicrodataPostgres: the postgres query of sqlgen run on a
// real server, its result exported as CSV (COPY ... TO STDOUT) and read
// with Job.Cells, gives exactly the statuses and the safe CSV of the audit
// of the same microdata with the same configuration.
func TestCellsMatchMicrodataPostgres(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	conn := pgtest.Start(t)
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
	}
	dimNames := []string{"region", "sex", "size"}
	for seed := uint64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1616))
		nd := 1 + int(seed%3)
		holding, value := seed%2 == 0, seed%4 != 3
		nrec := 20 + rng.IntN(600)
		recs := randomCellsRecords(rng, nd, nrec)
		t.Run(fmt.Sprintf("seed%d_dims%d_holding%v_value%v_n%d", seed, nd, holding, value, nrec), func(t *testing.T) {
			dir := t.TempDir()
			// the microdata file
			micro := writeCellsCSV(t, dir, dimNames[:nd], recs)
			y := fmt.Sprintf("microdata: {dims: [%s]", strings.Join(dimNames[:nd], ", "))
			if value {
				y += ", value: value"
			}
			if holding {
				y += ", holding: hold"
			}
			y += "}\n"
			if value {
				y += "publish: [count, total, mean, sd, min, max]\n"
			}
			s := settings(t, y)
			// the summary, computed by PostgreSQL
			exec(`DROP TABLE IF EXISTS recs`)
			exec(`CREATE TABLE recs (region text, sex text, size text, hold text, value numeric(20, 3))`)
			exec(`INSERT INTO recs VALUES ` + cellsValues(recs))
			rs, err := BuildRules(s)
			if err != nil {
				t.Fatal(err)
			}
			needs := rs.Needs()
			spec := sqlgen.Spec{Table: "recs", Dims: dimNames[:nd], Top: max(2, needs.Top), Powers: max(4, needs.Powers), Scale: 3}
			if value {
				spec.Value = "value"
			}
			if holding {
				spec.Holding = "hold"
			}
			q, err := sqlgen.Query(sqlgen.Postgres, spec)
			if err != nil {
				t.Fatal(err)
			}
			cells, err := copyCells(ctx, t, conn, q, dir)
			if err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			// the same summary as Arrow and Parquet, with exact decimal
			// columns (as an engine exports them)
			summary, err := os.ReadFile(cells)
			if err != nil {
				t.Fatal(err)
			}
			paths := append([]string{cells}, summaryFormats(t, dir, summary)...)
			run := func(path string, isCells bool, out string) *Result {
				return runOne(t, Job{Path: path, Name: "t", Settings: s, Cells: isCells}, out, 4)
			}
			want := run(micro, false, filepath.Join(dir, "micro"))
			for _, path := range paths {
				got := run(path, true, filepath.Join(dir, "out-"+filepath.Ext(path)[1:]))
				compareCellRuns(t, path, want, got, dir)
			}
		})
	}
}

// compareCellRuns compares the audit of a cell summary with the audit of
// the microdata: every cell's key, status and figures, and the safe CSV.
func compareCellRuns(t *testing.T, path string, want, got *Result, dir string) {
	t.Helper()
	wc, gc := want.Tables[0].Cells, got.Tables[0].Cells
	if len(wc) != len(gc) {
		t.Fatalf("%d cells from the summary, %d from the microdata", len(gc), len(wc))
	}
	statuses := map[string]int{}
	for i := range wc {
		w, g := wc[i], gc[i]
		if strings.Join(w.Key, "|") != strings.Join(g.Key, "|") || w.Status != g.Status {
			t.Fatalf("cell %d: summary %v %s, microdata %v %s", i, g.Key, g.Status, w.Key, w.Status)
		}
		if w.N != g.N || w.Rows != g.Rows || w.Missing != g.Missing || w.Negative != g.Negative || w.Total.Cmp(g.Total) != 0 || w.SumSq.Cmp(g.SumSq) != 0 {
			t.Fatalf("cell %v: figures differ: summary %+v, microdata %+v", w.Key, g, w)
		}
		same := w.AllTop == g.AllTop && w.HasRange == g.HasRange && w.Min.Cmp(g.Min) == 0 && w.Max.Cmp(g.Max) == 0 && len(w.Top) == len(g.Top) && len(w.Pow) == len(g.Pow) && w.Stats.Len() == g.Stats.Len()
		for k := range w.Top {
			same = same && w.Top[k].Cmp(g.Top[k]) == 0
		}
		for k := range w.Pow {
			// float power sums (the moment attack's estimate): the
			// summary's are exact, rounded once
			same = same && math.Abs(w.Pow[k]-g.Pow[k]) <= 1e-9*math.Max(1, math.Abs(w.Pow[k])) && math.Abs(w.PowScale-g.PowScale) <= 1e-12*w.PowScale
		}
		for k, v := range w.Stats.All() {
			gv := g.Stats.Of(k)
			if strings.HasPrefix(k, "m") && len(k) > 1 && k[1] >= '0' && k[1] <= '9' && !v.Missing {
				// the raw moment means m1..mK (the moment attack's
				// internal figures, not published here) come from
				// float power sums: the microdata's are accumulated
				// record by record, the summary's are exact
				a, _ := strconv.ParseFloat(v.Text, 64)
				b, _ := strconv.ParseFloat(gv.Text, 64)
				same = same && !gv.Missing && math.Abs(a-b) <= 1e-12*math.Abs(a)
				continue
			}
			same = same && gv.Text == v.Text && gv.Missing == v.Missing
		}
		if !same {
			t.Fatalf("cell %v: figures differ: summary %+v %v %v, microdata %+v %v %v", w.Key, g, g.Pow, g.Stats, w, w.Pow, w.Stats)
		}
		statuses[string(w.Status)]++
	}
	a, err := os.ReadFile(filepath.Join(dir, "micro", "t.safe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out-"+filepath.Ext(path)[1:], "t.safe.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("safe CSV differs:\nsummary:\n%s\nmicrodata:\n%s", b, a)
	}
	t.Logf("%s: %d cells, statuses %v", filepath.Base(path), len(wc), statuses)
}

// summaryFormats writes a cell summary given as CSV as Arrow IPC (file and
// stream) and Parquet, counts as int64, total/min/max as DECIMAL(38, 3),
// power sums as DECIMAL(38, 0) when they fit (text otherwise), and
// returns their paths.
func summaryFormats(t *testing.T, dir string, data []byte) []string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var cols []column
	for i, name := range recs[0] {
		c := column{name: name, typ: arrow.BinaryTypes.String}
		for _, r := range recs[1:] {
			c.cells = append(c.cells, r[i])
		}
		switch {
		case name == "grouping_id" || name == "rows" || name == "n" || name == "missing" || name == "negative":
			c.typ = arrow.PrimitiveTypes.Int64
		case name == "scale":
			c.typ = arrow.PrimitiveTypes.Int32
		case name == "total" || name == "min" || name == "max":
			c.typ = &arrow.Decimal128Type{Precision: 38, Scale: 3}
		case strings.HasPrefix(name, "sum_pow_"):
			fits := true
			for _, v := range c.cells {
				fits = fits && len(strings.TrimPrefix(v, "-")) <= 38
			}
			if fits {
				c.typ = &arrow.Decimal128Type{Precision: 38, Scale: 0}
			}
		}
		cols = append(cols, c)
	}
	var out []string
	for _, p := range writeFormats(t, dir, "summary", cols) {
		switch filepath.Ext(p) {
		case ".arrow", ".arrows", ".parquet":
			out = append(out, p)
		}
	}
	return out
}
