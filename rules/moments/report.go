package moments

import (
	"fmt"
	"math"
	"strconv"
)

// Release is one cell's released moments as the attack sees them. The
// command (sdcaudit moments) and the moments rule both describe a cell this
// way and get their verdict and reason from Evaluate, so that they can
// never tell the same story two ways.
type Release struct {
	// Sums are the power sums of orders 1..Sums.Order() (possibly more
	// than are released, to find the highest safe order).
	Sums Sums
	// Truth holds the true largest values when the microdata are known;
	// nil judges the intruder's bracket for the maximum instead.
	Truth *Truth
	// Options are the thresholds and the exact figures for ties.
	Options Options
	// Order is the order the verdict is about: moments 1..Order are
	// released. At most Sums.Order().
	Order int
	// Published is the order the table publishes when the sums kept stop
	// short of it (Order < Published): the verdict is then review. 0 means
	// Order.
	Published int
	// Inconsistency, when set, says why the moments cannot come from
	// non-negative data: the verdict is review.
	Inconsistency *Inconsistency
	// MaxRelErrorText and IntervalText spell the thresholds in the reason
	// as configured (such as "10"); empty spells the Options' values.
	MaxRelErrorText, IntervalText string
}

// Report is the outcome of the Lehmer-mean attack on one release: what
// every order gives an intruder, the decision over the released orders, the
// verdict and its reason in words.
type Report struct {
	// Assessment covers orders 1..Sums.Order(); it has no orders when the
	// sums are empty (moments inconsistent from the start).
	Assessment Assessment
	// Order is the released order the verdict is about.
	Order int
	// Decision is Decide's verdict over the orders 1..Order.
	Decision Decision
	// Verdict is the verdict for the release: Decision's, or review when
	// the sums kept stop short of the published order.
	Verdict Verdict
	// Reason says why, naming the order and the closest estimate.
	Reason string
}

// Evaluate assesses the release and states the verdict and its reason.
func Evaluate(rel Release) Report {
	r := Report{Order: rel.Order}
	var a *Assessment
	if rel.Sums.Order() > 0 && rel.Order > 0 {
		r.Assessment = Assess(rel.Sums, rel.Truth, rel.Options)
		a = &r.Assessment
	}
	r.Decision = Decide(a, rel.Order, rel.Inconsistency)
	r.Verdict = r.Decision.Verdict
	rel.Options = rel.Options.norm()
	rel.MaxRelErrorText = orText(rel.MaxRelErrorText, rel.Options.MaxRelError)
	rel.IntervalText = orText(rel.IntervalText, rel.Options.Interval)
	switch {
	case r.Verdict == VerdictReview:
		r.Reason = r.Decision.Reason
	case a == nil:
		r.Reason = "no moments are released"
	case r.Verdict == VerdictUnsafe:
		r.Reason = failReason(r.Assessment, r.Decision.Order, rel)
	case rel.Published > rel.Order:
		r.Verdict = VerdictReview
		r.Reason = fmt.Sprintf("the table publishes moments up to order %d but only %d power sums were kept; raise max_order", rel.Published, rel.Order)
	default:
		r.Reason = safeReason(r.Assessment, rel)
	}
	return r
}

func orText(s string, v float64) string {
	if s != "" {
		return s
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// failReason names the closest estimate at the first unsafe order p.
func failReason(a Assessment, p int, rel Release) string {
	o := a.Orders[p-1]
	safe := fmt.Sprintf("moments are safe only up to order %d", a.SafeOrder)
	if a.SafeOrder == 0 {
		safe = "even the mean is unsafe"
	}
	if rel.Truth == nil {
		return fmt.Sprintf("moments up to order %d bracket the largest contribution in an interval %.3g%% wide (threshold %s%%); %s", o.P, o.Bracket.WidthPct, rel.IntervalText, safe)
	}
	what, e := "largest", o.Largest
	for _, c := range []Estimate{o.TwoPair, o.OnePair} {
		if c.HasError && (!e.HasError || math.Abs(c.RelError) < math.Abs(e.RelError)) {
			what, e = "second largest", c
		}
	}
	return fmt.Sprintf("moments up to order %d let an intruder estimate the %s contribution within %.2g%% (threshold %s%%); %s", o.P, what, math.Abs(e.RelError), rel.MaxRelErrorText, safe)
}

// safeReason says how far the release is from disclosing. It speaks of
// the released orders only: the highest safe order over more sums is
// Assessment.SafeOrder, reported apart.
func safeReason(a Assessment, rel Release) string {
	k := rel.Order
	if rel.Truth != nil {
		return fmt.Sprintf("moments up to order %d do not let an intruder estimate the largest or second largest contribution within %s%%", k, rel.MaxRelErrorText)
	}
	return fmt.Sprintf("moments up to order %d leave the largest contribution in a bracket %.3g%% wide (at least %s%% needed)", k, a.Orders[k-1].Bracket.WidthPct, rel.IntervalText)
}
