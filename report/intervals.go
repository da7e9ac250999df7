package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/sdcaudit/sdcaudit/audit"
)

// IntervalsJSON writes an interval audit in the contract's form (report.json's
// "audit", the audit command's --json): {"cells": [{"key": {dim: value},
// "lo", "hi", "exact", "protected"}], "exactly_disclosed",
// "under_protected"}; an unbounded hi (or lo, of a cell that may be negative) is null. True values are not written.
func IntervalsJSON(r audit.Intervals) []byte {
	var b bytes.Buffer
	b.WriteString(`{"cells":[`)
	for i, c := range r.Cells {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"key":{`)
		for d, v := range c.Key {
			if d > 0 {
				b.WriteByte(',')
			}
			name := fmt.Sprintf("dim%d", d)
			if d < len(r.Dims) {
				name = r.Dims[d]
			}
			writeJSON(&b, name)
			b.WriteByte(':')
			writeJSON(&b, v)
		}
		b.WriteString(`},"lo":`)
		if math.IsInf(c.Lo, -1) {
			b.WriteString("null") // a cell that may be negative, unbounded below
		} else {
			writeJSON(&b, c.Lo)
		}
		b.WriteString(`,"hi":`)
		if math.IsInf(c.Hi, 1) {
			b.WriteString("null")
		} else {
			writeJSON(&b, c.Hi)
		}
		fmt.Fprintf(&b, `,"exact":%v,"protected":%v`, c.Exact, c.Protected)
		if c.Status != audit.StatusUnset {
			b.WriteString(`,"status":`)
			writeJSON(&b, c.Status)
		}
		if c.Approximate {
			b.WriteString(`,"approximate":true`)
		}
		if c.Undetermined {
			b.WriteString(`,"undetermined":true`)
		}
		b.WriteByte('}')
	}
	fmt.Fprintf(&b, `],"exactly_disclosed":%d,"under_protected":%d`, r.ExactlyDisclosed, r.UnderProtected)
	if r.Approximate > 0 {
		fmt.Fprintf(&b, `,"approximate":%d`, r.Approximate)
	}
	if r.Undetermined > 0 {
		fmt.Fprintf(&b, `,"undetermined":%d`, r.Undetermined)
	}
	if r.NoMargins {
		b.WriteString(`,"no_margins":true`)
	}
	if len(r.Warnings) > 0 {
		b.WriteString(`,"warnings":`)
		writeJSON(&b, r.Warnings)
	}
	if sr := r.Suppression; sr != nil {
		b.WriteString(`,"suppression":{"method":`)
		writeJSON(&b, sr.Method)
		b.WriteString(`,"cost":`)
		writeJSON(&b, sr.Cost)
		b.WriteString(`,"margin_weight":`)
		writeJSON(&b, sr.MarginWeight)
		if sr.Fallback > 0 {
			fmt.Fprintf(&b, `,"fallback":%d,"fallback_reason":`, sr.Fallback)
			writeJSON(&b, sr.FallbackReason)
		}
		if sr.Chosen != "" {
			b.WriteString(`,"chosen":`)
			writeJSON(&b, sr.Chosen)
			b.WriteString(`,"chosen_reason":`)
			writeJSON(&b, sr.ChosenReason)
		}
		if sr.PatternCost != nil {
			b.WriteString(`,"pattern_cost":`)
			writeJSON(&b, *sr.PatternCost)
		}
		if sr.LowerBound != nil {
			b.WriteString(`,"lower_bound":`)
			writeJSON(&b, *sr.LowerBound)
		}
		if sr.Gap != nil {
			b.WriteString(`,"gap":`)
			writeJSON(&b, *sr.Gap)
		}
		if sr.Optimal {
			b.WriteString(`,"optimal":true`)
		}
		if sr.Stopped != "" {
			b.WriteString(`,"stopped":`)
			writeJSON(&b, sr.Stopped)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any) {
	out, _ := json.Marshal(v)
	b.Write(out)
}
