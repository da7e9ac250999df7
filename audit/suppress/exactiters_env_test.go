package suppress

import (
	"os"
	"strconv"
)

// SDC_EXACT_ITERS overrides exactIters in benchmarks (to measure the
// work budget's effect); tests set it themselves.
func init() {
	if v, err := strconv.Atoi(os.Getenv("SDC_EXACT_ITERS")); err == nil && v > 0 {
		exactIters = v
	}
}
