package suppress

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/audit/internal/tabletest"
)

// scaleTable is tabletest.ScaleTable.
func scaleTable(seed uint64, sizes []int, share float64) *audit.Table {
	return tabletest.ScaleTable(seed, sizes, share)
}

// TestLPMethodScale protects medium tables with both methods, audits the
// results (every primary protected) and logs time and cost.
func TestLPMethodScale(t *testing.T) {
	if os.Getenv("SDCAUDIT_LPSCALE") == "" {
		t.Skip("logs cost and time of both methods on medium tables; set SDCAUDIT_LPSCALE=1 to run")
	}
	for _, sz := range scaleSizes {
		for _, share := range []float64{0.05, 0.2} {
			for _, method := range []string{"hypercube", "lp"} {
				tb := scaleTable(1, sz, share)
				opt := Options{Method: method}
				t0 := time.Now()
				if _, err := Protect(context.Background(), tb, opt); err != nil {
					t.Fatal(err)
				}
				d := time.Since(t0)
				res, err := Audit(context.Background(), tb, opt)
				if err != nil {
					t.Fatal(err)
				}
				cost, n, totals := 0.0, 0, 0
				for _, c := range tb.Cells {
					if c.Status == audit.StatusSecondary {
						cost += c.Total.Float64()
						n++
						if c.IsMargin("Total") {
							totals++
						}
					}
				}
				t.Logf("%v %.0f%% %s: %v, %d secondary (%d totals), cost %.0f; unsafe %d", sz, share*100, method, d.Round(time.Millisecond), n, totals, cost, res.ExactlyDisclosed+res.UnderProtected+res.Undetermined)
				if res.NeedsPerson() {
					t.Errorf("%v %s: %d exact, %d under-protected, %d undetermined", sz, method, res.ExactlyDisclosed, res.UnderProtected, res.Undetermined)
				}
			}
		}
	}
}

var scaleSizes = [][]int{{10, 10}, {20, 20}, {10, 8, 5}}
