package sqlgen

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sdcaudit/sdcaudit/internal/pgtest"
)

// record is one microdata row; nil value is NULL.
type record struct {
	dims    []string
	holding string
	value   *big.Rat
	text    string
}

// refCell is the independent computation of one cell.
type refCell struct {
	rows, n, missing, negative int64
	total                      *big.Rat
	pow                        []*big.Int
	min, max                   *big.Rat
	top                        []*big.Rat
}

// reference computes every observed cell and margin with math/big,
// straight from the definitions: contributors are holdings (their values
// summed within the cell) or records with a value.
func reference(recs []record, nd int, holding, value bool, k, powers, scale int) map[string]*refCell {
	type acc struct {
		rows, missing int64
		vals          []*big.Rat
		hold          map[string]*big.Rat // nil sum: no value yet
		holdSeen      map[string]bool
	}
	accs := map[string]*acc{}
	for _, r := range recs {
		for mask := 0; mask < 1<<nd; mask++ {
			key := cellKey(mask, nd, func(i int) *string { return &r.dims[i] })
			a := accs[key]
			if a == nil {
				a = &acc{hold: map[string]*big.Rat{}, holdSeen: map[string]bool{}}
				accs[key] = a
			}
			a.rows++
			if value && r.value == nil {
				a.missing++
			}
			switch {
			case holding:
				a.holdSeen[r.holding] = true
				if r.value != nil {
					s := a.hold[r.holding]
					if s == nil {
						s = new(big.Rat)
						a.hold[r.holding] = s
					}
					s.Add(s, r.value)
				}
			case !value || r.value != nil:
				v := r.value
				if !value {
					v = new(big.Rat) // a frequency table counts records only
				}
				a.vals = append(a.vals, v)
			}
		}
	}
	out := map[string]*refCell{}
	unit := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	for key, a := range accs {
		c := &refCell{rows: a.rows, missing: a.missing, total: new(big.Rat)}
		vals := a.vals
		if holding {
			vals = nil
			if value {
				for _, s := range a.hold {
					vals = append(vals, s)
				}
			} else {
				for range a.holdSeen {
					vals = append(vals, new(big.Rat))
				}
			}
		}
		c.n = int64(len(vals))
		sort.Slice(vals, func(i, j int) bool { return vals[i].Cmp(vals[j]) > 0 })
		c.pow = make([]*big.Int, powers)
		for p := range c.pow {
			c.pow[p] = new(big.Int)
		}
		for i, v := range vals {
			c.total.Add(c.total, v)
			if v.Sign() < 0 {
				c.negative++
			}
			m := new(big.Rat).Mul(v, unit)
			if !m.IsInt() {
				panic("a value has more decimals than the scale")
			}
			t := big.NewInt(1)
			for p := range c.pow {
				t.Mul(t, m.Num())
				c.pow[p].Add(c.pow[p], t)
			}
			if i < k {
				c.top = append(c.top, v)
			}
		}
		if len(vals) > 0 {
			c.max, c.min = vals[0], vals[len(vals)-1]
		}
		out[key] = c
	}
	return out
}

// cellKey encodes a cell: the mask, then each dimension's level or "*".
func cellKey(mask, nd int, level func(int) *string) string {
	parts := []string{strconv.Itoa(mask)}
	for i := 0; i < nd; i++ {
		if mask&(1<<(nd-1-i)) != 0 {
			parts = append(parts, "*")
			continue
		}
		if l := level(i); l != nil {
			parts = append(parts, "="+*l)
		} else {
			parts = append(parts, "NULL")
		}
	}
	return strings.Join(parts, "|")
}

// randomRecords draws microdata with ties, negatives, NULL values,
// holdings spanning cells, mixed decimals and empty combinations.
func randomRecords(rng *rand.Rand, nd, nrec, scale int) []record {
	levels := [][]string{{"north", "south", "east"}, {"F", "M"}, {"a", "b", "c", "d"}}
	pool := []string{"12.5", "3.125", "0", "-7.25", "1000", "12.500", "99.999"}
	var recs []record
	for range nrec {
		r := record{dims: make([]string, nd), holding: fmt.Sprintf("h%d", rng.IntN(nrec/3+1))}
		for d := range nd {
			r.dims[d] = levels[d][rng.IntN(len(levels[d]))]
		}
		if nd > 1 && r.dims[0] == "east" {
			r.dims[1] = "F" // east×M stays empty
		}
		switch x := rng.IntN(10); {
		case x == 0:
			// NULL value
		case x < 4:
			r.text = pool[rng.IntN(len(pool))]
		default:
			m := rng.Int64N(2_000_000) - 200_000
			r.text = new(big.Rat).SetFrac(big.NewInt(m), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(rng.IntN(scale+1))), nil)).FloatString(rng.IntN(scale + 1))
		}
		if r.text != "" {
			r.value, _ = new(big.Rat).SetString(r.text)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestPostgresMatchesReference(t *testing.T) {
	conn := pgtest.Start(t)
	ctx := context.Background()
	dimNames := []string{"Region", "sex", "size class"}
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%v\n%s", err, sql)
		}
	}
	exec(`CREATE SCHEMA reg`)
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 16))
		nd := 1 + int(seed%3)
		holding, value := seed%2 == 0, seed%4 != 3
		const scale = 3
		k, powers := 1+int(seed%3), 4
		recs := randomRecords(rng, nd, 20+rng.IntN(120), scale)
		t.Run(fmt.Sprintf("seed%d_dims%d_holding%v_value%v", seed, nd, holding, value), func(t *testing.T) {
			exec(`DROP TABLE IF EXISTS reg.recs`)
			exec(`CREATE TABLE reg.recs ("Region" text, "sex" text, "size class" text, "holding id" text, "value" numeric(20, 3))`)
			var rows []string
			for _, r := range recs {
				cols := []string{"NULL", "NULL", "NULL", "'" + r.holding + "'", "NULL"}
				for d, l := range r.dims {
					cols[d] = "'" + l + "'"
				}
				if r.value != nil {
					cols[4] = r.text
				}
				rows = append(rows, "("+strings.Join(cols, ", ")+")")
			}
			exec(`INSERT INTO reg.recs VALUES ` + strings.Join(rows, ",\n"))
			spec := Spec{Table: "reg.recs", Dims: dimNames[:nd], Top: k, Powers: powers, Scale: scale}
			if value {
				spec.Value = "value"
			}
			if holding {
				spec.Holding = "holding id"
			}
			q, err := Query(Postgres, spec)
			if err != nil {
				t.Fatal(err)
			}
			got := runCells(t, conn, q, spec)
			want := reference(recs, nd, holding, value, k, powers, scale)
			compareCells(t, got, want, value, powers)
		})
	}
}

// pgCell is one row of the query's result, as JSON.
type pgCell map[string]any

func runCells(t *testing.T, conn *pgx.Conn, q string, spec Spec) map[string]pgCell {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT row_to_json(q)::text FROM (\n"+q+") q")
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	out := map[string]pgCell{}
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		c := pgCell{}
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		gid, _ := strconv.Atoi(string(c["grouping_id"].(json.Number)))
		key := cellKey(gid, len(spec.Dims), func(i int) *string {
			if s, ok := c[spec.Dims[i]].(string); ok {
				return &s
			}
			return nil
		})
		for i := range spec.Dims {
			if gid&(1<<(len(spec.Dims)-1-i)) != 0 && c[spec.Dims[i]] != nil {
				t.Errorf("cell %s: aggregated dimension %s is %v, want NULL", key, spec.Dims[i], c[spec.Dims[i]])
			}
		}
		if _, dup := out[key]; dup {
			t.Errorf("cell %s appears twice", key)
		}
		out[key] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	return out
}

func num(t *testing.T, v any) *big.Rat {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		t.Fatalf("not a number: %v", v)
	}
	return r
}

func compareCells(t *testing.T, got map[string]pgCell, want map[string]*refCell, value bool, powers int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d cells, want %d", len(got), len(want))
	}
	eqRat := func(a, b *big.Rat) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		return a.Cmp(b) == 0
	}
	for key, w := range want {
		g, ok := got[key]
		if !ok {
			t.Errorf("cell %s missing", key)
			continue
		}
		ints := map[string]int64{"rows": w.rows, "n": w.n, "missing": w.missing, "negative": w.negative}
		for name, wv := range ints {
			if gv := num(t, g[name]); gv == nil || gv.Cmp(big.NewRat(wv, 1)) != 0 {
				t.Errorf("cell %s: %s = %v, want %d", key, name, g[name], wv)
			}
		}
		if !value {
			continue
		}
		if !eqRat(num(t, g["total"]), w.total) {
			t.Errorf("cell %s: total = %v, want %s", key, g["total"], w.total.FloatString(3))
		}
		if !eqRat(num(t, g["min"]), w.min) || !eqRat(num(t, g["max"]), w.max) {
			t.Errorf("cell %s: min, max = %v, %v, want %v, %v", key, g["min"], g["max"], w.min, w.max)
		}
		for p := 1; p <= powers; p++ {
			name := fmt.Sprintf("sum_pow_%d", p)
			if gv := num(t, g[name]); gv == nil || gv.Cmp(new(big.Rat).SetInt(w.pow[p-1])) != 0 {
				t.Errorf("cell %s: %s = %v, want %s", key, name, g[name], w.pow[p-1])
			}
		}
		top, _ := g["top"].(string)
		var parts []string
		if top != "" {
			parts = strings.Split(top, ";")
		}
		if len(parts) != len(w.top) {
			t.Errorf("cell %s: top = %q, want %d values", key, top, len(w.top))
			continue
		}
		for i, p := range parts {
			r, ok := new(big.Rat).SetString(p)
			if !ok || r.Cmp(w.top[i]) != 0 {
				t.Errorf("cell %s: top = %q, want %v", key, top, w.top)
				break
			}
		}
	}
}

// TestPostgresRefusesBadInput checks that the query fails, rather than
// rounding or merging, on a value with more decimals than declared and on
// a NULL holding id.
func TestPostgresRefusesBadInput(t *testing.T) {
	conn := pgtest.Start(t)
	ctx := context.Background()
	for _, sql := range []string{
		`CREATE TABLE fine (d text, h text, v numeric)`,
		`INSERT INTO fine VALUES ('a', 'h1', 1.25), ('a', 'h2', 2.5)`,
		`CREATE TABLE nullhold (d text, h text, v numeric)`,
		`INSERT INTO nullhold VALUES ('a', 'h1', 1.25), ('a', NULL, 2.5)`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	run := func(spec Spec) error {
		q, err := Query(Postgres, spec)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, q)
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		rows.Close()
		return rows.Err()
	}
	base := Spec{Table: "fine", Dims: []string{"d"}, Value: "v", Holding: "h", Top: 2, Powers: 4, Scale: 2}
	if err := run(base); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	one := base
	one.Scale = 1
	if err := run(one); err == nil || !strings.Contains(err.Error(), "not a decimal number with at most 1 decimals") {
		t.Errorf("value 1.25 with --value-decimals 1: got %v, want the query to fail", err)
	}
	nh := base
	nh.Table = "nullhold"
	if err := run(nh); err == nil || !strings.Contains(err.Error(), "holding id in column h is NULL") {
		t.Errorf("NULL holding: got %v, want the query to fail", err)
	}
}
