package suppress

import (
	"os"
	"strconv"
)

// benchAuditTuning is the audit tuning of the exact-bounds benchmark: the
// defaults, with SDC_EXACT_ITERS overriding AuditTuning.ExactIters (to
// measure the work budget's effect).
func benchAuditTuning() *AuditTuning {
	tune := DefaultAuditTuning()
	if v, err := strconv.Atoi(os.Getenv("SDC_EXACT_ITERS")); err == nil && v > 0 {
		tune.ExactIters = v
	}
	return &tune
}
