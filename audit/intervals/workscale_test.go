package intervals

import "testing"

// TestScaledWorkBoundsEntries: the exact bounds' iteration budgets bound
// the work also on a component of few rows and many cells (the
// million-cell table: 2,001 rows and 1,263,581 entries, where an
// iteration reads every entry), and stay as they were on components up
// to workRows rows and workEntries entries (every component of the
// tests has under 20,000 entries).
func TestScaledWorkBoundsEntries(t *testing.T) {
	for _, c := range []struct{ b, m, e, want int }{
		{1_000_000, 601, 20_000, 1_000_000},
		{1_000_000, 2500, 69_003, 1_000_000}, // the whole 50x40x10 table
		{300_000, 2500, workEntries, 300_000},
		{1_000_000, 5000, 50_000, 500_000},
		{1_000_000, 601, 113_725, 615_519},
		{1_000_000, 2001, 1_263_581, 55_398},
		{1_000, 2001, 1_263_581, 55},
		{1_000_000, 10_000, 100_000, 250_000},
		{1_000_000, 5_000, 200_000, 350_000},
	} {
		got := scaledWork(c.b, c.m, c.e)
		if got != c.want {
			t.Errorf("scaledWork(%d, %d rows, %d entries) = %d, want %d", c.b, c.m, c.e, got, c.want)
		}
		// the work the budget allows, in rows and in entries, is at
		// most the budget's at the sizes it was set for
		if int64(got)*int64(max(c.m, workRows)) > int64(c.b)*workRows {
			t.Errorf("scaledWork(%d, %d, %d) = %d: over the rows' bound", c.b, c.m, c.e, got)
		}
		if int64(got)*int64(max(c.e, workEntries)) > int64(c.b)*workEntries {
			t.Errorf("scaledWork(%d, %d, %d) = %d: over the entries' bound", c.b, c.m, c.e, got)
		}
	}
}
