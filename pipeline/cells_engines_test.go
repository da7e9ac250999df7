package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/duckdbtest"
	"github.com/sdcaudit/sdcaudit/internal/pgtest"
	"github.com/sdcaudit/sdcaudit/sqlgen"
)

// engineCase is one microdata set run through an engine's query and
// through check: the value column's SQL type, the declared scale, and
// whether the query must refuse the data.
type engineCase struct {
	name    string
	recs    []cellsRecord
	nd      int
	holding bool
	typ     string // the value column's type: "decimal" (exact, wide enough) or "text"
	scale   int
	refuse  string // the query's error, when it must refuse
}

// engineCases are the cases of issue 23's "done means": values with 2
// and 3 decimals, a text-typed value column (read exactly, or refused
// when it holds more decimals than declared), and values up to 10^18 with
// holdings, at the default --powers (4).
func engineCases() []engineCase {
	rng := rand.New(rand.NewPCG(23, 11))
	withDecimals := func(recs []cellsRecord, dec int) []cellsRecord {
		for i := range recs {
			if recs[i].value == "" {
				continue
			}
			r, _ := new(big.Rat).SetString(recs[i].value)
			// cut to dec decimals (exactly: the text of a multiple of 10^-dec)
			u := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil)
			m := new(big.Int).Quo(new(big.Int).Mul(r.Num(), u), r.Denom())
			recs[i].value = new(big.Rat).SetFrac(m, u).FloatString(rng.IntN(dec + 1))
		}
		return recs
	}
	positive := func(recs []cellsRecord) []cellsRecord {
		for i := range recs {
			recs[i].value = strings.TrimPrefix(recs[i].value, "-")
		}
		return recs
	}
	huge := func(recs []cellsRecord) []cellsRecord {
		for i := range recs {
			if recs[i].value == "" || rng.IntN(3) == 0 {
				continue // keep some small values, ties and missing ones
			}
			digs := make([]byte, 1+rng.IntN(21)) // up to 10^18 with 3 decimals
			for j := range digs {
				digs[j] = byte('0' + rng.IntN(10))
			}
			m, _ := new(big.Int).SetString(string(digs), 10)
			if rng.IntN(4) == 0 {
				m.Neg(m)
			}
			recs[i].value = new(big.Rat).SetFrac(m, big.NewInt(1000)).FloatString(3)
		}
		return recs
	}
	return []engineCase{
		{name: "dec2", recs: positive(withDecimals(randomCellsRecords(rng, 2, 2500), 2)), nd: 2, typ: "decimal", scale: 2},
		{name: "dec3holding", recs: randomCellsRecords(rng, 3, 1500), nd: 3, holding: true, typ: "decimal", scale: 3},
		{name: "text3", recs: positive(randomCellsRecords(rng, 2, 800)), nd: 2, holding: true, typ: "text", scale: 3},
		{name: "text3at2", recs: randomCellsRecords(rng, 1, 300), nd: 1, typ: "text", scale: 2, refuse: "is not a decimal number with at most 2 decimals"},
		{name: "dec3at2", recs: randomCellsRecords(rng, 1, 300), nd: 1, typ: "decimal", scale: 2, refuse: "is not a decimal number with at most 2 decimals"},
		{name: "huge1e18holding", recs: positive(huge(randomCellsRecords(rng, 2, 400))), nd: 2, holding: true, typ: "decimal", scale: 3},
		{name: "huge1e18", recs: huge(randomCellsRecords(rng, 3, 300)), nd: 3, typ: "decimal", scale: 3},
	}
}

// summarise runs the query of an engine on the microdata CSV (loaded
// with the value column of type typ) and returns the paths of the cell
// summaries it exported, or the query's error.
type summarise func(t *testing.T, dir, micro string, dims []string, typ, q string) ([]string, error)

// testCellsEngine checks, for every engine case, that the engine's
// summary read with check --cells gives the statuses, figures and safe
// CSV bytes of check on the microdata, or that the query refuses what it
// cannot read exactly.
func testCellsEngine(t *testing.T, d sqlgen.Dialect, run summarise) {
	dimNames := []string{"region", "sex", "size"}
	for _, c := range engineCases() {
		t.Run(fmt.Sprintf("%s_dims%d_holding%v_n%d", c.name, c.nd, c.holding, len(c.recs)), func(t *testing.T) {
			dir := t.TempDir()
			dims := dimNames[:c.nd]
			micro := writeCellsCSV(t, dir, dims, c.recs)
			y := fmt.Sprintf("microdata: {dims: [%s], value: value", strings.Join(dims, ", "))
			if c.holding {
				y += ", holding: hold"
			}
			y += "}\npublish: [count, total, mean, sd]\n"
			s := settings(t, y)
			rs, err := BuildRules(s)
			if err != nil {
				t.Fatal(err)
			}
			needs := rs.Needs()
			spec := sqlgen.Spec{Table: "recs", Dims: dims, Value: "value", Top: max(2, needs.Top), Powers: max(4, needs.Powers), Scale: c.scale}
			if c.holding {
				spec.Holding = "hold"
			}
			q, err := sqlgen.Query(d, spec)
			if err != nil {
				t.Fatal(err)
			}
			paths, err := run(t, dir, micro, dims, c.typ, q)
			if c.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), c.refuse) {
					t.Fatalf("got %v, want the query to fail with %q", err, c.refuse)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			runJob := func(path string, isCells bool, out string) *Result {
				return runOne(t, Job{Path: path, Name: "t", Settings: s, Cells: isCells}, out, 2)
			}
			want := runJob(micro, false, filepath.Join(dir, "micro"))
			for _, path := range paths {
				got := runJob(path, true, filepath.Join(dir, "out-"+filepath.Ext(path)[1:]))
				compareCellRuns(t, path, want, got, dir)
			}
		})
	}
}

// TestCellsMatchMicrodataDuckDB: the duckdb query run on DuckDB itself
// (the microdata read with read_csv, the summary written by DuckDB's COPY
// as CSV and Parquet) gives, through check --cells, the statuses, figures
// and safe CSV of check on the microdata: 2 and 3 decimals, a VARCHAR
// value column (read exactly; refused at a scale below its decimals), and
// values up to 10^18 with holdings at the default --powers, whose fourth
// power sums (about 10^84) DuckDB computes in limbs.
func TestCellsMatchMicrodataDuckDB(t *testing.T) {
	db := duckdbtest.Start(t)
	testCellsEngine(t, sqlgen.DuckDB, func(t *testing.T, dir, micro string, dims []string, typ, q string) ([]string, error) {
		vt := map[string]string{"decimal": "DECIMAL(38, 3)", "text": "VARCHAR"}[typ]
		var cols []string
		for _, d := range append(append([]string(nil), dims...), "hold") {
			cols = append(cols, fmt.Sprintf("'%s': 'VARCHAR'", d))
		}
		cols = append(cols, "'value': '"+vt+"'")
		csvOut, pqOut := filepath.Join(dir, "cells.csv"), filepath.Join(dir, "cells.parquet")
		_, err := db.Run(fmt.Sprintf(`DROP TABLE IF EXISTS recs;
CREATE TABLE recs AS SELECT * FROM read_csv(%s, header = true, columns = {%s});
COPY (%s) TO %s (HEADER);
COPY (%s) TO %s (FORMAT parquet)`, duckdbtest.Quote(micro), strings.Join(cols, ", "), q, duckdbtest.Quote(csvOut), q, duckdbtest.Quote(pqOut)))
		return []string{csvOut, pqOut}, err
	})
}

// TestCellsMatchMicrodataPostgresEngineCases: the same cases on
// PostgreSQL (a text column, values up to 10^18 with holdings).
func TestCellsMatchMicrodataPostgresEngineCases(t *testing.T) {
	conn := pgtest.Start(t)
	ctx := context.Background()
	testCellsEngine(t, sqlgen.Postgres, func(t *testing.T, dir, micro string, dims []string, typ, q string) ([]string, error) {
		vt := map[string]string{"decimal": "numeric(40, 3)", "text": "text"}[typ]
		var cols []string
		for _, d := range append(append([]string(nil), dims...), "hold") {
			cols = append(cols, d+" text")
		}
		cols = append(cols, "value "+vt)
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS recs; CREATE TABLE recs ("+strings.Join(cols, ", ")+")"); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(micro)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY recs FROM STDIN WITH CSV HEADER"); err != nil {
			t.Fatal(err)
		}
		cells, err := copyCells(ctx, t, conn, q, dir)
		if err != nil {
			return nil, err
		}
		return []string{cells}, nil
	})
}

// TestCellsHierarchyMatchMicrodataDuckDB: with hierarchies (a YAML map
// on sector, a hierarchy file on district), the duckdb query (its power
// sums in limbs, the mantissa carried through the levels' expansion) run
// on DuckDB and read with check --cells gives the cells, figures,
// statuses and safe CSV of check on the microdata.
func TestCellsHierarchyMatchMicrodataDuckDB(t *testing.T) {
	db := duckdbtest.Start(t)
	hrc, err := filepath.Abs("../testdata/hierarchy/districts.hrc")
	if err != nil {
		t.Fatal(err)
	}
	districts := []string{"N11", "N12", "N21", "S11", "S21", "S22", "S23", "W"}
	sectors := []string{"C10", "C11", "D35", "F41", "G"}
	sizes := []string{"small", "large"}
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1717))
		holding := seed%2 == 0
		nd := 2 + int(seed%2)
		recs := randomCellsRecords(rng, 1, 100+rng.IntN(400))
		for i := range recs {
			r := &recs[i]
			r.dims = []string{districts[rng.IntN(len(districts))], sectors[rng.IntN(len(sectors))], sizes[rng.IntN(2)]}[:nd]
			if r.dims[0] == "W" {
				r.dims[1] = "G"
			}
		}
		t.Run(fmt.Sprintf("seed%d_dims%d_holding%v_n%d", seed, nd, holding, len(recs)), func(t *testing.T) {
			dir := t.TempDir()
			dimNames := []string{"district", "sector", "size"}[:nd]
			micro := writeCellsCSV(t, dir, dimNames, recs)
			y := fmt.Sprintf("microdata: {dims: [%s], value: value", strings.Join(dimNames, ", "))
			if holding {
				y += ", holding: hold"
			}
			y += "}\npublish: [count, total, mean, sd]\n"
			y += fmt.Sprintf("suppression:\n  hierarchies: {sector: {C10: C, C11: C, C: BCD, D35: BCD, F41: F}}\n  hierarchy_files: {district: %q}\n", hrc)
			y += "  secondary: false\n  audit: false\n"
			s := settings(t, y)
			rs, err := BuildRules(s)
			if err != nil {
				t.Fatal(err)
			}
			needs := rs.Needs()
			spec := sqlgen.Spec{Table: "hrecs", Dims: dimNames, Value: "value", Top: max(2, needs.Top), Powers: max(4, needs.Powers), Scale: 3,
				Hierarchies: s.Suppression.Hierarchies, Leaves: s.Suppression.Leaves, TotalLabel: s.TotalLabel}
			if holding {
				spec.Holding = "hold"
			}
			q, err := sqlgen.Query(sqlgen.DuckDB, spec)
			if err != nil {
				t.Fatal(err)
			}
			cells := filepath.Join(dir, "cells.csv")
			db.MustRun(t, fmt.Sprintf(`DROP TABLE IF EXISTS hrecs;
CREATE TABLE hrecs AS SELECT * FROM read_csv(%s, header = true, all_varchar = true);
COPY (%s) TO %s (HEADER)`, duckdbtest.Quote(micro), q, duckdbtest.Quote(cells)))
			runJob := func(path string, isCells bool, out string) *Result {
				return runOne(t, Job{Path: path, Name: "t", Settings: s, Cells: isCells}, out, 2)
			}
			want := runJob(micro, false, filepath.Join(dir, "micro"))
			got := runJob(cells, true, filepath.Join(dir, "out-csv"))
			compareCellRuns(t, cells, want, got, dir)
		})
	}
}
