package sqlgen

import (
	"fmt"
	"strings"
)

// dialect holds what differs between engines.
type dialect struct {
	quote func(string) string
	// dec is the exact decimal type of a value with the given scale;
	// dec0 the wide integer type of mantissas and power sums.
	dec    func(scale int) string
	dec0   string
	bigint string
	double string
	// fail returns an expression of type typ ("" when any type will do)
	// that makes the query fail with msg; col is a column the expression
	// may depend on (so that the engine cannot evaluate it while planning).
	fail func(msg, col, typ string) string
	// holdType is the type fail must have for a holding id; holdCast
	// converts a holding id to it.
	holdType string
	holdCast func(string) string
	// topFunc is the engine's own top-k aggregate over sdc_cx (nil when
	// it has none); topWindow builds the ';'-separated list from the
	// window's sdc_take instead.
	topFunc   func(k int) string
	topWindow string
	// guard adds the overflow check (engines whose exact type is bounded).
	guard bool
	// limbs computes the power sums in limbs (LimbBits bits, exact in
	// the engine's 128-bit integer whatever the data; its >> and &)
	// instead of guarding them: limbInt is that integer type.
	limbs   bool
	limbInt string
	// str is the text type hierarchy codes are compared in (and values
	// are read as).
	str string
	// fromText, when set, casts checked decimal text to dec(scale)
	// (default: CAST(txt AS dec(scale))).
	fromText func(txt string, scale int) string
	// match is a boolean expression: the text txt matches the regular
	// expression pat in full (pat has no quote or backslash).
	match func(txt, pat string) string
	// pairs writes a common table expression of (sdc_code, sdc_lvl)
	// string pairs (default: VALUES with the CTE's column list).
	pairs func(name string, rows [][2]string) string
}

// valuesPairs is the CTE name (sdc_code, sdc_lvl) AS (VALUES ...).
func valuesPairs(name string, rows [][2]string) string {
	return fmt.Sprintf("%s (sdc_code, sdc_lvl) AS (\n  VALUES%s\n)", name, pairRows(rows))
}

// pairRows is the comma-separated ('code', 'level') rows, one a line
// (codes are checked: no quote, backslash or control character).
func pairRows(rows [][2]string) string {
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    ('%s', '%s')", r[0], r[1])
	}
	return b.String()
}

func doubleQuote(s string) string { return `"` + s + `"` }
func backQuote(s string) string   { return "`" + s + "`" }
func same(s string) string        { return s }

// lit is a string literal; messages never contain a quote or backslash.
func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "") + "'" }

var dialects = map[Dialect]*dialect{
	// PostgreSQL: NUMERIC is arbitrary precision (no overflow below
	// 131072 digits), so the only guard is on the input. It has no error
	// function: a cast of the message to integer fails with the message,
	// and concat() with a column keeps the planner from folding it.
	Postgres: {
		quote:  doubleQuote,
		dec:    func(s int) string { return fmt.Sprintf("NUMERIC(1000, %d)", s) },
		dec0:   "NUMERIC",
		bigint: "BIGINT",
		double: "DOUBLE PRECISION",
		fail: func(msg, col, typ string) string {
			if col == "" {
				col = "''"
			}
			e := fmt.Sprintf("CAST(concat(%s, CAST(%s AS text), '') AS integer)", lit(msg+"; the value: "), col)
			if typ != "" {
				e = fmt.Sprintf("CAST(%s AS %s)", e, typ)
			}
			return e
		},
		holdType:  "text",
		holdCast:  func(h string) string { return "CAST(" + h + " AS text)" },
		topWindow: "rtrim(string_agg(repeat(CAST(sdc_cx AS text) || ';', CAST(sdc_take AS integer)), '' ORDER BY sdc_cx DESC), ';')",
		str:       "text",
		match:     func(txt, pat string) string { return fmt.Sprintf("(%s ~ '%s')", txt, pat) },
		pairs:     valuesPairs,
	},
	// DuckDB: DECIMAL(38, s) (a HUGEINT) raises an error on overflow;
	// max(x, k) returns the k largest values as a list. Power sums are
	// computed in limbs (HUGEINT, its >> and &, and its SELECT list's
	// references to earlier aliases), so that no data overflows them.
	DuckDB: {
		quote:  doubleQuote,
		dec:    func(s int) string { return fmt.Sprintf("DECIMAL(38, %d)", s) },
		dec0:   "DECIMAL(38, 0)",
		bigint: "BIGINT",
		double: "DOUBLE",
		fail: func(msg, _, typ string) string {
			return castTo(fmt.Sprintf("error(%s)", lit(msg)), typ)
		},
		holdCast: same,
		topFunc: func(k int) string {
			return fmt.Sprintf("array_to_string(max(sdc_cx, %d) FILTER (WHERE sdc_mult > 0), ';')", k)
		},
		topWindow: "rtrim(string_agg(repeat(CAST(sdc_cx AS VARCHAR) || ';', CAST(sdc_take AS BIGINT)), '' ORDER BY sdc_cx DESC), ';')",
		// DuckDB casts text to DECIMAL(38, s) a hundred times slower
		// than to DECIMAL(18, s): text short enough to fit the latter
		// (at most 18-s characters, so at most 18-s integer digits) takes
		// that way; the cast between decimals is exact.
		fromText: func(txt string, s int) string {
			if s >= 18 {
				return fmt.Sprintf("CAST(%s AS DECIMAL(38, %d))", txt, s)
			}
			return fmt.Sprintf("CASE WHEN length(%s) <= %d THEN CAST(CAST(%s AS DECIMAL(18, %d)) AS DECIMAL(38, %d)) ELSE CAST(%s AS DECIMAL(38, %d)) END", txt, 18-s, txt, s, s, txt, s)
		},
		limbs:   true,
		limbInt: "HUGEINT",
		str:     "VARCHAR",
		match:   func(txt, pat string) string { return fmt.Sprintf("regexp_full_match(%s, '%s')", txt, pat) },
		pairs:   valuesPairs,
	},
	// Spark 3 (3.1+ for raise_error): DECIMAL(38, s); without ANSI mode
	// an overflow gives NULL, which the guard turns into an error. No
	// top-k aggregate: the window, then a sorted list of (value, take).
	Spark: {
		quote:  backQuote,
		dec:    func(s int) string { return fmt.Sprintf("DECIMAL(38, %d)", s) },
		dec0:   "DECIMAL(38, 0)",
		bigint: "BIGINT",
		double: "DOUBLE",
		fail: func(msg, _, typ string) string {
			return castTo(fmt.Sprintf("raise_error(%s)", lit(msg)), typ)
		},
		holdCast:  same,
		topWindow: "array_join(flatten(transform(sort_array(collect_list(CASE WHEN sdc_take > 0 THEN struct(sdc_cx, sdc_take) END), false), e -> array_repeat(CAST(e.sdc_cx AS STRING), CAST(e.sdc_take AS INT)))), ';')",
		guard:     true,
		str:       "STRING",
		match:     func(txt, pat string) string { return fmt.Sprintf("(%s RLIKE '%s')", txt, pat) },
		pairs:     valuesPairs,
	},
	// Trino: DECIMAL(38, s) raises "Decimal overflow"; max(x, n) returns
	// an array of the n largest values.
	Trino: {
		quote:  doubleQuote,
		dec:    func(s int) string { return fmt.Sprintf("DECIMAL(38, %d)", s) },
		dec0:   "DECIMAL(38, 0)",
		bigint: "BIGINT",
		double: "DOUBLE",
		fail: func(msg, _, typ string) string {
			return castTo(fmt.Sprintf("fail(%s)", lit(msg)), typ)
		},
		holdCast: same,
		topFunc: func(k int) string {
			return fmt.Sprintf("array_join(transform(max(sdc_cx, %d), e -> CAST(e AS varchar)), ';')", k)
		},
		topWindow: "array_join(flatten(array_agg(repeat(CAST(sdc_cx AS varchar), CAST(sdc_take AS integer)) ORDER BY sdc_cx DESC) FILTER (WHERE sdc_take > 0)), ';')",
		guard:     true,
		str:       "varchar",
		match:     func(txt, pat string) string { return fmt.Sprintf("regexp_like(%s, '%s')", txt, pat) },
		pairs:     valuesPairs,
	},
	// BigQuery: parameterised BIGNUMERIC(38+s, s) rounds to s decimals on
	// a cast (hence the input check) and raises an error on overflow; ARRAY_AGG ... ORDER BY ... LIMIT k is its top-k.
	BigQuery: {
		quote:  backQuote,
		dec:    func(s int) string { return fmt.Sprintf("BIGNUMERIC(%d, %d)", 38+s, s) },
		dec0:   "BIGNUMERIC(38, 0)",
		bigint: "INT64",
		double: "FLOAT64",
		fail: func(msg, _, typ string) string {
			return castTo(fmt.Sprintf("ERROR(%s)", lit(msg)), typ)
		},
		holdCast: same,
		topFunc: func(k int) string {
			return fmt.Sprintf("ARRAY_TO_STRING(ARRAY_AGG(CAST(sdc_cx AS STRING) IGNORE NULLS ORDER BY sdc_cx DESC LIMIT %d), ';')", k)
		},
		topWindow: "RTRIM(STRING_AGG(REPEAT(CAST(sdc_cx AS STRING) || ';', sdc_take), '' ORDER BY sdc_cx DESC), ';')",
		guard:     true,
		str:       "STRING",
		match:     func(txt, pat string) string { return fmt.Sprintf("REGEXP_CONTAINS(%s, '%s')", txt, pat) },
		// no VALUES in BigQuery: an array of typed structs
		pairs: func(name string, rows [][2]string) string {
			return fmt.Sprintf("%s AS (\n  SELECT * FROM UNNEST(ARRAY<STRUCT<sdc_code STRING, sdc_lvl STRING>>[%s])\n)", name, pairRows(rows))
		},
	},
}

func castTo(e, typ string) string {
	if typ == "" {
		return e
	}
	return "CAST(" + e + " AS " + typ + ")"
}
