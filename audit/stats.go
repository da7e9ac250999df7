package audit

import (
	"fmt"
	"strconv"
	"strings"
)

// StatKind is the kind of a statistic a table publishes per cell.
type StatKind uint8

// The statistic kinds. The zero value is no kind.
const (
	KindCount    StatKind = iota + 1 // number of contributors
	KindTotal                        // sum of contributions
	KindMean                         // total / count
	KindSD                           // sample standard deviation
	KindVariance                     // sample variance
	KindMedian                       // median
	KindMin                          // smallest contribution
	KindMax                          // largest contribution
	KindSkewness                     // skewness (a standardised third moment)
	KindKurtosis                     // kurtosis (a standardised fourth moment)
	KindMoment                       // raw moment mean m_p = S_p / n
)

var kindNames = [...]string{
	KindCount: "count", KindTotal: "total", KindMean: "mean", KindSD: "sd",
	KindVariance: "variance", KindMedian: "median", KindMin: "min",
	KindMax: "max", KindSkewness: "skewness", KindKurtosis: "kurtosis",
}

// Statistic is one published statistic: a kind, and for a raw moment mean
// its order P (m1, m2, ...).
type Statistic struct {
	Kind StatKind
	P    int // order of a KindMoment; 0 for the other kinds
}

// Moment returns the raw moment mean of order p.
func Moment(p int) Statistic { return Statistic{Kind: KindMoment, P: p} }

// String is the statistic's name as configurations, reports and cell
// statistics (Cell.Stats) spell it: count, total, ..., kurtosis, m1, m2, ...
func (s Statistic) String() string {
	if s.Kind == KindMoment {
		return "m" + strconv.Itoa(s.P)
	}
	if int(s.Kind) < len(kindNames) && kindNames[s.Kind] != "" {
		return kindNames[s.Kind]
	}
	return fmt.Sprintf("StatKind(%d)", s.Kind)
}

// ParseStatistic reads a statistic's name (see String). Raw moment means
// are m1 ... m100.
func ParseStatistic(name string) (Statistic, bool) {
	for k, n := range kindNames {
		if n != "" && n == name {
			return Statistic{Kind: StatKind(k)}, true
		}
	}
	if d, ok := strings.CutPrefix(name, "m"); ok && d != "" && d[0] != '0' && d[0] != '+' && d[0] != '-' {
		if p, err := strconv.Atoi(d); err == nil && p >= 1 && p <= MaxMomentOrder {
			return Moment(p), true
		}
	}
	return Statistic{}, false
}

// MaxMomentOrder is the highest raw moment order a table may publish.
const MaxMomentOrder = 100

// MomentOrder is the order of the raw moment the statistic releases for
// the moment attack (DOMAIN.md, Lehmer mean): 2 for SD and variance, 3 for
// skewness, 4 for kurtosis, p for the raw moment mean m_p. It is 0 for the
// statistics that are not moment releases: count, total and mean (the
// first moment, which any cell with a count and a total gives; only an
// explicit m1 counts), median, min and max.
//
// This is the one mapping from statistic to moment order: the pipeline,
// the aggregate reader and the rules use it.
func (s Statistic) MomentOrder() int {
	switch s.Kind {
	case KindSD, KindVariance:
		return 2
	case KindSkewness:
		return 3
	case KindKurtosis:
		return 4
	case KindMoment:
		return s.P
	}
	return 0
}

// PublishedOrder is the highest moment order a list of published
// statistics releases (0 when none is a moment release).
func PublishedOrder(stats []Statistic) int {
	o := 0
	for _, s := range stats {
		o = max(o, s.MomentOrder())
	}
	return o
}
