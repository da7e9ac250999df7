// Package sqlgen writes the SQL query that computes a table's cell
// summaries in the engine that holds the microdata (PostgreSQL, DuckDB,
// Spark 3, Trino, BigQuery), so that records never leave that engine.
//
// The query computes, for every observed cell of the table and of every
// margin (GROUPING SETS over all subsets of the dimensions), exactly what
// `sdcaudit check` computes from microdata: rows, contributors (distinct
// holdings, else records with a value), missing values, negative
// contributors, the exact total, exact power sums, min, max and the k
// largest contributions. The output schema is specified in docs/cells.md.
//
// The aggregation has two stages per grouping set: stage 1 groups the
// records by the grouping set and the holding (or, without a holding, by
// the value itself, keeping the multiplicity), so that a holding's
// contributions within a cell are summed before the cell is summarised;
// stage 2 summarises each cell. All arithmetic is exact decimal: values
// are read as their text in the engine and cast to a wide DECIMAL with
// the declared scale (the query fails when the text is not a plain
// decimal number with at most that many decimals, instead of rounding),
// power sums are taken over the integer mantissa x·10^scale: in DuckDB in
// limbs of 60 bits (exact whatever the data; the reader recombines them),
// in PostgreSQL in NUMERIC, and in Spark, Trino and BigQuery the query
// fails when the data's power sums could exceed DECIMAL(38).
package sqlgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// Dialect names an SQL engine.
type Dialect string

// The supported dialects.
const (
	Postgres Dialect = "postgres"
	DuckDB   Dialect = "duckdb"
	Spark    Dialect = "spark"
	Trino    Dialect = "trino"
	BigQuery Dialect = "bigquery"
)

// Dialects lists the supported dialect names.
func Dialects() []string {
	return []string{string(BigQuery), string(DuckDB), string(Postgres), string(Spark), string(Trino)}
}

// Limits of a query.
const (
	// MaxDims bounds the dimensions: the query has 2^dims grouping sets.
	MaxDims = 10
	// MaxScale is the largest value scale (decimals) accepted; Spark's
	// is lower (MaxSparkScale) because its decimal arithmetic drops
	// decimals beyond 6 when results exceed 38 digits.
	MaxScale      = 18
	MaxSparkScale = 6
	// MaxPowers and MaxTop bound the power sums and top contributions.
	MaxPowers = 12
	MaxTop    = 100
)

// ErrSpec is wrapped by every error about an invalid Spec.
var ErrSpec = errors.New("sql")

// Spec says which table to summarise and what the rules need.
type Spec struct {
	// Table is the relation holding the microdata, possibly qualified
	// (catalog.schema.table); each dot-separated part is quoted.
	Table string
	// File, instead of Table, is a microdata file the engine reads
	// itself (DuckDB only): a delimited text file (.csv, .tsv, .txt,
	// optionally .gz or .zst) read with read_csv, every column as text
	// (so the values are read exactly as written, as check reads them),
	// or a Parquet file (.parquet, .pq) read with read_parquet.
	File string
	// Delimiter is the delimiter of a delimited File (empty: DuckDB
	// detects it).
	Delimiter string
	// Dims are the grouping dimensions, in the table's order.
	Dims []string
	// Value is the magnitude column; empty for a frequency table.
	Value string
	// Holding is the holding/enterprise id column whose contributions
	// are summed into one contributor; empty when records contribute.
	Holding string
	// Top is the number of largest contributions kept per cell (>= 1).
	Top int
	// Powers is the highest power sum (>= 1).
	Powers int
	// Scale is the number of decimals of the value (its measure step).
	Scale int
	// Hierarchies are child -> parent maps per dimension
	// (suppression.hierarchies and hierarchy files): every level of the
	// hierarchy becomes a cell, as in check's audit of the microdata. A
	// code's chain of parents stops at TotalLabel.
	Hierarchies map[string]map[string]string
	// Leaves are, per dimension with a hierarchy file, the only codes a
	// record may carry (nil: any code that is not a parent).
	Leaves map[string]map[string]bool
	// TotalLabel is the margins' label (default "Total").
	TotalLabel string
}

// MaxHierDepth bounds a chain of parents (as check does).
const MaxHierDepth = 64

// reserved are the output column names of the cell summary.
var reserved = map[string]bool{"grouping_id": true, "rows": true, "n": true, "missing": true, "negative": true,
	"total": true, "min": true, "max": true, "top": true, "scale": true, "meta": true}

// specError is an error of the spec: ErrSpec with the formatted text.
func specError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, a...))
}

func (s *Spec) validate(d Dialect) error {
	if _, ok := dialects[d]; !ok {
		return specError("unknown dialect %q: want one of %s", d, strings.Join(Dialects(), ", "))
	}
	if err := s.validateSource(d); err != nil {
		return err
	}
	if err := s.validateColumns(); err != nil {
		return err
	}
	if err := s.validateHierarchies(); err != nil {
		return err
	}
	return s.validateLimits(d)
}

// validateSource checks the table or file the query reads.
func (s *Spec) validateSource(d Dialect) error {
	switch {
	case s.File != "" && s.Table != "":
		return specError("both a table and a file given")
	case s.File != "":
		if d != DuckDB {
			return specError("%s is a file: the %s query reads a table of the engine; load the file into a table and give its name, or use --dialect duckdb (which reads the file itself)", s.File, d)
		}
		if err := checkName(s.File); err != nil {
			return specError("file %q: %v", s.File, err)
		}
		if fileReader(s.File) == "" {
			return specError("file %q: unknown file type, want .csv, .tsv, .txt (optionally .gz or .zst), .parquet or .pq", s.File)
		}
		if err := checkName(s.Delimiter); s.Delimiter != "" && err != nil {
			return specError("delimiter %q: %v", s.Delimiter, err)
		}
	case s.Table == "":
		return specError("no table given")
	case strings.ContainsRune(s.Table, '/'):
		return specError("table %q looks like a file path: a table name has no '/'", s.Table)
	}
	for _, p := range strings.Split(s.Table, ".") {
		if s.File != "" {
			break
		}
		if err := checkName(p); err != nil {
			return specError("table %q: %v", s.Table, err)
		}
	}
	return nil
}

// validateColumns checks the dimension, value and holding columns' names.
func (s *Spec) validateColumns() error {
	if len(s.Dims) == 0 {
		return specError("at least one dimension is needed (--dims)")
	}
	if len(s.Dims) > MaxDims {
		return specError("%d dimensions: at most %d (the query has 2^dims grouping sets)", len(s.Dims), MaxDims)
	}
	seen := map[string]string{}
	cols := append(append([]string(nil), s.Dims...), s.Value, s.Holding)
	roles := append(make([]string, len(s.Dims)), "value", "holding")
	for i := range s.Dims {
		roles[i] = "dimension"
	}
	for i, c := range cols {
		if c == "" {
			continue
		}
		if err := checkName(c); err != nil {
			return specError("%s column %q: %v", roles[i], c, err)
		}
		low := strings.ToLower(c)
		if strings.HasPrefix(low, "sdc_") {
			return specError("%s column %q: names starting with sdc_ are reserved for the query's own columns", roles[i], c)
		}
		if roles[i] == "dimension" && (reserved[low] || strings.HasPrefix(low, "sum_pow_")) {
			return specError("dimension %q has the name of a cell-summary column; rename it in a view", c)
		}
		if r, ok := seen[low]; ok {
			return specError("column %q is both the %s and the %s", c, r, roles[i])
		}
		seen[low] = roles[i]
	}
	return nil
}

// validateHierarchies checks the codes of the dimensions' hierarchies.
func (s *Spec) validateHierarchies() error {
	isDim := map[string]bool{}
	for _, d := range s.Dims {
		isDim[d] = true
	}
	for d, p := range s.Hierarchies {
		if len(p) == 0 {
			continue
		}
		if !isDim[d] {
			continue // another table's
		}
		for c, par := range p {
			for _, code := range []string{c, par} {
				if err := checkName(code); err != nil {
					return specError("hierarchy of %s: code %q: %v", d, code, err)
				}
			}
		}
		if _, err := ancestors(p, s.total()); err != nil {
			return specError("hierarchy of %s: %v", d, err)
		}
	}
	for d, l := range s.Leaves {
		if l == nil {
			continue
		}
		if !isDim[d] {
			continue
		}
		for c := range l {
			if err := checkName(c); err != nil {
				return specError("hierarchy of %s: code %q: %v", d, c, err)
			}
		}
	}
	return nil
}

// validateLimits checks top-k, the power sums and the value's decimals.
func (s *Spec) validateLimits(d Dialect) error {
	if s.Top < 1 || s.Top > MaxTop {
		return specError("top-k %d: want 1..%d", s.Top, MaxTop)
	}
	if s.Powers < 1 || s.Powers > MaxPowers {
		return specError("powers %d: want 1..%d", s.Powers, MaxPowers)
	}
	maxScale := MaxScale
	if d == Spark {
		maxScale = MaxSparkScale
	}
	if s.Scale < 0 || s.Scale > maxScale {
		return specError("value decimals %d: want 0..%d for %s", s.Scale, maxScale, d)
	}
	return nil
}

// checkName refuses names that cannot be quoted the same way in every
// dialect (and could otherwise break out of a quoted identifier or of the
// metadata string).
func checkName(s string) error {
	if s == "" {
		return errors.New("empty name")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune("\"'`\\", r) {
			return fmt.Errorf("character %q is not allowed in a name", r)
		}
	}
	return nil
}

func (s *Spec) total() string {
	if s.TotalLabel == "" {
		return "Total"
	}
	return s.TotalLabel
}

// hier reports whether dimension d has a hierarchy.
func (s *Spec) hier(d string) bool { return len(s.Hierarchies[d]) > 0 || s.Leaves[d] != nil }

// ancestors returns, for every child code of p, its chain of parents
// (nearest first, the total left out), in code order.
func ancestors(p map[string]string, total string) ([][2]string, error) {
	codes := make([]string, 0, len(p))
	for c := range p {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var out [][2]string
	for _, c := range codes {
		cur := c
		for steps := 0; ; steps++ {
			par, ok := p[cur]
			if !ok || par == total {
				break
			}
			if steps >= MaxHierDepth {
				return nil, fmt.Errorf("a cycle (or more than %d levels) through %q", MaxHierDepth, c)
			}
			out = append(out, [2]string{c, par})
			cur = par
		}
	}
	return out, nil
}

// Meta is the metadata every row of the cell summary carries (column
// meta, as JSON): what was summarised and how.
type Meta struct {
	Schema  int      `json:"schema"`
	Table   string   `json:"table"`
	Dims    []string `json:"dims"`
	Value   string   `json:"value,omitempty"`
	Holding string   `json:"holding,omitempty"`
	Top     int      `json:"k,omitempty"`
	Powers  int      `json:"powers,omitempty"`
	Scale   int      `json:"scale"`
	Engine  string   `json:"engine"`
	// Hierarchies are the dimensions whose hierarchy levels are cells.
	Hierarchies []string `json:"hierarchies,omitempty"`
	// LimbBits, when set, says the power sums are given in limbs:
	// sum_pow_p = Σ_i sum_pow_p_limb_i · 2^(LimbBits·i) (DuckDB).
	LimbBits int `json:"limb_bits,omitempty"`
}

// SchemaVersion is the version of the cell-summary schema (docs/cells.md).
const SchemaVersion = 1

// Query returns the query that computes the cell summaries of s in
// dialect d.
func Query(d Dialect, s Spec) (string, error) {
	if err := s.validate(d); err != nil {
		return "", err
	}
	g := &gen{d: dialects[d], s: &s, name: d}
	return g.query(), nil
}

// gen writes one query.
type gen struct {
	d    *dialect
	s    *Spec
	name Dialect
	b    strings.Builder
}

func (g *gen) q(name string) string { return g.d.quote(name) }

func (g *gen) printf(format string, a ...any) { fmt.Fprintf(&g.b, format, a...) }

func (g *gen) dims() []string {
	out := make([]string, len(g.s.Dims))
	for i, d := range g.s.Dims {
		out[i] = g.q(d)
	}
	return out
}

// IsFile reports whether a TABLE argument names a microdata file rather
// than a relation: it holds a path separator, or ends in the extension of
// a file type read_csv or read_parquet reads.
func IsFile(table string) bool {
	return strings.ContainsAny(table, `/\`) || fileReader(table) != ""
}

// fileReader is the DuckDB table function that reads a file, by its
// extension ("" when unknown).
func fileReader(path string) string {
	low := strings.ToLower(path)
	for _, c := range []string{".gz", ".zst"} {
		low = strings.TrimSuffix(low, c)
	}
	for _, e := range []string{".csv", ".tsv", ".txt"} {
		if strings.HasSuffix(low, e) {
			return "read_csv"
		}
	}
	if strings.HasSuffix(low, ".parquet") || strings.HasSuffix(low, ".pq") {
		if low != strings.ToLower(path) {
			return "" // a compressed Parquet file is not one
		}
		return "read_parquet"
	}
	return ""
}

// name is the table or the file, as the meta and the comment give it.
func (s *Spec) name() string {
	if s.File != "" {
		return s.File
	}
	return s.Table
}

func (g *gen) table() string {
	if f := g.s.File; f != "" {
		// names are checked: no quote, backslash or control character
		if fileReader(f) == "read_parquet" {
			return fmt.Sprintf("read_parquet('%s')", f)
		}
		opts := ""
		if g.s.Delimiter != "" {
			opts = fmt.Sprintf(", delim = '%s'", g.s.Delimiter)
		}
		return fmt.Sprintf("read_csv('%s', header = true, all_varchar = true%s)", f, opts)
	}
	parts := strings.Split(g.s.Table, ".")
	for i, p := range parts {
		parts[i] = g.q(p)
	}
	return strings.Join(parts, ".")
}

func (g *gen) meta() string {
	m := Meta{Schema: SchemaVersion, Table: g.s.name(), Dims: g.s.Dims, Value: g.s.Value, Holding: g.s.Holding, Scale: g.s.Scale, Engine: string(g.name)}
	if g.s.Value != "" {
		m.Top, m.Powers = g.s.Top, g.s.Powers
		if g.d.limbs {
			m.LimbBits = LimbBits
		}
	}
	for _, d := range g.s.Dims {
		if len(g.s.Hierarchies[d]) > 0 {
			m.Hierarchies = append(m.Hierarchies, d)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // names are checked: no quote, backslash or control character
	return strings.TrimSpace(buf.String())
}

func (g *gen) query() string {
	dims := g.dims()
	g.header()
	g.records(dims)
	src := g.levels(dims)
	g.contributors(dims, src)
	from := g.mantissas(dims)
	g.cells(dims, from)
	return g.b.String()
}

// header writes the query's comment lines: schema, source, columns.
func (g *gen) header() {
	s := g.s
	value := s.Value != ""
	holding := s.Holding != ""
	g.printf("-- sdcaudit cell summaries (schema %d, docs/cells.md) for %s, dialect %s\n", SchemaVersion, s.name(), g.name)
	g.printf("-- dims %s", strings.Join(s.Dims, ", "))
	if value {
		g.printf("; value %s (scale %d); top %d; powers 1..%d", s.Value, s.Scale, s.Top, s.Powers)
	}
	if holding {
		g.printf("; holding %s", s.Holding)
	}
	g.printf("\n")

}

// records writes stage 0: the records, with exact types and checked inputs.
func (g *gen) records(dims []string) {
	s := g.s
	value := s.Value != ""
	holding := s.Holding != ""
	dec := g.d.dec(s.Scale)
	sel := make([]string, len(dims))
	for i, d := range s.Dims {
		sel[i] = dims[i]
		if s.hier(d) {
			sel[i] = g.hierCode(d) + " AS " + dims[i]
		}
	}
	src0 := "sdc_src"
	if value && g.d.limbs {
		src0 = "sdc_src0"
	}
	g.printf("WITH %s AS (\n  SELECT %s", src0, strings.Join(sel, ", "))
	if holding {
		h := g.q(s.Holding)
		g.printf(",\n    CASE WHEN %s IS NULL THEN %s ELSE %s END AS sdc_h", h,
			g.d.fail(fmt.Sprintf("sdcaudit: a holding id in column %s is NULL", s.Holding), h, g.d.holdType), g.d.holdCast(h))
	}
	if value {
		// The value is read as its text in the engine (exact for DECIMAL,
		// NUMERIC and text columns; a float's shortest text): the query
		// fails unless that text is a plain decimal number with at most
		// S significant decimals, so the cast below never rounds,
		// whatever the column's type (a text column's '1.234' at scale 2
		// compared with its own cast would round on both sides).
		v := g.q(s.Value)
		txt := fmt.Sprintf("TRIM(CAST(%s AS %s))", v, g.d.str)
		cast := fmt.Sprintf("CAST(%s AS %s)", txt, dec)
		if g.d.fromText != nil {
			cast = g.d.fromText(txt, s.Scale)
		}
		fail := g.d.fail(fmt.Sprintf("sdcaudit: a value in column %s is not a decimal number with at most %d decimals that fits DECIMAL(38, %d) (declare an exact numeric type, or set --value-decimals)", s.Value, s.Scale, s.Scale), v, dec)
		// the branches in this order: the cast only sees matching text
		g.printf(",\n    CASE WHEN %s IS NULL THEN NULL\n      WHEN NOT %s\n      THEN %s\n      WHEN %s IS NULL\n      THEN %s\n      ELSE %s END AS sdc_x",
			v, g.d.match(txt, decimalPattern(s.Scale)), fail, cast, fail, cast)
	}
	g.printf("\n  FROM %s\n),\n", g.table())
	if value && g.d.limbs {
		// the mantissa per record (summed per contributor in stage 1):
		// cheaper than per contributor and grouping set
		g.printf("sdc_src AS (\n  SELECT *, CAST(sdc_x * %s AS %s) AS sdc_xm FROM sdc_src0\n),\n", pow10(s.Scale), g.d.dec0)
	}
}

// topByFunction reports whether the dialect's top-k function gives the
// largest contributions (a value and holdings), not the window.
func (g *gen) topByFunction() bool {
	return g.s.Value != "" && g.s.Holding != "" && g.d.topFunc != nil
}

// mantissas writes stage 1b (with a value): the integer mantissa and, for
// the window top-k, how many of each contribution enter the k largest. It
// returns the relation stage 2 reads.
func (g *gen) mantissas(dims []string) string {
	s := g.s
	value := s.Value != ""
	topFunc := g.topByFunction()
	from := "sdc_c1"
	if value {
		// Stage 1b: the integer mantissa and, for the window top-k, how
		// many of each contribution enter the k largest.
		if g.d.limbs {
			g.printf(",\nsdc_c2 AS (\n  SELECT sdc_c1.*,\n    sdc_cm AS sdc_m")
		} else {
			g.printf(",\nsdc_c2 AS (\n  SELECT sdc_c1.*,\n    CAST(sdc_cx * %s AS %s) AS sdc_m", pow10(s.Scale), g.d.dec0)
		}
		if !topFunc {
			part := strings.Join(append([]string{"sdc_gid"}, dims...), ", ")
			g.printf(",\n    LEAST(sdc_mult, GREATEST(%d - (SUM(sdc_mult) OVER (PARTITION BY %s ORDER BY sdc_cx DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - sdc_mult), 0)) AS sdc_take", s.Top, part)
		}
		if g.d.limbs {
			g.limbCols()
		}
		g.printf("\n  FROM sdc_c1\n)")
		from = "sdc_c2"
		if g.d.limbs {
			from = g.limbPowers()
		}
	}

	return from
}

// cells writes stage 2: one row per cell, from the relation from.
func (g *gen) cells(dims []string, from string) {
	s := g.s
	value := s.Value != ""
	holding := s.Holding != ""
	topFunc := g.topByFunction()
	g.printf("\nSELECT %s,\n  sdc_gid AS %s,\n", strings.Join(dims, ", "), g.q("grouping_id"))
	g.printf("  CAST(SUM(sdc_rows) AS %s) AS %s,\n", g.d.bigint, g.q("rows"))
	g.printf("  CAST(SUM(sdc_mult) AS %s) AS %s,\n", g.d.bigint, g.q("n"))
	if value {
		g.printf("  CAST(SUM(sdc_missing) AS %s) AS %s,\n", g.d.bigint, g.q("missing"))
		g.printf("  CAST(SUM(CASE WHEN sdc_cx < 0 THEN sdc_mult ELSE 0 END) AS %s) AS %s,\n", g.d.bigint, g.q("negative"))
		g.printf("  COALESCE(SUM(sdc_mult * sdc_cx), 0) AS %s,\n", g.q("total"))
		g.printf("  MIN(sdc_cx) AS %s,\n  MAX(sdc_cx) AS %s,\n", g.q("min"), g.q("max"))
		if topFunc {
			g.printf("  COALESCE(%s, '') AS %s,\n", g.d.topFunc(s.Top), g.q("top"))
		} else {
			g.printf("  COALESCE(%s, '') AS %s,\n", g.d.topWindow, g.q("top"))
		}
		g.printf("  %d AS %s,\n", s.Scale, g.q("scale"))
		for p := 1; p <= s.Powers && g.d.limbs; p++ {
			for k := range limbCount(p) {
				term := fmt.Sprintf("sdc_mult * sdc_p%d_%d", p, k)
				if p%2 == 1 {
					term = "sdc_sg * " + term
				}
				g.printf("  CAST(COALESCE(SUM(%s), 0) AS %s) AS %s,\n", term, g.d.dec0, g.q(fmt.Sprintf("sum_pow_%d_limb_%d", p, k)))
			}
		}
		for p := 1; p <= s.Powers && !g.d.limbs; p++ {
			sum := fmt.Sprintf("COALESCE(SUM(sdc_mult * %s), 0)", g.power(p))
			if p == s.Powers && g.d.guard {
				sum = g.guarded(sum, holding)
			}
			g.printf("  %s AS %s,\n", sum, g.q(fmt.Sprintf("sum_pow_%d", p)))
		}
	} else {
		g.printf("  CAST(0 AS %s) AS %s,\n  CAST(0 AS %s) AS %s,\n", g.d.bigint, g.q("missing"), g.d.bigint, g.q("negative"))
	}
	g.printf("  '%s' AS %s\n", g.meta(), g.q("meta"))
	g.printf("FROM %s\nGROUP BY %s\n", from, strings.Join(append([]string{"sdc_gid"}, dims...), ", "))
	order := []string{fmt.Sprint(len(dims) + 1)}
	for i := range dims {
		order = append(order, fmt.Sprint(i+1))
	}
	g.printf("ORDER BY %s\n", strings.Join(order, ", "))
}

// contributors writes stage 1, the contributions per grouping set and
// contributor key (holding, else value).
func (g *gen) contributors(dims []string, src string) {
	value := g.s.Value != ""
	holding := g.s.Holding != ""
	key := ""
	switch {
	case holding:
		key = "sdc_h"
	case value:
		key = "sdc_x"
	}
	g.printf("sdc_c1 AS (\n  SELECT %s,\n    ", strings.Join(dims, ", "))
	var gid []string
	var free []string // the dimensions rolled up by GROUPING SETS
	for i, d := range dims {
		if g.s.hier(g.s.Dims[i]) {
			// its total is a level of the expansion (levels)
			gid = append(gid, fmt.Sprintf("sdc_t%d * %d", i, 1<<(len(dims)-1-i)))
			continue
		}
		free = append(free, d)
		gid = append(gid, fmt.Sprintf("GROUPING(%s) * %d", d, 1<<(len(dims)-1-i)))
	}
	g.printf("%s AS sdc_gid,\n    COUNT(*) AS sdc_rows", strings.Join(gid, " + "))
	switch {
	case value && holding:
		g.printf(",\n    COUNT(*) - COUNT(sdc_x) AS sdc_missing,\n    SUM(sdc_x) AS sdc_cx,\n    CASE WHEN COUNT(sdc_x) > 0 THEN 1 ELSE 0 END AS sdc_mult")
		if g.d.limbs {
			g.printf(",\n    SUM(sdc_xm) AS sdc_cm")
		}
	case value:
		g.printf(",\n    COUNT(*) - COUNT(sdc_x) AS sdc_missing,\n    sdc_x AS sdc_cx,\n    COUNT(sdc_x) AS sdc_mult")
		if g.d.limbs {
			g.printf(",\n    MIN(sdc_xm) AS sdc_cm")
		}
	case holding:
		g.printf(",\n    1 AS sdc_mult")
	default:
		g.printf(",\n    COUNT(*) AS sdc_mult")
	}
	g.printf("\n  FROM %s\n  GROUP BY GROUPING SETS (", src)
	for mask := 0; mask < 1<<len(free); mask++ {
		var set []string
		for i, d := range dims {
			if g.s.hier(g.s.Dims[i]) {
				set = append(set, d, fmt.Sprintf("sdc_t%d", i))
				continue
			}
			if mask&(1<<(len(free)-1-indexOf(free, d))) == 0 {
				set = append(set, d)
			}
		}
		if key != "" {
			set = append(set, key)
		}
		if mask > 0 {
			g.printf(", ")
		}
		g.printf("(%s)", strings.Join(set, ", "))
	}
	g.printf(")\n)")
}

// power returns the expression of the p-th power of the mantissa, cast
// to the wide integer type after every product.
func (g *gen) power(p int) string {
	e := "sdc_m"
	for i := 2; i <= p; i++ {
		e = fmt.Sprintf("CAST(%s * sdc_m AS %s)", e, g.d.dec0)
	}
	return e
}

// LimbBits is the bits of a power-sum limb (docs/cells.md): the base is
// B = 2^60, so that limbs are split with shifts and masks (a 128-bit
// division by a power of ten costs a hundred times more in DuckDB). A limb
// is below 2B + 5 (see limbPowers), so a sum of three products of two,
// or of 9.2·10^18 limbs, fits a 128-bit integer and DECIMAL(38, 0).
const LimbBits = 60

// limbCount is the limbs of |m|^p for a mantissa |m| < 10^38: the
// smallest n with 2^(60n) >= 10^(38p).
func limbCount(p int) int {
	v := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(38*p)), nil)
	return (v.BitLen() + LimbBits - 1) / LimbBits
}

// limbMask is B - 1.
func limbMask() string {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), LimbBits), big.NewInt(1)).String()
}

// limbCols writes, in stage 1b, the sign of the mantissa and the limbs of
// its absolute value: sdc_p1_k, k = 0..2, |m| = Σ sdc_p1_k·2^(60k)
// (sdc_p1_2 < 76).
func (g *gen) limbCols() {
	mask := limbMask()
	g.printf(",\n    CAST(ABS(sdc_m) AS %s) AS sdc_a,\n    CASE WHEN sdc_m < 0 THEN -1 ELSE 1 END AS sdc_sg", g.d.limbInt)
	g.printf(",\n    sdc_a & %s AS sdc_p1_0,\n    (sdc_a >> %d) & %s AS sdc_p1_1,\n    sdc_a >> %d AS sdc_p1_2", mask, LimbBits, mask, 2*LimbBits)
}

// limbPowers writes, per power p = 2..P, two CTEs: sdc_vP, the
// convolution of the limbs of |m|^(p-1) and of |m| (each column a sum
// of at most three products, below 4B² + ... < 2^123), and sdc_lP, its
// limbs after moving each column's carries one and two places up. That
// keeps every limb below 2B + 5 (not fully normalised, but exact:
// Σ limb_k·B^k = |m|^p) without a chain of carries through the columns,
// so that each limb costs a bounded number of operations. Limbs are
// non-negative and |m|^p < B^limbCount(p), so the positions beyond
// limbCount(p) are 0. It returns the last CTE.
func (g *gen) limbPowers() string {
	mask := limbMask()
	prev := "sdc_c2"
	for p := 2; p <= g.s.Powers; p++ {
		n, np := limbCount(p), limbCount(p-1)
		g.printf(",\nsdc_v%d AS (\n  SELECT %s.*", p, prev)
		for k := range n {
			var terms []string
			for i := max(0, k-2); i <= k && i < np; i++ {
				terms = append(terms, fmt.Sprintf("sdc_p%d_%d * sdc_p1_%d", p-1, i, k-i))
			}
			if len(terms) == 0 {
				terms = []string{fmt.Sprintf("CAST(0 AS %s)", g.d.limbInt)}
			}
			g.printf(",\n    %s AS sdc_v%d_%d", strings.Join(terms, " + "), p, k)
		}
		g.printf("\n  FROM %s\n),\nsdc_l%d AS (\n  SELECT sdc_v%d.*", prev, p, p)
		for k := range n {
			e := fmt.Sprintf("(sdc_v%d_%d & %s)", p, k, mask)
			if k >= 1 {
				e += fmt.Sprintf(" + ((sdc_v%d_%d >> %d) & %s)", p, k-1, LimbBits, mask)
			}
			if k >= 2 {
				e += fmt.Sprintf(" + (sdc_v%d_%d >> %d)", p, k-2, 2*LimbBits)
			}
			g.printf(",\n    %s AS sdc_p%d_%d", e, p, k)
		}
		g.printf("\n  FROM sdc_v%d\n)", p)
		prev = fmt.Sprintf("sdc_l%d", p)
	}
	return prev
}

// guarded makes the highest power sum fail when Σ n·|m|^P (in floating
// point, a bound on every partial sum of every power of the integers m,
// and on every product) could exceed 10^37, or when a holding's sum
// overflowed to NULL (Spark without ANSI mode).
func (g *gen) guarded(sum string, holding bool) string {
	cond := fmt.Sprintf("SUM(sdc_mult * POWER(ABS(CAST(sdc_m AS %s)), %d)) >= 1e37", g.d.double, g.s.Powers)
	if holding {
		cond += " OR SUM(CASE WHEN sdc_mult > 0 AND sdc_m IS NULL THEN 1 ELSE 0 END) > 0"
	}
	return fmt.Sprintf("CASE WHEN %s\n    THEN %s\n    ELSE %s END", cond,
		g.d.fail("sdcaudit: a power sum may exceed DECIMAL(38): lower --powers or rescale the value", "", g.d.dec0), sum)
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// hierCode is a hierarchical dimension's code as text, checked: a record
// carrying a parent code (it would be counted twice in its subtotal) or,
// with a hierarchy file, a code the file does not list makes the query
// fail, as check refuses such a record.
func (g *gen) hierCode(d string) string {
	code := fmt.Sprintf("CAST(%s AS %s)", g.q(d), g.d.str)
	var conds []string
	parents := map[string]bool{}
	for _, par := range g.s.Hierarchies[d] {
		if par != g.s.total() {
			parents[par] = true
		}
	}
	if len(parents) > 0 {
		conds = append(conds, fmt.Sprintf("%s IN (%s)", code, litList(parents)))
	}
	if l := g.s.Leaves[d]; l != nil {
		conds = append(conds, fmt.Sprintf("%s IS NULL OR %s NOT IN (%s)", code, code, litList(l)))
	}
	if len(conds) == 0 {
		return code
	}
	return fmt.Sprintf("CASE WHEN %s\n      THEN %s\n      ELSE %s END", strings.Join(conds, " OR "),
		g.d.fail(fmt.Sprintf("sdcaudit: a code in column %s is a parent code of its hierarchy or not in its hierarchy file; records must carry the codes below", d), g.q(d), g.d.str), code)
}

// litList is a sorted list of string literals (codes are checked: no
// quote, backslash or control character).
func litList(set map[string]bool) string {
	codes := make([]string, 0, len(set))
	for c := range set {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for i, c := range codes {
		codes[i] = "'" + c + "'"
	}
	return strings.Join(codes, ", ")
}

// levels writes, per dimension with a hierarchy, the expansion of each
// record into its margin levels in that dimension: the code itself, each
// of its ancestors (a join with the code -> ancestor pairs), and the total
// (the level NULL, sdc_tI = 1). Such a dimension is then in every grouping
// set, and its total is told apart by sdc_tI instead of GROUPING. It
// returns the relation stage 1 reads.
func (g *gen) levels(dims []string) string {
	src := "sdc_src"
	var carried []string
	for i, d := range g.s.Dims {
		if !g.s.hier(d) {
			continue
		}
		pairs, _ := ancestors(g.s.Hierarchies[d], g.s.total()) // checked by validate
		if len(pairs) > 0 {
			g.printf("%s,\n", g.d.pairs(fmt.Sprintf("sdc_a%d", i), pairs))
		}
		cols := func(level string) string {
			var out []string
			for j, x := range dims {
				if j == i {
					out = append(out, level+" AS "+x)
				} else {
					out = append(out, "s."+x)
				}
			}
			if g.s.Holding != "" {
				out = append(out, "s.sdc_h")
			}
			if g.s.Value != "" {
				out = append(out, "s.sdc_x")
				if g.d.limbs {
					out = append(out, "s.sdc_xm")
				}
			}
			for _, c := range carried {
				out = append(out, "s."+c)
			}
			return strings.Join(out, ", ")
		}
		g.printf("sdc_e%d AS (\n  SELECT %s, 0 AS sdc_t%d FROM %s s\n", i, cols("s."+dims[i]), i, src)
		if len(pairs) > 0 {
			g.printf("  UNION ALL\n  SELECT %s, 0 AS sdc_t%d FROM %s s JOIN sdc_a%d a ON s.%s = a.sdc_code\n", cols("a.sdc_lvl"), i, src, i, dims[i])
		}
		g.printf("  UNION ALL\n  SELECT %s, 1 AS sdc_t%d FROM %s s\n),\n", cols(fmt.Sprintf("CAST(NULL AS %s)", g.d.str)), i, src)
		src = fmt.Sprintf("sdc_e%d", i)
		carried = append(carried, fmt.Sprintf("sdc_t%d", i))
	}
	return src
}

func pow10(s int) string { return "1" + strings.Repeat("0", s) }

// decimalPattern is the regular expression (the same in every engine: no
// backslash, character classes only) of a plain decimal number whose
// decimals beyond the scale are zeros: an optional sign, digits, and an
// optional point with at most scale digits then only zeros. Exponents,
// NaN, infinities, blanks and thousands separators do not match.
func decimalPattern(scale int) string {
	if scale == 0 {
		return "^[+-]?([0-9]+([.]0*)?|[.]0+)$"
	}
	return fmt.Sprintf("^[+-]?([0-9]+([.][0-9]{0,%d}0*)?|[.][0-9]{1,%d}0*)$", scale, scale)
}
