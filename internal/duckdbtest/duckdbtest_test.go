package duckdbtest

import (
	"strings"
	"testing"
)

// TestRun: statements run in order on a database that keeps its state
// between calls; the last statement's rows come back as JSON with exact
// decimals; an engine error comes back as DuckDB's message.
func TestRun(t *testing.T) {
	db := Start(t)
	db.MustRun(t, "CREATE TABLE t (x DECIMAL(38, 3)); INSERT INTO t VALUES (12345678901234567890123456789.125)")
	rows := db.MustRun(t, "SELECT CAST(x * 2 AS DECIMAL(38, 3)) AS y FROM t")
	if len(rows) != 1 || rows[0] != `{"y":"24691357802469135780246913578.250"}` {
		t.Fatalf("rows %q", rows)
	}
	if _, err := db.Run("SELECT error('sdcaudit: stop')"); err == nil || !strings.Contains(err.Error(), "sdcaudit: stop") {
		t.Fatalf("error %v, want DuckDB's message", err)
	}
	if q := Quote("it's"); q != "'it''s'" {
		t.Fatalf("Quote: %s", q)
	}
}
