package intervals

import (
	"os"
	"strconv"
	"time"
)

// benchTuning is the audit tuning of the exact-bounds benchmark: the
// defaults, with SDC_EXACT_ITERS overriding Tuning.ExactIters and
// SDC_BULK_ITERS Tuning.BulkIters (to measure the work budgets' effect).
func benchTuning() *Tuning {
	tune := DefaultTuning()
	if v, err := strconv.Atoi(os.Getenv("SDC_EXACT_ITERS")); err == nil && v > 0 {
		tune.ExactIters = v
	}
	if v, err := strconv.Atoi(os.Getenv("SDC_BULK_ITERS")); err == nil && v >= 0 {
		tune.BulkIters = v
	}
	return &tune
}

// benchLimit is the hard stop of the exact-bounds benchmark: 60 s, or
// SDC_EXACT_LIMIT seconds (0: none), for a loaded machine, where the
// counted work, not the clock, should decide what is settled.
func benchLimit() time.Duration {
	if v, err := strconv.Atoi(os.Getenv("SDC_EXACT_LIMIT")); err == nil && v >= 0 {
		return time.Duration(v) * time.Second
	}
	return 60 * time.Second
}
