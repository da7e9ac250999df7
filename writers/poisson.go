package writers

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// RecoveryPlot is the Poisson recovery experiment of "sdcaudit moments
// simulate" (Stander and Stander 2024, section 4.2) as a chart: the
// smallest moment order that recovers a whole sample, against the sample
// size, one series per Poisson mean.
type RecoveryPlot struct {
	// Sizes are the sample sizes n (the x axis), Means the Poisson means
	// (one series each).
	Sizes []int
	Means []float64
	// Reps and Seed are the replicates per point and the random seed,
	// named in the subtitle.
	Reps int
	Seed uint64
	// Points[j*len(Sizes)+i] is the outcome for Means[j] and Sizes[i].
	Points []RecoveryPoint
}

// RecoveryPoint is the outcome for one sample size and Poisson mean: the
// smallest power that recovers every value (mean, min and max over the
// replicates) and the mean smallest power that recovers the largest value.
type RecoveryPoint struct {
	N              int
	AllMean        float64
	AllMin, AllMax int
	LargestMean    float64
}

// WriteSVG draws the smallest recovery power against n, one colour per
// Poisson mean: the mean over replicates as a line with points, the
// min-max range as a band, and the line 2p = n.
func (p *RecoveryPlot) WriteSVG(w io.Writer) error {
	rows, sizes, means := p.Points, p.Sizes, p.Means
	if len(sizes) == 0 || len(rows) != len(sizes)*len(means) {
		return fmt.Errorf("recovery plot: %d points for %d sizes and %d means", len(rows), len(sizes), len(means))
	}
	const W, H, L, R, T, B = 760, 480, 70, 170, 50, 60
	pw, ph := float64(W-L-R), float64(H-T-B)
	xmax := float64(slices.Max(sizes))
	xmin := float64(slices.Min(sizes))
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	ymax := 1.0
	for _, r := range rows {
		ymax = max(ymax, float64(r.AllMax))
	}
	ymax = niceCeil(ymax * 1.05)
	X := func(n float64) float64 { return float64(L) + (n-xmin)/(xmax-xmin)*pw }
	Y := func(p float64) float64 { return float64(T) + ph - p/ymax*ph }
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<title>Smallest moment order that recovers a Poisson sample</title>`+"\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="15" font-weight="bold">Smallest power p whose moments recover the whole sample</text>`+"\n", L)
	fmt.Fprintf(&b, `<text x="%d" y="40" fill="#555">Poisson samples, values rounded up to integers; mean of %d replicates (band: min-max), seed %d</text>`+"\n", L, p.Reps, p.Seed)
	// axes and grid
	for _, p := range niceTicks(0, ymax) {
		y := Y(p)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", L, y, float64(L)+pw, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", L-6, y+4, p)
	}
	for _, n := range niceTicks(xmin, xmax) {
		x := X(n)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x, T, x, float64(T)+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", x, float64(T)+ph+16, n)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", L, T, pw, ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">sample size n</text>`+"\n", float64(L)+pw/2, H-16)
	fmt.Fprintf(&b, `<text transform="translate(18 %.1f) rotate(-90)" text-anchor="middle">smallest p</text>`+"\n", float64(T)+ph/2)
	// 2p = n
	x0, x1 := xmin, min(xmax, 2*ymax)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-dasharray="5 4"/>`+"\n", X(x0), Y(x0/2), X(x1), Y(x1/2))
	for j, m := range means {
		col := colors[j%len(colors)]
		rs := rows[j*len(sizes) : (j+1)*len(sizes)]
		var band, line strings.Builder
		for i, r := range rs {
			fmt.Fprintf(&band, "%s%.1f,%.1f", sep(i), X(float64(r.N)), Y(float64(r.AllMax)))
			fmt.Fprintf(&line, "%s%.1f,%.1f", sep(i), X(float64(r.N)), Y(r.AllMean))
		}
		for i := len(rs) - 1; i >= 0; i-- {
			fmt.Fprintf(&band, " %.1f,%.1f", X(float64(rs[i].N)), Y(float64(rs[i].AllMin)))
		}
		fmt.Fprintf(&b, `<polygon points="%s" fill="%s" fill-opacity="0.15" stroke="none"/>`+"\n", band.String(), col)
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", line.String(), col)
		for _, r := range rs {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>n=%d mean=%g: p %.1f [%d-%d], largest %.1f</title></circle>`+"\n", X(float64(r.N)), Y(r.AllMean), col, r.N, m, r.AllMean, r.AllMin, r.AllMax, r.LargestMean)
		}
		ly := T + 10 + 20*j
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">Poisson mean %g</text>`+"\n", W-R+15, ly, W-R+40, ly, col, W-R+46, ly+4, m)
	}
	ly := T + 10 + 20*len(means)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black" stroke-dasharray="5 4"/><text x="%d" y="%d">2p = n</text>`+"\n", W-R+15, ly, W-R+40, ly, W-R+46, ly+4)
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555" font-size="11"><tspan x="%d" dy="0">Moments of order</tspan><tspan x="%d" dy="14">below a curve do not</tspan><tspan x="%d" dy="14">recover the sample;</tspan><tspan x="%d" dy="14">the largest value leaks</tspan><tspan x="%d" dy="14">much earlier (see table).</tspan></text>`+"\n", W-R+15, ly+30, W-R+15, W-R+15, W-R+15, W-R+15, W-R+15)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
