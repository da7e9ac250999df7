package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/readers"
)

// raceJointWork is the secondary suppression's joint search's work budget
// (Options.JointWork, suppress.JointOptions.Work) under the race detector
// in the tests whose subject is not that search's quality, as in
// audit/suppress's tests: a tenth of the default 30,000 units, which the
// race detector makes several times slower to spend (its dense master
// LPs). Whatever the budget, the pattern kept is one the interval audit
// verified (the lp and hypercube methods still run beside the joint
// one), and these tests check what they check on that pattern; the
// plain run keeps the default budget.
const raceJointWork = 3_000

// parallelNote: the heaviest tests that share nothing with others (their
// own temporary files and servers, no package state, GOMAXPROCS left as
// it is) run in parallel with each other, after the sequential tests:
// the race detector's binary then uses both cores when the other package
// of go test's pair is idle. Each still checks what it checks alone.

// testJointWork is Options.JointWork of those tests: raceJointWork under
// the race detector, else 0 (the default).
func testJointWork() float64 {
	if raceEnabled {
		return raceJointWork
	}
	return 0
}

// Frequency or magnitude is one fact of the table (audit.Table.Frequency):
// an aggregate table whose total column is suppressed in every cell has no
// magnitude to protect, so its suppression options protect the counts
// with the protection a count needs (at least 1), as for any frequency
// table; a total published in one cell makes it a magnitude table.
func TestSuppressOptionsFrequencyOneFact(t *testing.T) {
	s := settings(t, "columns: {dims: [region], count: n, total: x}\ntotal_label: Total\nmarkers: [c]\n")
	for _, tc := range []struct {
		csv  string
		want string
	}{
		{"region,n,x\nA,3,c\nB,4,c\nTotal,7,c\n", "count"},
		{"region,n,x\nA,3,c\nB,4,10\nTotal,7,c\n", ""},
	} {
		src, err := readers.NewCSV("in.csv", strings.NewReader(tc.csv), readers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tab, err := LoadTable(context.Background(), src, s)
		if err != nil {
			t.Fatal(err)
		}
		opt := SuppressOptions(tab, s, 1)
		if string(opt.Role) != tc.want || (tc.want == "count") != (opt.Protection.Min == 1) {
			t.Errorf("%q: value %q, minimum protection %v; want %q", tc.csv, opt.Role, opt.Protection.Min, tc.want)
		}
		if tab.Frequency() != (tc.want == "count") {
			t.Errorf("%q: Frequency() = %v", tc.csv, tab.Frequency())
		}
	}
}
