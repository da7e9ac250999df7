package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sdcaudit/sdcaudit/rules/moments"
)

func printMoments(w io.Writer, in *momentsInput, a moments.Assessment, r *momentsJSON) {
	src := map[string]string{"values": "microdata", "raw": "raw power sums", "moments": "raw moment means", "central": "central moments", "summary": "mean, SD, skewness, kurtosis"}[in.source]
	fmt.Fprintf(w, "Lehmer-mean attack: n = %d, moments of orders 1..%d from %s", r.N, r.Order, src)
	if r.Definition != "" {
		fmt.Fprintf(w, " (%s)", r.Definition)
	}
	fmt.Fprintln(w)
	if r.Inconsistent {
		fmt.Fprintln(w, "Inconsistent input: no non-negative data have these moments (see the verdict); the estimates below assess nothing")
	}
	known := in.truth != nil
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	if known {
		fmt.Fprintln(tw, "p\tlargest L_p\terror%\tsecond two-pair\terror%\tsecond one-pair\terror%\tsafe\t")
	} else {
		fmt.Fprintln(tw, "p\tlargest L_p\tsecond two-pair\tsecond one-pair\tbracket for max\twidth%\tsafe\t")
	}
	num := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return strconv.FormatFloat(*v, 'g', 6, 64)
	}
	yes := map[bool]string{true: "yes", false: "NO"}
	for _, l := range r.Lehmer {
		est := strconv.FormatFloat(l.Estimate, 'g', 6, 64)
		if known {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.P, est, num(l.RelError), num(l.Second), num(l.SecondE), num(l.OnePair), num(l.OnePairE), yes[l.Safe])
		} else {
			o := a.Orders[l.P-1]
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t[%.6g, %.6g]\t%.3g\t%s\t\n", l.P, est, num(l.Second), num(l.OnePair), o.Bracket.Lo, o.Bracket.Hi, o.Bracket.WidthPct, yes[l.Safe])
		}
	}
	tw.Flush()
	line := func(label string, e momentsEst) {
		fmt.Fprintf(w, "%s ", label)
		if e.Estimate == nil {
			fmt.Fprintf(w, "none (%s)\n", e.Note)
			return
		}
		fmt.Fprintf(w, "%s", num(e.Estimate))
		if e.True != nil {
			fmt.Fprintf(w, ", true %s, error %s%%", num(e.True), num(e.RelError))
		}
		fmt.Fprintln(w)
	}
	line(fmt.Sprintf("Largest (L_%d):", r.Order), r.Largest)
	if r.Second.Estimate != nil {
		line(fmt.Sprintf("Second, two-pair (%d, %d):", r.Second.P, r.Second.PPrime), r.Second.momentsEst)
	} else {
		line("Second, two-pair:", r.Second.momentsEst)
	}
	line(fmt.Sprintf("Second, one-pair (step %g):", r.Step), r.Second.OnePair)
	if r.Harmonic != nil {
		fmt.Fprintf(w, "Harmonic mean L_0: %s\n", num(r.Harmonic))
	}
	if rec := r.Recovery; rec != nil {
		vals := rec.Values
		more := ""
		if len(vals) > 12 {
			vals, more = vals[:12], " ..."
		}
		strs := make([]string, len(vals))
		for i, v := range vals {
			strs[i] = strconv.FormatFloat(v, 'g', 8, 64)
		}
		fmt.Fprintf(w, "Recovery of all values at p = %d: %s%s", rec.P, strings.Join(strs, ", "), more)
		if rec.Correct != nil {
			fmt.Fprintf(w, " (%d of %d exact)", *rec.Correct, r.N)
		}
		if !rec.Complete {
			fmt.Fprintf(w, " (incomplete: %s)", rec.Note)
		}
		fmt.Fprintln(w)
	}
	if r.RecoveryP != nil {
		fmt.Fprintf(w, "Moments up to order %d recover every value exactly.\n", *r.RecoveryP)
	}
	at := ""
	if r.SafeAtLeast {
		at = "at least "
	}
	fmt.Fprintf(w, "Safe order: %s%d\n", at, r.SafeOrder)
	fmt.Fprintf(w, "Verdict: %s: %s\n", r.Verdict, r.Reason)
}
