package report

import (
	"encoding/json"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit"
)

// TestSuppressionRunFallbackJSON: the audit's "suppression" object names
// the method, cost and margin weight, and, when the lp method left some
// primaries to the hypercube move, how many and why.
func TestSuppressionRunFallbackJSON(t *testing.T) {
	for _, fb := range []int{0, 3} {
		r := audit.Intervals{Suppression: &audit.SuppressionRun{Method: "lp", Cost: "value", Fallback: fb}}
		if fb > 0 {
			r.Suppression.FallbackReason = "no deviation found"
		}
		out := IntervalsJSON(r)
		var got struct {
			Suppression map[string]any `json:"suppression"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		s := got.Suppression
		if s["method"] != "lp" || s["cost"] != "value" || s["margin_weight"] != 0.0 {
			t.Errorf("%s", out)
		}
		_, has := s["fallback"]
		if fb == 0 && has || fb > 0 && (s["fallback"] != float64(fb) || s["fallback_reason"] != "no deviation found") {
			t.Errorf("fallback %d: %s", fb, out)
		}
	}
}
