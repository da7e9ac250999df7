package compare

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
)

// kappaWords interprets kappa as Viera and Garrett (2005), the thesis's
// Table 4.
func kappaWords(k float64) string {
	switch {
	case k <= 0:
		return "poor"
	case k <= 0.2:
		return "slight"
	case k <= 0.4:
		return "fair"
	case k <= 0.6:
		return "moderate"
	case k <= 0.8:
		return "substantial"
	}
	return "almost perfect"
}

// WriteText writes the comparison for a person.
func (r *Result) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "%s: %d cells", r.Source, r.Cells)
	if r.Skipped > 0 {
		fmt.Fprintf(b, " (%d skipped: not assessable by every rule)", r.Skipped)
	}
	fmt.Fprintf(b, "; target %.4g%% sensitive (%d cells)\n", 100*r.Target, r.TargetCells)
	if r.Rounded != nil {
		fmt.Fprintf(b, "values rounded to base %s (input.rounded): each rule judges every value a rounded count and total stand for, as check does; a cell counts as sensitive when some of them is (check: primary or review)\n", r.Rounded)
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "%-10s %-12s %10s %10s %8s\n", "rule", "parameter", "value", "sensitive", "share")
	for _, x := range r.Rules {
		note := ""
		if !x.Reached {
			note = "  (target not reachable in the parameter's range)"
		}
		fmt.Fprintf(b, "%-10s %-12s %10s %10d %7.2f%%%s\n", x.Rule, x.Param, x.Value, x.Sensitive, 100*x.Share, note)
	}
	fmt.Fprintf(b, "\npairwise agreement (A = first rule, B = second)\n")
	fmt.Fprintf(b, "%-22s %6s %7s %7s %8s %7s %7s\n", "A vs B", "both", "A only", "B only", "neither", "agree", "kappa")
	for _, p := range r.Pairs {
		k := "n/a"
		if p.Kappa != nil {
			k = fmt.Sprintf("%.3f (%s)", *p.Kappa, kappaWords(*p.Kappa))
		}
		fmt.Fprintf(b, "%-22s %6d %7d %7d %8d %6.1f%% %s\n", p.A+" vs "+p.B, p.Both, p.OnlyA, p.OnlyB, p.Neither, 100*p.Agreement, k)
	}
	fmt.Fprintf(b, "\ntypical cases where two rules disagree (means of shares of X; medians in brackets)\n")
	any := false
	for _, p := range r.Pairs {
		for _, g := range []struct {
			who, other string
			prof       *Profile
		}{{p.A, p.B, p.TypicalA}, {p.B, p.A, p.TypicalB}} {
			if g.prof == nil {
				continue
			}
			any = true
			fmt.Fprintf(b, "  sensitive by %s, safe by %s: %s\n", g.who, g.other, g.prof.line())
		}
	}
	if !any {
		fmt.Fprintf(b, "  none: the rules agree on every cell\n")
	}
	return b.Flush()
}

func (p *Profile) line() string {
	var s []string
	s = append(s, fmt.Sprintf("%d cells, n %.2f", p.Cells, p.MeanN))
	for i := range p.Share {
		s = append(s, fmt.Sprintf("x%d %.3f [%.3f]", i+1, p.Share[i], p.Median[i]))
	}
	s = append(s, fmt.Sprintf("x1-x2 %.3f", p.Gap), fmt.Sprintf("X-x1-x2 %.3f", p.Rest))
	if p.SD != nil {
		s = append(s, fmt.Sprintf("sd %.3f", *p.SD))
	}
	return strings.Join(s, ", ")
}

// palette colours the rules in the plot.
var palette = map[string]string{"dominance": "#1b6ca8", "p_percent": "#d1495b", "pq": "#edae49", "interval": "#00798c"}

// WriteSVG writes a self-contained SVG plot of the number of sensitive
// cells against each rule's parameter m = 1..100 (k, p, s in percent; p/q
// = m/100), the thesis's sensitivity plot, with the calibrated values
// marked.
func (r *Result) WriteSVG(w io.Writer) error {
	const (
		width, height = 720, 440
		left, right   = 70, 170
		top, bottom   = 40, 60
	)
	pw, ph := float64(width-left-right), float64(height-top-bottom)
	ymax := r.Cells
	xp := func(m float64) float64 { return float64(left) + pw*m/100 }
	yp := func(n int) float64 { return float64(top) + ph*(1-float64(n)/float64(ymax)) }
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(b, `<title>Sensitive cells against rule parameter</title>`+"\n")
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	rounded := ""
	if r.Rounded != nil {
		rounded = fmt.Sprintf("; values rounded to base %s", r.Rounded)
	}
	fmt.Fprintf(b, `<text x="%d" y="22" font-size="14">Sensitive cells against rule parameter (%s; %d cells assessed%s)</text>`+"\n", left, html.EscapeString(r.Source), r.Cells, rounded)
	// axes and grid
	for i := 0; i <= 10; i++ {
		m := float64(10 * i)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", xp(m), top, xp(m), height-bottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", xp(m), height-bottom+16, 10*i)
		n := ymax * i / 10
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left, yp(n), width-right, yp(n))
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n", left-6, yp(n)+4, n)
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="black"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">parameter m (k, p, s in %%; p/q = m/100)</text>`+"\n", xp(50), height-bottom+36)
	fmt.Fprintf(b, `<text x="18" y="%.1f" text-anchor="middle" transform="rotate(-90 18 %.1f)">sensitive cells</text>`+"\n", yp(ymax/2), yp(ymax/2))
	// target line
	fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888" stroke-dasharray="4 3"/>`+"\n", left, yp(r.TargetCells), width-right, yp(r.TargetCells))
	for i, x := range r.Rules {
		col := palette[x.Rule]
		var pts []string
		for _, p := range x.Curve {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xp(float64(p.M)), yp(p.Sensitive)))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", col, strings.Join(pts, " "))
		m := x.Value.Float64()
		if x.Rule == "pq" {
			m *= 100
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s %s = %s: %d cells</title></circle>`+"\n", xp(m), yp(x.Sensitive), col, x.Rule, html.EscapeString(x.Param), x.Value, x.Sensitive)
		ly := top + 10 + 22*i
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", width-right+12, ly, width-right+36, ly, col)
		fmt.Fprintf(b, `<text x="%d" y="%d">%s %s</text>`+"\n", width-right+42, ly+4, x.Rule, x.Value)
	}
	fmt.Fprintf(b, `</svg>`+"\n")
	return b.Flush()
}
