package audit

import (
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"
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

// NamedStat is one published statistic of a cell with its role name (see
// Cell.Stats).
type NamedStat struct {
	Name string
	Stat
}

// Stats are the statistics a cell publishes, by role name, in the order
// they were first set: the table's Publish order for a cell built from
// records, the input's columns for a cell read from a table. A short
// list, not a map: a cell of a table of a million holds two to a dozen,
// and a map costs a cell 648 bytes even for two. The zero Stats holds
// none.
//
// It keeps its list as a pointer and two 32-bit lengths, not a slice, so
// that a Cell takes 384 bytes (a Go size class) rather than 416.
//
// Like a slice, a copied Stats (a copied Cell) shares its list with the
// original: Set, Delete or Grow on the copy writes into the original's
// list (a map was shared too, but stayed consistent). No code changes the
// statistics of a copied cell today (rules/rounded.go's variants only
// read them); one that does must give the copy its own list first.
type Stats struct {
	p    *NamedStat // the list's first element (nil: none)
	n, c uint32     // its length and capacity
}

// view is the list.
func (s Stats) view() []NamedStat {
	if s.p == nil {
		return nil
	}
	return unsafe.Slice(s.p, s.c)[:s.n]
}

// keep makes list the statistics.
func (s *Stats) keep(list []NamedStat) {
	if cap(list) > math.MaxUint32 {
		panic("audit: more than 2^32 statistics in a cell")
	}
	s.p, s.n, s.c = unsafe.SliceData(list), uint32(len(list)), uint32(cap(list))
	if cap(list) == 0 {
		s.p = nil
	}
}

// String lists the statistics with their names, so that %v shows a
// cell's statistics, not where they are.
func (s Stats) String() string { return fmt.Sprintf("%+v", s.view()) }

// StatsOf returns the statistics of m in the order of their names.
func StatsOf(m map[string]Stat) Stats {
	var s Stats
	s.Grow(len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		s.Set(name, m[name])
	}
	return s
}

// Get returns the statistic named name.
func (s Stats) Get(name string) (Stat, bool) {
	list := s.view()
	for i := range list {
		if list[i].Name == name {
			return list[i].Stat, true
		}
	}
	return Stat{}, false
}

// Of returns the statistic named name, the zero Stat when the cell has
// none.
func (s Stats) Of(name string) Stat {
	st, _ := s.Get(name)
	return st
}

// Has reports whether the cell publishes the statistic named name.
func (s Stats) Has(name string) bool {
	_, ok := s.Get(name)
	return ok
}

// Len is the number of statistics.
func (s Stats) Len() int { return int(s.n) }

// All yields the statistics with their names in order.
func (s Stats) All() iter.Seq2[string, Stat] {
	return func(yield func(string, Stat) bool) {
		for _, ns := range s.view() {
			if !yield(ns.Name, ns.Stat) {
				return
			}
		}
	}
}

// Set sets the statistic named name: in its place when the cell has it,
// last otherwise.
func (s *Stats) Set(name string, st Stat) {
	list := s.view()
	for i := range list {
		if list[i].Name == name {
			list[i].Stat = st
			return
		}
	}
	s.keep(append(list, NamedStat{Name: name, Stat: st}))
}

// Delete removes the statistic named name, keeping the others' order.
func (s *Stats) Delete(name string) {
	s.keep(slices.DeleteFunc(s.view(), func(ns NamedStat) bool { return ns.Name == name }))
}

// Grow makes room for n more statistics, so that setting them allocates
// once.
func (s *Stats) Grow(n int) { s.keep(slices.Grow(s.view(), n)) }
