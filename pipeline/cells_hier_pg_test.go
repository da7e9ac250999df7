package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/internal/pgtest"
	"github.com/sdcaudit/sdcaudit/sqlgen"
)

// TestCellsHierarchyMatchMicrodataPostgres: with hierarchies (a YAML map
// on sector, a hierarchy file on district, a third dimension without
// one), the postgres query of sqlgen run on a real server and read with
// Job.Cells gives exactly the cells (every subtotal level), figures,
// statuses and safe CSV of the audit of the same microdata (without
// secondary suppression).
func TestCellsHierarchyMatchMicrodataPostgres(t *testing.T) {
	t.Parallel() // heavy and independent (its own files, no shared state): see parallelNote
	conn := pgtest.Start(t)
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
	}
	hrc, err := filepath.Abs("../testdata/hierarchy/districts.hrc")
	if err != nil {
		t.Fatal(err)
	}
	districts := []string{"N11", "N12", "N21", "S11", "S21", "S22", "S23", "W"}
	sectors := []string{"C10", "C11", "D35", "F41", "G"} // C10, C11 < C < BCD; D35 < BCD; F41 < F; G alone
	sizes := []string{"small", "large"}
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1313))
		holding, value := seed%2 == 0, seed%4 != 3
		nd := 2 + int(seed%2) // district, sector[, size]
		recs := randomCellsRecords(rng, 1, 30+rng.IntN(500))
		for i := range recs {
			r := &recs[i]
			r.dims = []string{districts[rng.IntN(len(districts))], sectors[rng.IntN(len(sectors))], sizes[rng.IntN(2)]}[:nd]
			if r.dims[0] == "W" {
				r.dims[1] = "G" // W x the rest stays empty
			}
		}
		t.Run(fmt.Sprintf("seed%d_dims%d_holding%v_value%v_n%d", seed, nd, holding, value, len(recs)), func(t *testing.T) {
			dir := t.TempDir()
			dimNames := []string{"district", "sector", "size"}[:nd]
			micro := writeCellsCSV(t, dir, dimNames, recs)
			y := fmt.Sprintf("microdata: {dims: [%s]", strings.Join(dimNames, ", "))
			if value {
				y += ", value: value"
			}
			if holding {
				y += ", holding: hold"
			}
			y += "}\n"
			if value {
				y += "publish: [count, total, mean, min, max]\n"
			}
			y += fmt.Sprintf("suppression:\n  hierarchies: {sector: {C10: C, C11: C, C: BCD, D35: BCD, F41: F}}\n  hierarchy_files: {district: %q}\n", hrc)
			// the cells' figures and primary statuses do not depend on
			// secondary suppression (minutes under -race on these
			// hierarchical tables); equal cells give equal suppression
			// (TestCellsMatchMicrodataPostgres runs it)
			y += "  secondary: false\n  audit: false\n"
			s := settings(t, y)
			exec(`DROP TABLE IF EXISTS hrecs`)
			exec(`CREATE TABLE hrecs (district text, sector text, size text, hold text, value numeric(20, 3))`)
			exec(`INSERT INTO hrecs VALUES ` + cellsValues(recs))
			rs, err := BuildRules(s)
			if err != nil {
				t.Fatal(err)
			}
			needs := rs.Needs()
			spec := sqlgen.Spec{Table: "hrecs", Dims: dimNames, Top: max(2, needs.Top), Powers: max(4, needs.Powers), Scale: 3,
				Hierarchies: s.Suppression.Hierarchies, Leaves: s.Suppression.Leaves, TotalLabel: s.TotalLabel}
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
			run := func(path string, isCells bool, out string) *Result {
				return runOne(t, Job{Path: path, Name: "t", Settings: s, Cells: isCells}, out, 4)
			}
			want := run(micro, false, filepath.Join(dir, "micro"))
			// the subtotal levels are cells
			levels := map[string]bool{}
			for _, c := range want.Tables[0].Cells {
				levels[c.Key[0]] = true
				levels[c.Key[1]] = true
			}
			for _, l := range []string{"N", "N1", "S2", "C", "BCD", "F"} {
				if !levels[l] {
					t.Fatalf("the microdata audit has no level %s", l)
				}
			}
			got := run(cells, true, filepath.Join(dir, "out-csv"))
			compareCellRuns(t, cells, want, got, dir)
		})
	}
}

// A record carrying a parent code makes the query fail (check refuses it
// too), and a summary computed without the configured hierarchies is
// refused when read.
func TestCellsHierarchyRefusalsPostgres(t *testing.T) {
	conn := pgtest.Start(t)
	ctx := context.Background()
	for _, sql := range []string{`DROP TABLE IF EXISTS hbad`, `CREATE TABLE hbad (sector text, value numeric(20, 2))`,
		`INSERT INTO hbad VALUES ('C10', 5), ('C11', 7), ('C', 3), ('F41', 1)`} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	s := settings(t, "microdata: {dims: [sector], value: value}\nsuppression:\n  hierarchies: {sector: {C10: C, C11: C}}\n")
	spec := sqlgen.Spec{Table: "hbad", Dims: []string{"sector"}, Value: "value", Top: 2, Powers: 4, Scale: 2, Hierarchies: s.Suppression.Hierarchies, TotalLabel: s.TotalLabel}
	q, err := sqlgen.Query(sqlgen.Postgres, spec)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY ("+q+") TO STDOUT WITH CSV HEADER"); err == nil || !strings.Contains(err.Error(), "is a parent code") {
		t.Fatalf("a record with a parent code: %v", err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM hbad WHERE sector = 'C'`); err != nil {
		t.Fatal(err)
	}
	spec.Hierarchies = nil
	if q, err = sqlgen.Query(sqlgen.Postgres, spec); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY ("+q+") TO STDOUT WITH CSV HEADER"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cells := filepath.Join(dir, "cells.csv")
	if err := os.WriteFile(cells, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, []Job{{Path: cells, Name: "t", Settings: s, Cells: true}}, Options{Out: filepath.Join(dir, "out")})
	if err == nil || !strings.Contains(err.Error(), "hierarchy levels of [], the configuration has hierarchies for [sector]") {
		t.Fatalf("a summary without the hierarchy: %v", err)
	}
}
