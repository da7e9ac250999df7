package intervals

import (
	"os"
	"strconv"
)

// benchTuning is the audit tuning of the exact-bounds benchmark: the
// defaults, with SDC_EXACT_ITERS overriding Tuning.ExactIters (to
// measure the work budget's effect).
func benchTuning() *Tuning {
	tune := DefaultTuning()
	if v, err := strconv.Atoi(os.Getenv("SDC_EXACT_ITERS")); err == nil && v > 0 {
		tune.ExactIters = v
	}
	return &tune
}
