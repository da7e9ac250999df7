package sqlgen

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sdcaudit/sdcaudit/internal/duckdbtest"
	"github.com/sdcaudit/sdcaudit/internal/pgtest"
)

// duckCells runs the DuckDB query q and returns its cells in the form of
// runCells (numbers as json.Number), the limbs of each power sum
// recombined: sum_pow_p = Σ_i sum_pow_p_limb_i·2^(60i).
func duckCells(t *testing.T, db *duckdbtest.DB, setup, q string, spec Spec) (map[string]pgCell, error) {
	t.Helper()
	if setup != "" {
		setup += ";\n"
	}
	lines, err := db.Run(setup + "SELECT CAST(to_json(q) AS VARCHAR) AS j FROM (\n" + q + ") q")
	if err != nil {
		return nil, err
	}
	out := map[string]pgCell{}
	for _, l := range lines {
		var row struct{ J string }
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(row.J))
		dec.UseNumber()
		c := pgCell{}
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		if spec.Value != "" {
			for p := 1; p <= spec.Powers; p++ {
				name := fmt.Sprintf("sum_pow_%d", p)
				if _, ok := c[name]; ok {
					continue // whole (TestGuardFromData's query)
				}
				sum := new(big.Int)
				base := new(big.Int).Lsh(big.NewInt(1), LimbBits)
				weight := big.NewInt(1)
				for i := 0; ; i++ {
					v, ok := c[fmt.Sprintf("%s_limb_%d", name, i)]
					if !ok {
						if i != limbCount(p) {
							t.Fatalf("%s has %d limbs, want %d", name, i, limbCount(p))
						}
						break
					}
					x, ok := new(big.Int).SetString(string(v.(json.Number)), 10)
					if !ok {
						t.Fatalf("%s_limb_%d = %v", name, i, v)
					}
					sum.Add(sum, new(big.Int).Mul(x, weight))
					weight.Mul(weight, base)
				}
				c[name] = json.Number(sum.String())
			}
		}
		gid, _ := strconv.Atoi(string(c["grouping_id"].(json.Number)))
		key := cellKey(gid, len(spec.Dims), func(i int) *string {
			if s, ok := c[spec.Dims[i]].(string); ok {
				return &s
			}
			return nil
		})
		if _, dup := out[key]; dup {
			t.Errorf("cell %s appears twice", key)
		}
		out[key] = c
	}
	return out, nil
}

// loadDuck is the statements that create reg.recs with the value column
// of the given type and insert the records (the value as a string
// literal, cast by DuckDB).
func loadDuck(recs []record, valueType string) string {
	var rows []string
	for _, r := range recs {
		cols := []string{"NULL", "NULL", "NULL", duckdbtest.Quote(r.holding), "NULL"}
		for d, l := range r.dims {
			cols[d] = duckdbtest.Quote(l)
		}
		if r.value != nil {
			cols[4] = duckdbtest.Quote(r.text)
		}
		rows = append(rows, "("+strings.Join(cols, ", ")+")")
	}
	return `CREATE SCHEMA IF NOT EXISTS reg; DROP TABLE IF EXISTS reg.recs;
CREATE TABLE reg.recs ("Region" VARCHAR, "sex" VARCHAR, "size class" VARCHAR, "holding id" VARCHAR, "value" ` + valueType + `);
INSERT INTO reg.recs VALUES ` + strings.Join(rows, ",\n")
}

// hugeRecords draws records whose values have up to digits integer
// digits and scale decimals, with ties, negatives and NULLs.
func hugeRecords(rng *rand.Rand, nd, nrec, scale, digits int) []record {
	recs := randomRecords(rng, nd, nrec, scale)
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	var prev string
	for i := range recs {
		if recs[i].value == nil {
			continue
		}
		if prev != "" && rng.IntN(5) == 0 {
			recs[i].text = prev // a tie
		} else {
			// a random length, then random digits: all magnitudes
			digs := make([]byte, 1+rng.IntN(digits+scale))
			for j := range digs {
				digs[j] = byte('0' + rng.IntN(10))
			}
			m, _ := new(big.Int).SetString(string(digs), 10)
			if rng.IntN(3) == 0 {
				m.Neg(m)
			}
			recs[i].text = new(big.Rat).SetFrac(m, unit).FloatString(scale)
		}
		recs[i].value, _ = new(big.Rat).SetString(recs[i].text)
		prev = recs[i].text
	}
	return recs
}

// TestDuckDBMatchesReference: the DuckDB query run on DuckDB itself gives
// every cell's figures exactly as math/big computes them from the
// records, including power sums far beyond DECIMAL(38) (values up to
// 10^18 with 3 decimals, and mantissas up to 10^36, at powers 4 and 6),
// which the query computes in limbs.
func TestDuckDBMatchesReference(t *testing.T) {
	db := duckdbtest.Start(t)
	dimNames := []string{"Region", "sex", "size class"}
	type tc struct {
		name                    string
		seed                    uint64
		scale, digits, n, power int
		typ                     string
	}
	var cases []tc
	for seed := uint64(1); seed <= 8; seed++ {
		cases = append(cases, tc{fmt.Sprintf("random%d", seed), seed, 3, 0, 20 + int(seed*37%120), 4, "DECIMAL(20, 3)"})
	}
	cases = append(cases,
		tc{"text3", 9, 3, 0, 150, 4, "VARCHAR"},
		tc{"huge1e18", 10, 3, 18, 120, 4, "DECIMAL(38, 3)"},
		tc{"huge1e18holding", 12, 2, 18, 120, 6, "DECIMAL(38, 2)"},
		tc{"mantissa1e36", 14, 0, 36, 12, 4, "DECIMAL(38, 0)"},
		tc{"mantissa1e36text", 16, 2, 34, 12, 5, "VARCHAR"},
	)
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(c.seed, 16))
		nd := 1 + int(c.seed%3)
		holding, value := c.seed%2 == 0, c.seed%4 != 3
		k := 1 + int(c.seed%3)
		var recs []record
		if c.digits == 0 {
			recs = randomRecords(rng, nd, c.n, c.scale)
		} else {
			recs = hugeRecords(rng, nd, c.n, c.scale, c.digits)
		}
		t.Run(fmt.Sprintf("%s_dims%d_holding%v_value%v", c.name, nd, holding, value), func(t *testing.T) {
			spec := Spec{Table: "reg.recs", Dims: dimNames[:nd], Top: k, Powers: c.power, Scale: c.scale}
			if value {
				spec.Value = "value"
			}
			if holding {
				spec.Holding = "holding id"
			}
			q, err := Query(DuckDB, spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := duckCells(t, db, loadDuck(recs, c.typ), q, spec)
			if err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			compareCells(t, got, reference(recs, nd, holding, value, k, c.power, c.scale), value, c.power)
		})
	}
}

// TestRefusesInexactValues: in DuckDB and PostgreSQL, a value the query
// cannot read exactly at the declared scale makes the query fail with
// its message instead of being rounded, whatever the column's type: a
// text column holding 3 decimals at scale 2 (DuckDB compared the rounded
// cast with the text cast the same way and let it pass), text that is no
// number, a float's exponent; trailing zeros and an integer column are
// read.
func TestRefusesInexactValues(t *testing.T) {
	const msg = "is not a decimal number with at most"
	type tc struct {
		typ, val string
		scale    int
		ok       bool
	}
	cases := []tc{
		{"text", "1.234", 2, false},
		{"text", "1.23", 2, true},
		{"text", "1.2300", 2, true},
		{"text", "+.5", 2, true},
		{"text", "-5.", 0, true},
		{"text", " -0.25 ", 2, true},
		{"text", "1.5000000000000000000000000", 2, true},
		{"text", "123456789012345678901234567890.25", 2, true},
		{"text", "1.2.3", 2, false},
		{"text", "1,5", 2, false},
		{"text", "NaN", 2, false},
		{"text", "-0.5", 0, false},
		{"text", "12", 0, true},
		{"text", "abc", 2, false},
		{"text", "1e3", 2, false},
		{"text", "", 2, false},
		{"numeric(20, 3)", "1.234", 2, false},
		{"numeric(20, 3)", "1.230", 2, true},
		{"integer", "17", 0, true},
		{"double", "0.125", 2, false},
		{"double", "0.25", 2, true},
		{"double", "1e20", 2, false},
	}
	duck := duckdbtest.Start(t)
	pg := startPG(t)
	for i, c := range cases {
		for _, d := range []Dialect{DuckDB, Postgres} {
			t.Run(fmt.Sprintf("%d_%s_%s_%q_scale%d", i, d, strings.Fields(c.typ)[0], c.val, c.scale), func(t *testing.T) {
				spec := Spec{Table: "v", Dims: []string{"d"}, Value: "x", Top: 2, Powers: 4, Scale: c.scale}
				q, err := Query(d, spec)
				if err != nil {
					t.Fatal(err)
				}
				typ := c.typ
				if d == DuckDB {
					typ = strings.NewReplacer("text", "VARCHAR", "numeric", "DECIMAL", "double", "DOUBLE").Replace(typ)
				} else if typ == "double" {
					typ = "double precision"
				}
				setup := fmt.Sprintf("DROP TABLE IF EXISTS v; CREATE TABLE v (d %s, x %s); INSERT INTO v VALUES ('a', CAST(%s AS %s)), ('b', NULL)",
					map[Dialect]string{DuckDB: "VARCHAR", Postgres: "text"}[d], typ, duckdbtest.Quote(c.val), typ)
				var got map[string]pgCell
				if d == DuckDB {
					got, err = duckCells(t, duck, setup, q, spec)
				} else {
					pg.exec(t, setup)
					got, err = pg.cells(t, q, spec)
				}
				if !c.ok {
					if err == nil || !strings.Contains(err.Error(), msg) {
						t.Fatalf("value %q (%s) at scale %d: got %v, want the query to fail with %q", c.val, c.typ, c.scale, err, msg)
					}
					return
				}
				if err != nil {
					t.Fatalf("value %q (%s) at scale %d: %v", c.val, c.typ, c.scale, err)
				}
				norm := map[string]string{"+.5": "0.5", "-5.": "-5", " -0.25 ": "-0.25"}
				text := c.val
				if n, ok := norm[text]; ok {
					text = n
				}
				want, ok := new(big.Rat).SetString(text)
				if !ok {
					t.Fatalf("test case %q: not a number", text)
				}
				if tot := num(t, got["1|*"]["total"]); tot == nil || tot.Cmp(want) != 0 {
					t.Fatalf("total %v, want %s", got["1|*"]["total"], c.val)
				}
			})
		}
	}
}

// pgDB is a private PostgreSQL server for the tests that run a query on
// both engines.
type pgDB struct{ conn *pgx.Conn }

func startPG(t *testing.T) *pgDB { return &pgDB{conn: pgtest.Start(t)} }

func (p *pgDB) exec(t *testing.T, sql string) {
	t.Helper()
	if _, err := p.conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
}

// cells is runCells returning the query's error.
func (p *pgDB) cells(t *testing.T, q string, spec Spec) (map[string]pgCell, error) {
	t.Helper()
	rows, err := p.conn.Query(context.Background(), "SELECT row_to_json(q)::text FROM (\n"+q+") q")
	if err != nil {
		return nil, err
	}
	var texts []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		texts = append(texts, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return runCells(t, p.conn, q, spec), nil
}

// TestDuckDBReadsFile: given a file path, the DuckDB query reads the CSV
// itself, every column as text, so values with 3 decimals are read
// exactly (and refused at scale 2), and a Parquet file with read_parquet.
func TestDuckDBReadsFile(t *testing.T) {
	db := duckdbtest.Start(t)
	rng := rand.New(rand.NewPCG(5, 23))
	recs := randomRecords(rng, 2, 300, 3)
	var b strings.Builder
	b.WriteString("Region,sex,holding id,value\n")
	for _, r := range recs {
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", r.dims[0], r.dims[1], r.holding, r.text)
	}
	csvPath := filepath.Join(db.Dir(), "micro data.csv")
	if err := os.WriteFile(csvPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(db.Dir(), "micro.parquet")
	db.MustRun(t, fmt.Sprintf("COPY (SELECT \"Region\", sex, \"holding id\", CAST(value AS DECIMAL(20, 3)) AS value FROM read_csv(%s, all_varchar = true)) TO %s (FORMAT parquet)", duckdbtest.Quote(csvPath), duckdbtest.Quote(pq)))
	for _, file := range []string{csvPath, pq} {
		spec := Spec{File: file, Dims: []string{"Region", "sex"}, Value: "value", Holding: "holding id", Top: 2, Powers: 4, Scale: 3}
		q, err := Query(DuckDB, spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := duckCells(t, db, "", q, spec)
		if err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		compareCells(t, got, reference(recs, 2, true, true, 2, 4, 3), true, 4)
		spec.Scale = 2
		q, _ = Query(DuckDB, spec)
		if _, err := duckCells(t, db, "", q, spec); err == nil || !strings.Contains(err.Error(), "not a decimal number with at most 2 decimals") {
			t.Errorf("%s at scale 2: got %v, want the query to refuse 3 decimals", file, err)
		}
	}
}

// TestGuardFromData runs the overflow guard of Spark, Trino and BigQuery
// (the query without limbs, guarded) on DuckDB: it passes data whose
// fourth power sums fit DECIMAL(38) although n·max|m|^4 does not (one
// value of 2.5 million among 20,000 small ones; the old per-cell bound
// refused it), with exact sums, and it refuses with its message, before
// an engine overflow, data whose power sums could exceed 10^37.
func TestGuardFromData(t *testing.T) {
	db := duckdbtest.Start(t)
	guarded := *dialects[DuckDB]
	guarded.limbs, guarded.guard = false, true
	query := func(spec Spec) string {
		if err := spec.validate(DuckDB); err != nil {
			t.Fatal(err)
		}
		g := &gen{d: &guarded, s: &spec, name: DuckDB}
		return g.query()
	}
	spec := Spec{Table: "reg.recs", Dims: []string{"Region"}, Value: "value", Top: 2, Powers: 4, Scale: 2}
	rng := rand.New(rand.NewPCG(11, 4))
	recs := make([]record, 20000)
	for i := range recs {
		recs[i] = record{dims: []string{[]string{"north", "south"}[rng.IntN(2)]}, holding: "h", text: fmt.Sprintf("%d.%02d", rng.IntN(10000), rng.IntN(100))}
	}
	recs[7].text = "2500000.00"
	for i := range recs {
		recs[i].value, _ = new(big.Rat).SetString(recs[i].text)
	}
	got, err := duckCells(t, db, loadDuck(recs, "DECIMAL(20, 2)"), query(spec), spec)
	if err != nil {
		t.Fatalf("data whose power sums fit: %v", err)
	}
	// the guarded query gives the sums whole: compare them as they are
	for _, c := range got {
		for p := 1; p <= 4; p++ {
			if _, ok := c[fmt.Sprintf("sum_pow_%d", p)]; !ok {
				t.Fatalf("no sum_pow_%d", p)
			}
		}
	}
	compareCells(t, got, reference(recs, 1, false, true, 2, 4, 2), true, 4)

	// m = 2.66·10^9: m^4 ≈ 5·10^37 fits DECIMAL(38), so no engine
	// overflow comes first (a larger m overflows a product: an engine
	// error, or NULL in Spark, which the guard then catches)
	huge := []record{
		{dims: []string{"north"}, text: "26600000.00"},
		{dims: []string{"north"}, text: "3.00"},
		{dims: []string{"south"}, text: "1.00"},
	}
	for i := range huge {
		huge[i].holding = "h"
		huge[i].value, _ = new(big.Rat).SetString(huge[i].text)
	}
	if _, err := duckCells(t, db, loadDuck(huge, "DECIMAL(20, 2)"), query(spec), spec); err == nil || !strings.Contains(err.Error(), "a power sum may exceed DECIMAL(38)") {
		t.Fatalf("m = 2.66·10^9 at powers 4: got %v, want the guard's message", err)
	}
}
