package cells

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdcaudit/sdcaudit/readers"
)

// The grid that finds a record's finest cell grows as levels appear (16
// per dimension at first) and is given up past 1<<maxGridBits entries;
// cells agree with the per-record oracle across both, with 1 and 3
// shards. (The last case has more combinations than maxCrossCells, so
// that only observed cells are built.)
func TestGridGrowsAndGivesUp(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 5))
	for _, levels := range [][]int{{40, 3}, {300, 20, 2}, {17, 17, 5}, {3000, 2000, 2}} {
		nd := len(levels)
		var b strings.Builder
		var hdr []string
		for d := range nd {
			hdr = append(hdr, fmt.Sprintf("d%d", d))
		}
		b.WriteString(strings.Join(append(hdr, "h", "v"), ",") + "\n")
		var recs [][]string
		for i := 0; i < 6000; i++ {
			rec := make([]string, nd+2)
			for d, n := range levels {
				// levels appear over the whole file, so the grid grows late
				rec[d] = fmt.Sprintf("L%d", r.IntN(1+n*(i+1)/6000))
			}
			rec[nd] = fmt.Sprintf("H%d", r.IntN(500))
			rec[nd+1] = fmt.Sprintf("%d.%d", r.IntN(1000)-100, r.IntN(10))
			recs = append(recs, rec)
			b.WriteString(strings.Join(rec, ",") + "\n")
		}
		s := settings(t, fmt.Sprintf("microdata: {dims: [%s], value: v, holding: h}\npublish: [count, total]\nsuppression: {secondary: false, audit: false}\n"+
			// the sparse case implies 9 M cells (only the observed ones are built): above the default limits
			"input: {max_cells: 100000000, max_cells_per_record: 10000}\n", strings.Join(hdr, ", ")))
		rs, err := ruleNeeds(s)
		if err != nil {
			t.Fatal(err)
		}
		want := microOracle(recs, nd, true)
		for _, workers := range []int{1, 3} {
			src, err := readers.NewCSV("in.csv", strings.NewReader(b.String()), readers.Options{BatchSize: 97})
			if err != nil {
				t.Fatal(err)
			}
			tab, err := loadSource(context.Background(), src, s, workers)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstOracle(t, tab, want, rs.needs.Top)
		}
	}
}
